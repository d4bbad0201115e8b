/**
 * The fault loop's control flow (src/engine/observe.ts) on the simulated world's virtual clock: the
 * polls beside the ticks end with the loop; `tick` checks are asked on the ticks and nowhere else; the
 * wait for the next tick ends early for a cancellation and for FIS's end; an end FIS reported during a
 * measurement is taken before the checks that follow it; only FIS stopping or cancelling the experiment
 * is an abort; an expectation is seen only on an `ok` reading; and a gap reading that still carries a
 * value neither extends nor resets a rule's breach streak.
 */
import { describe, expect, it } from 'vitest';
import type { MidRunCheck } from '../../src/engine/gates.js';
import type { JournalEvent } from '../../src/journal/types.js';
import type { MetricSource } from '../../src/metrics/source.js';
import { loadScenario, type Scenario } from '../../src/sim/scenario.js';
import type { SimWorld } from '../../src/sim/world.js';
import { injectorWith, simulate } from '../sim/helpers.js';
import { scriptedSource, type Scripted } from '../sim/scripted.js';

const held = (): Scenario => loadScenario('fixtures/scenarios/held.yaml');
const events = (es: readonly JournalEvent[], type: string) => es.filter((e) => e.type === type);
/**
 * When the fault loop returned: recovery measures one interval (1 s in these worlds) after it. (A fault
 * FIS ended by itself has no stop request to date it by.)
 */
const loopEndOf = (j: { measurements: readonly { phase: string; at: number }[] }): number =>
  j.measurements.find((m) => m.phase === 'recovery')!.at - 1000;

/** A mid-run check that records when it was asked (clock ms) and answers with `answer(at)`. */
function recordingCheck(
  cadence: MidRunCheck['cadence'],
  answer: (at: number) => string | null = () => null,
): { check: MidRunCheck; asked: number[] } {
  const asked: number[] = [];
  const check: MidRunCheck = {
    name: cadence === 'tick' ? 'stop-button' : 'incidents',
    cadence,
    check: async (at) => {
      asked.push(at);
      return answer(at);
    },
  };
  return { check, asked };
}

/** The world's Prometheus source, answering every read `ms` late (on the virtual clock). */
function slowPrometheus(w: SimWorld, ms: number): MetricSource {
  return {
    kind: 'prometheus',
    read: async (queries, at, windowMs) => {
      await w.clock.sleep(ms);
      return w.sources.prometheus.read(queries, at, windowMs);
    },
  };
}

describe('when the loop ends', () => {
  it('reads the FIS state no more: the state poll stops with the loop', async () => {
    // FIS never reports the stop, so a state poll left running would never settle by itself.
    const { world, clock } = await simulate('failed-stop-unverified');
    const reads = () => world.injector.calls.filter((c) => c.method === 'state').length;
    const atEnd = reads();
    expect(atEnd).toBeGreaterThan(0);
    await clock.sleep(30_000);
    expect(reads()).toBe(atEnd);
  });

  it('asks a polled mid-run check no more once the loop has returned', async () => {
    const { check, asked } = recordingCheck('poll');
    const { result, clock } = await simulate(held(), { deps: () => ({ midRun: [check] }) });
    expect(result.verdict).toBe('held');
    const loopEnded = loopEndOf(result.journal);
    expect(asked.length).toBeGreaterThan(10);
    expect(Math.max(...asked)).toBeLessThanOrEqual(loopEnded);
    const atEnd = asked.length;
    await clock.sleep(30_000);
    expect(asked).toHaveLength(atEnd);
  });
});

describe('a tick check', () => {
  it('is asked once on each tick, just before its measurement, and never between ticks', async () => {
    const { check, asked } = recordingCheck('tick');
    const { result, world } = await simulate(held(), { deps: () => ({ midRun: [check] }) });
    expect(result.verdict).toBe('held');
    const start = world.injector.startedAt!;
    const ticks = result.journal.measurements.filter((m) => m.phase === 'fault').map((m) => m.at - start);
    expect(ticks).toEqual(Array.from({ length: 20 }, (_, i) => (i + 1) * 1000));
    expect(asked.map((at) => at - start)).toEqual(ticks);
  });

  it('is not polled: a polled check beside it is asked at the injection already, the tick check is not', async () => {
    const tick = recordingCheck('tick');
    const polled = recordingCheck('poll');
    const { world } = await simulate(held(), { deps: () => ({ midRun: [tick.check, polled.check] }) });
    const start = world.injector.startedAt!;
    expect(polled.asked[0]).toBe(start);
    expect(tick.asked[0]).toBe(start + 1000);
  });
});

describe('the wait for the next tick', () => {
  it('ends when a state read between ticks sees FIS’s end, not at the next tick', async () => {
    // Every GetExperiment answers 400 ms after it is asked: the one asked at +20 s, when the 20 s action
    // completes, answers at +20.4 s, between the ticks at +20 s and +21 s.
    const { result, world } = await simulate(held(), {
      deps: (w) => ({
        injector: injectorWith(w, {
          state: async (id) => {
            await w.clock.sleep(400);
            return w.injector.state(id);
          },
        }),
      }),
    });
    const start = world.injector.startedAt!;
    expect(result.verdict).toBe('held');
    expect(events(result.journal.events, 'fault-ended')[0]!.at - start).toBe(20_400);
    expect(loopEndOf(result.journal) - start).toBe(20_400);
    expect(result.journal.timings.stopRequestedAt).toBeUndefined();
    expect(result.journal.measurements.filter((m) => m.phase === 'fault').at(-1)!.at - start).toBe(20_000);
  });

  it('ends at a cancellation: signal and abort (cancelled) at once, and no further tick', async () => {
    const { result, world } = await simulate('aborted-signal');
    const start = world.injector.startedAt!;
    const signal = events(result.journal.events, 'signal');
    const abort = events(result.journal.events, 'abort');
    expect(signal.map((e) => [e.at - start, e.data])).toEqual([[6500, { signal: 'SIGINT' }]]);
    expect(abort.map((e) => [e.at - start, e.data])).toEqual([
      [6500, { cause: 'cancelled', verdict: 'aborted' }],
    ]);
    expect(result.journal.timings.stopRequestedAt! - start).toBe(6500);
    expect(result.journal.measurements.filter((m) => m.phase === 'fault').at(-1)!.at - start).toBe(6000);
  });

  it('is not entered after a cancellation that came during the measurement', async () => {
    const ctl = new AbortController();
    let faultTicks = 0;
    const { result, world } = await simulate(held(), {
      deps: () => ({
        signal: ctl.signal,
        onTick: (m) => {
          if (m.phase === 'fault' && ++faultTicks === 3) ctl.abort('SIGINT');
        },
      }),
    });
    const start = world.injector.startedAt!;
    expect(faultTicks).toBe(3);
    expect(result.reason).toBe('cancelled by SIGINT (+3.0 s)');
    expect(events(result.journal.events, 'signal').map((e) => e.at - start)).toEqual([3000]);
    expect(result.journal.timings.stopRequestedAt! - start).toBe(3000);
  });
});

describe('an end FIS reports during a measurement', () => {
  it('is taken right after the measurement, before a polled check that found something in the same tick', async () => {
    // Measurements take 300 ms and state reads 150 ms: the 20 s action's end is read at +20.15 s, during
    // the measurement of +20 s. The incident check finds something from +20 s on.
    const { result, world } = await simulate(held(), {
      deps: (w) => ({
        sources: { ...w.sources, prometheus: slowPrometheus(w, 300) },
        injector: injectorWith(w, {
          state: async (id) => {
            await w.clock.sleep(150);
            return w.injector.state(id);
          },
        }),
        midRun: [
          recordingCheck('poll', (at) => (at >= w.injector.startedAt! + 20_000 ? 'incident opened' : null))
            .check,
        ],
      }),
    });
    const start = world.injector.startedAt!;
    expect(events(result.journal.events, 'fault-ended')[0]!.at - start).toBe(20_150);
    expect(result.journal.measurements.filter((m) => m.phase === 'fault').at(-1)!.at - start).toBe(20_000);
    expect(loopEndOf(result.journal) - start).toBe(20_300);
    expect(events(result.journal.events, 'abort')).toEqual([]);
    // FIS completed it: no stop request, and the journal says it completed.
    expect(events(result.journal.events, 'stop-requested')).toEqual([]);
    expect(events(result.journal.events, 'fault-ended')[0]?.data?.status).toBe('completed');
    expect(result.verdict).toBe('held');
  });
});

describe('FIS ending the experiment as failed', () => {
  it('is no abort: only a stop or a cancellation by FIS is', async () => {
    const { result } = await simulate('failed-fis');
    expect(result.verdict).toBe('failed');
    expect(result.reason).toMatch(/^FIS experiment failed: InternalFailure/);
    expect(events(result.journal.events, 'abort')).toEqual([]);
    // FIS ended it (failed): nothing for the gate to stop.
    expect(events(result.journal.events, 'stop-requested')).toEqual([]);
    expect(events(result.journal.events, 'fault-ended')[0]?.data?.status).toBe('failed');
  });
});

describe('an expectation', () => {
  it.each<[string, Scripted]>([
    ['breach (not met yet)', 0],
    ['no-data', null],
    ['error', 'error'],
  ])('is not seen on a reading with status %s, only on the first ok one', async (_status, first) => {
    const { result, world } = await simulate(held(), {
      deps: (w) => ({
        sources: {
          ...w.sources,
          prometheus: scriptedSource(w, 'prometheus', { breaker_open: (s) => (s <= 1 ? first : 1) }),
        },
      }),
    });
    const start = world.injector.startedAt!;
    const firstTick = result.journal.measurements.find((m) => m.phase === 'fault')!;
    expect(firstTick.at - start).toBe(1000);
    expect(firstTick.expect?.breaker_open?.status).not.toBe('ok');
    const seen = events(result.journal.events, 'expectation-observed');
    expect(seen.map((e) => [e.at - start, e.data])).toEqual([
      [2000, { expectation: 'breaker_open', value: 1 }],
    ]);
  });
});

describe('a gap reading that carries a value', () => {
  /**
   * p95 breaches (0.6 > 0.5, `for: 3s`) at +1, +2, +4, +5 and +6 s; at +3 s the request count is below
   * minRequests, so every SLI reads `no-data` while keeping its value: p95 `gapValue`.
   */
  async function withLowTrafficAt3(gapValue: number) {
    return simulate(held(), {
      deps: (w) => ({
        sources: {
          ...w.sources,
          prometheus: scriptedSource(w, 'prometheus', {
            p95_latency_s: (s) => (s === 3 ? gapValue : s <= 6 ? 0.6 : 0.1),
            __requests: (s) => (s === 3 ? 10 : undefined),
          }),
        },
      }),
    });
  }

  it('does not extend a breach streak when its value breaches', async () => {
    const { result } = await withLowTrafficAt3(0.6);
    const gap = result.journal.measurements.filter((m) => m.phase === 'fault')[2]!;
    expect(gap.slis.p95_latency_s).toMatchObject({ status: 'no-data', value: 0.6 });
    expect(result.verdict).toBe('aborted');
    expect(result.reason).toBe('p95_latency_s 0.6 > 0.5 for 3 measurements in a row, 3.0 s (+4.0 s)');
  });

  it('does not reset a breach streak when its value is healthy', async () => {
    const { result } = await withLowTrafficAt3(0.1);
    const gap = result.journal.measurements.filter((m) => m.phase === 'fault')[2]!;
    expect(gap.slis.p95_latency_s).toMatchObject({ status: 'no-data', value: 0.1 });
    expect(result.verdict).toBe('aborted');
    expect(result.reason).toBe('p95_latency_s 0.6 > 0.5 for 3 measurements in a row, 3.0 s (+4.0 s)');
  });
});
