/**
 * The run's one queue. A run waits for two things before it may start: other chaos-gate experiments on
 * intersecting targets (the concurrency gate), and room under FIS's quota of active experiments in the
 * account (a dry run counts too). Both waits draw on the same budget, the `queue-timeout`, counted from
 * the first wait; past it the run ends `not-run` with the reason. A full quota is "not now": it never
 * ends a run `failed`.
 *
 * Waits are jittered so that a matrix of runners started in the same second does not come back in the
 * same second: the delay doubles from {@link QUEUE_FIRST_DELAY_MS} up to the poll interval, and each
 * wait is drawn between half and all of it ("equal jitter").
 */
import type { Clock } from '../clock/clock.js';
import { formatDuration } from '../plan/duration.js';
import { quotaOf } from '../injector/injector.js';
import { errorMessage } from './errors.js';

/** FIS's quota of active experiments per account and Region (L-F5FCA485, not adjustable; docs/fis.md). */
export const FIS_ACTIVE_EXPERIMENTS_QUOTA = 5;
/** The first wait after a full quota; later waits double up to the poll interval. */
export const QUEUE_FIRST_DELAY_MS = 1_000;
/** The longest wait between two looks at the queue (the concurrency gate's poll). */
export const QUEUE_MAX_DELAY_MS = 10_000;

export interface RunQueueOptions {
  clock: Clock;
  /** The `queue-timeout`: how long the run may wait in all; 0 = do not wait. */
  timeoutMs: number;
  /** FIS's active-experiments quota the pre-check compares with (default {@link FIS_ACTIVE_EXPERIMENTS_QUOTA}). */
  quota?: number | undefined;
  /**
   * The live experiments in the account, counted from FIS (ListExperiments), paging only until
   * `atLeast` are found. Absent: no pre-check, only FIS's quota answer makes the run wait.
   */
  active?: ((atLeast: number, signal?: AbortSignal) => Promise<number>) | undefined;
  /** Randomness for the jitter (tests pass a seeded one). */
  random?: (() => number) | undefined;
  maxDelayMs?: number | undefined;
}

/** The queue's budget, shared by every wait of one run. */
export class RunQueue {
  private startedAt: number | undefined;
  private waits = 0;
  readonly quota: number;

  constructor(readonly o: RunQueueOptions) {
    this.quota = o.quota ?? FIS_ACTIVE_EXPERIMENTS_QUOTA;
  }

  get timeoutMs(): number {
    return this.o.timeoutMs;
  }

  /** Marks the first wait (idempotent); returns when the run began to wait. */
  begin(): number {
    this.startedAt ??= this.o.clock.now();
    return this.startedAt;
  }

  /** When the run must stop waiting. */
  deadline(): number {
    return this.begin() + this.o.timeoutMs;
  }

  /** How long the run has waited so far (0 before its first wait). */
  waited(): number {
    return this.startedAt === undefined ? 0 : this.o.clock.now() - this.startedAt;
  }

  /** The next jittered delay: doubling from the first delay up to `capMs`, drawn in [half, all] of it. */
  nextDelay(capMs = this.o.maxDelayMs ?? QUEUE_MAX_DELAY_MS): number {
    const step = Math.min(capMs, QUEUE_FIRST_DELAY_MS * 2 ** Math.min(this.waits, 16));
    this.waits++;
    const random = this.o.random ?? Math.random;
    return Math.round(step / 2 + (random() * step) / 2);
  }

  /** A jittered poll interval around `pollMs` (between half and all of it, never below a millisecond). */
  jitter(pollMs: number): number {
    const random = this.o.random ?? Math.random;
    return Math.max(1, Math.round(pollMs / 2 + (random() * pollMs) / 2));
  }
}

/** What a quota wait needs from the run. */
export interface QuotaWaitHost {
  clock: Clock;
  signal?: AbortSignal | undefined;
  event(type: 'preflight' | 'error', message: string, data?: Record<string, unknown>): void;
  /** Called before each wait (e.g. the lease keeper stops guarding: nothing was started). */
  onWait?: (() => void) | undefined;
}

/** The outcome of {@link underQuota}: the call's value, or the reason the run ends `not-run`. */
export type QuotaOutcome<T> = { ok: true; value: T } | { ok: false; reason: string };

/**
 * Runs `start` (a StartExperiment, dry run or not) when FIS's quota has room: first counts the account's
 * live experiments (when the queue can), then starts; a quota answer (`QuotaExceeded`) waits and asks
 * again, within the queue's budget. Any other error is thrown as it is.
 */
export async function underQuota<T>(
  host: QuotaWaitHost,
  queue: RunQueue,
  what: string,
  start: () => Promise<T>,
): Promise<QuotaOutcome<T>> {
  let polls = 0;
  for (;;) {
    let full: string | undefined;
    if (queue.o.active) {
      try {
        const n = await queue.o.active(queue.quota, host.signal);
        if (n >= queue.quota)
          full = `${n} experiments are active in the account, FIS's quota is ${queue.quota}`;
      } catch (error) {
        // The count is a courtesy to FIS: its quota answer still queues the run. Journaled, not fatal.
        host.event(
          'error',
          `counting the account's active experiments failed (${errorMessage(error)}); starting, and FIS's own answer decides`,
        );
      }
    }
    if (full === undefined) {
      try {
        return { ok: true, value: await start() };
      } catch (error) {
        const quota = quotaOf(error);
        if (!quota) throw error;
        full = `FIS answered ServiceQuotaExceededException (${quota.message})`;
      }
    }
    polls++;
    const started = queue.begin();
    const now = host.clock.now();
    const waited = now - started;
    if (host.signal?.aborted)
      return { ok: false, reason: `cancelled while queued for FIS's active-experiment quota: ${full}` };
    if (now >= queue.deadline())
      return {
        ok: false,
        reason: `FIS's quota of active experiments in the account is still reached after waiting ${formatDuration(waited)} (queue timeout ${formatDuration(queue.timeoutMs)}) before ${what}: ${full}`,
      };
    const delay = Math.min(queue.nextDelay(), queue.deadline() - now);
    host.event(
      'preflight',
      `queued for FIS's active-experiment quota before ${what}: ${full}; waited ${formatDuration(waited)} of ${formatDuration(queue.timeoutMs)}`,
      { gate: 'quota', waitedMs: waited, queueTimeoutMs: queue.timeoutMs, poll: polls, delayMs: delay },
    );
    host.onWait?.();
    await host.clock.sleep(delay, host.signal);
  }
}
