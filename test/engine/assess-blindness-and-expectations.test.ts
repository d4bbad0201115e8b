/**
 * Decisions of `assess` (src/engine/assess.ts) that precedence.test.ts and boundaries.test.ts leave
 * open: an SLI marked steady-only never judges the fault even when an abort rule has it measured; error
 * readings and absent readings count as blindness, and the count adds both; an expectation seen in time
 * is not inconclusive for an earlier blind reading; the reason of an unseen expectation quotes the lowest
 * and highest value it did see; the held reason quotes when each expectation was first seen; and the
 * small wording helpers quote a bound of every kind.
 */
import { describe, expect, it } from 'vitest';
import { assess, violationText, type AssessInput } from '../../src/engine/assess.js';
import { specOf } from '../../src/engine/bounds.js';
import type { Measurement, SliValue } from '../../src/journal/types.js';

const INJECTED_AT = 10_000;
const WITHIN_MS = 3_000;

const ok = (value: number, bound = '<= 0.18'): SliValue => ({ value, status: 'ok', bound, query: 'q' });
const breach = (value: number, bound = '<= 0.18'): SliValue => ({ ...ok(value, bound), status: 'breach' });
const blind = (status: 'no-data' | 'error', error?: string): SliValue => ({
  value: null,
  status,
  bound: '<= 0.18',
  query: 'q',
  ...(error ? { error } : {}),
});

/**
 * A run that held: fault ticks at +1..+4 s with p95 in bounds and the breaker seen from +1 s, FIS
 * reported the action running, recovery measured. `change` edits it before it is assessed.
 */
function run(change: (input: AssessInput) => void = () => undefined) {
  const measurements: Measurement[] = [1, 2, 3, 4].map((s) => ({
    at: INJECTED_AT + s * 1000,
    windowMs: 1000,
    phase: 'fault',
    requests: 800,
    slis: { p95_latency_s: ok(0.14) },
    expect: { breaker_open: ok(1, '>= 1') },
  }));
  const input: AssessInput = {
    slis: [{ name: 'p95_latency_s', during: true }],
    expectations: [{ name: 'breaker_open', withinMs: WITHIN_MS }],
    measurements,
    events: [
      {
        at: 10_500,
        type: 'experiment-state',
        message: 'running',
        data: { status: 'running', injected: true },
      },
      { at: 16_000, type: 'recovery', message: 'recovered', data: { recovered: true } },
    ],
    timings: { injectedAt: INJECTED_AT, stoppedAt: 15_000, recoveredAt: 16_000 },
  };
  change(input);
  return assess(input);
}
const fault = (input: AssessInput, second: number): Measurement => {
  const m = input.measurements.find((x) => x.at === INJECTED_AT + second * 1000);
  if (!m) throw new Error(`no fault tick at +${second} s`);
  return m;
};

describe('which SLIs judge the fault', () => {
  it('ignores a breach of an SLI marked steady-only, measured only for its abort rule', () => {
    const r = run((i) => {
      i.slis = [...i.slis, { name: 'queue_depth', during: false }];
      for (const m of i.measurements) m.slis.queue_depth = breach(500, '<= 100');
    });
    expect(r.verdict).toBe('held');
  });

  it('judges the same breach when the SLI is measured during the fault', () => {
    const r = run((i) => {
      i.slis = [...i.slis, { name: 'queue_depth', during: true }];
      for (const m of i.measurements) m.slis.queue_depth = breach(500, '<= 100');
    });
    expect(r).toEqual({
      verdict: 'deviated',
      reason:
        'queue_depth 500 > 100 (+1.0 s); 4 of 4 measurements during the fault outside the bound, none tolerated',
    });
  });
});

describe('blindness of an SLI during the fault', () => {
  it('counts an error reading as no data', () => {
    const r = run((i) => (fault(i, 2).slis.p95_latency_s = blind('error', 'timed out')));
    expect(r).toEqual({
      verdict: 'inconclusive',
      reason: 'p95_latency_s had no data in 1 of 4 measurements during the fault, first (+2.0 s): timed out',
    });
  });

  it('counts a measurement without the SLI at all as no data, and adds it to the blind ones', () => {
    const r = run((i) => {
      fault(i, 2).slis.p95_latency_s = blind('no-data');
      delete fault(i, 3).slis.p95_latency_s;
      delete fault(i, 4).slis.p95_latency_s;
    });
    expect(r).toEqual({
      verdict: 'inconclusive',
      reason: 'p95_latency_s had no data in 3 of 4 measurements during the fault, first (+2.0 s): no-data',
    });
  });

  it('is inconclusive, dated at the injection, when the SLI is missing without a blind reading', () => {
    const r = run((i) => delete fault(i, 4).slis.p95_latency_s);
    expect(r).toEqual({
      verdict: 'inconclusive',
      reason: 'p95_latency_s had no data in 1 of 4 measurements during the fault',
    });
  });
});

describe('expectations', () => {
  it('holds when the expectation was seen in time after a blind first reading', () => {
    const r = run((i) => {
      fault(i, 1).expect = { breaker_open: blind('no-data') };
      fault(i, 2).expect = { breaker_open: ok(1, '>= 1') };
    });
    expect(r.verdict).toBe('held');
    expect(r.reason).toContain('breaker_open observed at +2.0 s');
  });

  it('reads a measurement whose readings lack the expectation as blind for it, without failing', () => {
    const r = run((i) => {
      fault(i, 1).expect = {};
      for (const s of [2, 3, 4]) fault(i, s).expect = { breaker_open: breach(0, '>= 1') };
    });
    expect(r.verdict).toBe('inconclusive');
    const late = run((i) => {
      for (const s of [1, 2, 3]) fault(i, s).expect = {};
      fault(i, 4).expect = { breaker_open: breach(0.5, '>= 1') };
      i.expectations = [{ name: 'breaker_open', withinMs: 500 }];
    });
    expect(late.reason).toBe(
      'expectation breaker_open not observed (>= 1 never met in 4 measurements, values 0.5..0.5); expected within 0.5 s of injection',
    );
    const held = run((i) => (fault(i, 1).expect = {}));
    expect(held.reason).toContain('breaker_open observed at +2.0 s');
  });

  it('reads a measurement without expectation readings as blind for them, without failing', () => {
    const r = run((i) => {
      delete fault(i, 1).expect;
      for (const s of [2, 3, 4]) fault(i, s).expect = { breaker_open: breach(0, '>= 1') };
    });
    expect(r.verdict).toBe('inconclusive');
    expect(r.reason).toBe(
      'expectation breaker_open not observed, and it had no data during its first 3.0 s after injection',
    );
  });

  it('quotes the lowest and highest value seen when the expectation was never met, ignoring blind readings', () => {
    const r = run((i) => {
      const values = [0.5, 0.2, 0.7];
      for (const [k, s] of [2, 3, 4].entries())
        fault(i, s).expect = { breaker_open: breach(values[k]!, '>= 1') };
      fault(i, 1).expect = { breaker_open: breach(0.4, '>= 1') };
      // A blind reading after `within`: no value to quote, and too late to make the verdict inconclusive.
      i.measurements = [
        ...i.measurements,
        {
          at: INJECTED_AT + 4500,
          windowMs: 500,
          phase: 'fault',
          requests: 800,
          slis: { p95_latency_s: ok(0.14) },
          expect: { breaker_open: blind('no-data') },
        },
      ];
    });
    expect(r).toEqual({
      verdict: 'deviated',
      reason:
        'expectation breaker_open not observed (>= 1 never met in 5 measurements, values 0.2..0.7); expected within 3.0 s of injection',
    });
  });

  it('quotes the values of an unmet expectation past its window even when a measurement lacks its readings', () => {
    const r = run((i) => {
      i.expectations = [{ name: 'breaker_open', withinMs: 500 }];
      delete fault(i, 1).expect;
      for (const s of [2, 3, 4]) fault(i, s).expect = { breaker_open: breach(s / 10, '>= 1') };
    });
    expect(r.reason).toBe(
      'expectation breaker_open not observed (>= 1 never met in 4 measurements, values 0.2..0.4); expected within 0.5 s of injection',
    );
  });

  it('says "no data" when an unmet expectation never had a value', () => {
    const r = run((i) => {
      for (const s of [1, 2, 3, 4])
        fault(i, s).expect = { breaker_open: { ...breach(0, '>= 1'), value: null } };
    });
    expect(r.reason).toBe(
      'expectation breaker_open not observed (>= 1 never met in 4 measurements, no data); expected within 3.0 s of injection',
    );
  });
});

describe('the held reason', () => {
  it('quotes when each expectation was first seen, and how long recovery took', () => {
    const r = run((i) => (fault(i, 1).expect = { breaker_open: breach(0, '>= 1') }));
    expect(r).toEqual({
      verdict: 'held',
      reason:
        'every SLI within its bound in 4 measurements during the fault; breaker_open observed at +2.0 s; recovered 1.0 s after the fault ended',
    });
  });

  it('says only "recovered" when the fault end or the recovery was not timed', () => {
    expect(run((i) => delete i.timings.stoppedAt).reason.endsWith('; recovered')).toBe(true);
    expect(run((i) => delete i.timings.recoveredAt).reason.endsWith('; recovered')).toBe(true);
  });
});

describe('wording helpers', () => {
  it('quotes a violation of every kind of bound, and the bare value without one', () => {
    expect(violationText(0.25, '<= 0.18')).toBe('0.25 > 0.18');
    expect(violationText(0.99, '>= 0.998')).toBe('0.99 < 0.998');
    expect(violationText(35, 'in [40, 60]')).toBe('35 outside [40, 60]');
    expect(violationText(7, 'unbounded')).toBe('7 (bound unbounded)');
    expect(violationText(7, undefined)).toBe('7');
  });

  it('keeps the CloudWatch part of a source, so the query goes to CloudWatch', () => {
    const cloudwatch = {
      namespace: 'Shop',
      metricName: 'Latency',
      stat: 'Maximum',
      period: 60_000,
    } as const;
    expect(specOf({ cloudwatch } as never)).toEqual({ cloudwatch });
    expect(specOf({ prometheus: 'up' })).toEqual({ prometheus: 'up' });
  });
});
