/**
 * The hypothesis under noise and FIS's per-action truth, as `judge` (src/journal/judgement.ts) decides
 * them: readings before `settle` are settling (counted, never a breach of the fault bound), a reading at
 * exactly `settle` is judged; a tolerance reached holds and says what it tolerated, one more deviates;
 * a run longer than `consecutive` deviates; no-data is never tolerated; an FIS action that failed is
 * `failed`, one cancelled without a stop `inconclusive`, and a fault that never ran is never `aborted`.
 * The named latency figures have one definition each, and a plan's settle/tolerance validate with the
 * file, line, field and value.
 */
import { describe, expect, it } from 'vitest';
import { judge, judgementOf, type JudgeInput, type Tolerance } from '../../src/journal/judgement.js';
import type { Journal, JournalEvent, Measurement, SliValue } from '../../src/journal/types.js';
import { PlanError, parsePlan } from '../../src/plan/load.js';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const INJECTED_AT = 100_000;
const ok = (value: number): SliValue => ({ value, status: 'ok', bound: '<= 0.18', query: 'q' });
const out = (value: number): SliValue => ({ ...ok(value), status: 'breach' });
const none = (): SliValue => ({
  value: null,
  status: 'no-data',
  bound: '<= 0.18',
  query: 'q',
  error: 'empty',
});

type Run = JudgeInput & { events: JournalEvent[]; measurements: Measurement[] };

/**
 * A run with fault ticks at +1..+n s (p95 0.12 unless `values` says otherwise: a number is a reading in
 * bound when ≤ 0.18, `null` no data), the action seen running, recovery measured.
 */
function runOf(
  values: Record<number, number | null>,
  options: { n?: number; settleMs?: number; tolerance?: Tolerance } = {},
): Run {
  const n = options.n ?? 20;
  const measurements: Measurement[] = [];
  for (let s = 1; s <= n; s++) {
    const v = s in values ? values[s] : 0.12;
    measurements.push({
      at: INJECTED_AT + s * 1000,
      windowMs: 1000,
      phase: 'fault',
      requests: 100,
      slis: { p95: v === null || v === undefined ? none() : v > 0.18 ? out(v) : ok(v) },
    });
  }
  measurements.push({
    at: INJECTED_AT + (n + 2) * 1000,
    windowMs: 1000,
    phase: 'recovery',
    requests: 100,
    slis: { p95: ok(0.1) },
  });
  const sli: JudgeInput['slis'][number] = {
    name: 'p95',
    during: true,
    bound: '<= 0.18',
    steadyBound: '<= 0.11',
  };
  if (options.settleMs !== undefined) sli.settleMs = options.settleMs;
  if (options.tolerance !== undefined) sli.tolerance = options.tolerance;
  return {
    slis: [sli],
    expectations: [],
    measurements,
    events: [
      {
        at: INJECTED_AT + 200,
        type: 'experiment-state',
        message: 'running',
        data: { status: 'running', injected: true, actions: { partition: 'running' } },
      },
      {
        at: INJECTED_AT + (n + 1) * 1000,
        type: 'experiment-state',
        message: 'completed',
        data: { status: 'completed', injected: true, actions: { partition: 'completed' } },
      },
      { at: INJECTED_AT + (n + 2) * 1000, type: 'recovery', message: 'recovered', data: { recovered: true } },
    ],
    timings: {
      injectedAt: INJECTED_AT,
      stoppedAt: INJECTED_AT + (n + 1) * 1000,
      recoveredAt: INJECTED_AT + (n + 2) * 1000,
    },
  };
}

describe('settle: the fault bound applies from the settle time on', () => {
  it('holds when the only reading outside comes before the settle time, and says it was settling', () => {
    const j = judge(runOf({ 1: 0.304, 2: 0.25 }, { settleMs: 3000 }));
    expect(j.verdict).toBe('held');
    const s = j.slis[0]!;
    expect(s.settling).toMatchObject({ measured: 2, outside: 2, first: { offsetMs: 1000, value: 0.304 } });
    expect(s.fault).toMatchObject({ measured: 18, outside: 0, within: 18 });
    expect(j.reason).toContain(
      '2 settling readings in the first 3.0 s not judged, 2 outside the fault bound',
    );
  });

  it('judges a reading taken exactly at the settle time', () => {
    const j = judge(runOf({ 3: 0.304 }, { settleMs: 3000 }));
    expect(j.verdict).toBe('deviated');
    expect(j.reason).toBe(
      'p95 0.304 > 0.18 (+3.0 s); 1 of 18 measurements during the fault outside the bound, none tolerated; ' +
        '2 settling readings in the first 3.0 s not judged',
    );
  });

  it('deviates on the same early reading without a settle time (strict is the default)', () => {
    const j = judge(runOf({ 1: 0.304 }));
    expect(j.verdict).toBe('deviated');
    expect(j.reason).toBe(
      'p95 0.304 > 0.18 (+1.0 s); 1 of 20 measurements during the fault outside the bound, none tolerated',
    );
    expect(j.slis[0]!.settling).toBeUndefined();
  });

  it('is inconclusive when every fault reading fell inside the settle time', () => {
    const j = judge(runOf({}, { n: 3, settleMs: 5000 }));
    expect(j.verdict).toBe('inconclusive');
    expect(j.reason).toBe('p95: no measurement after its 5.0 s settle, while the fault was on');
  });

  it('does not count settling readings without data as blindness of the judged fault', () => {
    const j = judge(runOf({ 1: null }, { settleMs: 2000 }));
    expect(j.verdict).toBe('held');
    expect(j.slis[0]!.settling?.noData).toBe(1);
  });
});

describe('tolerance: how many readings outside the bound are forgiven', () => {
  it('holds when the count tolerated is exactly reached, and says so', () => {
    const j = judge(runOf({ 5: 0.2, 9: 0.3 }, { tolerance: { outside: 2 } }));
    expect(j.verdict).toBe('held');
    expect(j.slis[0]).toMatchObject({ allowed: 2, tolerated: 2, held: true });
    expect(j.reason).toContain(
      'p95: 2 of 20 measurements during the fault outside the bound, 2 tolerated (at most 2)',
    );
  });

  it('deviates one reading past the tolerance, naming the first and the limit', () => {
    const j = judge(runOf({ 5: 0.2, 9: 0.3, 12: 0.25 }, { tolerance: { outside: 2 } }));
    expect(j.verdict).toBe('deviated');
    expect(j.slis[0]).toMatchObject({ allowed: 2, tolerated: 0, held: false, exceeded: 'count' });
    expect(j.slis[0]!.fault).toMatchObject({ worst: { offsetMs: 9000, value: 0.3 } });
    expect(j.reason).toBe(
      'p95 0.2 > 0.18 (+5.0 s); 3 of 20 measurements during the fault outside the bound, more than the 2 tolerated (at most 2)',
    );
  });

  it('rounds a share down over the judged readings and takes the smaller of two limits', () => {
    // 10 % of 20 is 2; `outside: 5` is looser, so 2 it is.
    const held = judge(runOf({ 4: 0.2, 8: 0.2 }, { tolerance: { share: 0.1, outside: 5 } }));
    expect(held.slis[0]!.allowed).toBe(2);
    expect(held.verdict).toBe('held');
    const over = judge(runOf({ 4: 0.2, 8: 0.2, 15: 0.2 }, { tolerance: { share: 0.1, outside: 5 } }));
    expect(over.verdict).toBe('deviated');
  });

  it('deviates when a run of outside readings is longer than `consecutive`, within the count', () => {
    const j = judge(runOf({ 5: 0.2, 6: 0.2 }, { tolerance: { outside: 3, consecutive: 1 } }));
    expect(j.verdict).toBe('deviated');
    expect(j.slis[0]).toMatchObject({ exceeded: 'consecutive', held: false });
    expect(j.reason).toContain(
      '2 of 20 measurements during the fault outside the bound, 2 in a row, more than the 1 tolerated',
    );
  });

  it('holds the same readings when they are not in a row', () => {
    const j = judge(runOf({ 5: 0.2, 7: 0.2 }, { tolerance: { outside: 3, consecutive: 1 } }));
    expect(j.verdict).toBe('held');
  });

  it('never tolerates a reading without data', () => {
    const j = judge(runOf({ 5: null }, { tolerance: { outside: 5 } }));
    expect(j.verdict).toBe('inconclusive');
    expect(j.reason).toMatch(/^p95 had no data in 1 of 20 measurements during the fault/);
  });
});

describe("FIS's per-action states", () => {
  const withActions = (input: Run, last: Record<string, string>, first?: Record<string, string>) => {
    const [running, completed] = input.events;
    if (first) running!.data = { ...running!.data, actions: first };
    completed!.data = { ...completed!.data, actions: last };
    return input;
  };

  it('is failed, never held, when an action failed while the experiment completed', () => {
    const j = judge(withActions(runOf({}), { partition: 'failed' }));
    expect(j.verdict).toBe('failed');
    expect(j.reason).toBe('FIS action partition failed: the fault did not run as planned');
    expect(j.actions).toEqual([{ name: 'partition', status: 'failed', ran: true }]);
  });

  it('is inconclusive, never held, when FIS cancelled an action nobody stopped', () => {
    const j = judge(
      withActions(
        runOf({}),
        { partition: 'completed', latency: 'cancelled' },
        { partition: 'running', latency: 'pending' },
      ),
    );
    expect(j.verdict).toBe('inconclusive');
    expect(j.reason).toBe('FIS cancelled action latency without a stop: the fault did not run as planned');
  });

  it('keeps aborted when the gate stopped a running fault and FIS cancelled the pending action', () => {
    const input = withActions(
      runOf({}),
      { partition: 'stopped', latency: 'cancelled' },
      { partition: 'running', latency: 'pending' },
    );
    input.events.push({
      at: INJECTED_AT + 5000,
      type: 'abort',
      message: 'p95 0.6 > 0.5',
      data: { cause: 'rule', verdict: 'aborted' },
    });
    expect(judge(input).verdict).toBe('aborted');
  });

  it('is never aborted when no action ever ran', () => {
    const input = withActions(runOf({}, { n: 2 }), { partition: 'cancelled' }, { partition: 'pending' });
    input.events[0]!.data = { status: 'running', injected: false, actions: { partition: 'pending' } };
    input.events[1]!.data = { status: 'stopped', injected: false, actions: { partition: 'cancelled' } };
    input.events.push({
      at: INJECTED_AT + 1500,
      type: 'abort',
      message: 'kill switch engaged',
      data: { cause: 'kill-switch', verdict: 'aborted' },
    });
    const j = judge(input);
    expect(j.verdict).toBe('inconclusive');
    expect(j.reason).toBe('kill switch engaged; no FIS action had run, so the fault never ran');
    expect(j.faultRan).toBe(false);
  });
});

describe('latency figures, one definition each', () => {
  it('measures from the first breach, the measurement that tripped the rule, the stop request and the end', () => {
    const input = runOf({ 4: 0.6, 5: 0.6, 6: 0.6 }, { n: 6 });
    input.events.push({
      at: INJECTED_AT + 6010,
      type: 'abort',
      message: 'rule',
      data: { cause: 'rule', verdict: 'aborted' },
    });
    input.timings.stopRequestedAt = INJECTED_AT + 6030;
    input.timings.stoppedAt = INJECTED_AT + 7530;
    const j = judge(input);
    expect(j.latency).toEqual({
      tripToStopRequestMs: 30,
      breachToStopRequestMs: 2030,
      stopRequestToStoppedMs: 1500,
      breachToStoppedMs: 3530,
    });
    expect(j.firstBreach).toMatchObject({ sli: 'p95', offsetMs: 4000, value: 0.6 });
  });

  it('has no stop figures when nobody asked FIS to stop', () => {
    const j = judge(runOf({}));
    expect(j.latency).toEqual({});
  });
});

describe('an old journal without a judgement', () => {
  it('gets the same judgement on read as the engine would have written, keeping its verdict', () => {
    const input = runOf({ 2: 0.3 }, { settleMs: 3000 });
    const journal = {
      kind: 'chaos-gate-journal',
      slis: input.slis,
      expectations: [],
      measurements: input.measurements,
      events: input.events,
      timings: input.timings,
      startedAt: INJECTED_AT - 10_000,
      verdict: 'held',
      reason: 'as the run said',
      complete: true,
    } as unknown as Journal;
    const j = judgementOf(journal);
    expect(j).toEqual({ ...judge({ ...input, startedAt: INJECTED_AT - 10_000 }), reason: 'as the run said' });
    expect(judgementOf(journal)).toBe(j);
  });
});

describe('settle and tolerance in a plan', () => {
  const demo = readFileSync(join(import.meta.dirname, '../../fixtures/plans/demo-holds.yaml'), 'utf8');
  const issuesOf = (text: string) => {
    try {
      parsePlan(text, 'plan.yaml');
    } catch (error) {
      if (error instanceof PlanError) return error.issues;
      throw error;
    }
    throw new Error('the plan loaded without issues');
  };

  it('reads the demo plan: settle 3 s, strict tolerance', () => {
    const { plan } = parsePlan(demo, 'demo-holds.yaml');
    expect(plan.hypothesis.settle).toBe(3000);
    expect(plan.hypothesis.tolerance).toEqual({ outside: 0 });
  });

  it('names file, line, field and value of a tolerance that gives only `consecutive`', () => {
    const [issue] = issuesOf(demo.replace('tolerance: { outside: 0 }', 'tolerance: { consecutive: 2 }'));
    expect(issue).toMatchObject({ file: 'plan.yaml', field: 'hypothesis.tolerance' });
    expect(issue?.line).toBe(demo.split('\n').findIndex((l) => l.includes('tolerance: {')) + 1);
    expect(issue?.message).toContain('outside or share');
  });

  it('names a share that is not below 1 and a settle that is not a duration', () => {
    const share = issuesOf(demo.replace('tolerance: { outside: 0 }', 'tolerance: { share: 5 }'));
    expect(share[0]).toMatchObject({ field: 'hypothesis.tolerance.share' });
    expect(share[0]?.message).toContain('5');
    const settle = issuesOf(demo.replace('settle: 3s', 'settle: 3 seconds'));
    expect(settle[0]).toMatchObject({ field: 'hypothesis.settle' });
    expect(settle[0]?.message).toContain('3 seconds');
  });
});
