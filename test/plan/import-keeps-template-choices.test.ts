/**
 * `chaos-gate import`'s choices that import.test.ts does not pin: which stop conditions, tags and target
 * accounts of a template the plan keeps, where the plan id comes from, and the ceilings written for the
 * template's own selection. Each case is a template reduced to the fields it exercises.
 */
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import {
  fisSectionOf,
  ImportError,
  planFromTemplate,
  planIdFor,
  readTemplateFile,
  type TemplateInput,
} from '../../src/plan/import.js';

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

  it('a PERCENT(n) target writes the largest n, and COUNT targets alone write no maxPercent', () => {
    expect(radius({ primary: target('PERCENT(40)'), other: target('PERCENT(25)') })).toMatchObject({
      maxPercent: 40,
    });
    expect(radius({ primary: target('COUNT(2)') })).not.toHaveProperty('maxPercent');
  });
});

describe('the durations written for the template', () => {
  const HOSTS = {
    hosts: { resourceType: 'aws:ec2:instance', resourceTags: { Tier: 'cache' }, selectionMode: 'COUNT(1)' },
  };
  const radius = (actions: TemplateInput['actions']) =>
    (
      parseYaml(planFromTemplate(template({ actions, targets: HOSTS }), { label: 't.json' }).text) as {
        blastRadius: { maxActionDuration: string; maxRunDuration: string };
      }
    ).blastRadius;
  const wait = (duration: string) => ({ actionId: 'aws:fis:wait', parameters: { duration } });
  /** An action whose only duration is optional and not called `duration`. */
  const stop = (parameters?: Record<string, string>) => ({
    actionId: 'aws:ec2:stop-instances',
    ...(parameters ? { parameters } : {}),
    targets: { Instances: 'hosts' },
  });

  it('maxActionDuration is the longest duration parameter, rounded up to whole minutes', () => {
    expect(radius({ a: wait('PT90S'), b: wait('PT1M') })).toMatchObject({ maxActionDuration: '2m' });
    // A parameter named like a duration counts, whatever its name.
    expect(radius({ a: stop({ startInstancesAfterDuration: 'PT3M' }), b: wait('PT1M') })).toMatchObject({
      maxActionDuration: '3m',
    });
  });

  it('an action without a duration counts as one minute', () => {
    expect(radius({ a: stop() })).toMatchObject({ maxActionDuration: '1m', maxRunDuration: '15m' });
  });

  it('maxRunDuration is 15 minutes, or 5 minutes + every action back to back at the longest + 2 minutes when that is more', () => {
    // One 1-minute action: 5 + 1 + 2 = 8 minutes, under the 15-minute floor.
    expect(radius({ a: wait('PT1M') })).toMatchObject({ maxRunDuration: '15m' });
    // Three actions at the longest, 10 minutes: 5 + 30 + 2 = 37 minutes.
    expect(radius({ a: wait('PT10M'), b: wait('PT2M'), c: wait('PT1M') })).toMatchObject({
      maxActionDuration: '10m',
      maxRunDuration: '37m',
    });
    // 5 + 2 × 4.5 + 2 = 16 minutes.
    expect(radius({ a: wait('PT4M30S'), b: stop() })).toMatchObject({
      maxActionDuration: '5m',
      maxRunDuration: '16m',
    });
  });
});

describe('fields a template leaves empty', () => {
  it('are not copied: a null description or log configuration is absent from the plan, not null', () => {
    const fis = fisSectionOf({
      ...template(),
      description: null,
      logConfiguration: null,
    } as unknown as TemplateInput);
    expect(fis).not.toHaveProperty('description');
    expect(fis).not.toHaveProperty('logConfiguration');
    expect(fis).toHaveProperty('roleArn');
  });
});

describe('what a saved template file may hold', () => {
  const refusal = (text: string) => {
    try {
      readTemplateFile(text, 'saved.json');
    } catch (e) {
      return (e as ImportError).issues[0];
    }
    return undefined;
  };

  it('an object: a list, a string or null is refused, saying what to save', () => {
    for (const text of ['[1, 2]', '"a template"', 'null']) {
      expect(refusal(text), text).toMatchObject({
        field: '',
        expected: 'an FIS experiment template',
        message:
          'expected an object: the output of aws fis get-experiment-template or a CreateExperimentTemplate input',
      });
    }
  });

  it('get-experiment-template output: the template under experimentTemplate, whose fields are named with it', () => {
    const saved = { experimentTemplate: { ...template(), id: 'EXT123' } };
    const { template: t, fieldPrefix } = readTemplateFile(JSON.stringify(saved), 'saved.json');
    expect(t.roleArn).toBe(template().roleArn);
    expect(fieldPrefix).toEqual(['experimentTemplate']);
    expect(readTemplateFile(JSON.stringify(template()), 'saved.json').fieldPrefix).toEqual([]);
  });

  it('an experimentTemplate that is not an object is refused where it is written', () => {
    for (const value of ['"EXT123"', '[]', 'null']) {
      const issue = refusal(`{\n  "experimentTemplate": ${value}\n}`);
      expect(issue, value).toMatchObject({ message: 'experimentTemplate is not an object', line: 2 });
    }
  });
});

describe('the plan fields taken from the template’s tags and description', () => {
  const header = (more: Partial<TemplateInput>, source: { label: string; templateId?: string }) =>
    parseYaml(planFromTemplate(template(more), source).text) as Record<string, string>;

  it('service, environment and owner from the capitalised tags first, then the lower-case ones (owner: Team)', () => {
    const upper = { Service: 'checkout', Environment: 'staging', Owner: 'payments' };
    const lower = { service: 'basket', environment: 'qa', Team: 'sre' };
    expect(header({ tags: { ...lower, ...upper } }, { label: 't.json' })).toMatchObject({
      service: 'checkout',
      environment: 'staging',
      owner: 'payments',
    });
    expect(header({ tags: lower }, { label: 't.json' })).toMatchObject({
      service: 'basket',
      environment: 'qa',
      owner: 'sre',
    });
  });

  it('a placeholder for each the tags do not give', () => {
    const h = header({ tags: {} }, { label: 't.json' });
    for (const field of ['service', 'environment', 'owner']) expect(h[field], field).toMatch(/^<fill in: /);
  });

  it('the title: the description, else the template id, else the plan id', () => {
    expect(
      header({ description: 'Partition the cache' }, { label: 't.json', templateId: 'EXT1' }).title,
    ).toBe('Partition the cache');
    expect(header({}, { label: 't.json', templateId: 'EXT1' }).title).toBe('FIS template EXT1');
    expect(header({}, { label: 't.json' }).title).toMatch(/^FIS template \S+$/);
    expect(header({}, { label: 't.json' }).title).toBe(`FIS template ${header({}, { label: 't.json' }).id}`);
  });
});
