/**
 * The `fis:` section's own cross-field rules, each refused at the field FIS would name: a template needs
 * an action, `none` is a stop condition only on its own, an alarm stop condition needs its ARN, the two
 * spellings of the empty-target mode must agree, target accounts are capped and listed once each, and a
 * boolean action parameter is true or false.
 * Checked on the `fis:` schema directly, with the checkout plan's role, target and action.
 */
import { describe, expect, it } from 'vitest';
import { Fis, FIS_MAX_TARGET_ACCOUNTS, FisStopCondition, stopConditionAlarms } from '../../src/plan/fis.js';
import { actionLimitProblems } from '../../src/plan/fis-actions.js';

const ALARM = 'arn:aws:cloudwatch:us-east-1:111122223333:alarm:checkout-5xx';

const base = () => ({
  roleArn: 'arn:aws:iam::111122223333:role/chaos-gate-fis',
  targets: {
    primary: {
      resourceType: 'aws:ec2:subnet',
      resourceTags: { Environment: 'staging-chaos' },
      selectionMode: 'COUNT(1)',
    },
  },
  actions: {
    partition: {
      actionId: 'aws:network:disrupt-connectivity',
      parameters: { duration: 'PT1M', scope: 'all' },
      targets: { Subnets: 'primary' },
    },
  },
});

/** The issues of a `fis:` section, as `path: message`. */
function issues(fis: Record<string, unknown>): string[] {
  const parsed = Fis.safeParse(fis);
  return parsed.success ? [] : parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
}

describe('fis: cross-field rules', () => {
  it('the base section is valid, so each case below isolates one rule', () => {
    expect(issues(base())).toEqual([]);
  });

  it('refuses a template without actions at fis.actions', () => {
    expect(issues({ ...base(), actions: {} })).toEqual([
      'actions: at least one action (FIS rejects a template without)',
    ]);
  });

  it('refuses {source: none} beside an alarm, and accepts it alone', () => {
    expect(issues({ ...base(), stopConditions: [{ source: 'none' }] })).toEqual([]);
    expect(issues({ ...base(), stopConditions: [ALARM, ALARM.replace('5xx', 'latency')] })).toEqual([]);
    expect(issues({ ...base(), stopConditions: [{ source: 'none' }, ALARM] })).toEqual([
      'stopConditions: either {source: none} alone or alarm stop conditions (FIS takes none only on its own)',
    ]);
  });

  it('refuses two spellings of the empty-target mode that disagree, and accepts them agreeing', () => {
    const both = (shorthand: string, option: string) =>
      issues({
        ...base(),
        emptyTargetResolutionMode: shorthand,
        experimentOptions: { emptyTargetResolutionMode: option },
      });
    expect(both('skip', 'skip')).toEqual([]);
    expect(both('skip', 'fail')).toEqual([
      'emptyTargetResolutionMode: the same value as experimentOptions.emptyTargetResolutionMode (fail), or only one of the two',
    ]);
    expect(issues({ ...base(), emptyTargetResolutionMode: 'skip' })).toEqual([]);
  });

  describe('target accounts of a multi-account template', () => {
    const account = (n: number) => {
      const id = String(100000000000 + n);
      return { accountId: id, roleArn: `arn:aws:iam::${id}:role/fis-target` };
    };
    const multi = (accounts: unknown[]) =>
      issues({
        ...base(),
        experimentOptions: { accountTargeting: 'multi-account' },
        targetAccountConfigurations: accounts,
      });

    it(`accepts ${FIS_MAX_TARGET_ACCOUNTS} accounts and refuses one more`, () => {
      expect(FIS_MAX_TARGET_ACCOUNTS).toBe(10);
      const ten = Array.from({ length: 10 }, (_, i) => account(i));
      expect(multi(ten)).toEqual([]);
      expect(multi([...ten, account(10)])).toEqual([
        'targetAccountConfigurations: at most 10 target accounts (FIS quota per template)',
      ]);
    });

    it('refuses an account listed twice, at its second entry', () => {
      expect(multi([account(1), account(2), account(1)])).toEqual([
        'targetAccountConfigurations.2.accountId: each account once',
      ]);
    });
  });
});

describe('a stop condition', () => {
  const problems = (s: unknown) => {
    const parsed = FisStopCondition.safeParse(s);
    return parsed.success ? [] : parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
  };

  it('an alarm source needs its alarm ARN', () => {
    expect(problems({ source: 'aws:cloudwatch:alarm', value: ALARM })).toEqual([]);
    expect(problems({ source: 'aws:cloudwatch:alarm' })).toEqual([
      'value: a CloudWatch alarm ARN (FIS: required for aws:cloudwatch:alarm)',
    ]);
    expect(problems({ source: 'aws:cloudwatch:alarm', value: `see ${ALARM}` })).toEqual([
      'value: a CloudWatch alarm ARN (FIS: required for aws:cloudwatch:alarm)',
    ]);
  });

  it('source none takes no value', () => {
    expect(problems({ source: 'none' })).toEqual([]);
    expect(problems({ source: 'none', value: ALARM })).toEqual(['value: no value (source none takes none)']);
  });

  it('stopConditionAlarms lists the alarm ARNs only', () => {
    expect(stopConditionAlarms({ stopConditions: [{ source: 'none' }] })).toEqual([]);
    expect(
      stopConditionAlarms({
        stopConditions: [
          { source: 'aws:cloudwatch:alarm', value: ALARM },
          { source: 'none', value: 'x' },
        ],
      }),
    ).toEqual([ALARM]);
  });
});

describe('a boolean action parameter', () => {
  const problems = (value: string) =>
    actionLimitProblems({
      actionId: 'aws:ec2:stop-instances',
      parameters: { completeIfInstancesTerminated: value },
      targets: { Instances: 'web' },
    }).map((p) => `${p.path.join('.')}: ${p.expected}`);

  it('takes true and false, and nothing else', () => {
    expect(problems('true')).toEqual([]);
    expect(problems('false')).toEqual([]);
    expect(problems('yes')).toEqual([
      'parameters.completeIfInstancesTerminated: true or false (FIS limit of aws:ec2:stop-instances)',
    ]);
  });
});
