import { createRequire as __cgCreateRequire } from 'node:module';
const require = __cgCreateRequire(import.meta.url);
function l(e){let r=e.field===""?"":`${e.field}: `;return`${e.file}:${e.line}:${e.column}: ${r}${e.message}`}var t=class extends Error{constructor(o,n,i="document"){super(`${o}: invalid ${i} (${n.length} ${n.length===1?"issue":"issues"})
`+n.map(l).join(`
`));this.file=o;this.issues=n}file;issues;name="DocumentError"};export{l as a,t as b};
//# sourceMappingURL=chunk-JTX5CRBO.js.map
