/**
 * A broken set-up — no or expired credentials, a missing permission, an endpoint nobody answers on — as
 * opposed to a service that is merely busy. Probes (injector/) throw it; gates (preflight/) let it through
 * so the run ends `failed` (see preflight/setup-error.ts for why).
 */

/** Thrown by a probe when the set-up is broken (credentials, permissions, endpoint), not merely busy. */
export class SetupError extends Error {
  override name = 'SetupError';
}

/** The SetupError in `error`'s cause chain, if any. */
export function findSetupError(error: unknown): SetupError | undefined {
  for (let e: unknown = error, depth = 0; e && depth < 8; e = (e as { cause?: unknown }).cause, depth++) {
    if (e instanceof SetupError) return e;
  }
  return undefined;
}
