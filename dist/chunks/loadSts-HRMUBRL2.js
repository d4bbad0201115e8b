import { createRequire as __cgCreateRequire } from 'node:module';
const require = __cgCreateRequire(import.meta.url);
import{a as e}from"./chunk-VG62IEZX.js";import"./chunk-3ZEFD5CB.js";import"./chunk-OCUGXRB4.js";import"./chunk-OEMGICUY.js";import"./chunk-R6UQIGJM.js";import"./chunk-WTG26QOJ.js";import"./chunk-CZG2LLAG.js";import"./chunk-25DXEFVI.js";export{e as getDefaultRoleAssumer};
//# sourceMappingURL=loadSts-HRMUBRL2.js.map
