import { createRequire as __cgCreateRequire } from 'node:module';
const require = __cgCreateRequire(import.meta.url);
import{a,b,c}from"./chunk-KRHO2MXN.js";import"./chunk-RFY3XBIP.js";import"./chunk-2CBHCUH5.js";import"./chunk-4RLLMRF4.js";import"./chunk-XTG5ZU7U.js";import"./chunk-B2RS7DJ3.js";import"./chunk-I4ASWHR4.js";import"./chunk-25DXEFVI.js";export{c as fallbackNotice,a as isPlanReview,b as prComment};
//# sourceMappingURL=comment-JFNU4F5D.js.map
