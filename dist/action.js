import { createRequire as __cgCreateRequire } from 'node:module';
const require = __cgCreateRequire(import.meta.url);
import{a as e,b as s}from"./chunks/chunk-OIK7IJJ3.js";import"./chunks/chunk-IQEBGGIF.js";import"./chunks/chunk-LKPMGJ6X.js";import"./chunks/chunk-7G6JGMPY.js";import"./chunks/chunk-PYQUZR4R.js";import"./chunks/chunk-25DXEFVI.js";process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED??="true";var t=e(process.env);if(t!==void 0)process.stdout.write(s(t)),process.exitCode=2;else{let{run:o}=await import("./chunks/main-GI542J2E.js");await o()}
//# sourceMappingURL=action.js.map
