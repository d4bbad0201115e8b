import { createRequire as __cgCreateRequire } from 'node:module';
const require = __cgCreateRequire(import.meta.url);
var t={ms:1,s:1e3,m:6e4,h:36e5,d:864e5},d="a duration such as 500ms, 5s, 2m, 1h or 30d",u="^\\s*(\\d+(?:\\.\\d+)?)(ms|s|m|h|d)\\s*$",o=new RegExp(u);function i(n){let e=o.exec(n);if(!e||e[1]===void 0||e[2]===void 0)return;let r=t[e[2]];if(r!==void 0)return Math.round(Number(e[1])*r)}function s(n){for(let[e,r]of[["d",864e5],["h",36e5],["m",6e4],["s",1e3]])if(n>=r&&n%r===0)return`${n/r}${e}`;return n>=1e3?`${(n/1e3).toFixed(1)}s`:`${n}ms`}export{d as a,u as b,i as c,s as d};
//# sourceMappingURL=chunk-EHR7TKGS.js.map
