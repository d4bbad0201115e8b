import { createRequire as __cgCreateRequire } from 'node:module';
const require = __cgCreateRequire(import.meta.url);
import{b as e}from"./chunk-CEUOZZJC.js";import"./chunk-HSEOEIKI.js";import"./chunk-ATQ2WON6.js";import"./chunk-R6UQIGJM.js";import"./chunk-WTG26QOJ.js";import"./chunk-HXOEG7A6.js";import"./chunk-CZG2LLAG.js";import"./chunk-25DXEFVI.js";export{e as getDefaultRoleAssumerWithWebIdentity};
//# sourceMappingURL=loadSts-S7PDF6ZR.js.map
