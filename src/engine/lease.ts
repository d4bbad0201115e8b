/**
 * The lease keeper: publishes heartbeats on a fixed cadence while the engine is making progress, and
 * nothing else. The lease alarm is a stop condition of the FIS template, so a runner that dies *or
 * stalls* stops renewing it and FIS stops the experiment by itself.
 *
 * Progress is reported by the engine (`progress()`): every completed tick, every step of a stop being
 * verified within its budget. Once an experiment may be live, a heartbeat goes out only when the last
 * progress is recent; a run loop stuck on anything stops the beats. Before the start there is nothing
 * to protect, so the keeper beats unconditionally to bring the alarm to OK in time.
 *
 * `trip()` ends the lease on purpose: no more beats, and the alarm forced to ALARM where the lease
 * supports it, so FIS stops the experiment through its stop condition when StopExperiment does not.
 */
import type { Clock } from '../clock/clock.js';
import type { Lease } from '../injector/injector.js';
import { within } from './deadline.js';
import { DEADLINES } from '../net/deadline.js';
import { errorMessage } from './errors.js';

/** How soon a failed heartbeat is retried: well inside the lease alarm's 10 s period. */
export const LEASE_RETRY_MS = 1_000;
/** A heartbeat that has not landed within this is abandoned (and retried): it must not delay the next. */
export const LEASE_BEAT_DEADLINE_MS = DEADLINES.cloudwatchHeartbeat;
/** A forced ALARM gets this long per attempt. */
export const LEASE_TRIP_DEADLINE_MS = DEADLINES.cloudwatchSetAlarmState;
/**
 * SetAlarmState lasts only until the alarm's next evaluation (docs/design/cloudwatch.md#setalarmstate), which may find the last
 * beats and turn it OK again before FIS has polled. Re-assert ALARM this often until the stop is seen
 * (3 TPS is SetAlarmState's quota; this is far below it).
 */
export const LEASE_TRIP_REPEAT_MS = 3_000;

export interface LeaseKeeperOptions {
  lease: Lease;
  clock: Clock;
  /** Once the experiment may be live, beat only if progress was reported within this. */
  staleAfterMs: number;
  /** Journals an event (errors, the decision to stop beating). */
  note: (type: 'error' | 'lease', message: string, data?: Record<string, unknown>) => void;
}

export class LeaseKeeper {
  private readonly ctl = new AbortController();
  private loop: Promise<void> | undefined;
  private lastProgressAt: number;
  private guarding = false;
  private stalled = false;
  private tripLoop: Promise<void> | undefined;
  /** Heartbeats published (successful PutMetricData). */
  beats = 0;
  tripped = false;
  /** Whether CloudWatch accepted at least one of the attempts to force the lease alarm to ALARM. */
  forced = false;

  constructor(private readonly o: LeaseKeeperOptions) {
    this.lastProgressAt = o.clock.now();
  }

  /** The engine is alive and advancing. */
  progress(): void {
    this.lastProgressAt = this.o.clock.now();
    if (this.stalled) {
      this.stalled = false;
      this.o.note('lease', 'the run loop is advancing again: heartbeats resume');
    }
  }

  /** From now on beats depend on progress (call just before StartExperiment). */
  guard(): void {
    this.guarding = true;
    this.progress();
  }

  /** Back to beating regardless of progress: the start was refused, so no experiment is live. */
  unguard(): void {
    this.guarding = false;
  }

  /** Publishes the first beat (awaited: the alarm must see beats before the start) and starts the cadence. */
  async start(signal?: AbortSignal): Promise<void> {
    const { lease, clock } = this.o;
    const first = clock.now();
    await within(clock, LEASE_BEAT_DEADLINE_MS, 'the first lease heartbeat', (s) => lease.beat(s), signal);
    this.beats++;
    this.loop = this.cadence(first + lease.intervalMs);
  }

  /**
   * A fixed cadence (not "interval after the last beat finished"): a slow call must not stretch the gaps,
   * since the lease alarm trips on one 10 s period without a beat. A failed beat is retried soon.
   */
  private async cadence(firstDue: number): Promise<void> {
    const { lease, clock } = this.o;
    const signal = this.ctl.signal;
    let due = firstDue;
    while (!signal.aborted) {
      await clock.sleep(Math.max(0, due - clock.now()), signal);
      if (signal.aborted) break;
      if (this.guarding && clock.now() - this.lastProgressAt > this.o.staleAfterMs) {
        if (!this.stalled) {
          this.stalled = true;
          this.o.note(
            'lease',
            `no progress for ${((clock.now() - this.lastProgressAt) / 1000).toFixed(1)} s: heartbeats withheld, so the lease alarm stops the experiment unless the run loop recovers`,
            { withheld: true },
          );
        }
        due = clock.now() + LEASE_RETRY_MS;
        continue;
      }
      try {
        await within(clock, LEASE_BEAT_DEADLINE_MS, 'lease heartbeat', (s) => lease.beat(s), signal);
        this.beats++;
        due = Math.max(due + lease.intervalMs, clock.now());
      } catch (error) {
        if (signal.aborted) break;
        this.o.note(
          'error',
          `lease heartbeat failed (retrying in ${LEASE_RETRY_MS / 1000} s): ${errorMessage(error)}`,
        );
        due = clock.now() + Math.min(LEASE_RETRY_MS, lease.intervalMs);
      }
    }
  }

  /** Stops beating (after a verified stop, or on the way out: an unbeaten lease lets FIS stop the fault). */
  async end(): Promise<void> {
    this.ctl.abort();
    await this.loop;
    this.loop = undefined;
  }

  /**
   * Ends the lease on purpose: no more beats, and the lease alarm forced to ALARM (repeatedly, until
   * `untilDone` aborts) so that FIS stops the experiment by its stop condition. Returns once the first
   * attempt was made; whether it landed is journaled.
   */
  async trip(reason: string, untilDone: AbortSignal): Promise<void> {
    if (this.tripped) return;
    this.tripped = true;
    await this.end();
    const { lease, clock } = this.o;
    if (!lease.trip) {
      this.o.note(
        'lease',
        `heartbeats stopped (${reason}); the lease alarm trips when a period passes empty`,
      );
      return;
    }
    const once = async (): Promise<boolean> => {
      try {
        await within(clock, LEASE_TRIP_DEADLINE_MS, 'forcing the lease alarm', (s) => lease.trip!(reason, s));
        this.forced = true;
        return true;
      } catch (error) {
        this.o.note('error', `forcing the lease alarm to ALARM failed: ${errorMessage(error)}`);
        return false;
      }
    };
    const ok = await once();
    this.o.note(
      'lease',
      ok
        ? `heartbeats stopped and the lease alarm forced to ALARM (${reason}): FIS stops the experiment by its stop condition`
        : `heartbeats stopped (${reason}); the lease alarm trips when a period passes empty`,
      { forced: ok },
    );
    this.tripLoop = (async () => {
      while (!untilDone.aborted) {
        await clock.sleep(LEASE_TRIP_REPEAT_MS, untilDone);
        if (untilDone.aborted) break;
        await once();
      }
    })();
  }

  /** Waits for the re-assertion loop after `untilDone` aborted. */
  async settled(): Promise<void> {
    await this.tripLoop;
  }
}
