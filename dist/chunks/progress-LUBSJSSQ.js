import { createRequire as __cgCreateRequire } from 'node:module';
const require = __cgCreateRequire(import.meta.url);
import{a,b,c,d,e,f,g,h,i,j,k}from"./chunk-LTOZAY34.js";import"./chunk-IIR2OTHB.js";import"./chunk-QJPOLOHU.js";import"./chunk-LMC7RMET.js";import"./chunk-25DXEFVI.js";export{a as COLOR,i as COMPACT_EVERY_MS,b as PLAIN,h as STORY_EVENTS,g as formatEvent,d as formatTick,e as isWorse,f as journalProgressLines,k as judgementLines,j as progressPrinter,c as useColor};
//# sourceMappingURL=progress-LUBSJSSQ.js.map
