import { createRequire as __cgCreateRequire } from 'node:module';
const require = __cgCreateRequire(import.meta.url);
import{a,b,c}from"./chunk-BOHVTP2Y.js";import"./chunk-PWVQTTOS.js";import"./chunk-Y3YFF6YU.js";import"./chunk-BE2TR774.js";import"./chunk-77HAELQ6.js";import"./chunk-F5CQG3BV.js";import"./chunk-YJR2IGVK.js";import"./chunk-THX4JMUZ.js";import"./chunk-F3IEBV6A.js";import"./chunk-LKPMGJ6X.js";import"./chunk-PYQUZR4R.js";import"./chunk-TVCK7UTO.js";import"./chunk-M3SHSEKE.js";import"./chunk-25DXEFVI.js";export{b as formatRefusal,c as formatValidate,a as validatePlanFile};
//# sourceMappingURL=validate-P3WA6YYV.js.map
