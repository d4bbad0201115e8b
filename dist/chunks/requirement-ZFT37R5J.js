import { createRequire as __cgCreateRequire } from 'node:module';
const require = __cgCreateRequire(import.meta.url);
import{a,b,c,d,e,f}from"./chunk-ISI5HIYZ.js";import"./chunk-25DXEFVI.js";export{b as OPENAPI_MAJOR,a as OPENAPI_PACKAGE,e as installCommand,d as installRoot,f as missingSandboxDependency,c as openApiPackageJson};
//# sourceMappingURL=requirement-ZFT37R5J.js.map
