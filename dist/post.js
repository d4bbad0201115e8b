import { createRequire as __cgCreateRequire } from 'node:module';
const require = __cgCreateRequire(import.meta.url);
import{a as e}from"./chunks/chunk-54TL7WSI.js";import"./chunks/chunk-VLBHN3Y2.js";import"./chunks/chunk-3UROKGFD.js";import"./chunks/chunk-7G6JGMPY.js";import"./chunks/chunk-25DXEFVI.js";process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED??="true";if(e(process.env)!==void 0)process.stdout.write(`chaos-gate post: the event payload cannot be read; the main step ran nothing
`);else{let a=await import("./chunks/core-ZAKSFDIG.js"),{runPostStep:o}=await import("./chunks/post-step-EIDQEHGW.js"),{defaultPostDeps:n}=await import("./chunks/post-wiring-M6HLZPWC.js");await o(n()).catch(t=>{a.setFailed(`chaos-gate post: ${t instanceof Error?t.message:String(t)}`)})}
//# sourceMappingURL=post.js.map
