import { createRequire as __cgCreateRequire } from 'node:module';
const require = __cgCreateRequire(import.meta.url);
import{a,b,c,d}from"./chunk-RQXCKHZX.js";import"./chunk-5FKF7ATX.js";import"./chunk-M3SHSEKE.js";import"./chunk-QJPOLOHU.js";import"./chunk-LMC7RMET.js";import"./chunk-25DXEFVI.js";export{a as failoverReplayData,b as journalReplayData,d as renderFailoverHtml,c as renderReplayHtml};
//# sourceMappingURL=html-7JTUGNRH.js.map
