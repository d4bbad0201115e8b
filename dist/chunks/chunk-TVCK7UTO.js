import { createRequire as __cgCreateRequire } from 'node:module';
const require = __cgCreateRequire(import.meta.url);
var t={ms:1,s:1e3,m:6e4,h:36e5,d:864e5},u="^\\s*(\\d+(?:\\.\\d+)?)(ms|s|m|h|d)\\s*$",i=new RegExp(u);function d(n){let e=i.exec(n);if(!e||e[1]===void 0||e[2]===void 0)return;let r=t[e[2]];if(r!==void 0)return Math.round(Number(e[1])*r)}function o(n){for(let[e,r]of[["d",864e5],["h",36e5],["m",6e4],["s",1e3]])if(n>=r&&n%r===0)return`${n/r}${e}`;return n>=1e3?`${(n/1e3).toFixed(1)}s`:`${n}ms`}export{u as a,d as b,o as c};
//# sourceMappingURL=chunk-TVCK7UTO.js.map
