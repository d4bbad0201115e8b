/**
 * Waits of any length. Node keeps a timer's delay in a signed 32-bit number: a delay above 2³¹−1 ms
 * (24.8 days) is replaced by 1 ms with a `TimeoutOverflowWarning`, so a 30-day budget window used as a
 * deadline fired at once and every run with a common SLO window ended `not-run`. Every wait whose length
 * is computed goes through here: {@link longTimeout} chains timers of at most {@link MAX_TIMER_MS} until
 * the whole delay has passed, {@link sleepFor} is its promise, and {@link clampTimerMs} bounds a delay
 * handed to an API that takes one number (`AbortSignal.timeout`). `test/net/timers-lint.test.ts` fails on
 * a raw `setTimeout`, `setInterval` or `AbortSignal.timeout` in `src/` whose delay is computed.
 */

/** The longest delay one Node timer holds: 2³¹−1 ms. */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/** The timer functions a long timeout chains (the global ones; a virtual set in tests). */
export interface Timers {
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

const globalTimers: Timers = {
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

/** A pending long timeout. */
export interface LongTimeout {
  clear(): void;
  /** Lets the process exit while this timeout is pending (as `Timeout.unref()`), for every link of the chain. */
  unref(): LongTimeout;
}

/** A delay one timer can hold: at least 0, at most {@link MAX_TIMER_MS}; NaN is 0. */
export function clampTimerMs(ms: number): number {
  if (Number.isNaN(ms)) return 0;
  return Math.min(MAX_TIMER_MS, Math.max(0, ms));
}

/**
 * Calls `fn` once `ms` has passed, however long that is: one timer when `ms` fits, else a chain of
 * timers of at most {@link MAX_TIMER_MS}. An infinite delay never fires. NaN or a negative delay fires
 * on the next turn, as `setTimeout` does.
 */
export function longTimeout(fn: () => void, ms: number, timers: Timers = globalTimers): LongTimeout {
  let remaining = Number.isNaN(ms) ? 0 : Math.max(0, ms);
  let handle: unknown;
  let unrefd = false;
  let cleared = false;
  const arm = (): void => {
    if (cleared || remaining === Infinity) return;
    const step = Math.min(remaining, MAX_TIMER_MS);
    remaining -= step;
    handle = timers.setTimeout(() => {
      if (cleared) return;
      if (remaining > 0) arm();
      else fn();
    }, step);
    if (unrefd) (handle as { unref?: () => void } | undefined)?.unref?.();
  };
  arm();
  const self: LongTimeout = {
    clear() {
      cleared = true;
      if (handle !== undefined) timers.clearTimeout(handle);
    },
    unref() {
      unrefd = true;
      (handle as { unref?: () => void } | undefined)?.unref?.();
      return self;
    },
  };
  return self;
}

/** Resolves after `ms` (any length), or at once (without throwing) when `signal` aborts. */
export function sleepFor(ms: number, signal?: AbortSignal, timers: Timers = globalTimers): Promise<void> {
  return new Promise<void>((resolve) => {
    if (signal?.aborted || !(ms > 0)) return resolve();
    const done = (): void => {
      timer.clear();
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = longTimeout(done, ms, timers);
    signal?.addEventListener('abort', done, { once: true });
  });
}
