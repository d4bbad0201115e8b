import {
  DescribeAlarmsCommand,
  GetMetricDataCommand,
  ListMetricsCommand,
  PutMetricAlarmCommand,
  PutMetricDataCommand,
  SetAlarmStateCommand,
  type MetricDataQuery,
  type MetricDataResult,
  type MetricDatum,
} from '@aws-sdk/client-cloudwatch';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startStandIn, type StandInHarness } from './cloudwatch-harness.js';

/** 2026-02-01T10:00:00Z, the fake "now" of these tests. */
const T = Date.UTC(2026, 1, 1, 10, 0, 0);
const dims = [{ Name: 'Service', Value: 'checkout' }];

function stat(
  id: string,
  metric: string,
  period: number,
  s: string,
  extra: Partial<MetricDataQuery> = {},
): MetricDataQuery {
  return {
    Id: id,
    MetricStat: {
      Metric: { Namespace: 'Shop', MetricName: metric, Dimensions: dims },
      Period: period,
      Stat: s,
    },
    ...extra,
  };
}

function byId(results: MetricDataResult[] | undefined): Record<string, Array<[number, number]>> {
  const out: Record<string, Array<[number, number]>> = {};
  for (const r of results ?? [])
    out[r.Id as string] = (r.Timestamps ?? []).map((t, i) => [
      (t.getTime() - T) / 1000,
      r.Values?.[i] as number,
    ]);
  return out;
}

describe('CloudWatch stand-in metrics over AWS JSON 1.0 (real @aws-sdk/client-cloudwatch)', () => {
  let h: StandInHarness;
  beforeAll(async () => {
    h = await startStandIn(T);
    // High resolution: one value per second over the last minute, value = second index (0..59).
    await h.client.send(
      new PutMetricDataCommand({
        Namespace: 'Shop',
        MetricData: Array.from({ length: 60 }, (_, i) => ({
          MetricName: 'latency',
          Dimensions: dims,
          Value: i,
          Unit: 'Milliseconds',
          StorageResolution: 1,
          Timestamp: new Date(T - 60_000 + i * 1000 + 250),
        })),
      }),
    );
    // Standard resolution: two points inside the minute 09:57 and one in 09:59.
    await h.client.send(
      new PutMetricDataCommand({
        Namespace: 'Shop',
        MetricData: [
          { MetricName: 'requests', Dimensions: dims, Value: 10, Timestamp: new Date(T - 180_000 + 5_000) },
          { MetricName: 'requests', Dimensions: dims, Value: 30, Timestamp: new Date(T - 180_000 + 35_000) },
          { MetricName: 'requests', Dimensions: dims, Value: 40, Timestamp: new Date(T - 60_000 + 1_000) },
          { MetricName: 'errors', Dimensions: dims, Value: 4, Timestamp: new Date(T - 60_000 + 2_000) },
        ],
      }),
    );
  });
  afterAll(async () => h.close());
  afterEach(() => {
    expect(h.drainProblems()).toEqual([]);
  });

  it('aggregates high-resolution data into 10 s periods with every statistic, newest first', async () => {
    const res = await h.client.send(
      new GetMetricDataCommand({
        StartTime: new Date(T - 60_000),
        EndTime: new Date(T),
        MetricDataQueries: ['Sum', 'Average', 'Minimum', 'Maximum', 'SampleCount', 'p90'].map((s) =>
          stat(s.toLowerCase(), 'latency', 10, s),
        ),
      }),
    );
    const r = byId(res.MetricDataResults);
    const starts = [-10, -20, -30, -40, -50, -60];
    const bucket = (start: number) => Array.from({ length: 10 }, (_, k) => start + 60 + k);
    expect(r.sum).toEqual(starts.map((s) => [s, bucket(s).reduce((a, b) => a + b, 0)]));
    expect(r.average).toEqual(starts.map((s) => [s, bucket(s).reduce((a, b) => a + b, 0) / 10]));
    expect(r.minimum).toEqual(starts.map((s) => [s, s + 60]));
    expect(r.maximum).toEqual(starts.map((s) => [s, s + 69]));
    expect(r.samplecount).toEqual(starts.map((s) => [s, 10]));
    // Nearest rank: the 9th of 10 sorted values.
    expect(r.p90).toEqual(starts.map((s) => [s, s + 68]));
    expect(res.MetricDataResults?.every((x) => x.StatusCode === 'Complete')).toBe(true);
    expect(res.MetricDataResults?.[0]?.Label).toBe('latency');
  });

  it('returns 1 s datapoints for high-resolution data, ascending with ScanBy TimestampAscending', async () => {
    const res = await h.client.send(
      new GetMetricDataCommand({
        StartTime: new Date(T - 5_000),
        EndTime: new Date(T),
        ScanBy: 'TimestampAscending',
        MetricDataQueries: [stat('s', 'latency', 1, 'Maximum')],
      }),
    );
    expect(byId(res.MetricDataResults).s).toEqual([
      [-5, 55],
      [-4, 56],
      [-3, 57],
      [-2, 58],
      [-1, 59],
    ]);
  });

  it('rounds StartTime down (to the period below a minute, to the minute above) and treats EndTime as exclusive', async () => {
    const res = await h.client.send(
      new GetMetricDataCommand({
        StartTime: new Date(T - 23_000),
        EndTime: new Date(T - 5_000),
        MetricDataQueries: [
          stat('ten', 'latency', 10, 'SampleCount'),
          stat('min', 'latency', 60, 'SampleCount'),
        ],
      }),
    );
    const r = byId(res.MetricDataResults);
    // 10 s: start 09:59:37 → 09:59:30; the period at 09:59:50 holds only 09:59:50..54 before EndTime.
    expect(r.ten).toEqual([
      [-10, 5],
      [-20, 10],
      [-30, 10],
    ]);
    // 60 s: start rounds to 09:59:00; 55 seconds before EndTime.
    expect(r.min).toEqual([[-60, 55]]);
  });

  it('stores standard-resolution data per minute, so Sum over 60 s adds the points of one minute', async () => {
    const res = await h.client.send(
      new GetMetricDataCommand({
        StartTime: new Date(T - 300_000),
        EndTime: new Date(T),
        MetricDataQueries: [
          stat('req', 'requests', 60, 'Sum'),
          stat('fine', 'requests', 10, 'Sum'),
          stat('none', 'nothing', 60, 'Sum'),
        ],
      }),
    );
    const r = byId(res.MetricDataResults);
    expect(r.req).toEqual([
      [-60, 40],
      [-180, 40],
    ]);
    // A standard metric read at 10 s still has one point per minute, at the minute's start.
    expect(r.fine).toEqual([
      [-60, 40],
      [-180, 40],
    ]);
    expect(r.none).toEqual([]);
    expect(res.MetricDataResults?.find((x) => x.Id === 'none')?.StatusCode).toBe('Complete');
  });

  it('evaluates the metric math the product uses: arithmetic, constants, SUM/AVG/MAX of arrays, FILL, ReturnData', async () => {
    const res = await h.client.send(
      new GetMetricDataCommand({
        StartTime: new Date(T - 240_000),
        EndTime: new Date(T),
        MetricDataQueries: [
          stat('r', 'requests', 60, 'Sum', { ReturnData: false }),
          stat('e', 'errors', 60, 'Sum', { ReturnData: false }),
          { Id: 'rate', Expression: '100 * e / r', Label: 'error rate %' },
          { Id: 'ok', Expression: 'r - e' },
          { Id: 'total', Expression: 'SUM([r, e])' },
          { Id: 'biggest', Expression: 'MAX([r, e])' },
          { Id: 'avgall', Expression: 'AVG(r)' },
          { Id: 'filled', Expression: 'FILL(e, 0)' },
          { Id: 'neg', Expression: '-(e + 1) * 2' },
        ],
      }),
    );
    const r = byId(res.MetricDataResults);
    expect(Object.keys(r)).toEqual(['rate', 'ok', 'total', 'biggest', 'avgall', 'filled', 'neg']);
    expect(r.rate).toEqual([[-60, 10]]);
    expect(res.MetricDataResults?.find((x) => x.Id === 'rate')?.Label).toBe('error rate %');
    expect(r.ok).toEqual([[-60, 36]]);
    expect(r.total).toEqual([
      [-60, 44],
      [-180, 40],
    ]);
    expect(r.biggest).toEqual([
      [-60, 40],
      [-180, 40],
    ]);
    // AVG of one series is a scalar, repeated over the query's periods.
    expect(r.avgall).toEqual([-60, -120, -180, -240].map((t) => [t, 40]));
    expect(r.filled).toEqual([
      [-60, 4],
      [-120, 0],
      [-180, 0],
      [-240, 0],
    ]);
    expect(r.neg).toEqual([[-60, -10]]);
  });

  it('answers ValidationError for bad expressions, unknown ids and more than 500 queries', async () => {
    const send = (q: MetricDataQuery[]) =>
      h.client
        .send(
          new GetMetricDataCommand({
            StartTime: new Date(T - 60_000),
            EndTime: new Date(T),
            MetricDataQueries: q,
          }),
        )
        .catch((e: Error) => e);
    const unknown = await send([{ Id: 'x', Expression: 'nope * 2' }]);
    expect((unknown as { Code?: string }).Code).toBe('ValidationError');
    expect((unknown as Error).message).toMatch(/nope is not the Id of a query/);
    const syntax = await send([stat('m', 'latency', 60, 'Sum'), { Id: 'x', Expression: 'm +' }]);
    expect((syntax as Error).message).toMatch(/Error in expression x: unexpected end of expression/);
    const cycle = await send([
      { Id: 'a', Expression: 'b + 1' },
      { Id: 'b', Expression: 'a + 1' },
    ]);
    expect((cycle as Error).message).toMatch(/circular reference/);
    const tooMany = await send(Array.from({ length: 501 }, (_, i) => stat(`q${i}`, 'latency', 60, 'Sum')));
    expect((tooMany as { Code?: string }).Code).toBe('ValidationError');
    expect((tooMany as Error).message).toMatch(/must not have a size greater than 500/);
    const ok = await send(Array.from({ length: 500 }, (_, i) => stat(`q${i}`, 'latency', 60, 'Sum')));
    expect(ok).not.toBeInstanceOf(Error);
    const badStat = await send([stat('m', 'latency', 60, 'Median')]);
    expect((badStat as Error).message).toMatch(/Stat "Median" is not a supported statistic/);
  });

  it('pages datapoints with MaxDatapoints and NextToken, and rejects a token it did not issue', async () => {
    const base = {
      StartTime: new Date(T - 60_000),
      EndTime: new Date(T),
      MaxDatapoints: 25,
      MetricDataQueries: [stat('s', 'latency', 1, 'Sum')],
    };
    const seen: number[] = [];
    let token: string | undefined;
    let pages = 0;
    do {
      const page = await h.client.send(new GetMetricDataCommand({ ...base, NextToken: token }));
      const res = page.MetricDataResults?.[0];
      seen.push(...(res?.Values ?? []));
      token = page.NextToken;
      expect(res?.StatusCode).toBe(token ? 'PartialData' : 'Complete');
      pages++;
    } while (token);
    expect(pages).toBe(3);
    expect(seen).toEqual(Array.from({ length: 60 }, (_, i) => 59 - i));
    const err = await h.client
      .send(new GetMetricDataCommand({ ...base, NextToken: 'forged' }))
      .catch((e: Error) => e);
    expect((err as Error).name).toBe('InvalidNextToken');
  });

  it('accepts Values/Counts and StatisticValues and filters by Unit', async () => {
    await h.client.send(
      new PutMetricDataCommand({
        Namespace: 'Shop',
        MetricData: [
          {
            MetricName: 'size',
            Dimensions: dims,
            Values: [1, 5, 9],
            Counts: [2, 1, 1],
            Unit: 'Bytes',
            Timestamp: new Date(T - 30_000),
          },
          {
            MetricName: 'size',
            Dimensions: dims,
            StatisticValues: { SampleCount: 4, Sum: 100, Minimum: 10, Maximum: 40 },
            Unit: 'Bytes',
            Timestamp: new Date(T - 20_000),
          },
          {
            MetricName: 'size',
            Dimensions: dims,
            Value: 1000,
            Unit: 'Kilobytes',
            Timestamp: new Date(T - 10_000),
          },
        ],
      }),
    );
    const q = (id: string, s: string, unit?: 'Bytes') => ({
      Id: id,
      MetricStat: {
        Metric: { Namespace: 'Shop', MetricName: 'size', Dimensions: dims },
        Period: 60,
        Stat: s,
        ...(unit ? { Unit: unit } : {}),
      },
    });
    const res = await h.client.send(
      new GetMetricDataCommand({
        StartTime: new Date(T - 60_000),
        EndTime: new Date(T),
        MetricDataQueries: [
          q('n', 'SampleCount', 'Bytes'),
          q('sum', 'Sum', 'Bytes'),
          q('max', 'Maximum', 'Bytes'),
          q('p50', 'p50', 'Bytes'),
          q('all', 'SampleCount'),
        ],
      }),
    );
    const r = byId(res.MetricDataResults);
    expect(r.n).toEqual([[-60, 8]]);
    expect(r.sum).toEqual([[-60, 116]]);
    expect(r.max).toEqual([[-60, 40]]);
    // Percentiles use raw values only (a StatisticSet has no distribution): 1,1,5,9 → p50 = 1.
    expect(r.p50).toEqual([[-60, 1]]);
    expect(r.all).toEqual([[-60, 9]]);
  });

  it('compresses large PutMetricData bodies with gzip (the SDK does above 10 KiB) and stores every datum', async () => {
    h.exchanges.length = 0;
    const data = Array.from({ length: 400 }, (_, i) => ({
      MetricName: 'bulk',
      Dimensions: [{ Name: 'Shard', Value: `shard-${i}` }],
      Value: i,
      Timestamp: new Date(T - 30_000),
    }));
    await h.client.send(new PutMetricDataCommand({ Namespace: 'Bulk', MetricData: data }));
    expect(h.exchanges[0]?.requestHeaders['content-encoding']).toBe('gzip');
    const listed = await h.client.send(
      new ListMetricsCommand({ Namespace: 'Bulk', Dimensions: [{ Name: 'Shard', Value: 'shard-399' }] }),
    );
    expect(listed.Metrics).toEqual([
      { Namespace: 'Bulk', MetricName: 'bulk', Dimensions: [{ Name: 'Shard', Value: 'shard-399' }] },
    ]);
    const all = await h.client.send(
      new ListMetricsCommand({ Namespace: 'Bulk', Dimensions: [{ Name: 'Shard' }] }),
    );
    expect(all.Metrics).toHaveLength(400);
  });

  it('rejects bad PutMetricData input with the modeled error codes and stores nothing from that request', async () => {
    const put = (d: MetricDatum, ns = 'Bad') =>
      h.client
        .send(
          new PutMetricDataCommand({
            Namespace: ns,
            MetricData: [{ MetricName: 'ok', Value: 1, Timestamp: new Date(T) }, d],
          }),
        )
        .catch((e: Error) => e);
    const cases: Array<[MetricDatum, string, string, RegExp]> = [
      [
        { MetricName: 'm', Value: 1, Values: [1] },
        'Bad',
        'InvalidParameterCombinationException',
        /mutually exclusive/,
      ],
      [{ MetricName: 'm' }, 'Bad', 'MissingRequiredParameterException', /must be given/],
      [
        { MetricName: 'm', Value: 1, Timestamp: new Date(T - 15 * 24 * 3600 * 1000) },
        'Bad',
        'InvalidParameterValueException',
        /two weeks/,
      ],
      [
        { MetricName: 'm', Value: 1, Timestamp: new Date(T + 3 * 3600 * 1000) },
        'Bad',
        'InvalidParameterValueException',
        /two hours/,
      ],
      [
        { MetricName: 'm', Values: [1, 2], Counts: [1] },
        'Bad',
        'InvalidParameterValueException',
        /must match/,
      ],
      [
        { MetricName: 'm', Value: 1, StorageResolution: 5 },
        'Bad',
        'InvalidParameterValueException',
        /StorageResolution/,
      ],
      [
        { MetricName: 'm', Value: 1 },
        'AWS/EC2',
        'InvalidParameterValueException',
        /AWS\/ prefix is reserved/,
      ],
    ];
    for (const [datum, ns, name, message] of cases) {
      const err = await put(datum, ns);
      expect([name, (err as Error).name, (err as Error).message]).toEqual([
        name,
        name,
        expect.stringMatching(message),
      ]);
    }
    const listed = await h.client.send(new ListMetricsCommand({ Namespace: 'Bad' }));
    expect(listed.Metrics).toEqual([]);
  });

  it('describes alarms by names, prefix and state, paging with MaxRecords and NextToken', async () => {
    for (const name of ['page-a', 'page-b', 'page-c', 'other']) {
      await h.client.send(
        new PutMetricAlarmCommand({
          AlarmName: name,
          Namespace: 'Shop',
          MetricName: 'latency',
          Dimensions: dims,
          Statistic: 'Average',
          Period: 60,
          EvaluationPeriods: 1,
          Threshold: 1e9,
          ComparisonOperator: 'GreaterThanThreshold',
        }),
      );
    }
    await h.client.send(
      new SetAlarmStateCommand({ AlarmName: 'page-b', StateValue: 'ALARM', StateReason: 'manual' }),
    );
    const names: string[] = [];
    let token: string | undefined;
    do {
      const page = await h.client.send(
        new DescribeAlarmsCommand({ AlarmNamePrefix: 'page-', MaxRecords: 2, NextToken: token }),
      );
      names.push(...(page.MetricAlarms ?? []).map((a) => a.AlarmName as string));
      token = page.NextToken;
    } while (token);
    expect(names).toEqual(['page-a', 'page-b', 'page-c']);
    const alarming = await h.client.send(new DescribeAlarmsCommand({ StateValue: 'ALARM' }));
    expect(alarming.MetricAlarms?.map((a) => a.AlarmName)).toEqual(['page-b']);
    const named = await h.client.send(new DescribeAlarmsCommand({ AlarmNames: ['other', 'missing'] }));
    expect(named.MetricAlarms?.map((a) => [a.AlarmName, a.AlarmArn])).toEqual([
      ['other', 'arn:aws:cloudwatch:us-east-1:123456789012:alarm:other'],
    ]);
    const composite = await h.client.send(new DescribeAlarmsCommand({ AlarmTypes: ['CompositeAlarm'] }));
    expect(composite.MetricAlarms).toEqual([]);
    const err = await h.client
      .send(
        new SetAlarmStateCommand({
          AlarmName: 'page-a',
          StateValue: 'OK',
          StateReason: 'x',
          StateReasonData: '{not json',
        }),
      )
      .catch((e: Error) => e);
    expect((err as Error).name).toBe('InvalidFormatFault');
    const missing = await h.client
      .send(new SetAlarmStateCommand({ AlarmName: 'ghost', StateValue: 'OK', StateReason: 'x' }))
      .catch((e: Error) => e);
    expect([
      (missing as Error).name,
      (missing as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode,
    ]).toEqual(['ResourceNotFound', 404]);
  });
});
