/**
 * An AWS call's failure as a preflight gate must see it (injector/aws/errors.ts decides which failures
 * mean the set-up is broken). No SDK import: the probes and a run's first read (compose/early.ts) share it.
 */
import { SetupError } from '../../errors/setup.js';
import { describeAwsError, setupErrorOf } from './errors.js';

/** What to check when the set-up is broken; the same for every probe. */
const SETUP_HINT =
  "check the runner's AWS credentials, its role's permissions (docs/fis.md) and the endpoint " +
  '(AWS_ENDPOINT_URL) and Region';

/**
 * The probe's failure as the gates must see it: an AWS error that means the set-up is broken (no or
 * expired credentials, a missing permission, an endpoint nobody answers on: `injector/aws/errors.ts`)
 * becomes a {@link SetupError}, which the gate lets through so the run ends `failed`; a transient one
 * (throttling, 5xx, a timeout) is rethrown as it is and the gate may answer `not-run`.
 */
export function asSetupError(error: unknown): unknown {
  const setup = setupErrorOf(error);
  if (!setup) return error;
  return new SetupError(`the AWS set-up is broken (${describeAwsError(setup)}); ${SETUP_HINT}`, {
    cause: error,
  });
}

export async function classified<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    throw asSetupError(error);
  }
}
