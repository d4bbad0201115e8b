/**
 * Stop and verify (src/engine/stop.ts), driven directly on a virtual clock with a scripted FIS: which
 * path the journal credits for the end of the fault, when the lease is tripped (10 s after the decision,
 * or half the budget when that is shorter), how the state is polled (doubling from 0.5 s to 5 s, never
 * more than three reads in flight), when StopExperiment is asked again, and what a stop that is never
 * seen leaves behind (the manual commands, with the Region).
 */
import { describe, expect, it } from 'vitest';
import { VirtualClock } from '../../src/clock/clock.js';
import { LeaseKeeper } from '../../src/engine/lease.js';
import {
  STOP_ESCALATE_AFTER_MS,
  stopAndVerify,
  type StopContext,
  type StopOutcome,
} from '../../src/engine/stop.js';
import { TERMINAL_STATUSES, type ExperimentState, type Injector } from '../../src/injector/injector.js';

interface Event {
  at: number;
  type: string;
  message: string;
  data?: Record<string, unknown> | undefined;
}

/** How a StopExperiment call goes: answered, refused, never answered, or answered after a delay (ms). */
type StopBehaviour = 'ok' | 'fail' | 'hang' | number;

/**
 * A scripted FIS: `stop(n)` decides the n-th StopExperiment (0-based); `state(n, at)` the n-th
 * GetExperiment status (`hang`: never answers; `fail`: an error). Times are ms after the start of the test.
 * `lease: 'guarded'` is a tripping lease that is already beating and guarded (stale after 2 s).
 */
function world(options: {
  stop?: (n: number) => StopBehaviour;
  state: (n: number, at: number) => string | 'hang' | 'fail';
  budgetMs?: number;
  lease?: 'none' | 'tripping' | 'guarded';
  region?: string;
  ended?: ExperimentState;
  /** `refused`: every attempt to force the lease alarm fails (CloudWatch refuses SetAlarmState). */
  trip?: 'ok' | 'refused';
}) {
  const clock = new VirtualClock();
  const t0 = clock.now();
  const stops: number[] = [];
  /** StopExperiment calls in flight, and the most there ever were. */
  let inFlight = 0;
  let maxInFlight = 0;
  const beats: number[] = [];
  const reads: number[] = [];
  const trips: number[] = [];
  const events: Event[] = [];
  const injector = {
    stop: async () => {
      const n = stops.push(clock.now() - t0) - 1;
      const how = options.stop?.(n) ?? 'ok';
      if (how === 'fail') throw new Error('ThrottlingException');
      if (how === 'hang') return new Promise<void>(() => undefined);
      if (typeof how === 'number') {
        inFlight++;
        maxInFlight = Math.max(maxInFlight, inFlight);
        await clock.sleep(how);
        inFlight--;
      }
    },
    state: async (): Promise<ExperimentState> => {
      const n = reads.push(clock.now() - t0) - 1;
      const status = options.state(n, clock.now() - t0);
      if (status === 'hang') return new Promise<ExperimentState>(() => undefined);
      if (status === 'fail') throw new Error('ThrottlingException');
      return { status };
    },
  } as unknown as Injector;
  const lease =
    options.lease === 'tripping' || options.lease === 'guarded'
      ? new LeaseKeeper({
          lease: {
            intervalMs: 5000,
            beat: async () => void beats.push(clock.now() - t0),
            trip: async () => {
              trips.push(clock.now() - t0);
              if (options.trip === 'refused') throw new Error('AccessDenied: cloudwatch:SetAlarmState');
            },
          },
          clock,
          staleAfterMs: options.lease === 'guarded' ? 2000 : 60_000,
          note: () => undefined,
        })
      : undefined;
  const ctx: StopContext = {
    clock,
    injector,
    lease,
    event: (type, message, data) => events.push({ at: clock.now() - t0, type, message, data }),
    noteState: (s) => TERMINAL_STATUSES.has(s.status),
    offset: () => '',
    region: options.region,
  };
  const run = async (): Promise<StopOutcome> => {
    if (options.lease === 'guarded') {
      await lease!.start();
      lease!.guard();
    }
    return stopAndVerify(ctx, 'exp-1', 'p95 over its bound', options.budgetMs ?? 60_000, options.ended);
  };
  return { run, clock, t0, stops, reads, trips, beats, events, lease, maxInFlight: () => maxInFlight };
}

const verifiedEvent = (events: Event[]) => events.find((e) => e.type === 'stop-verified');

/** The reasons the lease of `w` is tripped with, in order (the trips still happen). */
function recordTrips(w: { lease: LeaseKeeper | undefined }): string[] {
  const tripped: string[] = [];
  const original = w.lease!.trip.bind(w.lease);
  w.lease!.trip = (reason, until) => {
    tripped.push(reason);
    return original(reason, until);
  };
  return tripped;
}
describe('which path ended the fault', () => {
  it('credits StopExperiment when it was accepted and FIS then reports stopped', async () => {
    const w = world({ state: (n) => (n < 2 ? 'stopping' : 'stopped') });
    expect(await w.run()).toEqual({ verified: true, by: 'stop-experiment' });
    expect(w.events.map((e) => [e.type, e.message, e.data])).toEqual([
      ['stop-requested', 'stop requested: p95 over its bound', { experimentId: 'exp-1' }],
      [
        'stop-verified',
        'experiment exp-1 stopped by StopExperiment',
        { status: 'stopped', by: 'stop-experiment', leaseTripped: false },
      ],
    ]);
  });

  it('credits StopExperiment when FIS reports cancelled after an accepted stop', async () => {
    const w = world({ state: () => 'cancelled' });
    expect(await w.run()).toEqual({ verified: true, by: 'stop-experiment' });
  });

  it('credits its own end when FIS had already stopped the experiment, even though the stop was accepted', async () => {
    const w = world({ state: () => 'stopped', ended: { status: 'stopped' } });
    expect(await w.run()).toEqual({ verified: true, by: 'already-ended' });
  });

  it('returns as soon as a read sees the end, without waiting out the pause or reading again', async () => {
    const w = world({ state: () => 'stopped' });
    await w.run();
    expect(w.reads).toEqual([0]);
    expect(verifiedEvent(w.events)?.at).toBe(0);
    // Nor does it leave the wait for the escalation behind: the clock has nothing left to run to.
    for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
    expect(w.clock.now() - w.t0).toBe(0);
  });

  it('credits its own end when FIS had already reported a terminal state', async () => {
    const w = world({ state: () => 'completed', ended: { status: 'completed' } });
    expect(await w.run()).toEqual({ verified: true, by: 'already-ended' });
    expect(verifiedEvent(w.events)?.message).toBe('experiment exp-1 completed by its own end');
  });

  it('credits its own end when FIS reports completed or failed after an accepted stop', async () => {
    for (const status of ['completed', 'failed']) {
      const w = world({ state: () => status });
      expect(await w.run()).toEqual({ verified: true, by: 'already-ended' });
    }
  });

  it('credits its own end when FIS stopped before StopExperiment was accepted and no lease was tripped', async () => {
    const w = world({ stop: () => 'hang', state: () => 'stopped' });
    expect(await w.run()).toEqual({ verified: true, by: 'already-ended' });
    expect(w.events[0]?.message).toBe(
      'stop request not accepted (FIS StopExperiment did not answer within 5 s); verifying the state and asking again',
    );
    expect(w.events[0]?.data).toEqual({
      experimentId: 'exp-1',
      error: 'FIS StopExperiment did not answer within 5 s',
    });
  });

  it('credits the lease when StopExperiment never got through and the tripped lease stopped FIS', async () => {
    const w = world({
      stop: () => 'fail',
      lease: 'tripping',
      state: (_n, at) => (at > STOP_ESCALATE_AFTER_MS ? 'stopped' : 'running'),
    });
    expect(await w.run()).toEqual({ verified: true, by: 'lease' });
    expect(w.trips[0]).toBe(STOP_ESCALATE_AFTER_MS);
    // Once the stop is seen, the lease alarm is no longer re-asserted.
    const trips = w.trips.length;
    await w.clock.sleep(30_000);
    expect(w.trips.length).toBe(trips);
    expect(verifiedEvent(w.events)?.data).toEqual({ status: 'stopped', by: 'lease', leaseTripped: true });
  });
});

describe('when the lease is tripped', () => {
  const escalation = async (budgetMs: number) => {
    const w = world({ stop: () => 'hang', lease: 'tripping', state: () => 'running', budgetMs });
    await w.run();
    return w.trips[0];
  };

  it('10 s after the decision to stop, with a minute to verify', async () => {
    expect(await escalation(60_000)).toBe(10_000);
  });

  it('after half the budget when that is shorter than 10 s', async () => {
    expect(await escalation(12_000)).toBe(6_000);
    expect(await escalation(7_001)).toBe(3_500);
  });

  it('says why, with the last state it saw, when StopExperiment was accepted but no stop was seen', async () => {
    const w = world({ lease: 'tripping', state: () => 'running', budgetMs: 20_000 });
    const tripped = recordTrips(w);
    await w.run();
    expect(tripped).toEqual(['StopExperiment accepted but no stop seen within 10.0 s (last state running)']);
  });
});

describe('polling the state', () => {
  it('reads at once, then after 0.5, 1, 2 and 4 s, at the escalation, and again from 0.5 s after it', async () => {
    const w = world({ lease: 'tripping', state: () => 'running', budgetMs: 30_000 });
    await w.run();
    expect(w.reads.slice(0, 12)).toEqual([
      0, 500, 1500, 3500, 7500, 10_000, 10_000, 10_500, 11_500, 13_500, 17_500, 22_500,
    ]);
  });

  it('without a lease, keeps to the backoff past the escalation time instead of reading every millisecond', async () => {
    // There is no lease to hand the stop to, so nothing happens at 10 s. (Before the fix the pause was cut
    // to "until the escalation", which is negative after it: 10 000 reads in the last 10 s.)
    const w = world({ state: () => 'running', budgetMs: 20_000 });
    expect(await w.run()).toEqual({ verified: false, by: 'unknown' });
    expect(w.reads).toEqual([0, 500, 1500, 3500, 7500, 12_500, 17_500]);
  });

  it('keeps at most three reads in flight when GetExperiment does not answer', async () => {
    const w = world({ lease: 'tripping', state: () => 'hang', budgetMs: 30_000 });
    const outcome = await w.run();
    expect(outcome).toEqual({ verified: false, by: 'unknown' });
    expect(w.reads).toEqual([0, 500, 1500]);
    // Each read had what was left of the budget: the last one, sent at 1.5 s, ran out with it.
    expect(w.events.find((e) => e.type === 'stop-failed')?.data?.lastState).toBe(
      'unreadable (FIS GetExperiment did not answer within 28.5 s)',
    );
  });

  it('asks StopExperiment again while FIS still shows the experiment running, not once it is stopping', async () => {
    const running = world({ state: (n) => (n < 3 ? 'running' : 'stopped') });
    await running.run();
    expect(running.stops.length).toBe(4);

    const stopping = world({ state: (n) => (n < 3 ? 'stopping' : 'stopped') });
    await stopping.run();
    expect(stopping.stops).toEqual([0]);
  });
});

describe('asking StopExperiment', () => {
  it('never has two StopExperiment calls in flight, however often FIS still shows it running', async () => {
    const w = world({ stop: () => 3000, state: (_n, at) => (at < 9000 ? 'running' : 'stopped') });
    expect(await w.run()).toEqual({ verified: true, by: 'stop-experiment' });
    expect(w.stops.length).toBeGreaterThan(1);
    expect(w.maxInFlight()).toBe(1);
  });

  it('keeps asking while the stop is not accepted, even when FIS shows the experiment stopping', async () => {
    const w = world({
      stop: (n) => (n < 2 ? 'fail' : 'ok'),
      state: (_n, at) => (at < 4000 ? 'stopping' : 'stopped'),
    });
    expect(await w.run()).toEqual({ verified: true, by: 'stop-experiment' });
    expect(w.stops.length).toBe(3);
  });

  it('says why the lease was tripped when StopExperiment was never accepted', async () => {
    const w = world({ stop: () => 'fail', lease: 'tripping', state: () => 'running', budgetMs: 20_000 });
    const tripped = recordTrips(w);
    await w.run();
    expect(tripped).toEqual(['StopExperiment not accepted within 10.0 s: ThrottlingException']);
  });
});

describe('a StopExperiment with no answer yet', () => {
  it('is reported as "no answer", and trips the lease at half a short budget', async () => {
    const w = world({ stop: () => 'hang', lease: 'tripping', state: () => 'running', budgetMs: 6_000 });
    const tripped = recordTrips(w);
    await w.run();
    expect(w.events[0]?.message).toBe(
      'stop request not accepted (no answer); verifying the state and asking again',
    );
    expect(tripped).toEqual(['StopExperiment not accepted within 3.0 s']);
  });
});

describe('the lease while the stop is verified', () => {
  it('keeps beating: verifying a stop within its budget is progress', async () => {
    const w = world({ lease: 'guarded', state: (_n, at) => (at < 7000 ? 'stopping' : 'stopped') });
    expect(await w.run()).toEqual({ verified: true, by: 'stop-experiment' });
    expect(w.beats).toEqual([0, 5000]);
    expect(w.trips).toEqual([]);
  });
});

describe('a stop that is never seen', () => {
  it('is not verified, and names the last state and the commands to stop it by hand, with the Region', async () => {
    const w = world({ state: () => 'running', budgetMs: 8_000, region: 'eu-west-1' });
    expect(await w.run()).toEqual({ verified: false, by: 'unknown' });
    const failed = w.events.find((e) => e.type === 'stop-failed');
    expect(failed?.message).toBe(
      'stop of FIS experiment exp-1 not verified within 8.0 s: StopExperiment was accepted, but ' +
        "FIS's state was never seen stopped (last state running); check it and stop it by hand: " +
        'aws fis stop-experiment --id exp-1 --region eu-west-1',
    );
    expect(failed?.data).toEqual({
      experimentId: 'exp-1',
      lastState: 'running',
      manualCommands: [
        'aws fis stop-experiment --id exp-1 --region eu-west-1',
        'aws fis get-experiment --id exp-1 --region eu-west-1',
      ],
      leaseTripped: false,
      leaseForced: false,
    });
  });

  it('names the last state as unreadable when GetExperiment kept failing', async () => {
    const w = world({ state: () => 'fail', budgetMs: 8_000 });
    await w.run();
    expect(w.events.find((e) => e.type === 'stop-failed')?.data?.lastState).toBe(
      'unreadable (ThrottlingException)',
    );
  });

  it('says the lease was forced when it was, and that StopExperiment was not accepted', async () => {
    const w = world({ stop: () => 'fail', lease: 'tripping', state: () => 'running', budgetMs: 12_000 });
    await w.run();
    const failed = w.events.find((e) => e.type === 'stop-failed');
    expect(failed?.message).toContain(
      'StopExperiment was not accepted and CloudWatch accepted forcing the lease alarm to ALARM, but',
    );
    expect(failed?.message).toMatch(/stop it by hand: aws fis stop-experiment --id exp-1$/);
    expect(failed?.data).toMatchObject({ leaseTripped: true, leaseForced: true });
  });

  it('says every attempt to force the lease alarm was refused when CloudWatch refused them all', async () => {
    const w = world({
      stop: () => 'fail',
      lease: 'tripping',
      trip: 'refused',
      state: () => 'running',
      budgetMs: 12_000,
    });
    await w.run();
    expect(w.trips.length).toBeGreaterThan(1);
    const failed = w.events.find((e) => e.type === 'stop-failed');
    expect(failed?.message).toContain(
      'StopExperiment was not accepted and every attempt to force the lease alarm to ALARM was refused',
    );
    expect(failed?.message).not.toContain('was forced to ALARM');
    expect(failed?.data).toMatchObject({ leaseTripped: true, leaseForced: false });
  });
});
