import { createRequire as __cgCreateRequire } from 'node:module';
const require = __cgCreateRequire(import.meta.url);
import{a as o,b as r}from"./chunks/chunk-MVMHYL6P.js";import"./chunks/chunk-M5L4IEY6.js";import"./chunks/chunk-T6DYACQC.js";import{a as e}from"./chunks/chunk-T3NGVJDG.js";import"./chunks/chunk-PYQUZR4R.js";import"./chunks/chunk-4GYX42EE.js";import"./chunks/chunk-GS7M3CAM.js";import"./chunks/chunk-25DXEFVI.js";process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED??="true";var t=o(process.env);if(t!==void 0)process.stdout.write(r(t)),process.exitCode=2;else{e();let{run:s}=await import("./chunks/main-ZZYH6ZFP.js");await s()}
//# sourceMappingURL=action.js.map
