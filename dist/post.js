import { createRequire as __cgCreateRequire } from 'node:module';
const require = __cgCreateRequire(import.meta.url);
import{a as o}from"./chunks/chunk-OIK7IJJ3.js";import"./chunks/chunk-IQEBGGIF.js";import"./chunks/chunk-LKPMGJ6X.js";import{a as e}from"./chunks/chunk-T3NGVJDG.js";import"./chunks/chunk-7G6JGMPY.js";import{a as t}from"./chunks/chunk-PYQUZR4R.js";import"./chunks/chunk-25DXEFVI.js";process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED??="true";if(o(process.env)!==void 0)process.stdout.write(`chaos-gate post: the event payload cannot be read; the main step ran nothing
`);else{e();let a=await import("./chunks/core-LXDNQE65.js"),{runPostStep:n}=await import("./chunks/post-step-FQLTV63W.js"),{defaultPostDeps:r}=await import("./chunks/post-wiring-MH546GC4.js");await n(r()).catch(s=>{a.setFailed(`chaos-gate post: ${t(s)}`)})}
//# sourceMappingURL=post.js.map
