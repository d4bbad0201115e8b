import { createRequire as __cgCreateRequire } from 'node:module';
const require = __cgCreateRequire(import.meta.url);
import{a,b,c}from"./chunk-RFGO25AK.js";import"./chunk-S4QRAPZ7.js";import"./chunk-2CBHCUH5.js";import"./chunk-4RLLMRF4.js";import"./chunk-QJPOLOHU.js";import"./chunk-LMC7RMET.js";import"./chunk-25DXEFVI.js";export{c as fallbackNotice,a as isPlanReview,b as prComment};
//# sourceMappingURL=comment-NK53CWSU.js.map
