/**
 * A broken set-up is `failed`, not `not-run` (issue 12.6). A gate whose probe fails answers `not-run`
 * ("the plan is fine, now is not the time") — right for a throttled or briefly unavailable service, wrong
 * for missing credentials or a missing permission, which fail every later run the same way. Probes know
 * which is which (the AWS ones classify with `injector/aws/errors.ts`) and throw a {@link SetupError};
 * gates let it through instead of answering, and the engine turns a gate that throws into a fatal error
 * and the `failed` verdict, with the message as the reason. Preflight itself stays free of AWS knowledge.
 */
import { findSetupError, SetupError } from '../errors/setup.js';

export { findSetupError, SetupError } from '../errors/setup.js';

/**
 * For a gate's `catch`: a broken set-up is rethrown, prefixed with what the gate was doing (`cannot read
 * the kill switch`), so the run ends `failed` with a reason that says what and why. Anything else returns
 * and the gate answers as before.
 */
export function rethrowSetupError(error: unknown, doing: string): void {
  const setup = findSetupError(error);
  if (setup) throw new SetupError(`${doing}: ${setup.message}`, { cause: error });
}
