import { createRequire as __cgCreateRequire } from 'node:module';
const require = __cgCreateRequire(import.meta.url);
import{a,b,c}from"./chunk-NVHXAXQ2.js";import"./chunk-4QYZG5UZ.js";import"./chunk-ZQ6LOEG6.js";import"./chunk-77HAELQ6.js";import"./chunk-IJGSVFSE.js";import"./chunk-7X3DQHSU.js";import"./chunk-YFH4TU2Z.js";import"./chunk-3XNPM7XA.js";import"./chunk-F5CQG3BV.js";import"./chunk-F3IEBV6A.js";import"./chunk-YTJKWLTU.js";import"./chunk-VSRKG4CO.js";import"./chunk-JTX5CRBO.js";import"./chunk-LKPMGJ6X.js";import"./chunk-PYQUZR4R.js";import"./chunk-EHR7TKGS.js";import"./chunk-M3SHSEKE.js";import"./chunk-25DXEFVI.js";export{b as formatRefusal,c as formatValidate,a as validatePlanFile};
//# sourceMappingURL=validate-C3A423Q4.js.map
