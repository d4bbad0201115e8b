/**
 * `budget.from` against the real parts: the sandbox canary scraped by a real Prometheus that evaluates
 * Sloth- and Pyrra-generated recording rules over it (fixtures/slo/, checked with `promtool check rules`),
 * so every budget series is computed by Prometheus itself. The run's own budget gate reads them through
 * the run's own Prometheus source and SLO store:
 *
 * - the availability SLOs (no 503 while the canary is healthy) have their budget left: the gate passes;
 * - the latency SLOs (25 ms against a 40 ms median) have spent theirs: `refused`, the reason naming the
 *   series and the value Prometheus gives for it at that instant;
 * - the chaos allowance and ledger still apply on top;
 * - an SLO the store does not have, or a Prometheus that does not answer, is `not-run`, never a pass.
 *
 * The ledger is an in-test reader returning what each case needs (the ledger's own reads are tested
 * against the CloudWatch stand-in elsewhere).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  prometheusSkipReason,
  rawQuery,
  startPrometheus,
  waitForSeries,
  type PrometheusServer,
} from '../helpers/prometheus.js';
import { startSandboxProcess, type RunningSandbox } from '../helpers/sandbox.js';
import { freePort } from '../helpers/ports.js';
import { createMetricSources, prometheusOptionsFrom } from '../../src/metrics/index.js';
import { budgetGate, countReaderFromSources } from '../../src/preflight/budget.js';
import { budgetStoreOf } from '../../src/compose/run.js';
import { loadPlan } from '../../src/plan/load.js';
import type { GateOutcome } from '../../src/engine/gates.js';
import type { JournalEvent } from '../../src/journal/types.js';

const ROOT = join(import.meta.dirname, '../..');
const SLOTH_RULES = join(ROOT, 'fixtures/slo/sloth-canary.rules.yml');
const PYRRA_RULES = join(ROOT, 'fixtures/slo/pyrra-canary.rules.yml');
const DAY = 86_400_000;

function planText(from: string): string {
  return `version: 1
id: budget-from
title: Canary budget from its SLO store
service: canary
environment: sandbox
owner: chaos-gate-e2e
hypothesis:
  slis:
    - { name: error_ratio, prometheus: 'vector(0)', max: 0.01 }
  steadyState: { duration: 5s }
  recovery: { within: 10s }
abort:
  rules: [{ sli: error_ratio, above: 0.05, for: 2s }]
budget:
  from: ${from}
  total: { prometheus: 'sum(increase(http_requests_total{job="canary"}[$window]))' }
  damage: { sli: error_ratio, kind: error-ratio }
fis:
  roleArn: arn:aws:iam::123456789012:role/fis
  targets:
    t: { resourceType: aws:ec2:instance, resourceTags: { chaos: 'yes' }, selectionMode: COUNT(1) }
  actions:
    a: { actionId: aws:ec2:stop-instances, parameters: { startInstancesAfterDuration: PT2M }, targets: { Instances: t } }
`;
}

/** The value Prometheus gives for `query` at `at`. */
async function valueAt(url: string, query: string, at: number): Promise<number> {
  const body = (await rawQuery(url, query, at)) as { data: { result: { value: [number, string] }[] } };
  return Number(body.data.result[0]?.value[1]);
}

describe.skipIf(prometheusSkipReason !== undefined)(
  `budget.from Sloth and Pyrra rules in a real Prometheus over the sandbox canary${prometheusSkipReason ? ` (skipped: ${prometheusSkipReason})` : ''}`,
  () => {
    let sandbox: RunningSandbox;
    let prom: PrometheusServer;
    let dir: string;

    beforeAll(async () => {
      sandbox = await startSandboxProcess();
      prom = await startPrometheus([{ name: 'canary', target: new URL(sandbox.urls.canary).host }], {
        rules: [readFileSync(SLOTH_RULES, 'utf8'), readFileSync(PYRRA_RULES, 'utf8')],
      });
      dir = mkdtempSync(join(tmpdir(), 'chaos-gate-budget-from-'));
      // Both stores' budget series exist once two scrapes and an evaluation have happened.
      await waitForSeries(prom.url, 'slo:period_error_budget_remaining:ratio > -Inf', 2);
      await waitForSeries(prom.url, 'pyrra_availability > -Inf', 2);
    }, 60_000);

    afterAll(async () => {
      await prom?.stop();
      await sandbox?.stop();
      if (dir) rmSync(dir, { recursive: true, force: true });
    }, 30_000);

    async function gate(
      from: string,
      opts: { ledger?: number; url?: string } = {},
    ): Promise<{ outcome: GateOutcome; events: Omit<JournalEvent, 'at'>[]; now: number; asked: number[] }> {
      const file = join(dir, `plan-${Math.random().toString(36).slice(2)}.yaml`);
      writeFileSync(file, planText(from));
      const { plan } = await loadPlan(file, 'plan.yaml');
      const sources = createMetricSources({
        prometheus: prometheusOptionsFrom({ url: opts.url ?? prom.url }, {}),
      });
      const asked: number[] = [];
      const g = budgetGate({
        counts: countReaderFromSources(sources),
        ledger: { spent: async (_s, windowMs) => (asked.push(windowMs), opts.ledger ?? 0) },
        store: budgetStoreOf(sources),
      });
      const events: Omit<JournalEvent, 'at'>[] = [];
      const now = Date.now();
      const outcome = await g.check({ plan, now, record: (e) => void events.push(e) });
      return { outcome, events, now, asked };
    }

    it('the generated rule files pass promtool check rules', () => {
      for (const [file, rules] of [
        [SLOTH_RULES, 30],
        [PYRRA_RULES, 15],
      ] as const) {
        const r = spawnSync('promtool', ['check', 'rules', file], { encoding: 'utf8' });
        expect(r.status, r.stdout + r.stderr).toBe(0);
        expect(r.stdout).toContain(`SUCCESS: ${rules} rules found`);
      }
    });

    it('Sloth: passes with the budget left, objective and window from the store', async () => {
      const { outcome, events, asked } = await gate(
        '{ sloth: { service: canary, slo: requests-availability } }',
      );
      expect(outcome, JSON.stringify(outcome)).toMatchObject({ pass: true });
      expect(asked).toEqual([30 * DAY]);
      const budget = events.find((e) => e.type === 'budget');
      expect(budget?.data).toMatchObject({
        store: 'Sloth',
        remaining: 1,
        objective: 0.999,
        windowMs: 30 * DAY,
      });
      expect(budget?.message).toContain(
        'from Sloth: slo:period_error_budget_remaining:ratio{sloth_service="canary", sloth_slo="requests-availability"} = 1; slo:objective:ratio{sloth_service="canary", sloth_slo="requests-availability"} = 0.999, slo:time_period:days{sloth_service="canary", sloth_slo="requests-availability"} = 30',
      );
    });

    it('Sloth: refuses with the budget spent, naming the series and the value Prometheus computed', async () => {
      const { outcome, now } = await gate('{ sloth: { service: canary, slo: requests-latency } }');
      expect(outcome).toMatchObject({ pass: false, verdict: 'refused', field: 'budget.from' });
      const series =
        'slo:period_error_budget_remaining:ratio{sloth_service="canary", sloth_slo="requests-latency"}';
      const reason = (outcome as { reason: string }).reason;
      expect(reason).toMatch(/^the service has exhausted its error budget: Sloth reports /);
      const value = Number(
        new RegExp(`${series.replace(/[{}.*+?^$()|[\]\\]/g, '\\$&')} = (-?[\\d.e+-]+)`).exec(reason)?.[1],
      );
      expect(value).toBeLessThan(0);
      const truth = await valueAt(prom.url, series.replace(', ', ','), now);
      expect(value).toBeCloseTo(Number(truth.toPrecision(6)), 6);
    });

    it('Pyrra: passes with the budget left and refuses with it spent, naming the series', async () => {
      const ok = await gate('{ pyrra: { slo: canary-availability } }');
      expect(ok.outcome, JSON.stringify(ok.outcome)).toMatchObject({ pass: true });
      expect(ok.asked).toEqual([28 * DAY]);
      expect(ok.events.find((e) => e.type === 'budget')?.data).toMatchObject({
        store: 'Pyrra',
        remaining: 1,
        objective: 0.999,
        windowMs: 28 * DAY,
      });
      const spent = await gate('{ pyrra: { slo: canary-latency } }');
      expect(spent.outcome).toMatchObject({ pass: false, verdict: 'refused', field: 'budget.from' });
      const reason = (spent.outcome as { reason: string }).reason;
      const availability = Number(
        /pyrra_availability\{slo="canary-latency"\} = ([\d.e+-]+)/.exec(reason)?.[1],
      );
      const truth = await valueAt(prom.url, 'pyrra_availability{slo="canary-latency"}', spent.now);
      expect(availability).toBeCloseTo(Number(truth.toPrecision(6)), 6);
      expect(availability).toBeLessThan(0.99);
      expect(reason).toMatch(
        /against pyrra_objective\{slo="canary-latency"\} = 0\.99, so -[\d.]+ of the budget is left/,
      );
    });

    it('keeps the chaos allowance and ledger on top of the store’s budget', async () => {
      const { outcome } = await gate('{ sloth: { service: canary, slo: requests-availability } }', {
        ledger: 1e12,
      });
      expect(outcome).toMatchObject({ pass: false, verdict: 'refused', field: 'budget.chaosShare' });
      expect((outcome as { reason: string }).reason).toMatch(
        /^the chaos allowance is used: ledger spent 1000000000000 ≥ allowance .* \(from Sloth: slo:period_error_budget_remaining:ratio\{sloth_service="canary", sloth_slo="requests-availability"\} = 1;/,
      );
    });

    it('is not-run, never a pass, for an SLO the store does not have or a Prometheus that does not answer', async () => {
      const unknown = await gate('{ sloth: { service: canary, slo: no-such-slo } }');
      expect(unknown.outcome).toMatchObject({ pass: false, verdict: 'not-run', field: 'budget.from' });
      expect((unknown.outcome as { reason: string }).reason).toContain(
        'no series (are the recording rules loaded and evaluated?)',
      );
      const down = await gate('{ pyrra: { slo: canary-availability } }', {
        url: `http://127.0.0.1:${await freePort()}`,
      });
      expect(down.outcome).toMatchObject({ pass: false, verdict: 'not-run', field: 'budget.from' });
      expect((down.outcome as { reason: string }).reason).toMatch(
        /^cannot read the error budget from Pyrra's series: pyrra_/,
      );
    });
  },
);
