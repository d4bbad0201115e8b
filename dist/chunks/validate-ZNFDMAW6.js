import { createRequire as __cgCreateRequire } from 'node:module';
const require = __cgCreateRequire(import.meta.url);
import{a,b,c}from"./chunk-QAH2BRLA.js";import"./chunk-MNYVBWUK.js";import"./chunk-77HAELQ6.js";import"./chunk-2G6GP3NB.js";import"./chunk-5T6GIAZI.js";import"./chunk-4ZBO6UPA.js";import"./chunk-J3LL46CP.js";import"./chunk-MN7XPOS3.js";import"./chunk-LPBPJ2RO.js";import"./chunk-WWFBIK55.js";import"./chunk-JTX5CRBO.js";import"./chunk-M3SHSEKE.js";import"./chunk-3UROKGFD.js";import"./chunk-PYQUZR4R.js";import"./chunk-I4ASWHR4.js";import"./chunk-25DXEFVI.js";export{b as formatRefusal,c as formatValidate,a as validatePlanFile};
//# sourceMappingURL=validate-ZNFDMAW6.js.map
