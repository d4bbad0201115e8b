/** Entry of the post step: separate from main so its bundle carries only what cleanup needs. */
import * as core from '@actions/core';
import { runPostStep } from './post-step.js';
import { defaultPostDeps } from './post-wiring.js';

// Same reason as in index.ts: the SDK's Node-version notice is noise in the step's log.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

runPostStep(defaultPostDeps()).catch((err: unknown) => {
  core.setFailed(`chaos-gate post: ${err instanceof Error ? err.message : String(err)}`);
});
