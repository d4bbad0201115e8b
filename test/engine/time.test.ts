/**
 * Truth in time and slowness as failure, on the virtual clock: the steady state holds up to the start,
 * windows never straddle phases, every call has a deadline, the observe loop never waits on one call,
 * abort rules hold in measured time, and a stop that does not land is escalated to the lease.
 */
import { describe, expect, it } from 'vitest';
import { VirtualClock } from '../../src/clock/clock.js';
import type { Lease } from '../../src/injector/injector.js';
import { LeaseKeeper } from '../../src/engine/lease.js';
import type { MetricSource, Query, Reading } from '../../src/metrics/source.js';
import type { SimWorld } from '../../src/sim/world.js';
import { loadScenario, type Scenario } from '../../src/sim/scenario.js';
import { injectorWith, planWith, simulate } from '../sim/helpers.js';
import { scriptedSource } from '../sim/scripted.js';

const held = (): Scenario => loadScenario('fixtures/scenarios/held.yaml');

/** A call that takes `ms` of virtual time and then delegates (or never ends when ms is Infinity). */
function slow<T>(
  clock: { sleep(ms: number): Promise<void> },
  ms: number,
  then: () => Promise<T>,
): Promise<T> {
  if (ms === Infinity) return new Promise<T>(() => undefined);
  return clock.sleep(ms).then(then);
}

/** A lease that records beats and trips on the virtual clock. */
function recordingLease(
  clock: VirtualClock,
  onTrip?: () => void,
): Lease & { beats: number[]; trips: number[] } {
  const beats: number[] = [];
  const trips: number[] = [];
  return {
    intervalMs: 5000,
    beats,
    trips,
    beat: async () => void beats.push(clock.now()),
    trip: async () => {
      trips.push(clock.now());
      onTrip?.();
    },
  };
}

describe('the steady state holds right up to StartExperiment', () => {
  it('keeps measuring while the lease alarm is not OK yet, and starts within one interval of the last measurement', async () => {
    let readyAt = 0;
    const { result, world } = await simulate(held(), {
      deps: (w) => {
        readyAt = w.clock.now() + 13_000; // the lease alarm turns OK 13 s in (a 10 s evaluation cadence)
        return {
          injector: injectorWith(w, {
            readiness: async () => (w.clock.now() >= readyAt ? null : 'the lease alarm to turn OK'),
          }),
        };
      },
    });
    const j = result.journal;
    const steady = j.measurements.filter((m) => m.phase === 'steady');
    const last = steady.at(-1)!;
    const inject = j.events.find((e) => e.type === 'inject')!;
    expect(result.verdict).toBe('held');
    // 5 s of steady state, then measured on until the alarm was OK at 13 s.
    expect(steady.length).toBeGreaterThan(5);
    expect(last.at).toBeGreaterThanOrEqual(readyAt - 1000);
    expect(inject.data?.sentAt as number).toBeLessThanOrEqual(last.at + j.intervalMs);
    expect(world.injector.startedAt! - last.at).toBeLessThanOrEqual(j.intervalMs);
    expect(
      j.events.some((e) => e.type === 'preflight' && /while waiting for the lease alarm/.test(e.message)),
    ).toBe(true);
  });

  it('ends not-run when the steady state breaks during the wait for the start', async () => {
    const { result, world } = await simulate(held(), {
      deps: (w) => {
        const t0 = w.clock.now();
        const inner = w.sources.prometheus;
        const source: MetricSource = {
          kind: 'prometheus',
          async read(qs: readonly Query[], at: number, windowMs: number): Promise<Reading[]> {
            const got = await inner.read(qs, at, windowMs);
            // The service breaks 8 s in: after the 5 s steady state, while the start is still awaited.
            return got.map((r) => (r.name === 'p95_latency_s' && at - t0 >= 8000 ? { ...r, value: 0.9 } : r));
          },
        };
        return {
          sources: { ...w.sources, prometheus: source },
          injector: injectorWith(w, { readiness: async () => 'the lease alarm to turn OK' }),
        };
      },
    });
    expect(result.verdict).toBe('not-run');
    expect(result.reason).toMatch(/steady state broken before injection: p95_latency_s 0\.9/);
    expect(world.injector.startedAt).toBeUndefined();
  });

  it('refuses when the start is still not allowed 30 s after the steady state', async () => {
    const { result, world } = await simulate(held(), {
      deps: (w) => ({ injector: injectorWith(w, { readiness: async () => 'the lease alarm to turn OK' }) }),
    });
    expect(result.verdict).toBe('refused');
    expect(result.reason).toMatch(/could not start within 30\.0 s after the steady state/);
    expect(world.injector.startedAt).toBeUndefined();
  });
});

describe('measurement windows', () => {
  it('starts the first fault window at the injection and keeps every window about one interval long', async () => {
    const { result } = await simulate(held());
    const j = result.journal;
    const fault = j.measurements.filter((m) => m.phase === 'fault');
    expect(fault[0]!.at - fault[0]!.windowMs!).toBe(j.timings.injectedAt);
    for (const m of j.measurements) expect(m.windowMs).toBeLessThanOrEqual(1.5 * j.intervalMs);
  });

  it('journals a held-up loop as a gap instead of folding it into the next window', async () => {
    const { result } = await simulate(held(), {
      deps: (w) => {
        let n = 0;
        const inner = w.sources.prometheus;
        return {
          sources: {
            ...w.sources,
            prometheus: {
              kind: 'prometheus',
              read: async (qs: readonly Query[], at: number, windowMs: number) => {
                // The 4th fault tick's process pauses for 4 s (a GC pause, a suspended runner): time passes
                // without the loop; the next tick must not claim those 4 s as one window.
                if (w.injector.startedAt !== undefined && ++n === 4) (w.clock as VirtualClock).advance(4000);
                return inner.read(qs, at, windowMs);
              },
            },
          },
        };
      },
    });
    const gap = result.journal.events.find((e) => e.type === 'gap');
    expect(gap?.message).toMatch(/no measurement covers \d+\.\d s of the fault/);
    for (const m of result.journal.measurements) expect(m.windowMs).toBeLessThanOrEqual(1500);
  });
});

describe('slowness is a failure', () => {
  it('aborts on time when every GetExperiment answer takes 25 s: the state poll runs beside the ticks', async () => {
    const { result, world } = await simulate(held(), {
      deps: (w) => ({
        // The default stop budget (60 s): an answer that takes 25 s still verifies the stop.
        stopVerifyTimeoutMs: 60_000,
        injector: injectorWith(w, { state: (id) => slow(w.clock, 25_000, () => w.injector.state(id)) }),
        sources: {
          ...w.sources,
          prometheus: scriptedSource(w, 'prometheus', { p95_latency_s: (s) => (s >= 2 ? 0.9 : undefined) }),
        },
      }),
    });
    const j = result.journal;
    expect(result.verdict).toBe('aborted');
    // The rule (3 s above 0.5 from +2 s) trips at +4 s; the stop request follows at once.
    expect(j.timings.stopRequestedAt! - j.timings.injectedAt!).toBeLessThanOrEqual(5000);
    expect(world.injector.stopRequestedAt! - world.injector.startedAt!).toBeLessThanOrEqual(5000);
    // Ticks stayed on the clock: one fault measurement per interval up to the abort.
    const fault = j.measurements.filter((m) => m.phase === 'fault');
    expect(fault.map((m) => m.at - j.timings.injectedAt!)).toEqual([1000, 2000, 3000, 4000]);
    // Verified despite the slow reads: an answer arrives within the stop budget.
    expect(j.events.some((e) => e.type === 'stop-verified')).toBe(true);
  });

  it('turns a GetMetricData that takes 20 s into error readings at the end of each tick, and aborts blind', async () => {
    const { result, world } = await simulate(held(), {
      deps: (w) => {
        const inner = w.sources.prometheus;
        return {
          sources: {
            ...w.sources,
            prometheus: {
              kind: 'prometheus',
              read: (qs: readonly Query[], at: number, windowMs: number) =>
                w.injector.startedAt !== undefined && at > w.injector.startedAt
                  ? slow(w.clock, 20_000, () => inner.read(qs, at, windowMs))
                  : inner.read(qs, at, windowMs),
            },
          },
        };
      },
    });
    const j = result.journal;
    expect(result.verdict).toBe('inconclusive');
    expect(result.reason).toMatch(/^blind: 3 measurements in a row without data/);
    expect(result.reason).toMatch(/did not answer within/);
    // Three ticks of one interval each, not three 20 s waits.
    expect(world.injector.stopRequestedAt! - world.injector.startedAt!).toBeLessThanOrEqual(4500);
    const fault = j.measurements.filter((m) => m.phase === 'fault');
    // The request count is late too, so minRequests masks each SLI as no-data, naming the late read.
    expect(fault.map((m) => m.slis.p95_latency_s?.status)).toEqual(['no-data', 'no-data', 'no-data']);
    expect(fault[0]!.slis.p95_latency_s?.error).toMatch(
      /request count unavailable \(the prometheus source did not answer within 1 s/,
    );
  });

  it('trips the lease when StopExperiment hangs, so FIS stops by its stop condition, and says so', async () => {
    let tripped = false;
    const { result, clock } = await simulate(held(), {
      deps: (w) => {
        const lease = recordingLease(w.clock as VirtualClock, () => {
          // FIS sees its stop-condition alarm in ALARM and stops the experiment itself.
          tripped = true;
          if (w.injector.stopRequestedAt === undefined) w.injector.stopRequestedAt = w.clock.now();
        });
        return {
          lease,
          injector: injectorWith(w, { stop: () => slow(w.clock, 220_000, async () => undefined) }),
          sources: {
            ...w.sources,
            prometheus: scriptedSource(w, 'prometheus', { p95_latency_s: (s) => (s >= 2 ? 0.9 : undefined) }),
          },
        };
      },
    });
    const j = result.journal;
    expect(tripped).toBe(true);
    const verified = j.events.find((e) => e.type === 'stop-verified');
    expect(verified?.data?.by).toBe('lease');
    expect(verified?.message).toMatch(/by the lease alarm \(a stop condition\)/);
    // Escalated about 10 s after the decision to stop, and the fault ended within ~12 s of it.
    const lease = j.events.find((e) => e.type === 'lease' && e.data?.forced === true);
    expect(lease!.at - j.timings.stopRequestedAt!).toBeGreaterThanOrEqual(10_000);
    expect(lease!.at - j.timings.stopRequestedAt!).toBeLessThanOrEqual(10_500);
    expect(j.timings.stoppedAt! - j.timings.stopRequestedAt!).toBeLessThanOrEqual(12_000);
    expect(result.verdict).toBe('aborted');
    expect(clock.now()).toBeGreaterThan(0);
  });

  it('fails when the experiment state cannot be read blindAfter times in a row, and still stops FIS', async () => {
    const { result, world } = await simulate(held(), {
      deps: (w) => {
        let reads = 0;
        return {
          injector: injectorWith(w, {
            // Readable at first; from the third read on, no answer ever comes (a hung connection).
            state: (id: string) =>
              ++reads <= 2 ? w.injector.state(id) : slow(w.clock, Infinity, () => w.injector.state(id)),
          }),
        };
      },
    });
    expect(result.verdict).toBe('failed');
    expect(result.reason).toMatch(/the FIS experiment state could not be read 3 times in a row/);
    expect(world.injector.stopCount).toBeGreaterThanOrEqual(1);
  });
});

describe('abort rules hold in measured time', () => {
  it('trips `for: 3s` on three breaching windows of 999 ms (jitter does not cost a fourth)', async () => {
    const plan = planWith((p) => {
      p.abort.rules = [{ sli: 'p95_latency_s', above: 0.5, for: '3s' }];
    });
    const { result } = await simulate(held(), {
      plan,
      deps: (w) => {
        const inner = scriptedSource(w, 'prometheus', { p95_latency_s: (s) => (s >= 2 ? 0.9 : undefined) });
        return {
          sources: {
            ...w.sources,
            prometheus: {
              kind: 'prometheus',
              // Each read costs 1 ms, so windows are 999–1001 ms as on a real runner.
              read: async (qs: readonly Query[], at: number, windowMs: number) => {
                (w.clock as VirtualClock).advance(1);
                return inner.read(qs, at, windowMs);
              },
            },
          },
        };
      },
    });
    expect(result.verdict).toBe('aborted');
    expect(result.reason).toMatch(/for 3 measurements in a row, 3\.0 s/);
  });

  it('does not trip `for: 3s` on two breaching windows with a blind one between them', async () => {
    const plan = planWith((p) => {
      p.abort.rules = [{ sli: 'p95_latency_s', above: 0.5, for: '3s' }];
    });
    const { result } = await simulate(held(), {
      plan,
      deps: (w) => ({
        sources: {
          ...w.sources,
          prometheus: scriptedSource(w, 'prometheus', {
            p95_latency_s: (s) => (s === 2 || s === 4 ? 0.9 : s === 3 ? 'error' : undefined),
          }),
        },
      }),
    });
    expect(result.journal.events.some((e) => e.type === 'abort')).toBe(false);
  });
});

describe('the lease keeper', () => {
  it('withholds heartbeats once the guarded loop stops making progress, and resumes when it advances', async () => {
    const clock = new VirtualClock();
    const lease = recordingLease(clock);
    const notes: string[] = [];
    const keeper = new LeaseKeeper({ lease, clock, staleAfterMs: 2500, note: (_t, m) => notes.push(m) });
    const t0 = clock.now();
    await keeper.start();
    keeper.guard();
    // Progress every second for 12 s: beats at 0, 5, 10 s.
    for (let s = 1; s <= 12; s++) {
      await clock.sleep(1000);
      keeper.progress();
    }
    expect(lease.beats.map((b) => b - t0)).toEqual([0, 5000, 10_000]);
    // 20 s without progress: no beat after the last progress + 2.5 s.
    await clock.sleep(20_000);
    expect(lease.beats.map((b) => b - t0)).toEqual([0, 5000, 10_000]);
    expect(notes.some((n) => /no progress for/.test(n))).toBe(true);
    keeper.progress();
    await clock.sleep(2000);
    expect(lease.beats.length).toBe(4);
    await keeper.end();
  });

  it('beats unconditionally before the guard (nothing to protect before the start)', async () => {
    const clock = new VirtualClock();
    const lease = recordingLease(clock);
    const keeper = new LeaseKeeper({ lease, clock, staleAfterMs: 1000, note: () => undefined });
    await keeper.start();
    await clock.sleep(16_000);
    expect(lease.beats.length).toBe(4);
    await keeper.end();
  });
});

describe('every slow or failing call ends the fault within a bound, and never as held', () => {
  type Misbehaviour = 'latency' | 'drop' | 'throttle' | '5xx';
  const misbehaviours: Misbehaviour[] = ['latency', 'drop', 'throttle', '5xx'];
  /** A call that misbehaves from the injection on (virtual clock). */
  const misbehave = <T>(w: SimWorld, kind: Misbehaviour, call: () => Promise<T>): Promise<T> => {
    if (w.injector.startedAt === undefined) return call();
    const clock = w.clock as VirtualClock;
    switch (kind) {
      case 'latency':
        return clock.sleep(25_000).then(call);
      case 'drop':
        return new Promise<T>(() => undefined); // the connection never answers
      case 'throttle':
        return clock.sleep(200).then(() => Promise.reject(new Error('ThrottlingException: Rate exceeded')));
      case '5xx':
        return Promise.reject(new Error('InternalServerError: 500'));
    }
  };
  /** The aborting scenario: p95 far above its abort threshold from +2 s on. */
  const breaking = (w: SimWorld) =>
    scriptedSource(w, 'prometheus', { p95_latency_s: (s) => (s >= 2 ? 0.9 : undefined) });

  for (const kind of misbehaviours) {
    it(`GetExperiment ${kind}: the tripwire still stops the fault within 5 s of injection`, async () => {
      const { result, world } = await simulate(held(), {
        deps: (w) => ({
          stopVerifyTimeoutMs: 60_000,
          sources: { ...w.sources, prometheus: breaking(w) },
          injector: injectorWith(w, { state: (id) => misbehave(w, kind, () => w.injector.state(id)) }),
        }),
      });
      expect(result.verdict).not.toBe('held');
      expect(world.injector.stopRequestedAt! - world.injector.startedAt!).toBeLessThanOrEqual(5000);
    });

    it(`metric read ${kind}: blindness stops the fault within 5 s of injection, inconclusive`, async () => {
      const { result, world } = await simulate(held(), {
        deps: (w) => {
          const inner = w.sources.prometheus;
          return {
            sources: {
              ...w.sources,
              prometheus: {
                kind: 'prometheus',
                read: (qs: readonly Query[], at: number, windowMs: number) =>
                  kind === '5xx' || kind === 'throttle'
                    ? w.injector.startedAt === undefined
                      ? inner.read(qs, at, windowMs)
                      : Promise.resolve(
                          qs.map((q) => ({
                            name: q.name,
                            value: null,
                            status: 'error' as const,
                            query: '',
                            error: kind === '5xx' ? 'HTTP 500' : 'HTTP 429',
                          })),
                        )
                    : misbehave(w, kind, () => inner.read(qs, at, windowMs)),
              },
            },
          };
        },
      });
      expect(result.verdict).toBe('inconclusive');
      expect(world.injector.stopRequestedAt! - world.injector.startedAt!).toBeLessThanOrEqual(5000);
    });

    it(`StopExperiment ${kind}: the lease ends the fault within 15 s of the decision to stop`, async () => {
      const { result, world } = await simulate(held(), {
        deps: (w) => ({
          stopVerifyTimeoutMs: 60_000,
          lease: recordingLease(w.clock as VirtualClock, () => {
            if (w.injector.stopRequestedAt === undefined) w.injector.stopRequestedAt = w.clock.now();
          }),
          sources: { ...w.sources, prometheus: breaking(w) },
          injector: injectorWith(w, { stop: (id, r) => misbehave(w, kind, () => w.injector.stop(id, r)) }),
        }),
      });
      const j = result.journal;
      expect(result.verdict).not.toBe('held');
      expect(j.timings.stoppedAt! - j.timings.stopRequestedAt!).toBeLessThanOrEqual(15_000);
      expect(j.events.find((e) => e.type === 'stop-verified')?.data?.by).toBe('lease');
      expect(world.injector.terminalAt()! - world.injector.startedAt!).toBeLessThanOrEqual(20_000);
    });
  }
});
