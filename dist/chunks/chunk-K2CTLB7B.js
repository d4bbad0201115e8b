import { createRequire as __cgCreateRequire } from 'node:module';
const require = __cgCreateRequire(import.meta.url);
var n={finished:"finished",experimentId:"experiment-id",checkRunId:"check-run-id",region:"region",planId:"plan-id",checkRunCompleted:"check-run-completed",journal:"journal",conclusions:"conclusions"};export{n as a};
//# sourceMappingURL=chunk-K2CTLB7B.js.map
