/** The action's main step: parse the inputs once, then one call. */
import * as core from '@actions/core';
import { InputError, parseInputs } from './inputs.js';
import { EXIT_BAD_INPUT, runFromInputs, type ActionDeps } from './run.js';
import { defaultDeps } from './wiring.js';

/**
 * Signals GitHub sends a cancelled step (SIGINT, then SIGTERM ~7.5 s later, then SIGKILL 2.5 s after
 * that). Both abort the run; the engine stops the fault and the post step finishes what is left.
 */
const CANCEL_SIGNALS = ['SIGINT', 'SIGTERM'] as const;

/** Main step. `deps` replaces the production wiring in tests. */
export async function run(deps?: (signal: AbortSignal) => ActionDeps): Promise<void> {
  let inputs;
  try {
    inputs = parseInputs(
      (name) => core.getInput(name),
      (secret) => core.setSecret(secret),
    );
  } catch (err) {
    core.setFailed(err instanceof InputError ? err.message : `chaos-gate: ${String(err)}`);
    process.exitCode = EXIT_BAD_INPUT;
    return;
  }
  const controller = new AbortController();
  for (const sig of CANCEL_SIGNALS) process.once(sig, () => controller.abort(sig));
  try {
    const code = await runFromInputs(inputs, (deps ?? defaultDeps)(controller.signal));
    if (code !== 0) core.setFailed(`chaos-gate: exit code ${code}`);
    process.exitCode = code;
  } catch (err) {
    core.setFailed(`chaos-gate: ${err instanceof Error ? err.message : String(err)}`);
    process.exitCode = 1;
  }
}
