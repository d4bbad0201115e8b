import { createRequire as __cgCreateRequire } from 'node:module';
const require = __cgCreateRequire(import.meta.url);
var e=["held","deviated","aborted","inconclusive","not-run","refused","failed"],t={held:0,deviated:1,aborted:1,inconclusive:1,"not-run":1,refused:2,failed:1};export{e as a,t as b};
//# sourceMappingURL=chunk-EM6PDFUN.js.map
