/**
 * The policy's decisions one at a time, each with a policy that sets only the field under test and the
 * checkout plan changed in one place: the stricter-limit checks (action and run durations, COUNT, ALL,
 * PERCENT against the policy's ceilings, at and just past each), the accounts of every ARN the plan
 * names, forbidden and required tags, required stop conditions, and the merged limits.
 */
import { describe, expect, it } from 'vitest';
import type { JournalEvent } from '../../src/journal/types.js';
import type { PlanInput } from '../../src/plan/schema.js';
import { effectiveLimits, parsePolicy, policyGate, policyRefusals } from '../../src/preflight/policy.js';
import { planWith } from '../sim/helpers.js';

type Change = (p: PlanInput) => void;

const policy = (yaml: string) => parsePolicy(`version: 1\n${yaml}\n`, 'policy.yaml');
/** Nothing counts as written, so only the stricter-limit checks (not ceiling-widened) speak. */
const unwritten = { written: () => false };

/** [rule, field, value, limit] of the refusals of the checkout plan (after `change`) under `yaml`. */
function refused(
  yaml: string,
  change: Change = () => {},
): [string, string, string | number, string | number][] {
  return policyRefusals(planWith(change), policy(yaml), unwritten).map((r) => [
    r.rule,
    r.field,
    r.value,
    r.limit,
  ]);
}

const radius =
  (r: Record<string, unknown>): Change =>
  (p) => {
    p.blastRadius = { ...p.blastRadius, ...r } as PlanInput['blastRadius'];
  };
const target =
  (t: Record<string, unknown>): Change =>
  (p) => {
    Object.assign(p.fis.targets.primary as Record<string, unknown>, t);
  };
const arnTarget = (n: number, selectionMode: string): Change =>
  target({
    resourceTags: undefined,
    resourceArns: Array.from(
      { length: n },
      (_, i) => `arn:aws:ec2:us-east-1:111122223333:subnet/subnet-${i}`,
    ),
    selectionMode,
  });

describe('durations against a stricter policy ceiling', () => {
  it('refuses an action over the policy maxActionDuration, at its parameters', () => {
    expect(refused('ceilings: { maxActionDuration: 30s }')).toEqual([
      ['ceiling-action-duration', 'fis.actions.partition.parameters', '1m', '30s'],
    ]);
  });

  it('accepts an action exactly at the policy ceiling', () => {
    expect(refused('ceilings: { maxActionDuration: 1m }', radius({ maxActionDuration: '2m' }))).toEqual([]);
  });

  it('refuses a planned run over the policy maxRunDuration, and accepts one exactly at it', () => {
    // The checkout run: 5 s steady state + 60 s fault + 10 s recovery = 75 s.
    expect(refused('ceilings: { maxRunDuration: 1m }')).toEqual([
      ['ceiling-run-duration', 'blastRadius.maxRunDuration', '75s', '1m'],
    ]);
    expect(refused('ceilings: { maxRunDuration: 75s }')).toEqual([]);
  });

  it('does not recheck durations when the plan is already the stricter one', () => {
    expect(refused('ceilings: { maxRunDuration: 1m }', radius({ maxRunDuration: '1m' }))).toEqual([]);
    expect(refused('ceilings: { maxActionDuration: 1m }')).toEqual([]);
  });
});

describe('selection against the policy ceilings', () => {
  it('COUNT(n): at maxTargets passes, one over is refused, multi-digit counts are read whole', () => {
    expect(refused('ceilings: { maxTargets: 2 }', target({ selectionMode: 'COUNT(2)' }))).toEqual([]);
    expect(refused('ceilings: { maxTargets: 2 }', target({ selectionMode: 'COUNT(3)' }))).toEqual([
      ['ceiling-selection', 'fis.targets.primary.selectionMode', 'COUNT(3)', 2],
    ]);
    expect(refused('ceilings: { maxTargets: 5 }', target({ selectionMode: 'COUNT(12)' }))).toHaveLength(1);
  });

  it('ALL over listed ARNs counts the ARNs; COUNT(1) of the same ARNs does not', () => {
    expect(refused('ceilings: { maxTargets: 2 }', arnTarget(2, 'ALL'))).toEqual([]);
    expect(refused('ceilings: { maxTargets: 2 }', arnTarget(3, 'ALL'))).toEqual([
      ['ceiling-selection', 'fis.targets.primary.selectionMode', 'ALL', 2],
    ]);
    expect(refused('ceilings: { maxTargets: 2 }', arnTarget(3, 'COUNT(1)'))).toEqual([]);
  });

  it('maxPercent under 100 refuses ALL and PERCENT over it; maxPercent 100 refuses neither', () => {
    expect(refused('ceilings: { maxPercent: 25 }', target({ selectionMode: 'ALL' }))).toEqual([
      ['ceiling-selection', 'fis.targets.primary.selectionMode', 'ALL', '25%'],
    ]);
    expect(refused('ceilings: { maxPercent: 25 }', target({ selectionMode: 'PERCENT(25)' }))).toEqual([]);
    expect(refused('ceilings: { maxPercent: 25 }', target({ selectionMode: 'PERCENT(26)' }))).toEqual([
      ['ceiling-selection', 'fis.targets.primary.selectionMode', 'PERCENT(26)', '25%'],
    ]);
    expect(refused('ceilings: { maxPercent: 100 }', target({ selectionMode: 'ALL' }))).toEqual([]);
  });

  it('a ceiling written above the plan is no refusal; one the plan writes wider is', () => {
    const loaded = policy('ceilings: { maxTargets: 2 }');
    expect(policyRefusals(planWith(radius({ maxTargets: 2 })), loaded, { written: () => true })).toEqual([]);
    expect(
      policyRefusals(planWith(radius({ maxTargets: 3 })), loaded, { written: () => true }).map((r) => [
        r.rule,
        r.value,
        r.limit,
        r.policyAt,
      ]),
    ).toEqual([['ceiling-widened', '3', '2', 'policy.yaml:2']]);
  });
});

describe('accounts', () => {
  const OTHER = '444455556666';

  it('checks the account of the role, every listed ARN and every alarm', () => {
    const everywhere: Change = (p) => {
      p.fis.roleArn = `arn:aws:iam::${OTHER}:role/fis`;
      arnTarget(1, 'COUNT(1)')(p);
      (p.fis.targets.primary as { resourceArns: string[] }).resourceArns = [
        `arn:aws:ec2:us-east-1:${OTHER}:subnet/subnet-1`,
      ];
      p.fis.stopConditions = [`arn:aws:cloudwatch:us-east-1:${OTHER}:alarm:x`];
    };
    expect(refused('accounts: ["111122223333"]', everywhere)).toEqual([
      ['account', 'fis.roleArn', OTHER, '111122223333'],
      ['account', 'fis.targets.primary.resourceArns[0]', OTHER, '111122223333'],
      ['account', 'fis.stopConditions[0]', OTHER, '111122223333'],
    ]);
    expect(refused('accounts: ["111122223333"]')).toEqual([]);
  });

  it('skips an ARN that names no account (S3), and a stop condition without a value', () => {
    const noAccount: Change = (p) => {
      arnTarget(1, 'COUNT(1)')(p);
      p.fis.stopConditions = [{ source: 'none' }] as never;
      (p.fis.targets.primary as { resourceArns: string[] }).resourceArns = ['arn:aws:s3:::checkout-bucket'];
    };
    expect(refused('accounts: ["111122223333"]', noAccount)).toEqual([]);
  });

  it('lists the allowed accounts for a target account outside them', () => {
    const multi: Change = (p) => {
      p.fis.experimentOptions = { accountTargeting: 'multi-account' };
      p.fis.targetAccountConfigurations = [{ accountId: OTHER, roleArn: `arn:aws:iam::${OTHER}:role/t` }];
    };
    expect(refused('accounts: ["111122223333", "777788889999"]', multi)).toEqual([
      ['account', 'fis.targetAccountConfigurations[0].accountId', OTHER, '111122223333, 777788889999'],
      ['account', 'fis.targetAccountConfigurations[0].roleArn', OTHER, '111122223333, 777788889999'],
    ]);
  });
});

describe('tags and stop conditions', () => {
  it('matches forbidden tag values without regard to case, against any listed value', () => {
    expect(
      refused('forbidTags: { Tier: [prod, production] }', target({ resourceTags: { Tier: 'Prod' } })),
    ).toEqual([
      ['forbidden-tag', 'fis.targets.primary.resourceTags.Tier', 'Prod', 'Tier not in prod|production'],
    ]);
    expect(refused('forbidTags: { Tier: [prod] }', target({ resourceTags: { Tier: 'staging' } }))).toEqual(
      [],
    );
  });

  it('requires a tag of tag-selected targets, quoting (absent), and leaves ARN-listed targets to resolution', () => {
    expect(refused('requireTags: { ChaosAllowed: "true" }')).toEqual([
      ['required-tag', 'fis.targets.primary.resourceTags', '(absent)', 'ChaosAllowed=true'],
    ]);
    expect(refused('requireTags: { ChaosAllowed: "true" }', arnTarget(1, 'COUNT(1)'))).toEqual([]);
  });

  it('quotes the alarms the plan has, or (none), when a required stop condition is missing', () => {
    const REQUIRED = 'arn:aws:cloudwatch:eu-west-1:111122223333:alarm:checkout-5xx';
    const OWN = 'arn:aws:cloudwatch:eu-west-1:111122223333:alarm:own';
    const yaml = `requiredStopConditions: ["${REQUIRED}"]`;
    expect(refused(yaml)).toEqual([['required-stop-condition', 'fis.stopConditions', '(none)', REQUIRED]]);
    expect(refused(yaml, (p) => void (p.fis.stopConditions = [OWN]))).toEqual([
      ['required-stop-condition', 'fis.stopConditions', OWN, REQUIRED],
    ]);
    expect(refused(yaml, (p) => void (p.fis.stopConditions = [OWN, REQUIRED]))).toEqual([]);
  });
});

describe('effectiveLimits', () => {
  it('without a policy is the plan', () => {
    const plan = planWith(() => {});
    expect(effectiveLimits(plan)).toEqual({
      maxTargets: 1,
      maxPercent: 100,
      maxActionDuration: 60_000,
      maxRunDuration: 900_000,
      forbidTags: plan.blastRadius.forbidTags,
      requireTags: {},
    });
  });

  it('unites forbidden values per key, lets the policy set required tags, and carries its accounts', () => {
    const plan = planWith(radius({ requireTags: { Team: 'payments', Tier: 'cache' } }));
    const limits = effectiveLimits(
      plan,
      policy(
        'forbidTags: { Environment: [prod, live], DataClass: [pii] }\nrequireTags: { Tier: web }\naccounts: ["111122223333"]',
      ).policy,
    );
    expect(limits.forbidTags).toEqual({ Environment: ['production', 'prod', 'live'], DataClass: ['pii'] });
    expect(limits.requireTags).toEqual({ Team: 'payments', Tier: 'web' });
    expect(limits.accounts).toEqual(['111122223333']);
  });
});

describe('the policy gate', () => {
  it('names every refusal in its reason, points at the first field, and records each', async () => {
    const events: JournalEvent[] = [];
    const gate = policyGate(policy('ceilings: { maxRunDuration: 1m }\nenvironments: [canary]'), unwritten);
    const result = await gate.check({
      plan: planWith(() => {}),
      record: (e: JournalEvent) => void events.push(e),
    } as never);
    expect(result).toMatchObject({
      pass: false,
      verdict: 'refused',
      field: 'blastRadius.maxRunDuration',
    });
    expect((result as { reason: string }).reason.split('; ')).toHaveLength(2);
    expect(events.map((e) => (e.data as { rule: string }).rule)).toEqual([
      'ceiling-run-duration',
      'environment',
    ]);
    const pass = await policyGate(policy('environments: [staging]')).check({
      plan: planWith(() => {}),
    } as never);
    expect(pass).toEqual({ pass: true, note: 'within the policy policy.yaml' });
  });
});
