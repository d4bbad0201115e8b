/** Entry of the post step: separate from main so its bundle carries only what cleanup needs. */
import * as core from '@actions/core';
import { runPostStep } from './post-step.js';
import { defaultPostDeps } from './post-wiring.js';

runPostStep(defaultPostDeps()).catch((err: unknown) => {
  core.setFailed(`chaos-gate post: ${err instanceof Error ? err.message : String(err)}`);
});
