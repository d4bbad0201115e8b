import { createRequire as __cgCreateRequire } from 'node:module';
const require = __cgCreateRequire(import.meta.url);
import{d as a,e as b,f as c}from"./chunk-3RHADREM.js";import"./chunk-4CSYHKNB.js";import"./chunk-575FOJQN.js";import"./chunk-BHUM7DTT.js";import"./chunk-LWPML6ZQ.js";import"./chunk-6D3SD7QI.js";import"./chunk-WDYXHSGP.js";import"./chunk-GLO66KI6.js";import"./chunk-QNV4IV7E.js";import"./chunk-PKSCTFNT.js";import"./chunk-BE2TR774.js";import"./chunk-F5CQG3BV.js";import"./chunk-F3IEBV6A.js";import"./chunk-TVCK7UTO.js";import"./chunk-3UROKGFD.js";import"./chunk-4RLLMRF4.js";import"./chunk-ABPKUT7E.js";import"./chunk-7G6JGMPY.js";import"./chunk-25DXEFVI.js";export{a as loadPlanOrReport,b as runSimulation,c as simulate};
//# sourceMappingURL=simulate-E5OFVQCM.js.map
