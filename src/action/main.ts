/** The action's main step: parse the inputs once, then one call. */
import * as core from '@actions/core';
import { InputError, parseInputs } from './inputs.js';
import { EXIT_BAD_INPUT, runFromInputs, type ActionDeps } from './run.js';
import { defaultDeps } from './wiring.js';
import { exitOf } from '../errors/exit.js';
import { registerEnvironmentSecrets } from '../security/environment.js';
import { redact, secrets } from '../security/redact.js';
import { errorMessage } from '../errors/message.js';

/**
 * Signals GitHub sends a cancelled step (SIGINT, then SIGTERM ~7.5 s later, then SIGKILL 2.5 s after
 * that). Both abort the run; the engine stops the fault and the post step finishes what is left.
 */
const CANCEL_SIGNALS = ['SIGINT', 'SIGTERM'] as const;

/** Main step. `deps` replaces the production wiring in tests. */
export async function run(deps?: (signal: AbortSignal) => ActionDeps): Promise<void> {
  // Every secret the one redactor learns is also masked by the runner (`::add-mask::`), from the first.
  secrets.onSecret((secret) => core.setSecret(secret));
  registerEnvironmentSecrets(process.env);
  let inputs;
  try {
    inputs = parseInputs(
      (name) => core.getInput(name),
      (secret) => secrets.add(secret),
    );
  } catch (err) {
    core.setFailed(redact(err instanceof InputError ? err.message : `chaos-gate: ${String(err)}`));
    process.exitCode = EXIT_BAD_INPUT;
    return;
  }
  const controller = new AbortController();
  for (const sig of CANCEL_SIGNALS) process.once(sig, () => controller.abort(sig));
  try {
    // The step already ends with the verdict, its reason and an annotation (runFromInputs); the exit
    // code alone fails the step — a generic "exit code 1" error would bury the reason.
    const code = await runFromInputs(inputs, (deps ?? defaultDeps)(controller.signal));
    process.exitCode = code;
  } catch (err) {
    core.setFailed(redact(`chaos-gate: ${errorMessage(err)}`));
    process.exitCode = exitOf(err)?.code ?? 1;
  }
}
