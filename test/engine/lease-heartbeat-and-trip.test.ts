/**
 * The lease keeper's decisions on a virtual clock (src/engine/lease.ts): beats on a fixed cadence that a
 * slow call does not stretch; a failed or hung beat retried a second later (sooner for a shorter lease);
 * once guarded, a beat withheld only when the last progress is strictly older than `staleAfterMs`, said
 * once per stall; `trip()` forcing the alarm once, re-asserting it every 3 s until told to stop, and
 * saying which way the lease ends when the lease cannot be forced.
 */
import { describe, expect, it } from 'vitest';
import { VirtualClock } from '../../src/clock/clock.js';
import {
  LEASE_BEAT_DEADLINE_MS,
  LEASE_RETRY_MS,
  LEASE_TRIP_REPEAT_MS,
  LeaseKeeper,
} from '../../src/engine/lease.js';
import type { Lease } from '../../src/injector/injector.js';

interface Note {
  type: 'error' | 'lease';
  message: string;
  data?: Record<string, unknown> | undefined;
}

/**
 * A lease on the virtual clock: `beatAt` lists when each beat was asked for (relative to the start), and
 * `behave(n)` decides how the n-th beat (0-based) goes: `ok`, `fail`, `hang`, or a delay in ms.
 */
function harness(
  options: {
    intervalMs?: number;
    staleAfterMs?: number;
    behave?: (n: number) => 'ok' | 'fail' | 'hang' | number;
    trip?: 'ok' | 'fail' | 'none';
    /** How long forcing the alarm takes, ms. */
    tripMs?: number;
  } = {},
) {
  const clock = new VirtualClock();
  const t0 = clock.now();
  const beatAt: number[] = [];
  const tripAt: number[] = [];
  const notes: Note[] = [];
  const lease: Lease = {
    intervalMs: options.intervalMs ?? 5000,
    beat: async () => {
      const n = beatAt.push(clock.now() - t0) - 1;
      const how = options.behave?.(n) ?? 'ok';
      if (how === 'fail') throw new Error('PutMetricData throttled');
      if (how === 'hang') return new Promise<void>(() => undefined);
      if (typeof how === 'number') await clock.sleep(how);
    },
  };
  if (options.trip !== 'none') {
    lease.trip = async () => {
      tripAt.push(clock.now() - t0);
      if (options.tripMs) await clock.sleep(options.tripMs);
      if (options.trip === 'fail') throw new Error('SetAlarmState denied');
    };
  }
  const keeper = new LeaseKeeper({
    lease,
    clock,
    staleAfterMs: options.staleAfterMs ?? 60_000,
    note: (type, message, data) => notes.push({ type, message, data }),
  });
  /** Sleeps until `ms` after the start. */
  const until = (ms: number) => clock.sleep(t0 + ms - clock.now());
  return { clock, t0, keeper, beatAt, tripAt, notes, until };
}

describe('the heartbeat cadence', () => {
  it('keeps a fixed cadence: a beat that takes 2 s does not push the next one back', async () => {
    const h = harness({ behave: () => 2000 });
    await h.keeper.start();
    await h.until(16_000);
    await h.keeper.end();
    expect(h.beatAt).toEqual([0, 5000, 10_000, 15_000]);
  });

  it('retries a failed beat one second later, then returns to the cadence from the retry', async () => {
    const h = harness({ behave: (n) => (n === 1 ? 'fail' : 'ok') });
    await h.keeper.start();
    await h.until(12_000);
    await h.keeper.end();
    expect(h.beatAt).toEqual([0, 5000, 5000 + LEASE_RETRY_MS, 5000 + LEASE_RETRY_MS + 5000]);
    expect(h.notes.map((n) => [n.type, n.message])).toEqual([
      ['error', 'lease heartbeat failed (retrying in 1 s): PutMetricData throttled'],
    ]);
  });

  it('retries sooner than a second when the lease interval is shorter', async () => {
    const h = harness({ intervalMs: 400, behave: (n) => (n === 1 ? 'fail' : 'ok') });
    await h.keeper.start();
    await h.until(1300);
    await h.keeper.end();
    expect(h.beatAt).toEqual([0, 400, 800, 1200]);
  });

  it('abandons a beat that hangs at its deadline and retries a second after that', async () => {
    const h = harness({ behave: (n) => (n === 1 ? 'hang' : 'ok') });
    await h.keeper.start();
    await h.until(5000 + LEASE_BEAT_DEADLINE_MS + LEASE_RETRY_MS + 1);
    await h.keeper.end();
    expect(h.beatAt).toEqual([0, 5000, 5000 + LEASE_BEAT_DEADLINE_MS + LEASE_RETRY_MS]);
    expect(h.notes[0]?.message).toBe(
      'lease heartbeat failed (retrying in 1 s): lease heartbeat did not answer within 3 s',
    );
  });

  it('beats no more after end()', async () => {
    const h = harness();
    await h.keeper.start();
    await h.until(6000);
    await h.keeper.end();
    await h.until(30_000);
    expect(h.beatAt).toEqual([0, 5000]);
    expect(h.keeper.beats).toBe(2);
    expect(h.notes).toEqual([]);
  });

  it('does not report a beat cut short by end() as a failed heartbeat', async () => {
    const h = harness({ behave: () => 2000 });
    await h.keeper.start();
    await h.until(5500);
    await h.keeper.end();
    expect(h.beatAt).toEqual([0, 5000]);
    expect(h.notes).toEqual([]);
  });
});

describe('beats withheld once guarded', () => {
  it('still beats when the last progress is exactly staleAfterMs old, and withholds 1 ms past it', async () => {
    const exact = harness({ intervalMs: 2500, staleAfterMs: 2500 });
    await exact.keeper.start();
    exact.keeper.guard();
    await exact.until(2600);
    await exact.keeper.end();
    expect(exact.beatAt).toEqual([0, 2500]);

    const late = harness({ intervalMs: 2500, staleAfterMs: 2499 });
    await late.keeper.start();
    late.keeper.guard();
    await late.until(2600);
    await late.keeper.end();
    expect(late.beatAt).toEqual([0]);
  });

  it('says once that beats are withheld, looks again every second, and resumes on progress', async () => {
    const h = harness({ intervalMs: 5000, staleAfterMs: 2000 });
    await h.keeper.start();
    h.keeper.guard();
    // No progress: the beat due at 5 s is withheld, and again at 6, 7 and 8 s.
    await h.until(8500);
    expect(h.beatAt).toEqual([0]);
    const withheld = h.notes.filter((n) => n.data?.withheld === true);
    expect(withheld).toHaveLength(1);
    expect(withheld[0]?.message).toMatch(/^no progress for 5\.0 s: heartbeats withheld/);
    h.keeper.progress();
    await h.until(9100);
    await h.keeper.end();
    // The check a second after 8 s finds the progress and beats.
    expect(h.beatAt).toEqual([0, 9000]);
    expect(h.notes.filter((n) => n.message.includes('advancing again'))).toEqual([
      { type: 'lease', message: 'the run loop is advancing again: heartbeats resume', data: undefined },
    ]);
    expect(withheld[0]?.type).toBe('lease');
  });

  it('announces resuming once per stall, and a second stall again', async () => {
    const h = harness({ intervalMs: 5000, staleAfterMs: 2000 });
    await h.keeper.start();
    h.keeper.guard();
    await h.until(5500);
    h.keeper.progress();
    h.keeper.progress();
    await h.until(12_500);
    h.keeper.progress();
    const said = h.notes.map((n) => n.message.slice(0, 24));
    expect(said).toEqual([
      'no progress for 5.0 s: h',
      'the run loop is advancin',
      'no progress for 5.5 s: h',
      'the run loop is advancin',
    ]);
    await h.keeper.end();
  });

  it('starts the staleness clock at the guard, not at the keeper’s creation', async () => {
    const h = harness({ intervalMs: 5000, staleAfterMs: 2000 });
    await h.keeper.start();
    // Before the guard the keeper beats on its own, whatever the progress.
    await h.until(9000);
    h.keeper.guard();
    await h.until(10_500);
    await h.keeper.end();
    expect(h.beatAt).toEqual([0, 5000, 10_000]);
    expect(h.notes).toEqual([]);
  });

  it('says nothing about resuming when beats were never withheld', async () => {
    const h = harness({ staleAfterMs: 10_000 });
    await h.keeper.start();
    h.keeper.guard();
    h.keeper.progress();
    await h.until(6000);
    await h.keeper.end();
    expect(h.notes).toEqual([]);
  });
});

describe('trip', () => {
  it('forces the alarm once at once, then every 3 s until told to stop, and beats no more', async () => {
    const h = harness();
    await h.keeper.start();
    await h.until(1000);
    const done = new AbortController();
    await h.keeper.trip('p95 over its bound', done.signal);
    expect(h.tripAt).toEqual([1000]);
    expect(h.keeper.tripped).toBe(true);
    await h.until(1000 + 2 * LEASE_TRIP_REPEAT_MS + 500);
    done.abort();
    await h.keeper.settled();
    await h.until(30_000);
    expect(h.tripAt).toEqual([1000, 1000 + LEASE_TRIP_REPEAT_MS, 1000 + 2 * LEASE_TRIP_REPEAT_MS]);
    expect(h.beatAt).toEqual([0]);
    expect(h.notes.map((n) => [n.message, n.data])).toEqual([
      [
        'heartbeats stopped and the lease alarm forced to ALARM (p95 over its bound): FIS stops the experiment by its stop condition',
        { forced: true },
      ],
    ]);
  });

  it('trips only once however often it is asked', async () => {
    const h = harness();
    await h.keeper.start();
    const done = new AbortController();
    await h.keeper.trip('first', done.signal);
    await h.keeper.trip('second', done.signal);
    done.abort();
    await h.keeper.settled();
    expect(h.tripAt).toEqual([0]);
    expect(h.notes.filter((n) => n.type === 'lease')).toHaveLength(1);
  });

  it('says the alarm was not forced when forcing fails, and keeps trying', async () => {
    const h = harness({ trip: 'fail' });
    await h.keeper.start();
    const done = new AbortController();
    await h.keeper.trip('stop not seen', done.signal);
    await h.until(LEASE_TRIP_REPEAT_MS + 100);
    done.abort();
    await h.keeper.settled();
    expect(h.tripAt).toEqual([0, LEASE_TRIP_REPEAT_MS]);
    expect(h.notes.map((n) => [n.type, n.message, n.data])).toEqual([
      ['error', 'forcing the lease alarm to ALARM failed: SetAlarmState denied', undefined],
      [
        'lease',
        'heartbeats stopped (stop not seen); the lease alarm trips when a period passes empty',
        { forced: false },
      ],
      ['error', 'forcing the lease alarm to ALARM failed: SetAlarmState denied', undefined],
    ]);
  });

  it('only stops the beats when the lease cannot be forced', async () => {
    const h = harness({ trip: 'none' });
    await h.keeper.start();
    const done = new AbortController();
    await h.keeper.trip('stop not seen', done.signal);
    await h.until(20_000);
    done.abort();
    await h.keeper.settled();
    expect(h.beatAt).toEqual([0]);
    expect(h.notes.map((n) => [n.type, n.message])).toEqual([
      ['lease', 'heartbeats stopped (stop not seen); the lease alarm trips when a period passes empty'],
    ]);
  });

  it('settles only once the attempt in flight when told to stop has finished', async () => {
    const h = harness({ tripMs: 1000 });
    await h.keeper.start();
    const done = new AbortController();
    await h.keeper.trip('stop not seen', done.signal);
    // Attempts at 0 (until 1 s) and at 4 s (until 5 s); told to stop at 4.5 s.
    await h.until(4500);
    done.abort();
    await h.keeper.settled();
    expect(h.clock.now() - h.t0).toBe(5000);
    expect(h.tripAt).toEqual([0, 4000]);
  });
});
