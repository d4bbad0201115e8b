import { createRequire as __cgCreateRequire } from 'node:module';
const require = __cgCreateRequire(import.meta.url);
import{a as e}from"./chunks/chunk-OIK7IJJ3.js";import"./chunks/chunk-IQEBGGIF.js";import"./chunks/chunk-LKPMGJ6X.js";import"./chunks/chunk-7G6JGMPY.js";import{a as t}from"./chunks/chunk-PYQUZR4R.js";import"./chunks/chunk-25DXEFVI.js";process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED??="true";if(e(process.env)!==void 0)process.stdout.write(`chaos-gate post: the event payload cannot be read; the main step ran nothing
`);else{let o=await import("./chunks/core-3HZRXH2H.js"),{runPostStep:a}=await import("./chunks/post-step-LCTUM75M.js"),{defaultPostDeps:s}=await import("./chunks/post-wiring-ROBVWZ55.js");await a(s()).catch(n=>{o.setFailed(`chaos-gate post: ${t(n)}`)})}
//# sourceMappingURL=post.js.map
