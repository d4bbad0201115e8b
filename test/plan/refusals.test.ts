import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadPlan, parsePlan } from '../../src/plan/load.js';
import {
  faultMeasurements,
  knownResolutionMs,
  MIN_INTERVAL_MS,
  maxActionDurationMs,
  parseIsoDuration,
  planRunDurationMs,
  promqlSyntaxErrors,
  staticRefusals,
  type RefusalRule,
} from '../../src/plan/refusals.js';

const FIXTURES = join(import.meta.dirname, '../../fixtures/plans');
const VALID = [
  'redis-partition.yaml',
  'eks-pod-delete.yaml',
  'ecs-stop-task.yaml',
  'ec2-cpu-stress-ssm.yaml',
];

/** Every refused fixture: the one rule it breaks, the field, the value and the limit named. */
const REFUSED: {
  file: string;
  rule: RefusalRule;
  field: string;
  value: string | number;
  limit: string | number;
}[] = [
  {
    file: 'abort-on-steady-only-sli.yaml',
    rule: 'abort-sli-not-observed',
    field: 'abort.rules[0].sli',
    value: 'cache_hit_ratio',
    limit: 'an SLI with during: true',
  },
  {
    file: 'abort-unknown-sli.yaml',
    rule: 'abort-unknown-sli',
    field: 'abort.rules[0].sli',
    value: 'p99_latency_s',
    limit: 'p95_latency_s',
  },
  {
    file: 'abort-for-exceeds-fault.yaml',
    rule: 'abort-for-exceeds-fault',
    field: 'abort.rules[0].for',
    value: '90s',
    limit: '1m',
  },
  {
    file: 'blind-after-exceeds-fault.yaml',
    rule: 'blind-after-exceeds-fault',
    field: 'abort.blindAfter',
    value: 15,
    limit: 12,
  },
  {
    file: 'count-zero.yaml',
    rule: 'selection-out-of-range',
    field: 'fis.targets.cartNodes.selectionMode',
    value: 'COUNT(0)',
    limit: 'COUNT(n) with n ≥ 1',
  },
  {
    file: 'interval-zero.yaml',
    rule: 'interval-too-short',
    field: 'hypothesis.interval',
    value: '0ms',
    limit: '1s',
  },
  {
    file: 'percent-zero.yaml',
    rule: 'selection-out-of-range',
    field: 'fis.targets.cartNodes.selectionMode',
    value: 'PERCENT(0)',
    limit: 'PERCENT(n) with n from 1 to 100',
  },
  {
    file: 'bad-promql.yaml',
    rule: 'promql-syntax',
    field: 'hypothesis.slis[0].prometheus',
    value: 'histogram_quantile(0.95, sum by (le) (rate(http_request_duration_seconds_bucket[10s]))',
    limit: 'valid PromQL',
  },
  {
    file: 'cloudwatch-period-below-resolution.yaml',
    rule: 'cloudwatch-period-below-resolution',
    field: 'hypothesis.slis[0].cloudwatch.period',
    value: '10s',
    limit: '1m',
  },
  {
    file: 'count-over-max-targets.yaml',
    rule: 'count-over-max-targets',
    field: 'fis.targets.cartNodes.selectionMode',
    value: 'COUNT(3)',
    limit: 1,
  },
  {
    file: 'duration-not-iso.yaml',
    rule: 'action-duration-format',
    field: 'fis.actions.stopNode.parameters.startInstancesAfterDuration',
    value: '60s',
    limit: 'an ISO-8601 duration such as PT60S or PT1M',
  },
  {
    file: 'five-minute-action.yaml',
    rule: 'action-duration',
    field: 'fis.actions.stopNode.parameters.startInstancesAfterDuration',
    value: 'PT5M',
    limit: '1m',
  },
  {
    file: 'forbidden-tag.yaml',
    rule: 'forbid-tags',
    field: 'fis.targets.cartNodes.resourceTags.Environment',
    value: 'production',
    limit: 'Environment not in production|prod',
  },
  {
    file: 'missing-required-tag.yaml',
    rule: 'require-tags',
    field: 'fis.targets.cartNodes.resourceTags',
    value: '(absent)',
    limit: 'Environment=staging-chaos',
  },
  {
    file: 'no-abort-rules.yaml',
    rule: 'no-abort-rules',
    field: 'abort.rules',
    value: 0,
    limit: 'at least 1 abort rule',
  },
  {
    file: 'run-too-long.yaml',
    rule: 'run-duration',
    field: 'blastRadius.maxRunDuration',
    value: '16m',
    limit: '15m',
  },
  {
    file: 'select-all-under-50.yaml',
    rule: 'select-all',
    field: 'fis.targets.cartNodes.selectionMode',
    value: 'ALL',
    limit: 'PERCENT(50) or COUNT(n)',
  },
  {
    file: 'ssm-stress-too-long.yaml',
    rule: 'action-duration',
    field: 'fis.actions.stopNode.parameters.documentParameters',
    value: 'DurationSeconds 300',
    limit: '1m',
  },
  {
    file: 'start-after-cycle.yaml',
    rule: 'start-after-cycle',
    field: 'fis.actions.stopNode.startAfter',
    value: 'stopNode → pause → stopNode',
    limit: 'no cycles',
  },
  {
    file: 'too-many-stop-conditions.yaml',
    rule: 'too-many-stop-conditions',
    field: 'fis.stopConditions',
    value: 4,
    limit: 3,
  },
  {
    file: 'unknown-target.yaml',
    rule: 'unknown-target',
    field: 'fis.actions.stopNode.targets.Instances',
    value: 'cartNode',
    limit: 'cartNodes',
  },
  {
    file: 'wait-chain-too-long.yaml',
    rule: 'run-duration',
    field: 'blastRadius.maxRunDuration',
    value: '5m',
    limit: '4m',
  },
];

/**
 * Refused fixtures whose reason is not the plan's alone but another static gate's (the schedule's
 * windows, the dependency closure): `test/plan/validate-cli.test.ts` checks them through `validate`.
 */
const REFUSED_BY_GATES = [
  'allow-window-too-short.yaml',
  'catalog-veto.yaml',
  'cron-out-of-range.yaml',
  'unknown-time-zone.yaml',
];

describe('refused plan fixtures', () => {
  it('covers every file in fixtures/plans/refused/', () => {
    expect([...REFUSED.map((c) => c.file), ...REFUSED_BY_GATES].sort()).toEqual(
      readdirSync(join(FIXTURES, 'refused')).sort(),
    );
  });

  it.each(REFUSED_BY_GATES)('%s passes the plan-level rules (another gate refuses it)', async (file) => {
    const loaded = await loadPlan(join(FIXTURES, 'refused', file));
    expect(staticRefusals(loaded.plan, loaded)).toEqual([]);
  });

  it.each(REFUSED)('$file: refused by $rule on $field', async (c) => {
    const loaded = await loadPlan(join(FIXTURES, 'refused', c.file));
    const refusals = staticRefusals(loaded.plan, loaded);
    expect(refusals).toHaveLength(1);
    const [r] = refusals;
    expect(r).toMatchObject({ rule: c.rule, field: c.field, value: c.value, limit: c.limit });
    // The message names the field, the value and the limit, and points into the file.
    expect(r?.message.startsWith(`${c.field}: `)).toBe(true);
    expect(r?.line).toBeGreaterThan(1);
    expect(r?.column).toBeGreaterThan(0);
  });

  it('quotes the numbers in the message of an over-long action', async () => {
    const loaded = await loadPlan(join(FIXTURES, 'refused', 'five-minute-action.yaml'));
    expect(staticRefusals(loaded.plan)[0]?.message).toBe(
      "fis.actions.stopNode.parameters.startInstancesAfterDuration: action 'stopNode' holds its fault for 5m (PT5M), over blastRadius.maxActionDuration 1m",
    );
  });
});

describe('valid fixtures pass the static refusals', () => {
  it.each(VALID)('%s is not refused', async (file) => {
    const loaded = await loadPlan(join(FIXTURES, file));
    expect(staticRefusals(loaded.plan, loaded)).toEqual([]);
  });

  it('computes the redis plan run as 5 min steady state + 60 s partition + 45 s recovery', async () => {
    const { plan } = await loadPlan(join(FIXTURES, 'redis-partition.yaml'));
    expect(maxActionDurationMs(plan)).toBe(60_000);
    expect(planRunDurationMs(plan)).toBe(300_000 + 60_000 + 45_000);
  });

  it('counts an instantaneous action (pod delete) as no fault time', async () => {
    const { plan } = await loadPlan(join(FIXTURES, 'eks-pod-delete.yaml'));
    expect(maxActionDurationMs(plan)).toBe(0);
    expect(planRunDurationMs(plan)).toBe(120_000 + 120_000);
  });
});

describe('run and action durations', () => {
  const base = readFileSync(join(FIXTURES, 'refused', 'wait-chain-too-long.yaml'), 'utf8');

  it('follows startAfter: parallel branches count once, chains add up', () => {
    // stopNode (1m) → settle (1m) → stopAgain (1m): 3 minutes of actions.
    expect(planRunDurationMs(parsePlan(base, 'chain.yaml').plan)).toBe(60_000 + 180_000 + 60_000);
    // Without startAfter the three run in parallel: the longest is 1 minute.
    const parallel = base.replace(/\n\s+startAfter: \[\w+\]/g, '');
    expect(planRunDurationMs(parsePlan(parallel, 'parallel.yaml').plan)).toBe(60_000 + 60_000 + 60_000);
  });

  it('parses the ISO-8601 durations FIS uses', () => {
    expect(parseIsoDuration('PT60S')).toBe(60_000);
    expect(parseIsoDuration('PT1M')).toBe(60_000);
    expect(parseIsoDuration('PT1H30M')).toBe(5_400_000);
    expect(parseIsoDuration('PT0.5S')).toBe(500);
    expect(parseIsoDuration('P1D')).toBe(86_400_000);
    for (const bad of ['60s', 'PT', 'P', '1M', 'PT1X', '']) expect(parseIsoDuration(bad)).toBeUndefined();
  });
});

describe('PromQL syntax check', () => {
  it('accepts the queries of the redis plan and rejects broken ones at their position', () => {
    expect(promqlSyntaxErrors('sum(rate(http_requests_total{status=~"5.."}[10s]))')).toEqual([]);
    expect(promqlSyntaxErrors('ALERTS{alertstate="firing"}')).toEqual([]);
    expect(promqlSyntaxErrors('rate(x[5m]')[0]).toBe(10);
    expect(promqlSyntaxErrors('x{a="b"')[0]).toBe(7);
    expect(promqlSyntaxErrors('foo bar')[0]).toBe(4);
  });

  it('checks every PromQL field: budget, incidents, expectations and scrape selectors', async () => {
    const text = readFileSync(join(FIXTURES, 'redis-partition.yaml'), 'utf8')
      .replace('ALERTS{alertstate="firing"', 'ALERTS{alertstate="firing"}}')
      .replace('max(circuit_breaker_open{', 'max(circuit_breaker_open{{')
      .replace(
        'sum(increase(http_requests_total{service="payment-token-service"}[30d]))',
        'sum(increase(x[30d])',
      );
    const refusals = staticRefusals(parsePlan(text, 'r.yaml').plan);
    expect(refusals.map((r) => [r.rule, r.field])).toEqual([
      ['promql-syntax', 'hypothesis.expect[0].prometheus'],
      ['promql-syntax', 'schedule.incidents.prometheus'],
      ['promql-syntax', 'budget.total.prometheus'],
    ]);
    const eks = readFileSync(join(FIXTURES, 'eks-pod-delete.yaml'), 'utf8').replace(
      'numerator: loadgen_requests_total{target="checkout-api", outcome="error"}',
      'numerator: loadgen_requests_total{target=}',
    );
    expect(staticRefusals(parsePlan(eks, 'e.yaml').plan).map((r) => r.field)).toEqual([
      'hypothesis.slis[0].scrape.ratio.numerator',
    ]);
  });
});

describe('CloudWatch period against the metric resolution', () => {
  const base = readFileSync(join(FIXTURES, 'refused', 'cloudwatch-period-below-resolution.yaml'), 'utf8');
  const withSli = (namespace: string, period: string) =>
    base
      .replace('namespace: AWS/ApplicationELB', `namespace: ${namespace}`)
      .replace('period: 10s', `period: ${period}`);
  const refusalsOf = (text: string) => staticRefusals(parsePlan(text, 'cw.yaml').plan);

  it('knows the resolution of AWS namespaces only', () => {
    expect(knownResolutionMs('AWS/ApplicationELB')).toBe(60_000);
    expect(knownResolutionMs('AWS/EC2')).toBe(60_000);
    expect(knownResolutionMs('AWS/SageMaker')).toBe(10_000);
    expect(knownResolutionMs('AWS/NetworkMonitor')).toBe(30_000);
    // Custom namespaces may be published at 1 s; nothing is known about them.
    expect(knownResolutionMs('Sandbox/Canary')).toBeUndefined();
    expect(knownResolutionMs('aws/lowercase-is-custom')).toBeUndefined();
  });

  it('refuses every sub-minute period on a standard-resolution AWS namespace, naming the value and the limit', () => {
    for (const period of ['1s', '5s', '20s', '30s']) {
      const refusals = refusalsOf(withSli('AWS/ApplicationELB', period));
      expect(refusals.map((r) => [r.rule, r.field, r.value, r.limit])).toEqual([
        ['cloudwatch-period-below-resolution', 'hypothesis.slis[0].cloudwatch.period', period, '1m'],
      ]);
      expect(refusals[0]?.message).toBe(
        `hypothesis.slis[0].cloudwatch.period: period ${period} is finer than AWS/ApplicationELB publishes: standard resolution, at most one datapoint per 1m, so a ${period} period never holds a whole measurement; expected 1m or longer`,
      );
    }
  });

  it('accepts a minute or more on an AWS namespace, and any period on a custom namespace', () => {
    expect(refusalsOf(withSli('AWS/ApplicationELB', '1m'))).toEqual([]);
    expect(refusalsOf(withSli('AWS/ApplicationELB', '5m'))).toEqual([]);
    expect(refusalsOf(withSli('Orders/Api', '1s'))).toEqual([]);
    expect(refusalsOf(withSli('Sandbox/Canary', '5s'))).toEqual([]);
  });

  it('allows the documented sub-minute AWS namespaces down to their own resolution', () => {
    expect(refusalsOf(withSli('AWS/SageMaker', '10s'))).toEqual([]);
    expect(refusalsOf(withSli('AWS/SageMaker', '5s')).map((r) => [r.value, r.limit])).toEqual([
      ['5s', '10s'],
    ]);
    expect(refusalsOf(withSli('AWS/NetworkMonitor', '30s'))).toEqual([]);
    expect(refusalsOf(withSli('AWS/NetworkMonitor', '10s')).map((r) => [r.value, r.limit])).toEqual([
      ['10s', '30s'],
    ]);
    expect(refusalsOf(withSli('AWS/SageMaker', '5s'))[0]?.message).toContain(
      'AWS/SageMaker publishes: at most one datapoint per 10s',
    );
  });

  it('checks metric math by its AWS metrics, the request count, expectations and the budget', () => {
    // The ECS plan reads AWS/ApplicationELB everywhere; put every CloudWatch period back to 10 s.
    const text = readFileSync(join(FIXTURES, 'ecs-stop-task.yaml'), 'utf8')
      .replaceAll('period: 1m', 'period: 10s')
      .replaceAll('period: 1d', 'period: 30s')
      .replace(
        '  steadyState:',
        [
          '  expect:',
          '    - name: retries_seen',
          '      cloudwatch: { namespace: AWS/ApplicationELB, metricName: RequestCount, stat: Sum, period: 5s }',
          '      atLeast: 1',
          '      within: 1m',
          '  steadyState:',
        ].join('\n'),
      );
    expect(text).toContain('name: retries_seen');
    const refusals = staticRefusals(parsePlan(text, 'ecs.yaml').plan);
    expect(refusals.map((r) => [r.field, r.value])).toEqual([
      ['hypothesis.requests.cloudwatch.period', '10s'],
      ['hypothesis.slis[0].cloudwatch.period', '10s'],
      ['hypothesis.slis[1].cloudwatch.period', '10s'],
      ['hypothesis.expect[0].cloudwatch.period', '5s'],
      ['budget.errors.cloudwatch.period', '30s'],
      ['budget.total.cloudwatch.period', '30s'],
    ]);
    expect(new Set(refusals.map((r) => r.rule))).toEqual(new Set(['cloudwatch-period-below-resolution']));
  });

  it('refuses metric math that mixes a custom and an AWS namespace at the AWS resolution', () => {
    const text = readFileSync(join(FIXTURES, 'ecs-stop-task.yaml'), 'utf8')
      .replace('period: 1m\n      max: 0.005', 'period: 10s\n      max: 0.005')
      .replace(
        'metricName: HTTPCode_Target_5XX_Count\n            dimensions: { LoadBalancer: app/orders-staging/50dc6c495c0c9188 }',
        'metricName: Errors\n            dimensions: { Service: orders }',
      )
      .replace(
        '          errors:\n            namespace: AWS/ApplicationELB',
        '          errors:\n            namespace: Orders/Api',
      );
    expect(text).toContain('namespace: Orders/Api');
    const refusals = staticRefusals(parsePlan(text, 'mixed.yaml').plan);
    expect(refusals.map((r) => [r.field, r.value, r.limit])).toEqual([
      ['hypothesis.slis[0].cloudwatch.period', '10s', '1m'],
    ]);
    expect(refusals[0]?.message).toContain('AWS/ApplicationELB publishes');
    // With both metrics custom, nothing is known about their resolution and 10 s is allowed.
    const custom = text.replace(
      '          requests:\n            namespace: AWS/ApplicationELB',
      '          requests:\n            namespace: Orders/Api',
    );
    expect(custom).not.toContain('requests:\n            namespace: AWS/');
    expect(staticRefusals(parsePlan(custom, 'custom.yaml').plan)).toEqual([]);
  });
});

describe("blindAfter and each rule's for against the fault's measurements", () => {
  const base = readFileSync(join(FIXTURES, 'refused', 'blind-after-exceeds-fault.yaml'), 'utf8');
  const rulesOf = (text: string) => staticRefusals(parsePlan(text, 'f.yaml').plan).map((r) => r.rule);

  it('counts the fault in whole intervals: 60 s at 5 s is 12 measurements', async () => {
    const { plan } = await loadPlan(join(FIXTURES, 'refused', 'blind-after-exceeds-fault.yaml'));
    expect(faultMeasurements(plan)).toBe(12);
  });

  it('accepts blindAfter and for that the fault can just reach, and refuses one measurement more', () => {
    expect(rulesOf(base.replace('blindAfter: 15', 'blindAfter: 12').replace('for: 10s', 'for: 60s'))).toEqual(
      [],
    );
    expect(rulesOf(base.replace('blindAfter: 15', 'blindAfter: 13'))).toEqual(['blind-after-exceeds-fault']);
    expect(rulesOf(base.replace('blindAfter: 15', 'blindAfter: 12').replace('for: 10s', 'for: 61s'))).toEqual(
      ['abort-for-exceeds-fault'],
    );
  });

  it('skips an instantaneous fault (a pod delete declares no duration)', async () => {
    const loaded = await loadPlan(join(FIXTURES, 'eks-pod-delete.yaml'));
    expect(faultMeasurements(loaded.plan)).toBe(0);
    expect(staticRefusals(loaded.plan, loaded)).toEqual([]);
  });

  it('refuses an interval under the documented minimum, and accepts the minimum itself', () => {
    expect(MIN_INTERVAL_MS).toBe(1000);
    expect(rulesOf(base.replace('interval: 5s', 'interval: 500ms'))).toContain('interval-too-short');
    expect(
      rulesOf(base.replace('interval: 5s', 'interval: 1s').replace('blindAfter: 15', 'blindAfter: 3')),
    ).toEqual([]);
  });
});
