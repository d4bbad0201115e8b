/**
 * A matrix of plans in one account, for real: `chaos-gate run` of 7 plans started in the same tick against
 * one sandbox whose FIS allows 3 active experiments (FIS's own quota is 5, dry runs included; the bench
 * runs 20 against 5). Each plan stops a different ECS task of the orders API and holds one minute of
 * `aws:fis:wait`, so no two share a target and only the quota keeps them apart:
 *
 * - none ends `failed`: every verdict is the one the plan gets alone (`held`);
 * - FIS never had more than 3 experiments live at once — the sandbox's own record — and it did answer
 *   some starts with its quota (so the queue was exercised, not bypassed);
 * - the runs that queued say so in their journals.
 */
import { describe, expect, it } from 'vitest';
import { DescribeAlarmsCommand } from '@aws-sdk/client-cloudwatch';
import path from 'node:path';
import { writeFileSync } from 'node:fs';
import { readJournal, useE2E } from './harness.js';
import type { Journal } from '../../src/journal/types.js';

const PLANS = 7;
const QUOTA = 3;
// PT1M at 30× speed: each experiment is live about 2 s, each run about 10 s.
const e2e = useE2E({ fis: { durationScale: 1 / 30 }, fisQuotas: { activeExperiments: QUOTA } });

const task = (n: number) =>
  `arn:aws:ecs:us-east-1:123456789012:task/orders-staging/0rde7500000000000000000000000${n}`;

/** Plan n: stop orders task n, and keep the experiment live a minute (scaled) with aws:fis:wait. */
function plan(n: number): string {
  return `version: 1
id: quota-${n}
title: Orders task ${n} stopped while the canary keeps answering
service: canary
environment: sandbox
owner: chaos-gate-e2e
hypothesis:
  interval: 1s
  minRequests: 10
  requests:
    scrape:
      url: \${CANARY_URL}/metrics
      increase: http_requests_total
  slis:
    - name: error_ratio
      scrape:
        url: \${CANARY_URL}/metrics
        ratio: { numerator: 'http_requests_total{status="503"}', denominator: http_requests_total }
      max: 0.9
      steady: { max: 0.9 }
  steadyState: { duration: 2s }
  recovery: { within: 10s }
abort:
  rules:
    - { sli: error_ratio, above: 0.95, for: 2s }
blastRadius:
  maxTargets: 1
  maxActionDuration: 60s
  maxRunDuration: 5m
fis:
  roleArn: arn:aws:iam::123456789012:role/chaos-gate-fis-sandbox
  targets:
    ordersTask:
      resourceType: aws:ecs:task
      resourceArns: ['${task(n)}']
      selectionMode: ALL
  actions:
    stopTask:
      actionId: aws:ecs:stop-task
      targets: { Tasks: ordersTask }
    hold:
      actionId: aws:fis:wait
      parameters: { duration: PT1M }
env:
  - { name: CANARY_URL, public: true }
`;
}

describe(`${PLANS} plans started together against FIS's quota of ${QUOTA} active experiments`, () => {
  let journals: Journal[] = [];
  let quotas: { activeExperiments: number; peakLive: number; quotaAnswers: number };

  it('all run', async () => {
    const runs = Array.from({ length: PLANS }, (_, i) => {
      const file = path.join(e2e().dir, `quota-${i + 1}.yaml`);
      writeFileSync(file, plan(i + 1));
      const journalPath = path.join(e2e().dir, `quota-${i + 1}.journal.json`);
      const child = e2e().cli([
        'run',
        file,
        '--journal',
        journalPath,
        '--json',
        '--run-id',
        `quota-${i + 1}`,
        '--queue-timeout',
        '5m',
      ]);
      return { child, journalPath };
    });
    const results = await Promise.all(runs.map((r) => r.child.done));
    // Exit 0 is `held`; anything else shows what the run printed.
    expect(results.map((r) => (r.code === 0 ? 0 : `${r.code}: ${r.stderr.slice(-2000)}`))).toEqual(
      results.map(() => 0),
    );
    journals = runs.map((r) => readJournal(r.journalPath));
    quotas = (await e2e().sandbox.admin.get<{ quotas: typeof quotas }>('/fis/quotas')).quotas;
    console.log(
      `quota matrix: ${PLANS} plans, quota ${QUOTA}: at most ${quotas.peakLive} live at once, ${quotas.quotaAnswers} quota answers, ` +
        `${journals.filter((j) => j.events.some((e) => e.data?.gate === 'quota')).length} runs queued (printed, not asserted)`,
    );
    expect(journals).toHaveLength(PLANS);
  }, 240_000);

  it('every plan holds, as it does alone: none failed for the quota', () => {
    expect(journals).toHaveLength(PLANS);
    expect(journals.map((j) => `${j.planId}: ${j.verdict} (${j.reason})`)).toEqual(
      journals.map((j) => `${j.planId}: held (${j.reason})`),
    );
  });

  it(`FIS never had more than ${QUOTA} experiments live at once, and answered some starts with its quota`, () => {
    expect(quotas.activeExperiments).toBe(QUOTA);
    expect(quotas.peakLive).toBeLessThanOrEqual(QUOTA);
    expect(quotas.peakLive).toBeGreaterThan(1);
    expect(quotas.quotaAnswers).toBeGreaterThan(0);
  });

  it('sent no StopExperiment (FIS completed every experiment itself) and left no lease alarm behind', async () => {
    expect(await e2e().requests({ operation: 'StopExperiment' })).toEqual([]);
    const left = await e2e().cloudwatch.send(
      new DescribeAlarmsCommand({ AlarmNamePrefix: 'chaos-gate-lease-' }),
    );
    expect((left.MetricAlarms ?? []).map((a) => a.AlarmName)).toEqual([]);
  });

  it("each journal counts the run's AWS calls by operation and prices them", () => {
    for (const j of journals) {
      expect(j.cost?.calls['fis:StartExperiment']).toBeGreaterThanOrEqual(2);
      expect(j.cost?.calls['fis:GetExperiment']).toBeGreaterThan(0);
      expect(j.cost?.calls['cloudwatch:PutMetricData']).toBeGreaterThan(0);
      expect(j.cost?.totalUsd).toBeGreaterThan(0);
    }
  });

  it('the runs that waited for the quota journaled their wait', () => {
    const queued = journals.filter((j) => j.events.some((e) => e.data?.gate === 'quota'));
    expect(queued.length).toBeGreaterThan(0);
  });
});
