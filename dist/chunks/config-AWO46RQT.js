import { createRequire as __cgCreateRequire } from 'node:module';
const require = __cgCreateRequire(import.meta.url);
import{c as a,d as b,e as c,f as d,g as e,h as f,i as g,j as h,k as i}from"./chunk-MBDGQ42X.js";import"./chunk-O3A3UMY5.js";import"./chunk-YFH4TU2Z.js";import"./chunk-M4D3BQ5T.js";import"./chunk-JTX5CRBO.js";import"./chunk-LKPMGJ6X.js";import"./chunk-25DXEFVI.js";export{b as CanaryConfig,a as FisTimingsConfig,c as LoadConfig,f as MAX_SANDBOX_CONFIG_BYTES,d as SandboxConfig,g as SandboxConfigError,i as defined,e as describeIssues,h as loadSandboxConfig};
//# sourceMappingURL=config-AWO46RQT.js.map
