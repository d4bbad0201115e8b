import { createRequire as __cgCreateRequire } from 'node:module';
const require = __cgCreateRequire(import.meta.url);
import{a,b,c}from"./chunk-CG43UZEC.js";import"./chunk-ZZWVIFMM.js";import"./chunk-BEJXH3YA.js";import"./chunk-UD5UNOSV.js";import"./chunk-BXOVQLUO.js";import"./chunk-25DXEFVI.js";export{c as credentialsTreatedAsExpired,b as credentialsWillNeedRefresh,a as defaultProvider};
//# sourceMappingURL=dist-es-IPGE5CKA.js.map
