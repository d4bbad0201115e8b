/**
 * The measured phases around the fault (src/engine/phases.ts), on the simulated world's virtual clock:
 * how many steady-state measurements a duration takes; what a broken steady state says; a new line in
 * the journal each time what the start waits for changes (and only then); a recovery that never comes
 * back is a deviation when an SLI breached its steady bound and blindness when it only had no data; the
 * recovery is measured up to `recovery.within` after the fault ended, the last measurement on that line.
 */
import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import { VirtualClock } from '../../src/clock/clock.js';
import { READINESS_WAIT_MS, sleepOn } from '../../src/engine/run.js';
import type { Injector } from '../../src/injector/injector.js';
import type { JournalEvent } from '../../src/journal/types.js';
import type { MetricSource, Query, Reading } from '../../src/metrics/source.js';
import type { PlanInput } from '../../src/plan/schema.js';
import { loadScenario, type Scenario } from '../../src/sim/scenario.js';
import type { SimWorld } from '../../src/sim/world.js';
import { planWith, simulate } from '../sim/helpers.js';
import { scriptedSource, type Scripted } from '../sim/scripted.js';

const held = (): Scenario => loadScenario('fixtures/scenarios/held.yaml');
const events = (es: readonly JournalEvent[], type: string) => es.filter((e) => e.type === type);

/** The world's Prometheus with p95 replaced before the injection: `script(ms since the run started)`. */
function steadyP95(world: SimWorld, script: (ms: number) => Scripted | undefined): MetricSource {
  const inner = world.sources.prometheus;
  return {
    kind: 'prometheus',
    async read(queries: readonly Query[], at: number, windowMs: number): Promise<Reading[]> {
      const base = await inner.read(queries, at, windowMs);
      if (world.injector.startedAt !== undefined) return base;
      const v = script(at - world.createdAt);
      return base.map((r): Reading => {
        if (r.name !== 'p95_latency_s' || v === undefined) return r;
        if (v === 'error') return { ...r, value: null, status: 'error', error: 'scripted error' };
        if (v === null) return { ...r, value: null, status: 'no-data', error: 'scripted gap' };
        return { ...r, value: v, status: 'ok' };
      });
    },
  };
}

/** The world's injector with a readiness check; `at` lists when it was asked (ms since the run started). */
function withReadiness(world: SimWorld, answer: (n: number, at: number) => Promise<string | null>) {
  const inner = world.injector;
  const at: number[] = [];
  const injector: Injector = {
    provision: (p, c) => inner.provision(p, c),
    resolveTargets: (p, t) => inner.resolveTargets(p, t),
    start: (p, t, c) => inner.start(p, t, c),
    state: (id) => inner.state(id),
    stop: (id, r) => inner.stop(id, r),
    readiness: () => {
      const n = at.push(world.clock.now() - world.createdAt) - 1;
      return answer(n, at[n]!);
    },
  };
  return { injector, at };
}

describe('the steady state', () => {
  it('takes ceil(duration / interval) measurements: 2.5 s at 1 s is three', async () => {
    const plan = planWith((p: PlanInput) => void (p.hypothesis.steadyState = { duration: '2500ms' }));
    const { result } = await simulate(held(), { plan });
    const steady = result.journal.measurements.filter((m) => m.phase === 'steady');
    expect(steady).toHaveLength(3);
    const [held3] = events(result.journal.events, 'steady-state');
    expect(held3?.message).toBe('steady state held for 3.0 s (3 measurements)');
    expect(held3?.data).toMatchObject({ measurements: 3, lastAt: steady[2]?.at });
  });

  it('ends not-run at the first SLI over its steady bound, naming the bound', async () => {
    const { result } = await simulate(held(), {
      deps: (w) => ({
        sources: { ...w.sources, prometheus: steadyP95(w, (ms) => (ms >= 3000 ? 0.15 : undefined)) },
      }),
    });
    expect(result.verdict).toBe('not-run');
    expect(result.reason).toBe(
      'steady state broken before injection: p95_latency_s 0.15 > 0.11 (steady-state bound) at 3.0 s into the steady state',
    );
    expect(events(result.journal.events, 'not-run')[0]?.data).toEqual({
      sli: 'p95_latency_s',
      status: 'breach',
    });
  });

  it('ends not-run at the first SLI without data, with the source’s words', async () => {
    const { result } = await simulate(held(), {
      deps: (w) => ({
        sources: { ...w.sources, prometheus: steadyP95(w, (ms) => (ms >= 2000 ? 'error' : undefined)) },
      }),
    });
    expect(result.reason).toBe(
      'steady state broken before injection: p95_latency_s had no data (scripted error) at 2.0 s into the steady state',
    );
  });

  it('journals what the start waits for each time it changes, and only then', async () => {
    let asked = 0;
    const { result } = await simulate(held(), {
      deps: (w) => {
        const inner = w.injector;
        const injector: Injector = {
          provision: (p, c) => inner.provision(p, c),
          resolveTargets: (p, t) => inner.resolveTargets(p, t),
          start: (p, t, c) => inner.start(p, t, c),
          state: (id) => inner.state(id),
          stop: (id, r) => inner.stop(id, r),
          readiness: async () => {
            asked++;
            if (asked <= 7) return 'the lease alarm to turn OK';
            if (asked <= 9) return 'the kill-switch alarm to turn OK';
            return null;
          },
        };
        return { injector };
      },
    });
    expect(result.verdict).toBe('held');
    const waiting = events(result.journal.events, 'preflight').filter((e) => e.data?.waiting !== undefined);
    expect(waiting.map((e) => e.message)).toEqual([
      'steady state measured on while waiting for the lease alarm to turn OK',
      'steady state measured on while waiting for the kill-switch alarm to turn OK',
    ]);
  });
});

describe('recovery', () => {
  /** The held world with p95 (and optionally success_ratio) scripted from +21 s, after the fault, on. */
  const afterFault = (value: Scripted, options: { success?: Scripted; recoveryWithin?: string } = {}) =>
    simulate(held(), {
      plan: planWith((p: PlanInput) => {
        if (options.recoveryWithin) p.hypothesis.recovery = { within: options.recoveryWithin };
      }),
      deps: (w) => ({
        sources: {
          ...w.sources,
          prometheus: scriptedSource(w, 'prometheus', {
            p95_latency_s: (s) => (s >= 21 ? value : undefined),
            success_ratio: (s) => (s >= 21 ? options.success : undefined),
          }),
        },
      }),
    });

  it('is a deviation when an SLI stays over its steady bound, measured up to recovery.within', async () => {
    const { result } = await afterFault(0.15);
    expect(result.verdict).toBe('deviated');
    const [recovery] = events(result.journal.events, 'recovery');
    expect(recovery?.data).toEqual({ recovered: false, blind: false });
    expect(recovery?.message).toMatch(
      /^not recovered within 10\.0 s after the fault ended: p95_latency_s 0\.15 > 0\.11 \(steady-state bound\) \(\+\d+\.\d s\)$/,
    );
    const measured = result.journal.measurements.filter((m) => m.phase === 'recovery');
    expect(measured[0]?.at).toBe(result.journal.timings.stoppedAt! + 1000);
    expect(measured.at(-1)?.at).toBe(result.journal.timings.stoppedAt! + 10_000);
  });

  it('is blindness, not a deviation, when the SLI only had no data', async () => {
    const { result } = await afterFault(null);
    expect(result.verdict).toBe('inconclusive');
    const [recovery] = events(result.journal.events, 'recovery');
    expect(recovery?.data).toEqual({ recovered: false, blind: true });
    expect(recovery?.message).toMatch(/: p95_latency_s no data \(scripted gap\) \(\+\d+\.\d s\)$/);
  });

  it('is a deviation when one SLI breaches and another has no data: a breach is evidence', async () => {
    const { result } = await afterFault(0.15, { success: null });
    const [recovery] = events(result.journal.events, 'recovery');
    expect(recovery?.data).toEqual({ recovered: false, blind: false });
    expect(recovery?.message).toContain('success_ratio no data (scripted gap), p95_latency_s 0.15 > 0.11');
  });

  it('takes its last measurement on the recovery.within line even when the interval does not divide it', async () => {
    const { result } = await afterFault(0.15, { recoveryWithin: '10500ms' });
    const recovery = result.journal.measurements.filter((m) => m.phase === 'recovery');
    const stoppedAt = result.journal.timings.stoppedAt!;
    expect(recovery.map((m) => m.at - stoppedAt).slice(-3)).toEqual([9000, 10_000, 10_500]);
  });

  it('says how long after the fault ended the SLIs were back', async () => {
    const { result } = await simulate(held());
    const [recovery] = events(result.journal.events, 'recovery');
    const afterMs = result.journal.timings.recoveredAt! - result.journal.timings.stoppedAt!;
    expect(recovery?.data).toEqual({ recovered: true, afterMs });
    expect(recovery?.message).toMatch(
      new RegExp(`^recovered ${(afterMs / 1000).toFixed(1)} s after the fault ended`),
    );
  });
});

describe('the readiness check', () => {
  it('is asked every 2 s while waiting, every 5 s once OK, whatever the interval, and not after the start', async () => {
    let asked: number[] = [];
    const plan = planWith((p: PlanInput) => {
      p.hypothesis.interval = '2s';
      p.hypothesis.steadyState = { duration: '20s' };
    });
    const { world } = await simulate(held(), {
      plan,
      deps: (w) => {
        // Waiting for the lease alarm for the first three answers, then OK.
        const r = withReadiness(w, (n) => Promise.resolve(n < 3 ? 'the lease alarm to turn OK' : null));
        asked = r.at;
        return { injector: r.injector };
      },
    });
    const gaps = asked.slice(1).map((t, i) => t - asked[i]!);
    expect(gaps.slice(0, 3)).toEqual([2000, 2000, 2000]);
    expect(new Set(gaps.slice(3))).toEqual(new Set([5000]));
    const startedAt = world.injector.startedAt! - world.createdAt;
    expect(asked.every((t) => t <= startedAt)).toBe(true);
  });

  it('holds the start until its first answer has come', async () => {
    // A 2 s steady state; the first answer (allowed) takes 3.5 s, within the check's 5 s deadline.
    const plan = planWith((p: PlanInput) => void (p.hypothesis.steadyState = { duration: '2s' }));
    const { result } = await simulate(held(), {
      plan,
      deps: (w) => ({
        injector: withReadiness(w, (n) =>
          n === 0 ? w.clock.sleep(3500).then(() => null) : Promise.resolve(null),
        ).injector,
      }),
    });
    expect(result.verdict).toBe('held');
    const steady = result.journal.measurements.filter((m) => m.phase === 'steady');
    expect(steady).toHaveLength(4);
    const waiting = events(result.journal.events, 'preflight').filter((e) => e.data?.waiting !== undefined);
    expect(waiting.map((e) => e.message)).toEqual([
      'steady state measured on while waiting for the first readiness check',
    ]);
  });

  it(`refuses exactly ${READINESS_WAIT_MS / 1000} s after the steady state's end, on fis.stopConditions`, async () => {
    const { result } = await simulate(held(), {
      deps: (w) => ({
        injector: withReadiness(w, () => Promise.resolve('the lease alarm to turn OK')).injector,
      }),
    });
    expect(result.verdict).toBe('refused');
    const [refused] = events(result.journal.events, 'refused');
    const steady = result.journal.measurements.filter((m) => m.phase === 'steady');
    // The steady state's five measurements end at its 5th second; the wait ends 30 s later.
    expect(refused!.at - steady[0]!.at).toBe(4000 + READINESS_WAIT_MS);
    expect(refused?.data).toEqual({ field: 'fis.stopConditions' });
  });
});

describe('reads that take half an interval', () => {
  it('are in time in every phase: each read has until the end of its tick', async () => {
    const { result } = await simulate(held(), {
      deps: (w) => {
        const inner = w.sources.prometheus;
        return {
          sources: {
            ...w.sources,
            prometheus: {
              kind: 'prometheus',
              read: async (qs: readonly Query[], at: number, windowMs: number) => {
                await w.clock.sleep(500);
                return inner.read(qs, at, windowMs);
              },
            },
          },
        };
      },
    });
    expect(result.verdict).toBe('held');
    expect(result.journal.measurements.some((m) => m.phase === 'recovery')).toBe(true);
  });
});

describe('sleepOn', () => {
  it('wakes early when the signal aborts, and leaves no listener on it', async () => {
    const clock = new VirtualClock();
    const t0 = clock.now();
    const ctl = new AbortController();
    for (let i = 0; i < 3; i++) await sleepOn(clock, 100, ctl.signal);
    expect(getEventListeners(ctl.signal, 'abort')).toHaveLength(0);
    void clock.sleep(250).then(() => ctl.abort());
    await sleepOn(clock, 10_000, ctl.signal);
    expect(clock.now() - t0).toBe(550);
  });

  it('does not sleep for nothing, nor once the signal has aborted', async () => {
    const clock = new VirtualClock();
    const t0 = clock.now();
    await sleepOn(clock, 0);
    await sleepOn(clock, -5);
    const ctl = new AbortController();
    ctl.abort();
    await sleepOn(clock, 5000, ctl.signal);
    expect(clock.now() - t0).toBe(0);
  });
});
