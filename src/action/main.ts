/** The action's main and post steps. Inputs are parsed once; the engine does the work. */
import * as core from '@actions/core';

export async function run(): Promise<void> {
  core.setFailed('chaos-gate: the action front door is not wired yet');
}

export async function runPost(): Promise<void> {
  core.info('chaos-gate post: nothing to clean up');
}
