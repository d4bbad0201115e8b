import { createRequire as __cgCreateRequire } from 'node:module';
const require = __cgCreateRequire(import.meta.url);
import{a as r}from"./chunk-ZS7KEDBG.js";function l(e){let t=e.field===""?"":`${e.field}: `;return`${e.file}:${e.line}:${e.column}: ${t}${e.message}`}var o=class extends Error{constructor(i,n,m="document"){super(`${i}: invalid ${m} (${n.length} ${n.length===1?"issue":"issues"})
`+n.map(l).join(`
`));this.file=i;this.issues=n}file;issues;name="DocumentError";exit=r};export{l as a,o as b};
//# sourceMappingURL=chunk-GSNKVR4F.js.map
