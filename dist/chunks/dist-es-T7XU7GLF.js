import { createRequire as __cgCreateRequire } from 'node:module';
const require = __cgCreateRequire(import.meta.url);
import{a,b,c,d,e,f,g}from"./chunk-ZZWVIFMM.js";import"./chunk-BEJXH3YA.js";import"./chunk-UD5UNOSV.js";import"./chunk-BXOVQLUO.js";import"./chunk-25DXEFVI.js";export{f as ENV_ACCOUNT_ID,e as ENV_CREDENTIAL_SCOPE,d as ENV_EXPIRATION,a as ENV_KEY,b as ENV_SECRET,c as ENV_SESSION,g as fromEnv};
//# sourceMappingURL=dist-es-T7XU7GLF.js.map
