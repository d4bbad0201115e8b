/**
 * Issue 12.6: a run whose plan has a `budget:` section but no `budget.damage` debits the chaos ledger.
 * The damage SLI is derived from the plan (its one error ratio), the run's measured damage is written to
 * the sandbox's CloudWatch, and a fresh client — the next run on another runner — reads it back.
 *
 * The plan is e2e-abort.yaml (fallback off: the partition turns into 503s) plus a budget whose counts are
 * the canary's own 1-second CloudWatch metrics, so the budget gate can be read without Prometheus.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GetMetricDataCommand } from '@aws-sdk/client-cloudwatch';
import { copyPlan, eventOf, startE2E, waitFor, type E2E, type PlanRun } from './harness.js';
import { ledgerSpent } from '../../src/injector/fis/ledger.js';
import { parsePlan } from '../../src/plan/load.js';
import { resolveBudgetDamage } from '../../src/plan/budget-damage.js';
import { measuredDamage } from '../../src/preflight/budget.js';

const WINDOW_MS = 3_600_000;
const canaryCount = (metric: string): string => `
    cloudwatch:
      namespace: Sandbox/Canary
      metricName: ${metric}
      dimensions: { Service: canary }
      stat: Sum
      period: 1s`;
// Loose objective and the whole allowance for chaos: the sandbox has only seconds of history.
const BUDGET = `
budget:
  objective: 0.9
  window: 1h
  chaosShare: 1
  errors:${canaryCount('ErrorCount')}
  total:${canaryCount('RequestCount')}
`;

let e2e: E2E;
let run: PlanRun;
let planText = '';

beforeAll(async () => {
  e2e = await startE2E({ canary: { fallback: false } });
  const plan = copyPlan(e2e.dir, 'e2e-abort.yaml', (text) => {
    planText = `${text.trimEnd()}\n${BUDGET}`;
    return planText;
  });
  // The budget gate reads whole 1 s periods that ended ≥ 5 s ago; wait until the canary has published some,
  // or a window without events would (rightly) refuse the run.
  await waitFor(
    'the canary to publish request counts',
    async () => {
      const now = Date.now();
      const out = await e2e.cloudwatch.send(
        new GetMetricDataCommand({
          StartTime: new Date(now - 60_000),
          EndTime: new Date(now - 6_000),
          MetricDataQueries: [
            {
              Id: 'requests',
              MetricStat: {
                Metric: {
                  Namespace: 'Sandbox/Canary',
                  MetricName: 'RequestCount',
                  Dimensions: [{ Name: 'Service', Value: 'canary' }],
                },
                Period: 1,
                Stat: 'Sum',
              },
            },
          ],
        }),
      );
      const sum = (out.MetricDataResults?.[0]?.Values ?? []).reduce((a, b) => a + b, 0);
      return sum > 0 ? true : undefined;
    },
    20_000,
  );
  run = await e2e.run(plan);
}, 120_000);

afterAll(async () => {
  await e2e?.close();
}, 30_000);

describe('a run with a budget and no budget.damage', () => {
  it('the plan writes no damage SLI; its error ratio is derived', () => {
    const { plan } = parsePlan(planText, 'e2e-budget.yaml');
    expect(plan.budget).toBeDefined();
    expect(plan.budget?.damage).toBeUndefined();
    expect(resolveBudgetDamage(plan)).toEqual({
      ok: true,
      damage: { sli: 'error_ratio', kind: 'error-ratio' },
      derived: true,
    });
  });

  it('passes the budget gate and aborts on the 503s', () => {
    expect(run.json.verdict, run.stderr).toBe('aborted');
    expect(eventOf(run.journal, 'budget')?.message).toMatch(/^budget: allowed /);
  });

  it('debits the measured damage of the fault measurements to the journal', () => {
    const expected = measuredDamage(run.journal.measurements, { sli: 'error_ratio', kind: 'error-ratio' });
    // The partition made most fault-window requests fail: there is damage to debit.
    expect(expected.damage).toBeGreaterThan(0);
    expect(run.journal.budget?.debit).toBeCloseTo(expected.damage, 6);
    const debited = run.journal.events.find((e) => e.type === 'budget' && /debited/.test(e.message));
    expect(debited?.message).toMatch(/^debited [\d.]+ bad events to the chaos ledger$/);
  });

  it('writes the damage to the chaos ledger, where the next run reads it', async () => {
    const debit = run.journal.budget?.debit ?? NaN;
    const spent = await ledgerSpent(e2e.cloudwatch, 'canary', WINDOW_MS, Date.now());
    expect(spent).toBeCloseTo(debit, 6);
    expect(spent).toBeGreaterThan(0);
  });
});
