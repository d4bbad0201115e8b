import { createRequire as __cgCreateRequire } from 'node:module';
const require = __cgCreateRequire(import.meta.url);
import{a,b,c,d}from"./chunk-F4ZWS355.js";import"./chunk-M3SHSEKE.js";import"./chunk-XTG5ZU7U.js";import"./chunk-B2RS7DJ3.js";import"./chunk-I4ASWHR4.js";import"./chunk-25DXEFVI.js";export{a as failoverReplayData,b as journalReplayData,d as renderFailoverHtml,c as renderReplayHtml};
//# sourceMappingURL=html-QE4WTYFP.js.map
