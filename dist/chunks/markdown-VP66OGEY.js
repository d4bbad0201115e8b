import { createRequire as __cgCreateRequire } from 'node:module';
const require = __cgCreateRequire(import.meta.url);
import{a,b,c,d,e}from"./chunk-GVALTURK.js";import"./chunk-G62HPFDP.js";import"./chunk-EHR7TKGS.js";import"./chunk-6D3SD7QI.js";import"./chunk-25DXEFVI.js";export{b as MAX_CHART_POINTS,a as MAX_SUMMARY_BYTES,d as chartGrid,c as downsample,e as renderSummary};
//# sourceMappingURL=markdown-VP66OGEY.js.map
