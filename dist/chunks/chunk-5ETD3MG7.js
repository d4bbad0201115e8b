import { createRequire as __cgCreateRequire } from 'node:module';
const require = __cgCreateRequire(import.meta.url);
var e=["held","deviated","aborted","inconclusive","not-run","refused","failed"],r={held:0,deviated:1,aborted:1,inconclusive:1,"not-run":1,refused:2,failed:1};export{e as a,r as b};
//# sourceMappingURL=chunk-5ETD3MG7.js.map
