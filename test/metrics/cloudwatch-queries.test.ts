/**
 * How CloudWatch SLIs become GetMetricData queries (ids, periods, metric-math rewriting, the text a
 * reading shows) and the limits of one call: at most 500 queries, only CloudWatch queries sent. The
 * calls go through the real SDK client to the sandbox's CloudWatch stand-in.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  CloudWatchSourceImpl,
  describeQuery,
  GET_METRIC_DATA_MAX_QUERIES,
  ingestionAllowanceOf,
  queriesFor,
} from '../../src/metrics/cloudwatch/index.js';
import { completePeriodsWindow } from '../../src/metrics/cloudwatch/window.js';
import type { Query } from '../../src/metrics/source.js';
import type { CloudWatchSource } from '../../src/plan/schema.js';
import { startStandIn, type StandInHarness } from '../sandbox/cloudwatch-harness.js';

const S = 1000;
const T0 = Date.UTC(2026, 2, 1, 12, 0, 0);

const stat = (extra: Partial<CloudWatchSource> = {}): CloudWatchSource =>
  ({
    namespace: 'Shop',
    metricName: 'Requests',
    dimensions: { Service: 'checkout' },
    stat: 'Sum',
    period: 60 * S,
    ...extra,
  }) as CloudWatchSource;

const stat_ = (extra: Partial<CloudWatchSource>): CloudWatchSource =>
  stat({ dimensions: { Host: 'a' }, period: 60 * S, ...extra });

const math = (expression: string, ids: string[], period = 5 * S): CloudWatchSource =>
  ({
    expression,
    metrics: Object.fromEntries(
      ids.map((id) => [id, { namespace: 'Shop', metricName: id.toUpperCase(), stat: 'Sum' }]),
    ),
    period,
  }) as CloudWatchSource;

describe('the GetMetricData queries of one SLI', () => {
  it('sends a metric stat as one returned query, its period in seconds and its unit only when set', () => {
    expect(queriesFor('q3', stat())).toEqual({
      resultId: 'q3_result',
      queries: [
        {
          Id: 'q3_result',
          MetricStat: {
            Metric: {
              Namespace: 'Shop',
              MetricName: 'Requests',
              Dimensions: [{ Name: 'Service', Value: 'checkout' }],
            },
            Period: 60,
            Stat: 'Sum',
          },
          ReturnData: true,
        },
      ],
    });
    const withUnit = queriesFor('q0', stat({ unit: 'Count', dimensions: undefined, period: 5 * S }));
    expect(withUnit.queries[0]?.MetricStat).toEqual({
      Metric: { Namespace: 'Shop', MetricName: 'Requests', Dimensions: [] },
      Period: 5,
      Stat: 'Sum',
      Unit: 'Count',
    });
  });

  it('never sends a period below one second', () => {
    expect(queriesFor('q0', stat({ period: 400 })).queries[0]?.MetricStat?.Period).toBe(1);
    expect(queriesFor('q0', stat({ period: 1_600 })).queries[0]?.MetricStat?.Period).toBe(2);
  });

  it('sends metric math as hidden metric queries and one returned expression with the ids prefixed', () => {
    const { queries, resultId } = queriesFor('q1', math('m1 / m10', ['m1', 'm10']));
    expect(resultId).toBe('q1_result');
    expect(
      queries.map((q) => [q.Id, q.ReturnData, q.Expression ?? q.MetricStat?.Metric?.MetricName]),
    ).toEqual([
      ['q1_m1', false, 'M1'],
      ['q1_m10', false, 'M10'],
      ['q1_result', true, 'q1_m1 / q1_m10'],
    ]);
    expect(queries.every((q) => q.Period === 5 || q.MetricStat?.Period === 5)).toBe(true);
    // Only whole ids are rewritten: a function name or a longer word that contains an id is left alone.
    expect(
      queriesFor('q2', math('FILL(errors, 0) / errors_all', ['errors'])).queries.at(-1)?.Expression,
    ).toBe('FILL(q2_errors, 0) / errors_all');
  });

  it('describes a query as the reading shows it', () => {
    expect(describeQuery(stat())).toBe('Shop/Requests{"Service":"checkout"} Sum (period 60s)');
    expect(describeQuery(stat({ dimensions: undefined, stat: 'p99', period: 5 * S }))).toBe(
      'Shop/Requests{} p99 (period 5s)',
    );
    expect(describeQuery(math('a / b', ['a', 'b']))).toBe(
      'a / b where a=Shop/A{} Sum; b=Shop/B{} Sum (period 5s)',
    );
  });

  it("takes a query's own ingestion delay, even 0, over the default for its period", () => {
    expect(ingestionAllowanceOf(stat({ ingestionDelay: 0 }))).toBe(0);
    expect(ingestionAllowanceOf(stat({ ingestionDelay: 30 * S }))).toBe(30 * S);
    expect(ingestionAllowanceOf(stat())).toBe(120 * S);
    expect(ingestionAllowanceOf(stat({ period: 5 * S }))).toBe(5 * S);
  });
});

describe('one GetMetricData call per tick', () => {
  let h: StandInHarness;
  let source: CloudWatchSourceImpl;
  beforeAll(async () => {
    h = await startStandIn(T0);
  });
  afterAll(async () => {
    await h.close();
  });
  beforeEach(() => {
    h.exchanges.length = 0;
    source = new CloudWatchSourceImpl(h.client);
  });

  const cw = (name: string, spec: CloudWatchSource = stat({ period: 5 * S })): Query => ({
    name,
    spec: { cloudwatch: spec },
  });
  const calls = () => h.exchanges.filter((e) => e.operation === 'GetMetricData').length;

  it(`sends ${GET_METRIC_DATA_MAX_QUERIES} queries in one call, and refuses one more without calling`, async () => {
    const at = T0 + 60 * S;
    const full = Array.from({ length: GET_METRIC_DATA_MAX_QUERIES }, (_, i) => cw(`s${i}`));
    const atLimit = await source.read(full, at, S);
    expect(calls()).toBe(1);
    expect(source.calls).toBe(1);
    expect(atLimit.every((r) => r.status === 'no-data')).toBe(true);

    h.exchanges.length = 0;
    // One SLI too many, counted in queries: a metric-math SLI of two metrics sends three.
    const over = [...full.slice(2), cw('math', math('a / b', ['a', 'b']))];
    const readings = await source.read(over, at, S);
    expect(calls()).toBe(0);
    expect(source.calls).toBe(1);
    expect(readings).toHaveLength(over.length);
    for (const r of readings) {
      expect(r).toMatchObject({
        status: 'error',
        value: null,
        error: `${GET_METRIC_DATA_MAX_QUERIES + 1} GetMetricData queries exceed CloudWatch's limit of ${GET_METRIC_DATA_MAX_QUERIES} per call`,
      });
    }
  });

  it('answers a query of another kind with an error reading and reads the rest', async () => {
    const at = T0 + 2 * 60 * S;
    h.clock.t = at;
    h.cw.putDatum({
      namespace: 'Shop',
      metricName: 'Requests',
      dimensions: { Service: 'checkout' },
      value: 7,
      timestamp: at - 9 * S,
      storageResolution: 1,
    });
    const readings = await source.read(
      [{ name: 'scrape', spec: { scrape: { url: 'http://x/metrics', gauge: 'up' } } }, cw('requests')],
      at,
      S,
    );
    expect(readings.map((r) => [r.name, r.status, r.value, r.error])).toEqual([
      ['scrape', 'error', null, 'not a CloudWatch query'],
      ['requests', 'ok', 7, undefined],
    ]);
    expect(readings[0]?.query).toBe('');
    expect(calls()).toBe(1);
  });

  it('makes no call when no query of the tick is a CloudWatch one', async () => {
    const readings = await source.read([{ name: 'p', spec: { prometheus: 'up' } }], T0 + 3 * 60 * S, S);
    expect(readings).toEqual([
      { name: 'p', value: null, status: 'error', query: '', error: 'not a CloudWatch query' },
    ]);
    expect(calls()).toBe(0);
    expect(source.calls).toBe(0);
  });

  it('reads a result CloudWatch truncated (PartialData) as no-data, a sum and an average alike', async () => {
    // One call returns at most 100,800 datapoints across its queries: 71 one-minute queries over a day
    // ask for 102,240, so the last ones come back PartialData (newest first).
    const day = 24 * 3600 * S;
    const at = T0 + 2 * day;
    h.clock.t = at;
    const end = at - 2 * 60 * S - ((at - 2 * 60 * S) % (60 * S));
    for (let t = end - day; t < end; t += 60 * S) {
      h.cw.putDatum({
        namespace: 'Shop',
        metricName: 'Load',
        dimensions: { Host: 'a' },
        value: 1,
        timestamp: t,
      });
    }
    const load = (stat: string): CloudWatchSource => stat_({ metricName: 'Load', stat });
    const sums = Array.from({ length: 70 }, (_, i) => cw(`sum${i}`, load('Sum')));
    const readings = await source.read(
      [...sums, cw('last_sum', load('Sum')), cw('avg', load('Average'))],
      at,
      day,
    );
    expect(readings[0]).toMatchObject({ status: 'ok', value: 1440 });
    const partial = {
      status: 'no-data',
      value: null,
      error: 'GetMetricData returned PartialData: the window holds more datapoints than one call returns',
    };
    // The average reads only its newest period, which came back, but the answer is not whole.
    expect(readings.at(-2)).toMatchObject(partial);
    expect(readings.at(-1)).toMatchObject(partial);
  });

  it('sends the queries CloudWatch can answer and refuses, beside them, a period it no longer keeps', async () => {
    const at = T0 + 5 * 60 * 60 * S;
    // A 4-hour window: a 1-minute period is kept, a 5-second one is not.
    const readings = await source.read(
      [cw('fine', stat({ period: 60 * S })), cw('expired', stat({ period: 5 * S }))],
      at,
      4 * 3600 * S,
    );
    expect(readings.map((r) => r.status)).toEqual(['no-data', 'error']);
    expect(readings[1]?.error).toMatch(/^CloudWatch keeps sub-minute data only 3 hours/);
    expect(calls()).toBe(1);
    const sent = JSON.stringify(h.exchanges[0]?.requestBody ?? '');
    expect(sent).toContain('q0_result');
    expect(sent).not.toContain('q1_result');
  });
});

describe('the window of a call with no periods or a bad one', () => {
  it('lays a call without periods on the minute, and refuses a period below a second', () => {
    const at = T0 + 5 * 60 * S + 30 * S;
    expect(completePeriodsWindow({ at, windowMs: S, periodsMs: [], allowanceMs: 0 })).toEqual({
      startMs: T0 + 4 * 60 * S,
      endMs: T0 + 5 * 60 * S,
      gridMs: 60 * S,
    });
    expect(() => completePeriodsWindow({ at, windowMs: S, periodsMs: [0], allowanceMs: 0 })).toThrow(
      'a CloudWatch period is a whole number of seconds, got 0 ms',
    );
  });
});
