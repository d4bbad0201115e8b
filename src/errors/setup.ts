/**
 * A broken set-up — no or expired credentials, a missing permission, an endpoint nobody answers on — as
 * opposed to a service that is merely busy. Probes (injector/) throw it; gates (preflight/) let it through
 * so the run ends `failed` (see preflight/setup-error.ts for why).
 */

import { findCause } from './exit.js';

/** Thrown by a probe when the set-up is broken (credentials, permissions, endpoint), not merely busy. */
export class SetupError extends Error {
  override name = 'SetupError';
}

/** The SetupError in `error`'s cause chain, if any. */
export function findSetupError(error: unknown): SetupError | undefined {
  return findCause(error, (e): e is SetupError => e instanceof SetupError);
}
