import { createRequire as __cgCreateRequire } from 'node:module';
const require = __cgCreateRequire(import.meta.url);
var i="<fill in: ";function f(r){return`${i}${r}>`}function s(r){return typeof r=="string"&&r.startsWith(i)}function c(r){return r.slice(i.length).replace(/>$/,"")}function o(r,t=[]){return s(r)?[{path:t,text:c(r)}]:Array.isArray(r)?r.flatMap((n,e)=>o(n,[...t,e])):r!==null&&typeof r=="object"?Object.entries(r).flatMap(([n,e])=>o(e,[...t,n])):[]}export{i as a,f as b,s as c,o as d};
//# sourceMappingURL=chunk-77HAELQ6.js.map
