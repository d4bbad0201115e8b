#!/usr/bin/env node
import { enableCompileCache } from '../compose/compile-cache.js';

// The SDK warns on every process under Node 20 about releases after January 2027; chaos-gate pins its
// clients and runs on Node 20 and 24, so the warning is noise in every command's output.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

// Before the commands' code is loaded, so its compiled form can be kept for the next start.
enableCompileCache();
const { runProcess } = await import('./main.js');
void runProcess();
