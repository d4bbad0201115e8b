import { createRequire as __cgCreateRequire } from 'node:module';
const require = __cgCreateRequire(import.meta.url);
var s=/^([\s\u0085]*)::/u,u=/#(?=#[A-Za-z]*\[)/g,e=/\r\n|[\u0000-\u0008\u000a-\u001f\u007f-\u009f\u2028\u2029]/g,i={"\r\n":"\\r\\n","\n":"\\n","\r":"\\r"};function g(n){return i[n]??`\\u${n.charCodeAt(0).toString(16).padStart(4,"0")}`}function t(n){return n.replace(u,"#\u200B").replace(s,"$1\u200B::")}function c(n){return t(String(n).replace(e,g))}function a(n){return String(n).split(/(\r\n|\r|\n)/).map((r,o)=>o%2===1?r:t(r)).join("")}export{c as a,a as b};
//# sourceMappingURL=chunk-IIR2OTHB.js.map
