#!/usr/bin/env node
import { runProcess } from './main.js';

// The SDK warns on every process under Node 20 about releases after January 2027; chaos-gate pins its
// clients and runs on Node 20 and 24, so the warning is noise in every command's output.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

void runProcess();
