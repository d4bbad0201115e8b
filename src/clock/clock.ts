/**
 * Time is injected everywhere so that a 15-minute run is a millisecond test. `SystemClock` is the real
 * one; `VirtualClock` advances only when every sleeper is waiting, and never sleeps for real.
 */
import { sleepFor } from '../net/timer.js';

export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
  /** Resolves after `ms`, or early (without throwing) when `signal` aborts. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

/** Real time. A sleep of any length works: past Node's 2³¹−1 ms timer limit it chains timers (net/timer.ts). */
export const systemClock: Clock = {
  now: () => Date.now(),
  sleep: (ms, signal) => sleepFor(ms, signal),
};

interface Sleeper {
  at: number;
  seq: number;
  resolve: () => void;
}

/**
 * A clock whose time moves only when code sleeps on it. Each `sleep` jumps time forward to the earliest
 * pending wake-up once the microtask queue has drained, so concurrent sleepers wake in order.
 */
export class VirtualClock implements Clock {
  private t: number;
  private seq = 0;
  private sleepers: Sleeper[] = [];
  private scheduled = false;

  constructor(start = Date.UTC(2026, 0, 1)) {
    this.t = start;
  }

  now(): number {
    return this.t;
  }

  /** Moves time forward without waking anyone (e.g. to model time spent in a slow call). */
  advance(ms: number): void {
    this.t += Math.max(0, ms);
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const onAbort = (): void => {
        this.sleepers = this.sleepers.filter((s) => s !== sleeper);
        resolve();
      };
      const sleeper: Sleeper = {
        at: this.t + Math.max(0, ms),
        seq: this.seq++,
        resolve: () => {
          // A signal reused across many sleeps must not collect one listener per sleep.
          signal?.removeEventListener('abort', onAbort);
          resolve();
        },
      };
      this.sleepers.push(sleeper);
      signal?.addEventListener('abort', onAbort, { once: true });
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    // setImmediate runs after pending promise continuations, so every runnable task has had its turn.
    setImmediate(() => {
      this.scheduled = false;
      this.sleepers.sort((a, b) => a.at - b.at || a.seq - b.seq);
      const next = this.sleepers.shift();
      if (!next) return;
      this.t = Math.max(this.t, next.at);
      next.resolve();
      if (this.sleepers.length > 0) this.schedule();
    });
  }
}
