import { describe, expect, it } from 'vitest';
import { VirtualClock } from '../../src/clock/clock.js';
import { buildGates } from '../../src/preflight/index.js';
import { loadPolicy } from '../../src/compose/inputs.js';
import { planWith } from '../sim/helpers.js';

const withIncidentsAndBudget = planWith((p) => {
  p.schedule = { incidents: { prometheus: 'max(ALERTS{severity="page"})' } };
  p.budget = {
    objective: 0.999,
    errors: { prometheus: 'sum(increase(errors_total[30d]))' },
    total: { prometheus: 'sum(increase(requests_total[30d]))' },
  };
});

describe('buildGates', () => {
  it('orders every gate by stage, in the order of docs/design/gates.md, and adds the mid-run checks', async () => {
    const clock = new VirtualClock();
    const { gates, midRun } = buildGates({
      plan: withIncidentsAndBudget,
      policy: await loadPolicy('fixtures/policy/org-policy.yaml'),
      incidents: { open: async () => ({ open: false, detail: '' }) },
      killSwitch: { engaged: async () => ({ engaged: false }) },
      budget: { counts: { count: async () => ({ value: 0, query: '' }) }, ledger: { spent: async () => 0 } },
      concurrency: { lister: { running: async () => [] }, clock, queueTimeoutMs: 0 },
    });
    expect(gates.map((g) => `${g.stage}:${g.name}`)).toEqual([
      'static:policy',
      'static:dependency-closure',
      'static:schedule-windows',
      'before-targets:schedule',
      'before-targets:incidents',
      'before-targets:kill-switch',
      'before-targets:budget',
      'after-targets:blast-radius',
      'after-targets:concurrency',
    ]);
    expect(midRun.map((m) => m.name)).toEqual(['incidents', 'kill-switch']);
  });

  it('turns a plan feature without its probe into a gate that does not pass', async () => {
    const { gates, midRun } = buildGates({ plan: withIncidentsAndBudget });
    const ctx = { plan: withIncidentsAndBudget, now: 0, record: () => {} };
    const incidents = gates.find((g) => g.name === 'incidents');
    const budget = gates.find((g) => g.name === 'budget');
    expect(await incidents?.check(ctx)).toMatchObject({
      pass: false,
      verdict: 'not-run',
      field: 'schedule.incidents',
    });
    expect(await budget?.check(ctx)).toMatchObject({ pass: false, verdict: 'not-run', field: 'budget' });
    expect(midRun).toEqual([]);
  });

  it('applies the policy’s stricter limits in the blast-radius gate', async () => {
    const plan = planWith((p) => {
      p.fis.targets.primary!.selectionMode = 'COUNT(1)';
    });
    const { gates } = buildGates({
      plan,
      policy: await loadPolicy('fixtures/policy/org-policy.yaml'),
      candidates: { candidates: async () => 3 },
    });
    const blast = gates.find((g) => g.name === 'blast-radius');
    const outcome = await blast?.check({
      plan,
      now: 0,
      targets: [
        {
          target: 'primary',
          arn: 'arn:aws:ec2:eu-west-1:111122223333:subnet/subnet-a',
          tags: { ChaosAllowed: 'true' },
        },
      ],
      record: () => {},
    });
    // 1 of 3 is 33 %; the policy's 25 % allows floor(0.75) = 0 of 3 although the plan allows 100 %.
    expect(outcome).toMatchObject({ pass: false, verdict: 'refused', field: 'blastRadius.maxPercent' });
  });
});
