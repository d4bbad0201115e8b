import { createRequire as __cgCreateRequire } from 'node:module';
const require = __cgCreateRequire(import.meta.url);
import{a as e}from"./chunk-5UJDRNZS.js";import"./chunk-JPWVYPH2.js";import"./chunk-2RXAXGNB.js";import"./chunk-RHOFGWNP.js";import"./chunk-EQURLKN3.js";import"./chunk-R6UQIGJM.js";import"./chunk-WTG26QOJ.js";import"./chunk-CZG2LLAG.js";import"./chunk-25DXEFVI.js";export{e as getDefaultRoleAssumer};
//# sourceMappingURL=loadSts-BN6QH6SX.js.map
