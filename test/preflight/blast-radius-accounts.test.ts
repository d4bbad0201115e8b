/**
 * How the blast radius splits targets by account: in a multi-account experiment a target that lists its
 * ARNs counts, in each account, only the ARNs in that account, and is left out of an account holding none
 * of them; and in every experiment a target counts only the resources the dry run resolved for it.
 */
import { describe, expect, it } from 'vitest';
import type { ResolvedTarget } from '../../src/injector/injector.js';
import type { PlanInput } from '../../src/plan/schema.js';
import { blastRadiusDecision, type BlastLimits } from '../../src/preflight/blast-radius.js';
import { planWith } from '../sim/helpers.js';

const A = '111122223333';
const B = '444455556666';
const subnetArn = (account: string, n: number) => `arn:aws:ec2:us-east-1:${account}:subnet/subnet-${n}`;
const limits = (l: Partial<BlastLimits> = {}): BlastLimits => ({
  maxTargets: 10,
  maxPercent: 100,
  forbidTags: {},
  requireTags: {},
  ...l,
});

type TargetInput = PlanInput['fis']['targets'][string];

/** The checkout plan as a multi-account experiment over accounts A and B, with the targets given. */
const multiAccount = (targets: Record<string, TargetInput>) =>
  planWith((p: PlanInput) => {
    p.fis.targets = targets;
    p.fis.experimentOptions = { ...p.fis.experimentOptions, accountTargeting: 'multi-account' };
    p.fis.targetAccountConfigurations = [A, B].map((accountId) => ({
      accountId,
      roleArn: `arn:aws:iam::${accountId}:role/chaos-gate-fis-target`,
    }));
  });

const listed = (arns: string[], selectionMode = 'ALL'): TargetInput => ({
  resourceType: 'aws:ec2:subnet',
  resourceArns: arns,
  selectionMode,
});

describe('a target that lists its ARNs, in a multi-account experiment', () => {
  it("counts in each account only that account's ARNs", () => {
    const plan = multiAccount({ subnets: listed([subnetArn(A, 1), subnetArn(A, 2), subnetArn(B, 3)]) });
    const d = blastRadiusDecision({ plan, resolved: [], limits: limits({ maxTargets: 2 }) });
    expect(d.refusals).toEqual([]);
    expect(d.selections.map((s) => [s.target, s.available, s.selected])).toEqual([
      ['subnets', 2, 2],
      ['subnets', 1, 1],
    ]);
    expect(d.totalSelected).toBe(3);
  });

  it('refuses the account whose own ARNs exceed maxTargets, and only that one', () => {
    const plan = multiAccount({
      subnets: listed([subnetArn(A, 1), subnetArn(A, 2), subnetArn(A, 3), subnetArn(B, 4)]),
    });
    const d = blastRadiusDecision({ plan, resolved: [], limits: limits({ maxTargets: 2 }) });
    expect(d.refusals.map((r) => r.field)).toEqual(['blastRadius.maxTargets']);
    expect(d.refusals[0]?.reason).toContain(`selects 3 targets in account ${A}`);
  });

  it('leaves the target out of an account that holds none of its ARNs, instead of refusing it as empty', () => {
    const plan = multiAccount({ subnets: listed([subnetArn(A, 1)]) });
    const d = blastRadiusDecision({ plan, resolved: [], limits: limits() });
    expect(d.refusals).toEqual([]);
    expect(d.ok).toBe(true);
    expect(d.selections).toHaveLength(1);
    expect(d.selections[0]?.selected).toBe(1);
  });

  it('still refuses a tag-selected target that resolved nothing in one of the accounts', () => {
    const plan = multiAccount({
      tagged: { resourceType: 'aws:ec2:subnet', resourceTags: { Tier: 'cache' }, selectionMode: 'ALL' },
    });
    const resolved: ResolvedTarget[] = [{ target: 'tagged', arn: subnetArn(A, 1), tags: { Tier: 'cache' } }];
    const d = blastRadiusDecision({ plan, resolved, limits: limits() });
    expect(d.refusals.map((r) => r.reason)).toEqual([
      `target tagged selects no resource in account ${B}: the dry run resolved no resource`,
    ]);
  });
});

describe('a target that lists no ARN at all, in a single-account experiment', () => {
  it('is refused as selecting nothing: only a multi-account plan leaves a target out of an account', () => {
    const plan = planWith((p: PlanInput) => void (p.fis.targets = { primary: listed([]) }));
    const d = blastRadiusDecision({ plan, resolved: [], limits: limits() });
    expect(d.refusals.map((r) => r.reason)).toEqual([
      'target primary selects no resource: ALL of 0 candidates rounds down to 0',
    ]);
  });
});

describe('resolved resources belong to their own target', () => {
  const twoTargets = planWith((p: PlanInput) => {
    const tagged = (tier: string): TargetInput => ({
      resourceType: 'aws:ec2:subnet',
      resourceTags: { Tier: tier },
      selectionMode: 'COUNT(1)',
    });
    p.fis.targets = { web: tagged('web'), db: tagged('db') };
    p.fis.actions = {
      partition: {
        actionId: 'aws:network:disrupt-connectivity',
        parameters: { duration: 'PT1M', scope: 'all' },
        targets: { Subnets: 'web' },
      },
    };
  });
  const resolved: ResolvedTarget[] = [
    { target: 'web', arn: subnetArn(A, 1), tags: {} },
    { target: 'web', arn: subnetArn(A, 2), tags: {} },
    { target: 'db', arn: subnetArn(A, 3), tags: {} },
  ];

  it("counts for each target only the dry run's resources of that target", () => {
    const d = blastRadiusDecision({ plan: twoTargets, resolved, limits: limits() });
    expect(d.selections.map((s) => [s.target, s.selected, s.resolved.map((r) => r.arn)])).toEqual([
      ['web', 2, [subnetArn(A, 1), subnetArn(A, 2)]],
      ['db', 1, [subnetArn(A, 3)]],
    ]);
  });

  it("judges each target's share against maxPercent with its own resolved count", () => {
    // 25 % of 8 candidates allows 2: web resolved 2, db resolved 1; together (3) they would be over.
    const d = blastRadiusDecision({
      plan: twoTargets,
      resolved,
      available: { web: 8, db: 8 },
      limits: limits({ maxPercent: 25 }),
    });
    expect(d.refusals).toEqual([]);
  });
});
