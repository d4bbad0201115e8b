import { createRequire as __cgCreateRequire } from 'node:module';
const require = __cgCreateRequire(import.meta.url);
import{g as a,h as b,i as c}from"./chunk-AKAES6EZ.js";import"./chunk-2CBHCUH5.js";import"./chunk-4RLLMRF4.js";import"./chunk-G62HPFDP.js";import"./chunk-EHR7TKGS.js";import"./chunk-6D3SD7QI.js";import"./chunk-25DXEFVI.js";export{c as fallbackNotice,a as isPlanReview,b as prComment};
//# sourceMappingURL=comment-WPD6GUXI.js.map
