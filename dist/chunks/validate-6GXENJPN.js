import { createRequire as __cgCreateRequire } from 'node:module';
const require = __cgCreateRequire(import.meta.url);
import{a,b,c}from"./chunk-JRZ3XOQ7.js";import"./chunk-KZKXZ3VF.js";import"./chunk-ZQ6LOEG6.js";import"./chunk-77HAELQ6.js";import"./chunk-VWTGY2LF.js";import"./chunk-O3A3UMY5.js";import"./chunk-YFH4TU2Z.js";import"./chunk-3XBTKLZR.js";import"./chunk-FOSMA5LH.js";import"./chunk-M4D3BQ5T.js";import"./chunk-YTJKWLTU.js";import"./chunk-VSRKG4CO.js";import"./chunk-JTX5CRBO.js";import"./chunk-LKPMGJ6X.js";import"./chunk-PYQUZR4R.js";import"./chunk-EHR7TKGS.js";import"./chunk-M3SHSEKE.js";import"./chunk-25DXEFVI.js";export{b as formatRefusal,c as formatValidate,a as validatePlanFile};
//# sourceMappingURL=validate-6GXENJPN.js.map
