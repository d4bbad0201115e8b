/**
 * The engine's edge decisions on a virtual clock: a value exactly on its bound in the steady state,
 * during the fault and in recovery; an abort threshold exactly met; `for` exactly met in measured time;
 * `minRequests` exactly met. Each case runs the real engine against the held world with one series
 * scripted, at the limit, just inside it and just past it.
 */
import { describe, expect, it } from 'vitest';
import type { MetricSource, Query, Reading } from '../../src/metrics/source.js';
import type { Plan } from '../../src/plan/schema.js';
import type { SimWorld } from '../../src/sim/world.js';
import { loadScenario } from '../../src/sim/scenario.js';
import { planWith, simulate } from '../sim/helpers.js';

/** A scripted value: `second` is whole seconds since the injection, undefined before it (steady state). */
type Script = (second: number | undefined) => number | undefined;

/** The world's Prometheus with some series replaced in every phase, the steady state included. */
function scripted(world: SimWorld, scripts: Record<string, Script>): MetricSource {
  const inner = world.sources.prometheus;
  return {
    kind: 'prometheus',
    async read(queries: readonly Query[], at: number, windowMs: number): Promise<Reading[]> {
      const base = await inner.read(queries, at, windowMs);
      const start = world.injector.startedAt;
      return base.map((r) => {
        const script = scripts[r.name];
        const second = start === undefined || at <= start ? undefined : Math.round((at - start) / 1000);
        const v = script?.(second);
        return v === undefined ? r : { ...r, value: v, status: 'ok' };
      });
    },
  };
}

async function run(scripts: Record<string, Script>, plan?: Plan) {
  const { result } = await simulate(loadScenario('fixtures/scenarios/held.yaml'), {
    ...(plan ? { plan } : {}),
    deps: (world) => ({ sources: { ...world.sources, prometheus: scripted(world, scripts) } }),
  });
  const phase = (p: string) => result.journal.measurements.filter((m) => m.phase === p);
  return { result, steady: phase('steady'), fault: phase('fault'), recovery: phase('recovery') };
}

/** Just past a limit, still distinct from it in floating point. */
const EPS = 1e-9;
/** Fault seconds the held world's 20 s action certainly covers. */
const inFault = (s: number | undefined): boolean => s !== undefined && s >= 2 && s <= 6;

describe('steady state (checkout plan: p95 steady max 0.11, success_ratio steady min 0.9995)', () => {
  it('starts the fault when p95 sits exactly on its steady max', async () => {
    const { result, steady } = await run({ p95_latency_s: (s) => (s === undefined ? 0.11 : undefined) });
    expect(steady.every((m) => m.slis.p95_latency_s?.status === 'ok')).toBe(true);
    expect(result.verdict).toBe('held');
  });

  it('does not run when p95 is just over its steady max', async () => {
    const { result } = await run({ p95_latency_s: (s) => (s === undefined ? 0.11 + EPS : undefined) });
    expect(result.verdict).toBe('not-run');
    expect(result.reason).toMatch(/p95_latency_s/);
  });

  it('starts the fault when success_ratio is exactly its steady min, and not just under it', async () => {
    const at = await run({ success_ratio: (s) => (s === undefined ? 0.9995 : undefined) });
    expect(at.result.verdict).toBe('held');
    const under = await run({ success_ratio: (s) => (s === undefined ? 0.9995 - EPS : undefined) });
    expect(under.result.verdict).toBe('not-run');
  });

  it('holds the steady state to the steady bound, not the looser fault bound', async () => {
    // 0.15 is inside the fault bound (max 0.18) but over the steady one (max 0.11).
    const { result } = await run({ p95_latency_s: (s) => (s === undefined ? 0.15 : undefined) });
    expect(result.verdict).toBe('not-run');
  });

  it('uses the SLI bound in the steady state when it declares no steady bound', async () => {
    const plan = planWith((p) => {
      for (const s of p.hypothesis.slis) if (s.name === 'p95_latency_s') delete s.steady;
    });
    const at = await run({ p95_latency_s: (s) => (s === undefined ? 0.18 : undefined) }, plan);
    expect(at.result.verdict).toBe('held');
    const over = await run({ p95_latency_s: (s) => (s === undefined ? 0.18 + EPS : undefined) }, plan);
    expect(over.result.verdict).toBe('not-run');
  });
});

describe('during the fault (p95 max 0.18, success_ratio min 0.998)', () => {
  it('holds a p95 exactly on its max and deviates just over it', async () => {
    const at = await run({ p95_latency_s: (s) => (inFault(s) ? 0.18 : undefined) });
    expect(at.fault.filter((m) => m.slis.p95_latency_s?.value === 0.18).length).toBeGreaterThan(0);
    expect(at.result.verdict).toBe('held');
    const over = await run({ p95_latency_s: (s) => (s === 3 ? 0.18 + EPS : undefined) });
    expect(over.result.verdict).toBe('deviated');
    expect(over.result.reason).toMatch(/^p95_latency_s 0\.18 > 0\.18 \(\+3\.0 s\); 1 of \d+ measurements/);
  });

  it('holds a success_ratio exactly on its min and deviates just under it', async () => {
    const at = await run({ success_ratio: (s) => (inFault(s) ? 0.998 : undefined) });
    expect(at.result.verdict).toBe('held');
    const under = await run({ success_ratio: (s) => (s === 4 ? 0.998 - EPS : undefined) });
    expect(under.result.verdict).toBe('deviated');
    expect(under.result.reason).toMatch(/^success_ratio 0\.998 < 0\.998 \(\+4\.0 s\)/);
  });

  it('holds the fault to the fault bound, not the tighter steady one', async () => {
    // 0.15 is over the steady max (0.11) but within the fault max (0.18).
    const { result, fault } = await run({ p95_latency_s: (s) => (inFault(s) ? 0.15 : undefined) });
    expect(fault.find((m) => m.slis.p95_latency_s?.value === 0.15)?.slis.p95_latency_s?.bound).toBe(
      '<= 0.18',
    );
    expect(result.verdict).toBe('held');
  });
});

describe('between bounds (p95 between [0.05, 0.18], steady between [0.05, 0.11])', () => {
  const plan = planWith((p) => {
    for (const s of p.hypothesis.slis) {
      if (s.name !== 'p95_latency_s') continue;
      delete s.max;
      s.between = [0.05, 0.18];
      s.steady = { between: [0.05, 0.11] };
    }
  });

  it('holds values exactly on both ends during the fault', async () => {
    const { result, fault } = await run(
      { p95_latency_s: (s) => (s === 2 ? 0.05 : s === 3 ? 0.18 : undefined) },
      plan,
    );
    expect(fault.find((m) => m.slis.p95_latency_s?.value === 0.05)?.slis.p95_latency_s?.status).toBe('ok');
    expect(result.verdict).toBe('held');
  });

  it('deviates just below the low end and just above the high end', async () => {
    const low = await run({ p95_latency_s: (s) => (s === 2 ? 0.05 - EPS : undefined) }, plan);
    expect(low.result.verdict).toBe('deviated');
    expect(low.result.reason).toMatch(/^p95_latency_s 0\.05 outside \[0\.05, 0\.18\]/);
    const high = await run({ p95_latency_s: (s) => (s === 2 ? 0.18 + EPS : undefined) }, plan);
    expect(high.result.verdict).toBe('deviated');
  });

  it('runs from a steady state on either end of the steady range and not past them', async () => {
    const low = await run({ p95_latency_s: (s) => (s === undefined ? 0.05 : undefined) }, plan);
    expect(low.result.verdict).toBe('held');
    const high = await run({ p95_latency_s: (s) => (s === undefined ? 0.11 : undefined) }, plan);
    expect(high.result.verdict).toBe('held');
    const under = await run({ p95_latency_s: (s) => (s === undefined ? 0.05 - EPS : undefined) }, plan);
    expect(under.result.verdict).toBe('not-run');
    const over = await run({ p95_latency_s: (s) => (s === undefined ? 0.11 + EPS : undefined) }, plan);
    expect(over.result.verdict).toBe('not-run');
  });
});

describe('recovery is held to the steady bound', () => {
  // From 10 s on (the held world's action lasts 20 s): inside the fault bound, so only recovery judges it.
  const after =
    (v: number): Script =>
    (s) =>
      s !== undefined && s >= 10 ? v : undefined;

  it('recovers when p95 is back exactly on its steady max', async () => {
    const { result, recovery } = await run({ p95_latency_s: after(0.11) });
    expect(recovery[0]?.slis.p95_latency_s).toMatchObject({ value: 0.11, status: 'ok', bound: '<= 0.11' });
    expect(result.verdict).toBe('held');
  });

  it('is deviated when p95 stays just over its steady max (within the fault bound) for the whole recovery', async () => {
    const { result, recovery } = await run({ p95_latency_s: after(0.11 + EPS) });
    expect(recovery.length).toBeGreaterThan(0);
    expect(recovery.every((m) => m.slis.p95_latency_s?.status === 'breach')).toBe(true);
    expect(result.verdict).toBe('deviated');
    expect(result.reason).toMatch(/^not recovered within 10\.0 s after the fault ended: p95_latency_s/);
  });
});

describe('abort rules (p95 above 0.5 for 3s; success_ratio below 0.99 for 5s)', () => {
  it('does not trip on a value exactly at `above`: the threshold is strict', async () => {
    const { result } = await run({
      p95_latency_s: (s) => (s !== undefined && s >= 2 && s <= 8 ? 0.5 : undefined),
    });
    expect(result.journal.events.some((e) => e.type === 'abort')).toBe(false);
    expect(result.verdict).toBe('deviated'); // 0.5 is still over the hypothesis bound 0.18
  });

  it('trips on the third measurement just over `above`', async () => {
    const { result } = await run({
      p95_latency_s: (s) => (s !== undefined && s >= 2 && s <= 8 ? 0.5 + EPS : undefined),
    });
    expect(result.verdict).toBe('aborted');
    expect(result.reason).toMatch(/for 3 measurements in a row, 3\.0 s \(\+4\.0 s\)$/);
  });

  it('does not trip on a value exactly at `below`, and trips on the fifth just under it', async () => {
    const at = await run({ success_ratio: (s) => (s !== undefined && s >= 2 && s <= 12 ? 0.99 : undefined) });
    expect(at.result.journal.events.some((e) => e.type === 'abort')).toBe(false);
    const under = await run({
      success_ratio: (s) => (s !== undefined && s >= 2 && s <= 12 ? 0.99 - EPS : undefined),
    });
    expect(under.result.verdict).toBe('aborted');
    expect(under.result.reason).toMatch(
      /^success_ratio .* < 0\.99 for 5 measurements in a row, 5\.0 s \(\+6\.0 s\)$/,
    );
  });

  it('does not trip when the breach covers one window less than `for` (2 of 3)', async () => {
    const { result } = await run({ p95_latency_s: (s) => (s === 3 || s === 4 ? 0.6 : undefined) });
    expect(result.journal.events.some((e) => e.type === 'abort')).toBe(false);
  });

  const withFor = (forText: string): Plan =>
    planWith((p) => {
      p.abort.rules = [{ sli: 'p95_latency_s', above: 0.5, for: forText }];
    });
  const breachFrom2 = {
    p95_latency_s: (s: number | undefined) => (s !== undefined && s >= 2 ? 0.6 : undefined),
  };

  it('counts `for` as measured time less a tenth of an interval: 2100ms trips on 2 one-second windows', async () => {
    const { result } = await run(breachFrom2, withFor('2100ms'));
    expect(result.reason).toMatch(/for 2 measurements in a row, 2\.0 s \(\+3\.0 s\)$/);
  });

  it('needs a third window once `for` is past that tolerance: 2101ms', async () => {
    const { result } = await run(breachFrom2, withFor('2101ms'));
    expect(result.reason).toMatch(/for 3 measurements in a row, 3\.0 s \(\+4\.0 s\)$/);
  });

  it('trips on the first breaching measurement when `for` is 0s', async () => {
    const { result } = await run(breachFrom2, withFor('0s'));
    expect(result.reason).toMatch(/for 1 measurement in a row, 1\.0 s \(\+2\.0 s\)$/);
  });
});

describe('minRequests (100 in the checkout plan)', () => {
  const requests = (steady: number | undefined, fault: number | undefined): Record<string, Script> => ({
    __requests: (s) => (s === undefined ? steady : s === 3 ? fault : undefined),
  });

  it('accepts a steady-state window with exactly minRequests and refuses to start one below it', async () => {
    const at = await run(requests(100, undefined));
    expect(at.steady.every((m) => m.requests === 100 && m.slis.success_ratio?.status === 'ok')).toBe(true);
    expect(at.result.verdict).toBe('held');
    const under = await run(requests(99, undefined));
    expect(under.result.verdict).toBe('not-run');
    expect(under.steady[0]?.slis.success_ratio?.error).toBe('99 requests < minRequests 100');
  });

  it('measures a fault window with exactly minRequests, and marks one request less as no-data', async () => {
    const at = await run(requests(undefined, 100));
    const tick = at.fault.find((m) => m.requests === 100);
    expect(Object.values(tick?.slis ?? {}).map((v) => v.status)).toEqual(['ok', 'ok']);
    expect(at.result.verdict).toBe('held');
    const under = await run(requests(undefined, 99));
    expect(under.result.verdict).toBe('inconclusive');
  });
});
