import { createRequire as __cgCreateRequire } from 'node:module';
const require = __cgCreateRequire(import.meta.url);
import{c as a,d as b,e as c,f as d,g as e,h as f,i as g}from"./chunk-F6PTADPP.js";import"./chunk-PKSCTFNT.js";import"./chunk-F3IEBV6A.js";import"./chunk-25DXEFVI.js";export{b as CanaryConfig,a as FisTimingsConfig,c as LoadConfig,d as SandboxConfig,g as defined,e as describeIssues,f as loadSandboxConfig};
//# sourceMappingURL=config-5SMB2O2J.js.map
