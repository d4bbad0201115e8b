import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { JournalEvent } from '../../src/journal/types.js';
import { parsePlan } from '../../src/plan/load.js';
import { loadPolicy } from '../../src/compose/inputs.js';
import {
  PolicyError,
  effectiveLimits,
  parsePolicy,
  policyGate,
  policyRefusals,
  type LoadedPolicy,
} from '../../src/preflight/policy.js';
import { planWith } from '../sim/helpers.js';

const POLICY = 'fixtures/policy/org-policy.yaml';
const ALARM = 'arn:aws:cloudwatch:eu-west-1:111122223333:alarm:checkout-5xx';

async function orgPolicy(): Promise<LoadedPolicy> {
  return loadPolicy(POLICY, 'policy.yaml');
}

/** The checkout plan brought inside the org policy: a narrowing plan, which must pass. */
const compliant = () =>
  planWith((p) => {
    p.fis.targets.primary!.resourceTags = { Environment: 'staging-chaos', ChaosAllowed: 'true' };
    p.fis.stopConditions = [ALARM];
  });

describe('loading a policy', () => {
  it('reads the example policy and knows its lines', async () => {
    const loaded = await orgPolicy();
    expect(loaded.policy.ceilings).toEqual({
      maxTargets: 2,
      maxPercent: 25,
      maxActionDuration: 120_000,
      maxRunDuration: 1_200_000,
    });
    expect(loaded.line('ceilings.maxTargets')).toBe(4);
    expect(loaded.line('requiredStopConditions[0]')).toBe(16);
  });

  it.each([
    [
      'fixtures/policy/invalid-unknown-key.yaml',
      [
        "policy.yaml:4:3: ceilings.maxTarget: unknown key 'maxTarget'; expected one of the known keys: maxTargets, maxPercent, maxActionDuration, maxRunDuration",
      ],
    ],
    [
      'fixtures/policy/invalid-values.yaml',
      [
        'policy.yaml:3:15: ceilings.maxPercent: 150 is not valid; expected a number ≤ 100',
        'policy.yaml:4:19: ceilings.maxRunDuration: "forever" is not valid; expected a duration such as 500ms, 5s, 2m, 1h or 30d',
        'policy.yaml:5:12: accounts[0]: 111122223333 is a number; expected a 12-digit AWS account id as a string (quote it in YAML)',
      ],
    ],
  ])('reports %s with file:line:col, field and value', async (path, lines) => {
    const error = await loadPolicy(path, 'policy.yaml').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PolicyError);
    expect((error as PolicyError).message.split('\n').slice(1)).toEqual(lines);
  });

  it('reports YAML syntax errors at their line', () => {
    const text = readFileSync('fixtures/policy/invalid-yaml.yaml', 'utf8');
    expect(() => parsePolicy(text, 'policy.yaml')).toThrow(/policy\.yaml:\d+:\d+: YAML syntax/);
  });

  it('names an unreadable file', async () => {
    await expect(loadPolicy('fixtures/policy/does-not-exist.yaml')).rejects.toThrow(
      /cannot read the policy file/,
    );
  });
});

describe('policyRefusals: a plan may narrow, never widen', () => {
  it('accepts a plan inside every limit', async () => {
    expect(policyRefusals(compliant(), await orgPolicy())).toEqual([]);
  });

  it.each([
    ['maxTargets', 5, 'blastRadius.maxTargets 5 exceeds the policy ceiling 2 (policy.yaml:4)'],
    ['maxPercent', 50, 'blastRadius.maxPercent 50 exceeds the policy ceiling 25 (policy.yaml:5)'],
    [
      'maxActionDuration',
      '5m',
      'blastRadius.maxActionDuration 5m exceeds the policy ceiling 2m (policy.yaml:6)',
    ],
    ['maxRunDuration', '1h', 'blastRadius.maxRunDuration 1h exceeds the policy ceiling 20m (policy.yaml:7)'],
  ])('refuses a widened %s, naming both values and the policy line', async (key, value, message) => {
    const plan = planWith((p) => {
      p.fis.targets.primary!.resourceTags = { Environment: 'staging-chaos', ChaosAllowed: 'true' };
      p.fis.stopConditions = [ALARM];
      (p.blastRadius as Record<string, unknown>)[key] = value;
    });
    const refusals = policyRefusals(plan, await orgPolicy());
    expect(refusals.map((r) => r.message)).toEqual([message]);
    expect(refusals[0]).toMatchObject({
      rule: 'ceiling-widened',
      field: `blastRadius.${key}`,
      policyAt: expect.stringMatching(/^policy\.yaml:\d+$/),
    });
  });

  it('narrows a ceiling left at its default silently, and applies the stricter limit', async () => {
    const plan = compliant(); // maxPercent not written: default 100
    expect(policyRefusals(plan, await orgPolicy())).toEqual([]);
    expect(effectiveLimits(plan, (await orgPolicy()).policy)).toMatchObject({
      maxTargets: 1,
      maxPercent: 25,
      maxActionDuration: 60_000,
      maxRunDuration: 900_000,
    });
  });

  it('treats a ceiling the plan writes as a widening even at the default value', async () => {
    const text = readFileSync('fixtures/sim-plans/checkout.yaml', 'utf8')
      .replace('maxTargets: 1', 'maxTargets: 1\n  maxPercent: 100')
      .replace(
        'resourceTags: { Environment: staging-chaos }',
        'resourceTags: { Environment: staging-chaos, ChaosAllowed: "true" }',
      )
      .replace('  actions:', `  stopConditions: [${ALARM}]\n  actions:`);
    const loaded = parsePlan(text, 'checkout.yaml');
    const refusals = policyRefusals(loaded.plan, await orgPolicy(), {
      written: (f) => loaded.locate(f) !== undefined,
    });
    expect(refusals.map((r) => r.message)).toEqual([
      'blastRadius.maxPercent 100 exceeds the policy ceiling 25 (policy.yaml:5)',
    ]);
  });

  it.each([
    [
      'environment',
      (p: Parameters<Parameters<typeof planWith>[0]>[0]) => void (p.environment = 'production'),
      'environment "production" is not allowed by the policy (allowed: staging, canary) (policy.yaml:8)',
    ],
    [
      'account',
      (p: Parameters<Parameters<typeof planWith>[0]>[0]) =>
        void (p.fis.roleArn = 'arn:aws:iam::999988887777:role/chaos'),
      'fis.roleArn arn:aws:iam::999988887777:role/chaos is in account 999988887777, which the policy does not allow (allowed: 111122223333) (policy.yaml:9)',
    ],
    [
      'forbidden-tag',
      (p: Parameters<Parameters<typeof planWith>[0]>[0]) =>
        void (p.fis.targets.primary!.resourceTags = {
          Environment: 'staging-chaos',
          ChaosAllowed: 'true',
          DataClass: 'PII',
        }),
      "target 'primary' selects DataClass=PII, forbidden by the policy (policy.yaml:12)",
    ],
    [
      'required-tag',
      (p: Parameters<Parameters<typeof planWith>[0]>[0]) =>
        void (p.fis.targets.primary!.resourceTags = { Environment: 'staging-chaos' }),
      "target 'primary' must select by the tag ChaosAllowed=true required by the policy; it has ChaosAllowed=(absent) (policy.yaml:14)",
    ],
    [
      'required-stop-condition',
      (p: Parameters<Parameters<typeof planWith>[0]>[0]) => void (p.fis.stopConditions = []),
      `fis.stopConditions lacks ${ALARM}, a stop condition the policy requires (policy.yaml:16)`,
    ],
    [
      'ceiling-action-duration',
      (p: Parameters<Parameters<typeof planWith>[0]>[0]) => {
        p.blastRadius = { maxTargets: 1, maxActionDuration: '5m', maxRunDuration: '15m' };
        p.fis.actions.partition!.parameters = { duration: 'PT3M', scope: 'all' };
      },
      "action 'partition' holds its fault for 3m, over the policy ceiling maxActionDuration 2m (policy.yaml:6)",
    ],
    [
      'ceiling-selection',
      (p: Parameters<Parameters<typeof planWith>[0]>[0]) =>
        void (p.fis.targets.primary!.selectionMode = 'PERCENT(50)'),
      "target 'primary' selects PERCENT(50), over the policy ceiling maxPercent 25% (policy.yaml:5)",
    ],
  ])('refuses a plan that escapes the policy: %s', async (rule, change, message) => {
    const plan = planWith((p) => {
      p.fis.targets.primary!.resourceTags = { Environment: 'staging-chaos', ChaosAllowed: 'true' };
      p.fis.stopConditions = [ALARM];
      change(p);
    });
    const refusals = policyRefusals(plan, await orgPolicy());
    expect(refusals.filter((r) => r.rule === rule).map((r) => r.message)).toContain(message);
  });
});

describe('policyGate', () => {
  it('is a static gate that refuses with every violation and records each', async () => {
    const events: Omit<JournalEvent, 'at'>[] = [];
    const plan = planWith((p) => {
      p.environment = 'production';
      p.blastRadius = { maxTargets: 4 };
    });
    const gate = policyGate(await orgPolicy());
    expect(gate.stage).toBe('static');
    const outcome = await gate.check({ plan, now: 0, record: (e) => events.push(e) });
    expect(outcome).toMatchObject({ pass: false, verdict: 'refused', field: 'blastRadius.maxTargets' });
    expect(events.map((e) => e.data?.['rule'])).toEqual([
      'ceiling-widened',
      'environment',
      'required-tag',
      'required-stop-condition',
    ]);
  });

  it('passes a narrowing plan', async () => {
    const outcome = await policyGate(await orgPolicy()).check({
      plan: compliant(),
      now: 0,
      record: () => {},
    });
    expect(outcome.pass).toBe(true);
  });
});
