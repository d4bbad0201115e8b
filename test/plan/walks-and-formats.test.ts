/**
 * The small pure pieces other checks stand on: the walks that find every PromQL and CloudWatch source in a
 * plan, the coarsest resolution of a metric-math expression, the plan digest's canonical JSON, duration
 * parsing and formatting, and which declared environment variables are secrets. Each is called directly
 * with the few fields it reads.
 */
import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../../src/plan/digest.js';
import { formatDuration, parseDuration } from '../../src/plan/duration.js';
import { resolvePlanEnv } from '../../src/plan/env.js';
import { checkCloudWatchPeriods, promqlFields } from '../../src/plan/refusals-queries.js';
import type { Plan } from '../../src/plan/schema.js';

describe('promqlFields', () => {
  it('finds the request count query and every scrape selector, each at its field path', () => {
    const plan = {
      hypothesis: {
        requests: { prometheus: 'sum(rate(req[1m]))' },
        slis: [
          {
            scrape: {
              ratio: { numerator: 'bad_total', denominator: 'all_total' },
              increase: 'inc_total',
              rate: 'rate_total',
              quantile: { histogram: 'latency_bucket' },
              gauge: 'queue_depth',
            },
          },
        ],
        expect: [],
      },
      schedule: {},
    } as unknown as Plan;
    expect(promqlFields(plan).map((f) => [f.path.join('.'), f.query])).toEqual([
      ['hypothesis.requests.prometheus', 'sum(rate(req[1m]))'],
      ['hypothesis.slis.0.scrape.ratio.numerator', 'bad_total'],
      ['hypothesis.slis.0.scrape.ratio.denominator', 'all_total'],
      ['hypothesis.slis.0.scrape.increase', 'inc_total'],
      ['hypothesis.slis.0.scrape.rate', 'rate_total'],
      ['hypothesis.slis.0.scrape.quantile.histogram', 'latency_bucket'],
      ['hypothesis.slis.0.scrape.gauge', 'queue_depth'],
    ]);
  });

  it('finds a scraped request count under hypothesis.requests.scrape', () => {
    const plan = {
      hypothesis: { requests: { scrape: { increase: 'requests_total' } }, slis: [], expect: [] },
      schedule: {},
    } as unknown as Plan;
    expect(promqlFields(plan).map((f) => [f.path.join('.'), f.query])).toEqual([
      ['hypothesis.requests.scrape.increase', 'requests_total'],
    ]);
  });
});

describe('a metric-math period against the coarsest AWS resolution among its metrics', () => {
  /** Periods refused for one metric-math SLI over these namespaces, as [value, limit]. */
  function refused(period: number, ...namespaces: string[]): [string | number, string | number][] {
    const metrics = Object.fromEntries(namespaces.map((namespace, i) => [`m${i}`, { namespace }]));
    const plan = {
      hypothesis: { slis: [{ cloudwatch: { expression: 'm0 / m1', metrics, period } }], expect: [] },
    } as unknown as Plan;
    const out: [string | number, string | number][] = [];
    checkCloudWatchPeriods(plan, (_rule, _path, value, limit) => out.push([value, limit]));
    return out;
  }

  it('judges 30 s against the standard minute whichever order the namespaces come in', () => {
    // AWS/SageMaker alone may be read every 10 s; next to a standard-resolution metric it may not.
    expect(refused(30_000, 'AWS/SageMaker')).toEqual([]);
    expect(refused(30_000, 'AWS/SageMaker', 'AWS/ApplicationELB')).toEqual([['30s', '1m']]);
    expect(refused(30_000, 'AWS/ApplicationELB', 'AWS/SageMaker')).toEqual([['30s', '1m']]);
    expect(refused(30_000, 'AWS/ApplicationELB', 'Orders/Api', 'AWS/SageMaker')).toEqual([['30s', '1m']]);
  });
});

describe('canonicalJson (the plan digest)', () => {
  it('sorts keys at every level, inside arrays too, and drops undefined members', () => {
    expect(canonicalJson({ b: 1, a: { d: undefined, c: [{ y: 1, x: 2 }, 3] } })).toBe(
      '{"a":{"c":[{"x":2,"y":1},3]},"b":1}',
    );
  });

  it('keeps arrays as arrays and null as null', () => {
    expect(canonicalJson([2, 1])).toBe('[2,1]');
    expect(canonicalJson({ a: null })).toBe('{"a":null}');
    expect(canonicalJson(null)).toBe('null');
  });
});

describe('durations', () => {
  it('parses plan durations and answers undefined for anything else', () => {
    expect(parseDuration('1.5s')).toBe(1500);
    expect(parseDuration(' 2m ')).toBe(120_000);
    expect(parseDuration('nope')).toBeUndefined();
    expect(parseDuration('5 minutes')).toBeUndefined();
  });

  it('formats a time that is no whole unit in seconds with one decimal, under a second in ms', () => {
    expect(formatDuration(1500)).toBe('1.5s');
    expect(formatDuration(61_000)).toBe('61s');
    expect(formatDuration(1000)).toBe('1s');
    expect(formatDuration(999)).toBe('999ms');
  });
});

describe('resolvePlanEnv', () => {
  it('keeps only the variables that are set, and treats all but public: true declarations as secrets', () => {
    const plan = {
      env: ['TOKEN', { name: 'HOST', public: true }, { name: 'PASSWORD' }, 'UNSET'],
      hypothesis: { slis: [], expect: [] },
    } as unknown as Plan;
    const resolved = resolvePlanEnv(plan, { TOKEN: 't0k', HOST: 'canary', PASSWORD: 'pw', OTHER: 'x' });
    expect(Object.keys(resolved.values).sort()).toEqual(['HOST', 'PASSWORD', 'TOKEN']);
    expect(resolved.values).toEqual({ TOKEN: 't0k', HOST: 'canary', PASSWORD: 'pw' });
    expect(resolved.secrets).toEqual(['t0k', 'pw']);
  });
});
