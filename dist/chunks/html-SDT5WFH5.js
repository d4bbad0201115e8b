import { createRequire as __cgCreateRequire } from 'node:module';
const require = __cgCreateRequire(import.meta.url);
import{a,b,c,d}from"./chunk-B7TU2FRG.js";import"./chunk-5FKF7ATX.js";import"./chunk-M3SHSEKE.js";import"./chunk-DXLVGJMC.js";import"./chunk-LMC7RMET.js";import"./chunk-25DXEFVI.js";export{a as failoverReplayData,b as journalReplayData,d as renderFailoverHtml,c as renderReplayHtml};
//# sourceMappingURL=html-SDT5WFH5.js.map
