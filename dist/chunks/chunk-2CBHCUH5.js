import { createRequire as __cgCreateRequire } from 'node:module';
const require = __cgCreateRequire(import.meta.url);
function l(t,r){return r==="bytes"?Buffer.byteLength(t,"utf8"):t.length}function I(t,r,_,e="chars"){let o=l(t,e);if(o<=r)return t;let a=n=>`

---
> \u2702\uFE0F **Trimmed:** this ${_} was cut to GitHub's limit of ${r.toLocaleString("en-US")} ${e==="bytes"?"bytes":"characters"}; ${n.toLocaleString("en-US")} ${e==="bytes"?"bytes":"characters"} are omitted. The journal artifact holds the full record.
`,s=r-l(a(o),e),i=s;if(e==="bytes"){let n=0,c=Math.min(t.length,s);for(;n<c;){let T=Math.ceil((n+c)/2);Buffer.byteLength(t.slice(0,T),"utf8")<=s?n=T:c=T-1}i=n}let f=t.lastIndexOf(`
`,i),h=t.slice(0,f>0?f:i);return h+a(o-l(h,e))}export{I as a};
//# sourceMappingURL=chunk-2CBHCUH5.js.map
