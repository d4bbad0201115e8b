/**
 * The common SLO windows work: a budget over 30 and over 90 days is read from a real Prometheus through
 * the run's own source and gate, and passes with figures over the whole window. Before, the read's
 * deadline was the window itself, past Node's 2³¹−1 ms timer limit: Node cut it to 1 ms with a
 * `TimeoutOverflowWarning`, every read timed out, and every run ended `not-run`. The process's warnings
 * are captured; the ledger reader records the window it was asked about.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { prometheusSkipReason, startPrometheus, type PrometheusServer } from '../helpers/prometheus.js';
import { createMetricSources, prometheusOptionsFrom } from '../../src/metrics/index.js';
import { budgetGate, countReaderFromSources } from '../../src/preflight/budget.js';
import { loadPlan } from '../../src/plan/load.js';
import type { JournalEvent } from '../../src/journal/types.js';

const DAY = 86_400_000;

/** A plan whose budget counts one per day of the window (errors) and 10 000 per day (total). */
function planText(window: string): string {
  return `version: 1
id: long-window
title: Checkout over a long SLO window
service: checkout
environment: staging
owner: team-checkout
hypothesis:
  slis:
    - { name: error_ratio, prometheus: 'vector(0)', max: 0.01 }
  steadyState: { duration: 5s }
  recovery: { within: 10s }
abort:
  rules: [{ sli: error_ratio, above: 0.05, for: 2s }]
budget:
  objective: 0.999
  window: ${window}
  errors: { prometheus: 'sum(count_over_time(vector(1)[$window:1d]))' }
  total: { prometheus: 'sum(count_over_time(vector(1)[$window:1d])) * 10000' }
  damage: { sli: error_ratio, kind: error-ratio }
fis:
  roleArn: arn:aws:iam::123456789012:role/fis
  targets:
    t: { resourceType: aws:ec2:instance, resourceTags: { chaos: 'yes' }, selectionMode: COUNT(1) }
  actions:
    a: { actionId: aws:ec2:stop-instances, parameters: { startInstancesAfterDuration: PT2M }, targets: { Instances: t } }
`;
}

describe.skipIf(prometheusSkipReason !== undefined)(
  `an error budget over a long SLO window, read from a real Prometheus${prometheusSkipReason ? ` (skipped: ${prometheusSkipReason})` : ''}`,
  () => {
    let prom: PrometheusServer;
    let dir: string;
    const warnings: Error[] = [];
    const onWarning = (w: Error): void => void warnings.push(w);

    beforeAll(async () => {
      prom = await startPrometheus([]);
      dir = mkdtempSync(join(tmpdir(), 'chaos-gate-budget-'));
      process.on('warning', onWarning);
    }, 40_000);

    afterAll(async () => {
      process.off('warning', onWarning);
      await prom?.stop();
      if (dir) rmSync(dir, { recursive: true, force: true });
    });

    for (const [window, days] of [
      ['30d', 30],
      ['90d', 90],
    ] as const) {
      it(`a ${window} window: the budget gate reads both counts over ${days} days and passes, with no timer overflow`, async () => {
        const file = join(dir, `plan-${window}.yaml`);
        writeFileSync(file, planText(window));
        const { plan } = await loadPlan(file, `plan-${window}.yaml`);
        expect(plan.budget?.window).toBe(days * DAY);
        const sources = createMetricSources({ prometheus: prometheusOptionsFrom({ url: prom.url }, {}) });
        const asked: number[] = [];
        const gate = budgetGate({
          counts: countReaderFromSources(sources),
          ledger: { spent: async (_service, windowMs) => (asked.push(windowMs), 0) },
        });
        const events: Omit<JournalEvent, 'at'>[] = [];
        const outcome = await gate.check({ plan, now: Date.now(), record: (e) => void events.push(e) });
        expect(outcome, JSON.stringify(outcome)).toMatchObject({ pass: true });
        expect(asked).toEqual([days * DAY]);
        const figures = events.find((e) => e.type === 'budget')?.data;
        // errors = one per day of the window; allowed = (1 − 0.999) × 10 000 per day.
        expect(figures).toMatchObject({ windowMs: days * DAY, serviceBadEvents: days });
        expect(figures?.allowedBadEvents).toBeCloseTo(days * 10, 6);
        expect(warnings.filter((w) => w.name === 'TimeoutOverflowWarning')).toEqual([]);
      }, 30_000);
    }
  },
);
