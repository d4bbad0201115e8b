import { createRequire as __cgCreateRequire } from 'node:module';
const require = __cgCreateRequire(import.meta.url);
var o=Object.freeze({code:2,verdict:"refused"}),u=Object.freeze({code:2,verdict:"failed"});function r(e){let n=e?.exit;return typeof n?.code=="number"&&(n.verdict==="refused"||n.verdict==="failed")}function a(e){return r(e)?e.exit:void 0}var d=8;function c(e,n){for(let t=e,i=0;t&&i<d;t=t.cause,i++)if(n(t))return t}export{o as a,u as b,a as c,c as d};
//# sourceMappingURL=chunk-ZS7KEDBG.js.map
