#!/usr/bin/env node
import { createRequire as __cgCreateRequire } from 'node:module';
const require = __cgCreateRequire(import.meta.url);
import{a as e}from"./chunks/chunk-T3NGVJDG.js";import"./chunks/chunk-25DXEFVI.js";process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED??="true";e();var{runProcess:o}=await import("./chunks/main-PGP2LG7J.js");o();
//# sourceMappingURL=cli.js.map
