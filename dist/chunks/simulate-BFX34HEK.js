import { createRequire as __cgCreateRequire } from 'node:module';
const require = __cgCreateRequire(import.meta.url);
import{d as a,e as b,f as c}from"./chunk-TBNOEPPS.js";import"./chunk-4CSYHKNB.js";import"./chunk-WHBYUHOI.js";import"./chunk-BHUM7DTT.js";import"./chunk-LWPML6ZQ.js";import"./chunk-6D3SD7QI.js";import"./chunk-WDYXHSGP.js";import"./chunk-DDFUS65P.js";import"./chunk-BSAB7I4Y.js";import"./chunk-PKSCTFNT.js";import"./chunk-VDM2EAIA.js";import"./chunk-QXKEIEZS.js";import"./chunk-A2B2VILJ.js";import"./chunk-TVCK7UTO.js";import"./chunk-3UROKGFD.js";import"./chunk-4RLLMRF4.js";import"./chunk-ABPKUT7E.js";import"./chunk-7G6JGMPY.js";import"./chunk-25DXEFVI.js";export{a as loadPlanOrReport,b as runSimulation,c as simulate};
//# sourceMappingURL=simulate-BFX34HEK.js.map
