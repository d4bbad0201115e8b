/**
 * Deadlines on the run's own clock. Every call the engine makes to an outside service goes through
 * `within`: the call gets an abort signal, and the engine stops waiting when the deadline passes whether
 * or not the call honours the signal. Slowness is a failure: a missed deadline is an error the run loop
 * handles (an `error` reading, an unreadable state), never a stall.
 *
 * The clock is the injected one, so a virtual-clock test sees a 25 s hang as 25 s of virtual time. The
 * error is the same `DeadlineError` the transports throw (`src/net/deadline.ts`, real timers), so a
 * missed deadline reads the same whichever layer noticed it first.
 */
import type { Clock } from '../clock/clock.js';
import { DEADLINES, DeadlineError } from '../net/deadline.js';

export { DeadlineError } from '../net/deadline.js';

/**
 * Deadlines of the engine's own calls (each also bounded by its transport). Provisioning and the dry run
 * are several calls each; a state read must come back well inside a lease period.
 */
export const CALL_DEADLINES = {
  provisionMs: 120_000,
  dryRunMs: 120_000,
  readinessMs: DEADLINES.cloudwatchDescribeAlarms,
  startMs: DEADLINES.fisStartExperiment,
  stateMs: DEADLINES.fisGetExperiment,
  /** Looking the run's experiment up by its tags: a few pages of ListExperiments and one GetExperiment. */
  findMs: 2 * DEADLINES.fisOther,
} as const;

/**
 * Runs `fn` with a signal that aborts at the deadline or when `parent` aborts, and settles no later
 * than the deadline: with `fn`'s result, or with a `DeadlineError`. A parent abort rejects at once with
 * the parent's reason.
 */
export async function within<T>(
  clock: Clock,
  ms: number,
  label: string,
  fn: (signal: AbortSignal) => Promise<T>,
  parent?: AbortSignal,
): Promise<T> {
  const ctl = new AbortController();
  if (parent?.aborted) throw abortReason(parent, label);
  const onParent = (): void => ctl.abort(abortReason(parent!, label));
  parent?.addEventListener('abort', onParent, { once: true });
  const timer = new AbortController();
  try {
    return await Promise.race([
      fn(ctl.signal),
      clock.sleep(Math.max(0, ms), timer.signal).then(() => {
        if (timer.signal.aborted) return new Promise<never>(() => undefined);
        const error = new DeadlineError(label, ms);
        ctl.abort(error);
        throw error;
      }),
      new Promise<never>((_, reject) => {
        if (ctl.signal.aborted) reject(ctl.signal.reason as Error);
        ctl.signal.addEventListener('abort', () => reject(ctl.signal.reason as Error), { once: true });
      }),
    ]);
  } finally {
    timer.abort();
    parent?.removeEventListener('abort', onParent);
    if (!ctl.signal.aborted) ctl.abort(new Error(`${label}: no longer needed`));
  }
}

function abortReason(signal: AbortSignal, label: string): Error {
  const r: unknown = signal.reason;
  if (r instanceof Error) return r;
  return new Error(`${label}: cancelled${typeof r === 'string' ? ` by ${r}` : ''}`);
}
