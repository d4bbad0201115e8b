import { createRequire as __cgCreateRequire } from 'node:module';
const require = __cgCreateRequire(import.meta.url);
import{a,b,c,d,e,f,g,h,i,j,k}from"./chunk-L3WJIRRG.js";import"./chunk-IIR2OTHB.js";import"./chunk-XTG5ZU7U.js";import"./chunk-B2RS7DJ3.js";import"./chunk-I4ASWHR4.js";import"./chunk-25DXEFVI.js";export{a as COLOR,i as COMPACT_EVERY_MS,b as PLAIN,h as STORY_EVENTS,g as formatEvent,d as formatTick,e as isWorse,f as journalProgressLines,k as judgementLines,j as progressPrinter,c as useColor};
//# sourceMappingURL=progress-KCFOMSZA.js.map
