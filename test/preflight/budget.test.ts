import { describe, expect, it } from 'vitest';
import type { JournalEvent, Measurement } from '../../src/journal/types.js';
import type { MetricSource, Query } from '../../src/metrics/source.js';
import {
  budgetDecision,
  budgetGate,
  countReaderFromSources,
  describeFigures,
  measuredDamage,
  withDebit,
  type CountReader,
  type LedgerReader,
} from '../../src/preflight/budget.js';
import { planWith } from '../sim/helpers.js';

const DAY = 86_400_000;

describe('budgetDecision', () => {
  // objective 0.999 over 1 000 000 events: 1000 allowed bad events, chaos allowance (10%) 100.
  const base = { objective: 0.999, windowMs: 30 * DAY, totalEvents: 1_000_000, chaosShare: 0.1 };
  it.each([
    // [service bad, ledger spent, ok, field]
    [0, 0, true, undefined],
    [500, 99, true, undefined],
    [500, 99.99, true, undefined],
    [500, 100, false, 'budget.chaosShare'], // exactly at the allowance: refused
    [500, 150, false, 'budget.chaosShare'],
    [999, 0, true, undefined],
    [1000, 0, false, 'budget.objective'], // the service has used its whole budget
    [2500, 0, false, 'budget.objective'],
  ])('service %d, ledger %d → ok=%s', (serviceBad, ledger, ok, field) => {
    const d = budgetDecision({ ...base, serviceBadEvents: serviceBad, ledgerSpent: ledger });
    expect(d.ok).toBe(ok);
    expect(d.figures.allowedBadEvents).toBeCloseTo(1000, 6);
    expect(d.figures.chaosAllowance).toBeCloseTo(100, 6);
    if (!d.ok) expect(d.field).toBe(field);
  });

  it('quotes all four numbers when it refuses', () => {
    const d = budgetDecision({ ...base, serviceBadEvents: 420, ledgerSpent: 100 });
    expect(d.ok).toBe(false);
    if (d.ok) return;
    expect(d.reason).toBe(
      'the chaos allowance is used: ledger spent 100 ≥ allowance 100 (allowed 1000 bad events over 30 d ' +
        '(objective 0.999), service consumed 420, chaos allowance 100, ledger spent 100)',
    );
  });

  it('refuses a window without traffic: there is no budget to spend', () => {
    const d = budgetDecision({ ...base, totalEvents: 0, serviceBadEvents: 0, ledgerSpent: 0 });
    expect(d).toMatchObject({ ok: false, field: 'budget.total' });
  });

  it('computes what remains after the debit', () => {
    const d = budgetDecision({ ...base, serviceBadEvents: 0, ledgerSpent: 30 });
    expect(withDebit(d.figures, 12.5).remainingAfter).toBeCloseTo(57.5, 9);
  });
});

function m(
  phase: Measurement['phase'],
  ratio: number | null,
  requests: number | null,
  status: 'ok' | 'breach' | 'no-data' = 'ok',
): Measurement {
  return {
    at: 0,
    phase,
    requests,
    slis: { error_ratio: { value: ratio, status, query: 'q' } },
  };
}

describe('measuredDamage', () => {
  it('counts bad events above the steady-state rate while the fault was on', () => {
    const journal = [
      m('steady', 0.001, 1000),
      m('steady', 0.003, 1000), // baseline 0.2 %
      m('fault', 0.012, 1000), // 12 bad, 2 expected → 10
      m('fault', 0.052, 500, 'breach'), // 26 bad, 1 expected → 25
      m('recovery', 0.5, 1000), // after the stop: not charged
    ];
    const d = measuredDamage(journal, { sli: 'error_ratio', kind: 'error-ratio' });
    expect(d.baselineRatio).toBeCloseTo(0.002, 12);
    expect(d.damage).toBeCloseTo(35, 9);
    expect(d.windows).toBe(2);
    expect(d.unmeasuredWindows).toBe(0);
  });

  it('floors each window at zero so a good window does not pay for a bad one', () => {
    const journal = [m('steady', 0.01, 1000), m('fault', 0, 1000), m('fault', 0.03, 1000)];
    expect(measuredDamage(journal, { sli: 'error_ratio', kind: 'error-ratio' }).damage).toBeCloseTo(20, 9);
  });

  it('reads a success ratio as its complement', () => {
    const journal = [
      { ...m('steady', null, 1000), slis: { ok: { value: 0.999, status: 'ok' as const, query: 'q' } } },
      { ...m('fault', null, 2000), slis: { ok: { value: 0.99, status: 'ok' as const, query: 'q' } } },
    ];
    expect(measuredDamage(journal, { sli: 'ok', kind: 'success-ratio' }).damage).toBeCloseTo(18, 9);
  });

  it('charges every bad event when there is no steady baseline, and counts unmeasured windows', () => {
    const journal = [
      m('steady', null, 0, 'no-data'),
      m('fault', 0.01, 1000),
      m('fault', null, 1000, 'no-data'),
      m('fault', 0.5, null),
    ];
    const d = measuredDamage(journal, { sli: 'error_ratio', kind: 'error-ratio' });
    expect(d.baselineRatio).toBe(0);
    expect(d.damage).toBeCloseTo(10, 9);
    expect(d.unmeasuredWindows).toBe(2);
  });
});

const plan = planWith((p) => {
  p.budget = {
    objective: 0.999,
    window: '30d',
    errors: { prometheus: 'sum(increase(http_requests_total{code=~"5.."}[30d]))' },
    total: { prometheus: 'sum(increase(http_requests_total[30d]))' },
  };
});

function counts(
  values: Record<string, number | Error>,
): CountReader & { calls: { name: string; windowMs: number; at: number }[] } {
  const calls: { name: string; windowMs: number; at: number }[] = [];
  return {
    calls,
    async count(name, spec, windowMs, at) {
      calls.push({ name, windowMs, at });
      const v = values[name];
      if (v instanceof Error) return { value: null, query: spec.prometheus ?? name, error: v.message };
      return { value: v ?? null, query: spec.prometheus ?? name };
    },
  };
}

const ledger = (spent: number | Error): LedgerReader & { asked: unknown[] } => {
  const asked: unknown[] = [];
  return {
    asked,
    async spent(service, windowMs, now) {
      asked.push({ service, windowMs, now });
      if (spent instanceof Error) throw spent;
      return spent;
    },
  };
};

describe('budgetGate', () => {
  const events: Omit<JournalEvent, 'at'>[] = [];
  const ctx = { plan, now: 1_000_000, record: (e: Omit<JournalEvent, 'at'>) => events.push(e) };

  it('passes with the figures and asks for the SLO window ending now', async () => {
    const c = counts({ 'budget.errors': 300, 'budget.total': 1_000_000 });
    const l = ledger(40);
    const outcome = await budgetGate({ counts: c, ledger: l }).check(ctx);
    expect(outcome.pass).toBe(true);
    if (!outcome.pass) return;
    expect(outcome.budget).toMatchObject({ serviceBadEvents: 300, ledgerSpent: 40, windowMs: 30 * DAY });
    expect(c.calls).toEqual([
      { name: 'budget.errors', windowMs: 30 * DAY, at: 1_000_000 },
      { name: 'budget.total', windowMs: 30 * DAY, at: 1_000_000 },
    ]);
    expect(l.asked).toEqual([{ service: plan.service, windowMs: 30 * DAY, now: 1_000_000 }]);
    expect(events.at(-1)?.type).toBe('budget');
  });

  it('is refused when the ledger sits exactly at the allowance', async () => {
    const outcome = await budgetGate({
      counts: counts({ 'budget.errors': 300, 'budget.total': 1_000_000 }),
      ledger: ledger(100),
    }).check(ctx);
    expect(outcome).toMatchObject({ pass: false, verdict: 'refused', field: 'budget.chaosShare' });
  });

  it('is not-run when a count cannot be read (fail closed), naming the query', async () => {
    const outcome = await budgetGate({
      counts: counts({ 'budget.errors': new Error('connection refused'), 'budget.total': 1_000_000 }),
      ledger: ledger(0),
    }).check(ctx);
    expect(outcome).toMatchObject({ pass: false, verdict: 'not-run', field: 'budget.errors' });
    expect(!outcome.pass && outcome.reason).toContain('connection refused');
  });

  it('is not-run when the ledger cannot be read', async () => {
    const outcome = await budgetGate({
      counts: counts({ 'budget.errors': 1, 'budget.total': 1_000_000 }),
      ledger: ledger(new Error('throttled')),
    }).check(ctx);
    expect(outcome).toMatchObject({ pass: false, verdict: 'not-run', field: 'budget' });
    expect(!outcome.pass && outcome.reason).toContain('the chaos ledger (throttled)');
  });

  it('passes without reading anything when the plan has no budget', async () => {
    const c = counts({});
    const outcome = await budgetGate({ counts: c, ledger: ledger(0) }).check({
      ...ctx,
      plan: { ...plan, budget: undefined },
    });
    expect(outcome.pass).toBe(true);
    expect(c.calls).toHaveLength(0);
  });
});

describe('countReaderFromSources', () => {
  it('reads a count as one query over the SLO window from the matching source', async () => {
    const seen: { queries: readonly Query[]; at: number; windowMs: number }[] = [];
    const source: MetricSource = {
      kind: 'prometheus',
      async read(queries, at, windowMs) {
        seen.push({ queries, at, windowMs });
        return queries.map((q) => ({
          name: q.name,
          value: 42,
          status: 'ok' as const,
          query: `resolved ${q.name}`,
        }));
      },
    };
    const reader = countReaderFromSources({ prometheus: source });
    const r = await reader.count('budget.total', { prometheus: 'sum(x)' }, 30 * DAY, 5000);
    expect(r).toEqual({ value: 42, query: 'resolved budget.total' });
    expect(seen[0]?.windowMs).toBe(30 * DAY);
    const missing = await reader.count(
      'budget.total',
      { cloudwatch: { namespace: 'n', metricName: 'm', stat: 'Sum', period: 60_000 } },
      DAY,
      0,
    );
    expect(missing.error).toBe('no cloudwatch source is configured');
  });
});

describe('budget decisions at the edges of the arithmetic', () => {
  const figures = { objective: 0.9, windowMs: 86_400_000, totalEvents: 10_000_000, chaosShare: 0.5 };

  it('counts a consumption within a relative 1e-9 of a large allowance as reached', () => {
    // allowed = 1 000 000; 999 999.9995 is 5e-4 short, inside 1e-9 × 1e6 = 1e-3.
    expect(budgetDecision({ ...figures, serviceBadEvents: 999_999.9995, ledgerSpent: 0 })).toMatchObject({
      ok: false,
      field: 'budget.objective',
    });
    expect(budgetDecision({ ...figures, serviceBadEvents: 999_999.99, ledgerSpent: 0 }).ok).toBe(true);
  });

  it('prints fractional counts with up to two places and no trailing zeros', () => {
    const d = budgetDecision({
      ...figures,
      totalEvents: 25,
      objective: 0.9,
      serviceBadEvents: 0,
      ledgerSpent: 0,
    });
    // allowed 2.5 (printed as 2.5, not 2.50), allowance 1.25
    expect(describeFigures(d.figures)).toContain('allowed 2.5 bad events');
    expect(describeFigures(d.figures)).toContain('chaos allowance 1.25');
  });
});

describe('measuredDamage: windows it cannot charge', () => {
  const ok = (value: number, status: 'ok' | 'breach' | 'error' | 'no-data' = 'ok') => ({
    value,
    status,
    query: 'q',
  });

  it('counts a fault window without the SLI, or with an unusable status, as unmeasured', () => {
    const journal = [
      { at: 0, phase: 'steady' as const, requests: 1000, slis: { error_ratio: ok(0) } },
      { at: 1, phase: 'fault' as const, requests: 1000, slis: {} },
      { at: 2, phase: 'fault' as const, requests: 1000, slis: { error_ratio: ok(0.5, 'error') } },
      { at: 3, phase: 'fault' as const, requests: 1000, slis: { error_ratio: ok(0.5, 'no-data') } },
      { at: 4, phase: 'fault' as const, requests: 1000, slis: { error_ratio: ok(0.01, 'breach') } },
    ];
    const d = measuredDamage(journal, { sli: 'error_ratio', kind: 'error-ratio' });
    expect(d).toEqual({ damage: 10, baselineRatio: 0, windows: 1, unmeasuredWindows: 3 });
  });
});

describe('countReaderFromSources', () => {
  it('reports a source that returns no reading, and one that is not configured', async () => {
    const spec = { prometheus: 'sum(x)' } as Parameters<
      ReturnType<typeof countReaderFromSources>['count']
    >[1];
    const empty = countReaderFromSources({ prometheus: { read: async () => [] } as never });
    expect(await empty.count('budget.total', spec, 1000, 0)).toEqual({
      value: null,
      query: 'budget.total',
      error: 'the prometheus source returned no reading',
    });
    expect(await countReaderFromSources({}).count('budget.total', spec, 1000, 0)).toEqual({
      value: null,
      query: 'budget.total',
      error: 'no prometheus source is configured',
    });
  });
});

describe('budgetGate: which reading it names when one fails', () => {
  const ctx = { plan, now: 1_000_000, record: () => {} };
  const gate = (errors: number | Error, total: number | Error, spent: number | Error = 0) =>
    budgetGate({
      counts: counts({ 'budget.errors': errors, 'budget.total': total }),
      ledger: ledger(spent),
    }).check(ctx);

  it('names budget.total when only the total cannot be read, and lists only what failed', async () => {
    const outcome = await gate(1, new Error('timeout'));
    expect(outcome).toMatchObject({ pass: false, verdict: 'not-run', field: 'budget.total' });
    expect(!outcome.pass && outcome.reason).toBe(
      'cannot read the error budget: budget.total (sum(increase(http_requests_total[30d])): timeout)',
    );
  });

  it('names every failed reading, the errors query first', async () => {
    const outcome = await gate(new Error('e'), new Error('t'), new Error('l'));
    expect(outcome).toMatchObject({ field: 'budget.errors' });
    expect(!outcome.pass && outcome.reason.split('; ').map((s) => s.replace(/ \(.*/, ''))).toEqual([
      'cannot read the error budget: budget.errors',
      'budget.total',
      'the chaos ledger',
    ]);
  });

  it('does not take a negative or missing count for a count', async () => {
    expect(await gate(-1, 1_000_000)).toMatchObject({
      pass: false,
      verdict: 'not-run',
      field: 'budget.errors',
    });
    const missing = await gate(1, Number.NaN);
    expect(missing).toMatchObject({ pass: false, verdict: 'not-run', field: 'budget.total' });
    expect(!missing.pass && missing.reason).toContain('not a count (NaN)');
  });
});
