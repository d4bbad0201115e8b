/**
 * `chaos-gate import`'s choices that import.test.ts does not pin: which stop conditions, tags and target
 * accounts of a template the plan keeps, where the plan id comes from, and the ceilings written for the
 * template's own selection. Each case is a template reduced to the fields it exercises.
 */
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { fisSectionOf, planFromTemplate, planIdFor, type TemplateInput } from '../../src/plan/import.js';

const OWN_LEASE = 'arn:aws:cloudwatch:us-east-1:111122223333:alarm:chaos-gate-lease-checkout';
const OWN_KILL = 'arn:aws:cloudwatch:us-east-1:111122223333:alarm:chaos-gate-kill-switch';
const THEIRS = 'arn:aws:cloudwatch:us-east-1:111122223333:alarm:checkout-5xx';

const template = (more: Partial<TemplateInput> = {}): TemplateInput => ({
  roleArn: 'arn:aws:iam::111122223333:role/chaos-gate-fis',
  targets: {
    primary: { resourceType: 'aws:ec2:subnet', resourceTags: { Tier: 'cache' }, selectionMode: 'COUNT(1)' },
  },
  actions: {
    partition: {
      actionId: 'aws:network:disrupt-connectivity',
      parameters: { duration: 'PT1M' },
      targets: { Subnets: 'primary' },
    },
  },
  ...more,
});

describe('the fis: section of an imported template', () => {
  it("keeps the template's own alarms and drops chaos-gate's", () => {
    const alarm = (value: string) => ({ source: 'aws:cloudwatch:alarm', value });
    const section = fisSectionOf(
      template({ stopConditions: [alarm(OWN_LEASE), alarm(THEIRS), alarm(OWN_KILL)] }),
    );
    expect(section.stopConditions).toEqual([alarm(THEIRS)]);
  });

  it('writes {source: none} when only chaos-gate alarms were there, and nothing when there were none', () => {
    const alarm = (value: string) => ({ source: 'aws:cloudwatch:alarm', value });
    expect(
      fisSectionOf(template({ stopConditions: [alarm(OWN_LEASE), alarm(OWN_KILL)] })).stopConditions,
    ).toEqual([{ source: 'none' }]);
    expect(fisSectionOf(template({ stopConditions: [{ source: 'none' }] })).stopConditions).toEqual([
      { source: 'none' },
    ]);
    expect('stopConditions' in fisSectionOf(template({ stopConditions: [] }))).toBe(false);
    expect('stopConditions' in fisSectionOf(template())).toBe(false);
  });

  it('drops chaos-gate:* tags, and the tags field when nothing else is left', () => {
    expect(fisSectionOf(template({ tags: { 'chaos-gate:plan': 'x', Team: 'payments' } })).tags).toEqual({
      Team: 'payments',
    });
    expect('tags' in fisSectionOf(template({ tags: { 'chaos-gate:plan': 'x' } }))).toBe(false);
  });

  it('keeps target accounts with their description only when they have one', () => {
    const section = fisSectionOf(
      template({
        targetAccountConfigurations: [
          { accountId: '444455556666', roleArn: 'arn:aws:iam::444455556666:role/t', description: 'cache' },
          { accountId: '777788889999', roleArn: 'arn:aws:iam::777788889999:role/t' },
        ],
      }),
    );
    expect(section.targetAccountConfigurations).toEqual([
      { accountId: '444455556666', roleArn: 'arn:aws:iam::444455556666:role/t', description: 'cache' },
      { accountId: '777788889999', roleArn: 'arn:aws:iam::777788889999:role/t' },
    ]);
    expect('targetAccountConfigurations' in fisSectionOf(template({ targetAccountConfigurations: [] }))).toBe(
      false,
    );
  });
});

describe('the plan id', () => {
  it('prefers --id, then the chaos-gate:plan tag, the Name tag, the description, the template id', () => {
    const t = template({
      id: 'EXT123',
      description: 'Checkout partition',
      tags: { 'chaos-gate:plan': 'from-tag', Name: 'Named' },
    });
    expect(planIdFor(t, 'explicit')).toBe('explicit');
    expect(planIdFor(t)).toBe('from-tag');
    expect(planIdFor({ ...t, tags: { Name: 'Named Template' } })).toBe('named-template');
    expect(planIdFor({ ...t, tags: {} })).toBe('checkout-partition');
    expect(planIdFor({ id: 'EXT123' })).toBe('ext123');
    expect(planIdFor({})).toBe('imported-fis-template');
    // Text that leaves no slug (another script, only punctuation) passes to the next candidate.
    expect(planIdFor({ description: '日本語', id: 'EXT9' })).toBe('ext9');
    expect(planIdFor({ tags: { Name: '---' }, description: 'Checkout' })).toBe('checkout');
    expect(planIdFor({ description: '日本語' })).toBe('imported-fis-template');
  });

  it('cuts a long name to 63 characters without a trailing dash', () => {
    const id = planIdFor({ description: `${'a'.repeat(62)} b` });
    expect(id).toBe('a'.repeat(62));
  });
});

describe('the ceilings written for the template', () => {
  const radius = (targets: Record<string, unknown>) =>
    (parseYaml(planFromTemplate(template({ targets }), { label: 't.json' }).text) as { blastRadius: unknown })
      .blastRadius;
  const target = (selectionMode: string, more: Record<string, unknown> = {}) => ({
    resourceType: 'aws:ec2:subnet',
    resourceTags: { Tier: 'cache' },
    selectionMode,
    ...more,
  });

  it('maxTargets is the largest COUNT(n) of any target', () => {
    expect(radius({ primary: target('COUNT(3)'), other: target('COUNT(2)') })).toMatchObject({
      maxTargets: 3,
    });
    expect(radius({ primary: target('COUNT(12)') })).toMatchObject({ maxTargets: 12 });
  });

  it('ALL over listed ARNs needs as many targets as ARNs, and 100 % (so no maxPercent is written)', () => {
    const arns = ['a', 'b', 'c', 'd'].map((s) => `arn:aws:ec2:us-east-1:111122223333:subnet/subnet-${s}`);
    const r = radius({
      primary: { resourceType: 'aws:ec2:subnet', resourceArns: arns, selectionMode: 'ALL' },
      other: target('COUNT(2)'),
    });
    expect(r).toMatchObject({ maxTargets: 4 });
    expect(r).not.toHaveProperty('maxPercent');
  });

  it('a PERCENT(n) target writes maxPercent n', () => {
    expect(radius({ primary: target('PERCENT(25)') })).toMatchObject({ maxTargets: 1, maxPercent: 25 });
  });
});
