/**
 * What `buildGates` does with each option: a probe or reader it is given is used (and nothing stands in
 * for a feature the plan does not have), the mid-run incident check aborts after the plan's blindAfter
 * failed reads, and the policy and catalog options reach their gates.
 */
import { describe, expect, it } from 'vitest';
import type { Plan } from '../../src/plan/schema.js';
import { buildGates } from '../../src/preflight/index.js';
import { parseCatalog } from '../../src/preflight/catalog.js';
import { parsePolicy } from '../../src/preflight/policy.js';
import { planWith } from '../sim/helpers.js';

const ctx = (plan: Plan) => ({ plan, now: 0, record: () => {} });
const names = (plan: Plan, options: Partial<Parameters<typeof buildGates>[0]> = {}) =>
  buildGates({ plan, ...options }).gates.map((g) => g.name);

describe('buildGates options', () => {
  it('adds no incident or budget gate for a plan without incidents or a budget', () => {
    const plan = planWith(() => {});
    expect(plan.schedule.incidents).toBeUndefined();
    expect(plan.budget).toBeUndefined();
    expect(names(plan)).not.toContain('incidents');
    expect(names(plan)).not.toContain('budget');
  });

  it('a stand-in for a missing probe runs before the targets are resolved', () => {
    const plan = planWith((p) => void (p.schedule = { incidents: { prometheus: 'max(ALERTS)' } }));
    const gate = buildGates({ plan }).gates.find((g) => g.name === 'incidents');
    expect(gate?.stage).toBe('before-targets');
  });

  it('uses the budget readers it is given', async () => {
    const plan = planWith((p) => {
      p.budget = {
        objective: 0.99,
        errors: { prometheus: 'sum(increase(errors_total[30d]))' },
        total: { prometheus: 'sum(increase(requests_total[30d]))' },
      };
    });
    const { gates } = buildGates({
      plan,
      budget: {
        counts: { count: async (name) => ({ value: name === 'budget.total' ? 10_000 : 5, query: name }) },
        ledger: { spent: async () => 0 },
      },
    });
    const outcome = await gates.find((g) => g.name === 'budget')?.check(ctx(plan));
    expect(outcome).toMatchObject({ pass: true });
  });

  it("aborts mid-run after the plan's blindAfter failed incident reads in a row", async () => {
    const plan = planWith((p) => void (p.abort.blindAfter = 3));
    const { midRun } = buildGates({
      plan,
      incidents: { open: async () => ({ open: false, detail: '', error: 'timeout' }) },
    });
    const check = midRun.find((m) => m.name === 'incidents')!;
    expect(await check.check(0)).toBeNull();
    expect(await check.check(1)).toBeNull();
    expect(await check.check(2)).toBe('incident probe failed 3 times in a row (last: timeout)');
  });

  it('hands the policy gate what the plan writes: a ceiling written at its default is a widening', async () => {
    const plan = planWith(() => {});
    const policy = parsePolicy('version: 1\nceilings: { maxPercent: 25 }\n', 'policy.yaml');
    const gate = (written?: (field: string) => boolean) =>
      buildGates({ plan, policy, written }).gates.find((g) => g.name === 'policy')!;
    expect(await gate().check(ctx(plan))).toMatchObject({ pass: true });
    expect(await gate((f) => f === 'blastRadius.maxPercent').check(ctx(plan))).toMatchObject({
      pass: false,
      verdict: 'refused',
      field: 'blastRadius.maxPercent',
    });
  });

  it('hands the catalog gate the catalog the front door read', async () => {
    const plan = planWith((p) => {
      p.blastRadius = {
        ...p.blastRadius,
        catalog: { path: 'catalog-info.yaml', components: ['redis'] },
      } as typeof p.blastRadius;
    });
    const catalog = parseCatalog(
      'apiVersion: backstage.io/v1alpha1\nkind: Component\nmetadata:\n  name: redis\n',
      'catalog-info.yaml',
    );
    const gate = (withCatalog: boolean) =>
      buildGates({ plan, ...(withCatalog ? { catalog: { catalog } } : {}) }).gates.find(
        (g) => g.name === 'dependency-closure',
      )!;
    expect(await gate(true).check(ctx(plan))).toMatchObject({ pass: true });
    expect(await gate(false).check(ctx(plan))).toMatchObject({ pass: false, verdict: 'refused' });
  });
});
