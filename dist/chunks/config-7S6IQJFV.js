import { createRequire as __cgCreateRequire } from 'node:module';
const require = __cgCreateRequire(import.meta.url);
import{c as a,d as b,e as c,f as d,g as e,h as f,i as g,j as h,k as i,l as j}from"./chunk-5CYXD5EO.js";import"./chunk-IJH6KL4Z.js";import"./chunk-T3CBBOP3.js";import"./chunk-WWFBIK55.js";import"./chunk-GSNKVR4F.js";import"./chunk-ZS7KEDBG.js";import"./chunk-T6DYACQC.js";import"./chunk-25DXEFVI.js";export{c as CanaryConfig,b as FisQuotasConfig,a as FisTimingsConfig,d as LoadConfig,g as MAX_SANDBOX_CONFIG_BYTES,e as SandboxConfig,h as SandboxConfigError,j as defined,f as describeIssues,i as loadSandboxConfig};
//# sourceMappingURL=config-7S6IQJFV.js.map
