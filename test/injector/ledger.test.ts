/**
 * The chaos ledger (docs/design/run.md#the-chaos-ledger): a run's measured damage goes to CloudWatch, and the budget check of the next
 * run — on any runner, i.e. another client — reads the sum over the SLO window and refuses once the chaos
 * allowance is spent. Real SDK clients over HTTP to the sandbox's CloudWatch stand-in.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CloudWatchClient } from '@aws-sdk/client-cloudwatch';
import { recordDamage, ledgerSpent } from '../../src/injector/fis/ledger.js';
import { ledgerReader } from '../../src/injector/fis/probes.js';
import { budgetGate, type CountReader } from '../../src/preflight/budget.js';
import { Plan } from '../../src/plan/schema.js';
import { startSandboxProcess, type RunningSandbox } from '../helpers/sandbox.js';

let sandbox: RunningSandbox;
const credentials = { accessKeyId: 'sandbox', secretAccessKey: 'sandbox' };
const client = (): CloudWatchClient =>
  new CloudWatchClient({ region: 'us-east-1', endpoint: sandbox.urls.aws, credentials, maxAttempts: 1 });

beforeAll(async () => {
  sandbox = await startSandboxProcess({ args: ['--no-load'] });
}, 30_000);
afterAll(async () => {
  await sandbox?.stop();
});

const DAY = 86_400_000;

const plan = Plan.parse({
  version: 1,
  id: 'ledger-check',
  title: 'ledger',
  service: 'ledger-svc',
  environment: 'staging',
  owner: 'sre',
  hypothesis: {
    slis: [{ name: 'error_ratio', prometheus: 'vector(0)', max: 0.01 }],
    steadyState: { duration: '5s' },
    recovery: { within: '10s' },
  },
  abort: { rules: [{ sli: 'error_ratio', above: 0.05, for: '3s' }] },
  budget: {
    objective: 0.999,
    window: '30d',
    errors: { prometheus: 'errors' },
    total: { prometheus: 'total' },
    chaosShare: 0.1,
  },
  fis: {
    roleArn: 'arn:aws:iam::123456789012:role/fis',
    targets: { t: { resourceType: 'aws:ec2:instance', resourceTags: { a: 'b' }, selectionMode: 'COUNT(1)' } },
    actions: { a: { actionId: 'aws:ec2:stop-instances', targets: { Instances: 't' } } },
  },
});

/** 1 000 000 requests and 200 errors over the window: allowed bad = 1000, chaos allowance = 100. */
const counts: CountReader = {
  async count(name) {
    return { value: name.includes('error') ? 200 : 1_000_000, query: name };
  },
};

describe('the chaos ledger in CloudWatch', () => {
  it('sums the damage two runners recorded for a service over the SLO window, and only that service', async () => {
    const now = Date.now();
    await recordDamage(client(), { service: 'ledger-svc', planId: 'p1', badEvents: 30, at: now - 2 * DAY });
    await recordDamage(client(), { service: 'ledger-svc', planId: 'p2', badEvents: 12.5, at: now - 60_000 });
    await recordDamage(client(), { service: 'other-svc', planId: 'p3', badEvents: 999, at: now - 60_000 });
    // A different client, as the next run on another runner would have.
    expect(await ledgerSpent(client(), 'ledger-svc', 30 * DAY, now)).toBeCloseTo(42.5, 6);
    expect(await ledgerSpent(client(), 'ledger-svc', DAY, now)).toBeCloseTo(12.5, 6);
  });

  it('lets the budget gate pass while the ledger is under the allowance and refuse once it is spent', async () => {
    const gate = budgetGate({ counts, ledger: ledgerReader(client()) });
    const ctx = { plan, now: Date.now(), record: () => undefined };
    const before = await gate.check(ctx);
    expect(before.pass).toBe(true);
    const figures = before.pass ? before.budget : undefined;
    expect(figures?.chaosAllowance).toBeCloseTo(100, 6);
    expect(figures?.ledgerSpent).toBeCloseTo(42.5, 6);

    await recordDamage(client(), {
      service: 'ledger-svc',
      planId: 'p4',
      badEvents: 57.5,
      at: Date.now() - 1000,
    });
    const after = await gate.check({ ...ctx, now: Date.now() });
    expect(after.pass).toBe(false);
    expect(after.pass === false && after.verdict).toBe('refused');
    expect(after.pass === false && after.reason).toMatch(/100/);
  });
});
