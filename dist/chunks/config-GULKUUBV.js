import { createRequire as __cgCreateRequire } from 'node:module';
const require = __cgCreateRequire(import.meta.url);
import{c as a,d as b,e as c,f as d,g as e,h as f,i as g,j as h,k as i}from"./chunk-E3L7DII4.js";import"./chunk-5T6GIAZI.js";import"./chunk-4ZBO6UPA.js";import"./chunk-WWFBIK55.js";import"./chunk-JTX5CRBO.js";import"./chunk-3UROKGFD.js";import"./chunk-25DXEFVI.js";export{b as CanaryConfig,a as FisTimingsConfig,c as LoadConfig,f as MAX_SANDBOX_CONFIG_BYTES,d as SandboxConfig,g as SandboxConfigError,i as defined,e as describeIssues,h as loadSandboxConfig};
//# sourceMappingURL=config-GULKUUBV.js.map
