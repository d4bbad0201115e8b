import { createRequire as __cgCreateRequire } from 'node:module';
const require = __cgCreateRequire(import.meta.url);
import{a,b,c}from"./chunk-AY6GBBYE.js";import"./chunk-V6Q5TVEM.js";import"./chunk-XLQ3EX6P.js";import"./chunk-77HAELQ6.js";import"./chunk-IJH6KL4Z.js";import"./chunk-T3CBBOP3.js";import"./chunk-JK3FOVJL.js";import"./chunk-4ZL3I2BX.js";import"./chunk-SGKFDL4C.js";import"./chunk-WWFBIK55.js";import"./chunk-GSNKVR4F.js";import"./chunk-ZS7KEDBG.js";import"./chunk-EQXRDIRX.js";import"./chunk-RDFI6XVV.js";import"./chunk-T6DYACQC.js";import"./chunk-LMC7RMET.js";import"./chunk-25DXEFVI.js";export{a as buildPlanReview,c as refusalLines,b as reviewLines};
//# sourceMappingURL=review-C5QF5NRS.js.map
