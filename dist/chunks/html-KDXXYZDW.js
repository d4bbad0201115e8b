import { createRequire as __cgCreateRequire } from 'node:module';
const require = __cgCreateRequire(import.meta.url);
import{a,b,c,d}from"./chunk-VOPGYP3F.js";import"./chunk-M3SHSEKE.js";import"./chunk-6D3SD7QI.js";import"./chunk-25DXEFVI.js";export{a as failoverReplayData,b as journalReplayData,d as renderFailoverHtml,c as renderReplayHtml};
//# sourceMappingURL=html-KDXXYZDW.js.map
