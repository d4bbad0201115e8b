import { createRequire as __cgCreateRequire } from 'node:module';
const require = __cgCreateRequire(import.meta.url);
import{a,b,c,d,e}from"./chunk-74BIIMHA.js";import"./chunk-RFY3XBIP.js";import"./chunk-2CBHCUH5.js";import"./chunk-4RLLMRF4.js";import"./chunk-XTG5ZU7U.js";import"./chunk-B2RS7DJ3.js";import"./chunk-I4ASWHR4.js";import"./chunk-25DXEFVI.js";export{b as MAX_CHART_POINTS,a as MAX_SUMMARY_BYTES,d as chartGrid,c as downsample,e as renderSummary};
//# sourceMappingURL=markdown-XIGGOKVN.js.map
