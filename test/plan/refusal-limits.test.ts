/**
 * Every numeric static refusal at its limit, just inside it and just past it. The base plan is the
 * engine's checkout plan (1 s interval, a 60 s partition, 5 s steady state, 10 s recovery, no
 * refusals); each case changes one field and looks only at the rule that field answers to.
 */
import { describe, expect, it } from 'vitest';
import {
  FIS_MAX_ACTIONS,
  FIS_MAX_STOP_CONDITIONS,
  GATE_STOP_CONDITIONS,
  MIN_INTERVAL_MS,
  parseIsoDuration,
  staticRefusals,
  type Refusal,
  type RefusalRule,
} from '../../src/plan/refusals.js';
import type { PlanInput } from '../../src/plan/schema.js';
import { loadTestPlan, planWith } from '../sim/helpers.js';

type Change = (p: PlanInput) => void;

function refusedBy(rule: RefusalRule, change: Change): Refusal[] {
  return staticRefusals(planWith(change)).filter((r) => r.rule === rule);
}

/** Sets the partition's duration parameter (the checkout plan's only action). */
const partitionFor =
  (iso: string): Change =>
  (p) => {
    const action = Object.values(p.fis.actions)[0] as { parameters: Record<string, string> };
    action.parameters.duration = iso;
  };

/** Sets the checkout plan's only target's selection mode (and more of the target when asked). */
const target =
  (selectionMode: string, more: Record<string, unknown> = {}): Change =>
  (p) => {
    const t = Object.values(p.fis.targets)[0] as Record<string, unknown>;
    t.selectionMode = selectionMode;
    Object.assign(t, more);
  };

const radius =
  (r: Record<string, unknown>, ...then: Change[]): Change =>
  (p) => {
    p.blastRadius = { ...p.blastRadius, ...r } as PlanInput['blastRadius'];
    for (const c of then) c(p);
  };

describe('the base plan', () => {
  it('is refused by nothing, so each case below isolates one limit', () => {
    expect(staticRefusals(loadTestPlan())).toEqual([]);
  });
});

describe('hypothesis.interval ≥ MIN_INTERVAL_MS (1s)', () => {
  it('accepts exactly 1s and 1001ms, refuses 999ms naming the minimum', () => {
    expect(MIN_INTERVAL_MS).toBe(1000);
    expect(refusedBy('interval-too-short', (p) => void (p.hypothesis.interval = '1s'))).toEqual([]);
    expect(refusedBy('interval-too-short', (p) => void (p.hypothesis.interval = '1001ms'))).toEqual([]);
    expect(refusedBy('interval-too-short', (p) => void (p.hypothesis.interval = '999ms'))).toMatchObject([
      { field: 'hypothesis.interval', value: '999ms', limit: '1s' },
    ]);
  });
});

describe('abort.blindAfter ≤ measurements while the fault is on (60 at 1s over PT1M)', () => {
  const blind =
    (n: number): Change =>
    (p) =>
      void (p.abort.blindAfter = n);

  it('accepts 59 and exactly 60, refuses 61', () => {
    expect(refusedBy('blind-after-exceeds-fault', blind(59))).toEqual([]);
    expect(refusedBy('blind-after-exceeds-fault', blind(60))).toEqual([]);
    expect(refusedBy('blind-after-exceeds-fault', blind(61))).toMatchObject([
      { field: 'abort.blindAfter', value: 61, limit: 60 },
    ]);
  });

  it('counts whole intervals: a 60.5 s fault still gives 60 measurements', () => {
    expect(
      refusedBy('blind-after-exceeds-fault', (p) => (partitionFor('PT60.5S')(p), blind(61)(p))),
    ).toHaveLength(1);
    expect(refusedBy('blind-after-exceeds-fault', (p) => (partitionFor('PT61S')(p), blind(61)(p)))).toEqual(
      [],
    );
  });
});

describe('abort.rules[].for ≤ the fault in whole intervals', () => {
  const ruleFor =
    (forText: string): Change =>
    (p) => {
      p.abort.rules = [{ sli: 'p95_latency_s', above: 0.5, for: forText }];
    };

  it('accepts 59s and exactly 60s, refuses 61s and 60001ms (⌈for / interval⌉ = 61)', () => {
    expect(refusedBy('abort-for-exceeds-fault', ruleFor('59s'))).toEqual([]);
    expect(refusedBy('abort-for-exceeds-fault', ruleFor('60s'))).toEqual([]);
    expect(refusedBy('abort-for-exceeds-fault', ruleFor('61s'))).toMatchObject([
      { field: 'abort.rules[0].for', value: '61s', limit: '1m' },
    ]);
    expect(refusedBy('abort-for-exceeds-fault', ruleFor('60001ms'))).toHaveLength(1);
  });
});

describe('settle shorter than the fault (PT1M)', () => {
  it('accepts 59s, refuses exactly 1m for the hypothesis, and names the SLI whose own settle is too long', () => {
    expect(refusedBy('settle-exceeds-fault', (p) => void (p.hypothesis.settle = '59s'))).toEqual([]);
    expect(refusedBy('settle-exceeds-fault', (p) => void (p.hypothesis.settle = '60s'))).toMatchObject([
      { field: 'hypothesis.settle', value: '1m' },
    ]);
    const own = refusedBy('settle-exceeds-fault', (p) => {
      const slis = p.hypothesis.slis as { settle?: string }[];
      if (slis[0]) slis[0].settle = '2m';
    });
    expect(own).toMatchObject([{ field: 'hypothesis.slis[0].settle', value: '2m' }]);
    expect(own[0]?.message).toMatch(/could never fail/);
  });
});

describe('an action duration ≤ blastRadius.maxActionDuration (60s)', () => {
  // The partition action itself takes PT1M to PT12H (FIS's limit, checked by the schema).
  it('accepts exactly PT60S and PT1M, refuses PT61S with both numbers', () => {
    expect(refusedBy('action-duration', partitionFor('PT60S'))).toEqual([]);
    expect(refusedBy('action-duration', partitionFor('PT1M'))).toEqual([]);
    expect(refusedBy('action-duration', partitionFor('PT61S'))).toMatchObject([
      { field: 'fis.actions.partition.parameters.duration', value: 'PT61S', limit: '1m' },
    ]);
  });

  it('moves with the ceiling: PT61S passes under 61s and 62s, and PT1M is refused under 59999ms', () => {
    expect(refusedBy('action-duration', radius({ maxActionDuration: '61s' }, partitionFor('PT61S')))).toEqual(
      [],
    );
    expect(refusedBy('action-duration', radius({ maxActionDuration: '62s' }, partitionFor('PT61S')))).toEqual(
      [],
    );
    expect(
      refusedBy('action-duration', radius({ maxActionDuration: '59999ms' }, partitionFor('PT1M'))),
    ).toHaveLength(1);
  });
});

describe('the planned run ≤ blastRadius.maxRunDuration (5s + 60s + 10s = 75s)', () => {
  const maxRun = (d: string): Change => radius({ maxRunDuration: d });

  it('accepts 76s and exactly 75s, refuses 74s quoting the sum', () => {
    expect(refusedBy('run-duration', maxRun('76s'))).toEqual([]);
    expect(refusedBy('run-duration', maxRun('75s'))).toEqual([]);
    const [r] = refusedBy('run-duration', maxRun('74s'));
    expect(r).toMatchObject({ field: 'blastRadius.maxRunDuration', value: '75s', limit: '74s' });
    expect(r?.message).toContain('steady state 5s + actions 1m + recovery 10s');
  });
});

describe('selection modes', () => {
  it('refuses COUNT(0) and accepts COUNT(1)', () => {
    expect(refusedBy('selection-out-of-range', target('COUNT(0)'))).toHaveLength(1);
    expect(refusedBy('selection-out-of-range', target('COUNT(1)'))).toEqual([]);
  });

  it('accepts PERCENT(1) to PERCENT(100), refuses PERCENT(0) and PERCENT(101)', () => {
    expect(refusedBy('selection-out-of-range', target('PERCENT(0)'))).toHaveLength(1);
    expect(refusedBy('selection-out-of-range', target('PERCENT(1)'))).toEqual([]);
    expect(refusedBy('selection-out-of-range', target('PERCENT(100)'))).toEqual([]);
    expect(refusedBy('selection-out-of-range', target('PERCENT(101)'))).toHaveLength(1);
  });

  it('COUNT(n) ≤ maxTargets: with maxTargets 2, COUNT(1) and COUNT(2) pass and COUNT(3) is refused', () => {
    const rule = 'count-over-max-targets';
    expect(refusedBy(rule, radius({ maxTargets: 2 }, target('COUNT(1)')))).toEqual([]);
    expect(refusedBy(rule, radius({ maxTargets: 2 }, target('COUNT(2)')))).toEqual([]);
    expect(refusedBy(rule, radius({ maxTargets: 2 }, target('COUNT(3)')))).toMatchObject([
      { value: 'COUNT(3)', limit: 2 },
    ]);
  });

  it('PERCENT(n) ≤ maxPercent: with maxPercent 50, PERCENT(49) and PERCENT(50) pass and PERCENT(51) is refused', () => {
    const rule = 'percent-over-max-percent';
    expect(refusedBy(rule, radius({ maxPercent: 50 }, target('PERCENT(49)')))).toEqual([]);
    expect(refusedBy(rule, radius({ maxPercent: 50 }, target('PERCENT(50)')))).toEqual([]);
    expect(refusedBy(rule, radius({ maxPercent: 50 }, target('PERCENT(51)')))).toMatchObject([
      { value: 'PERCENT(51)', limit: 50 },
    ]);
  });

  it('ALL only when maxPercent is exactly 100', () => {
    expect(refusedBy('select-all', radius({ maxPercent: 100 }, target('ALL')))).toEqual([]);
    expect(refusedBy('select-all', radius({ maxPercent: 99.99 }, target('ALL')))).toMatchObject([
      { value: 'ALL', limit: 'PERCENT(99) or COUNT(n)' },
    ]);
  });

  it('ALL over listed ARNs ≤ maxTargets: 2 ARNs pass under maxTargets 2, 3 are refused', () => {
    const arns = (n: number) =>
      target('ALL', {
        resourceTags: undefined,
        resourceArns: Array.from(
          { length: n },
          (_, i) => `arn:aws:ec2:us-east-1:111122223333:subnet/subnet-0${i}`,
        ),
      });
    const rule = 'arns-over-max-targets';
    expect(refusedBy(rule, radius({ maxTargets: 2 }, arns(1)))).toEqual([]);
    expect(refusedBy(rule, radius({ maxTargets: 2 }, arns(2)))).toEqual([]);
    expect(refusedBy(rule, radius({ maxTargets: 2 }, arns(3)))).toMatchObject([
      { field: 'fis.targets.primary.resourceArns', value: 3, limit: 2 },
    ]);
  });
});

describe("FIS's template limits", () => {
  const alarms =
    (n: number): Change =>
    (p) => {
      p.fis.stopConditions = Array.from(
        { length: n },
        (_, i) => `arn:aws:cloudwatch:us-east-1:111122223333:alarm:chaos-stop-${i}`,
      );
    };

  it('lets a plan list 3 stop conditions (FIS takes 5, the gate adds 2), and refuses the fourth', () => {
    expect(FIS_MAX_STOP_CONDITIONS - GATE_STOP_CONDITIONS).toBe(3);
    expect(refusedBy('too-many-stop-conditions', alarms(2))).toEqual([]);
    expect(refusedBy('too-many-stop-conditions', alarms(3))).toEqual([]);
    const [r] = refusedBy('too-many-stop-conditions', alarms(4));
    expect(r).toMatchObject({ field: 'fis.stopConditions', value: 4, limit: 3 });
    expect(r?.message).toBe(
      "fis.stopConditions: 4 stop conditions plus the gate's lease and kill-switch alarms exceed FIS's limit of 5 per template; list at most 3",
    );
  });

  it('accepts 20 actions and refuses 21', () => {
    const actions =
      (n: number): Change =>
      (p) => {
        const one = Object.values(p.fis.actions)[0]!;
        p.fis.actions = Object.fromEntries(Array.from({ length: n }, (_, i) => [`partition${i}`, one]));
      };
    expect(FIS_MAX_ACTIONS).toBe(20);
    expect(refusedBy('too-many-actions', actions(19))).toEqual([]);
    expect(refusedBy('too-many-actions', actions(20))).toEqual([]);
    expect(refusedBy('too-many-actions', actions(21))).toMatchObject([
      { field: 'fis.actions', value: 21, limit: 20 },
    ]);
  });
});

describe('a CloudWatch period ≥ the namespace resolution', () => {
  const cloudwatch =
    (namespace: string, period: string): Change =>
    (p) => {
      const sli = p.hypothesis.slis[0] as Record<string, unknown>;
      delete sli.prometheus;
      sli.cloudwatch = { namespace, metricName: 'Errors', stat: 'Sum', period };
    };
  const rule = 'cloudwatch-period-below-resolution';

  // CloudWatch itself takes only 1s, 5s, 10s, 20s, 30s or multiples of 60s (checked by the schema):
  // the periods next to a resolution are the next allowed ones.
  it('accepts exactly 60s and 120s on a standard-resolution AWS namespace, refuses 30s', () => {
    expect(refusedBy(rule, cloudwatch('AWS/EC2', '60s'))).toEqual([]);
    expect(refusedBy(rule, cloudwatch('AWS/EC2', '120s'))).toEqual([]);
    expect(refusedBy(rule, cloudwatch('AWS/EC2', '30s'))).toMatchObject([{ value: '30s', limit: '1m' }]);
  });

  it("accepts exactly SageMaker's 10 s resolution and 20s, refuses 5s", () => {
    expect(refusedBy(rule, cloudwatch('AWS/SageMaker', '10s'))).toEqual([]);
    expect(refusedBy(rule, cloudwatch('AWS/SageMaker', '20s'))).toEqual([]);
    expect(refusedBy(rule, cloudwatch('AWS/SageMaker', '5s'))).toMatchObject([{ value: '5s', limit: '10s' }]);
  });

  it('accepts any allowed period on a custom namespace (its resolution is unknown)', () => {
    expect(refusedBy(rule, cloudwatch('Checkout/Custom', '1s'))).toEqual([]);
  });
});

describe('duplicate SLI names', () => {
  it('refuses the second SLI that reuses a name, at its own index', () => {
    const refusals = refusedBy('duplicate-sli', (p) => {
      const [first, second] = p.hypothesis.slis;
      p.hypothesis.slis = [first!, { ...second!, name: first!.name }];
    });
    expect(refusals).toEqual([
      {
        rule: 'duplicate-sli',
        field: 'hypothesis.slis[1].name',
        value: 'success_ratio',
        limit: 'unique SLI names',
        message:
          "hypothesis.slis[1].name: SLI name 'success_ratio' is used twice; abort rules and reports need unique names",
      },
    ]);
  });

  it('accepts distinct names', () => {
    expect(refusedBy('duplicate-sli', () => undefined)).toEqual([]);
  });
});

describe('ISO-8601 durations are matched whole', () => {
  it.each(['xPT60S', 'PT60Sx', ' PT60S', 'PT60S ', '1PT60S', 'PT', 'P', 'PT60', '60S'])(
    '%j is not a duration',
    (text) => {
      expect(parseIsoDuration(text)).toBeUndefined();
    },
  );

  it.each([
    ['PT60S', 60_000],
    ['PT1M', 60_000],
    ['PT1H30M', 5_400_000],
    ['P1D', 86_400_000],
    ['PT0.5S', 500],
    ['PT0.25S', 250],
    ['PT1.25M', 75_000],
    ['PT12H', 43_200_000],
    ['PT1.25H', 4_500_000],
    ['P10D', 864_000_000],
    ['P1.25D', 108_000_000],
    ['P1DT1H1M1.5S', 90_061_500],
  ])('%s is %d ms', (text, ms) => {
    expect(parseIsoDuration(text)).toBe(ms);
  });
});
