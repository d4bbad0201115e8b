import { createRequire as __cgCreateRequire } from 'node:module';
const require = __cgCreateRequire(import.meta.url);
import{c as a,d as b,e as c,f as d,g as e}from"./chunk-MKAHH734.js";import"./chunk-6OAJOIND.js";import"./chunk-MUWS54WB.js";import"./chunk-7G6JGMPY.js";import"./chunk-25DXEFVI.js";export{a as DEFAULT_REGION,d as awsClientConfig,e as createAwsClients,c as fisEndpoint,b as resolveRegion};
//# sourceMappingURL=clients-VGJ3SPAX.js.map
