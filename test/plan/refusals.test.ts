import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadPlan, parsePlan } from '../../src/plan/load.js';
import {
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
    file: 'bad-promql.yaml',
    rule: 'promql-syntax',
    field: 'hypothesis.slis[0].prometheus',
    value: 'histogram_quantile(0.95, sum by (le) (rate(http_request_duration_seconds_bucket[10s]))',
    limit: 'valid PromQL',
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

describe('refused plan fixtures', () => {
  it('covers every file in fixtures/plans/refused/', () => {
    expect(REFUSED.map((c) => c.file).sort()).toEqual(readdirSync(join(FIXTURES, 'refused')).sort());
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
