import { createRequire as __cgCreateRequire } from 'node:module';
const require = __cgCreateRequire(import.meta.url);
import{a,b,c,d,e}from"./chunk-FJDZZDSC.js";import"./chunk-S4QRAPZ7.js";import"./chunk-2CBHCUH5.js";import"./chunk-4RLLMRF4.js";import"./chunk-QJPOLOHU.js";import"./chunk-LMC7RMET.js";import"./chunk-25DXEFVI.js";export{b as MAX_CHART_POINTS,a as MAX_SUMMARY_BYTES,d as chartGrid,c as downsample,e as renderSummary};
//# sourceMappingURL=markdown-3T34S2QA.js.map
