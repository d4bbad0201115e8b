/**
 * Where the CloudWatch stand-in had drifted from AWS: GetMetricStatistics (it answered InvalidAction)
 * and Metrics Insights `SELECT` queries in GetMetricData (they failed to parse). Driven through the real
 * JSON 1.0 client and the awsQuery client, every exchange validated against the official model, and
 * GetMetricStatistics compared with moto_server where it is installed.
 */
import {
  CloudWatchClient,
  GetMetricDataCommand,
  GetMetricStatisticsCommand,
  PutMetricDataCommand,
} from '@aws-sdk/client-cloudwatch';
import {
  CloudWatchClient as QueryCloudWatchClient,
  GetMetricStatisticsCommand as QueryGetMetricStatisticsCommand,
} from 'cloudwatch-awsquery-client';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { describeAgainstMoto, sdkConfig, startMotoForContract } from '../helpers/contract.js';
import { cloudWatchClient, startStandIn, type StandInHarness } from './cloudwatch-harness.js';

/** A whole minute, so minute-aligned periods start where the data starts. */
const T = Date.UTC(2026, 3, 1, 9, 0, 0);
const NS = 'Fidelity/Shop';

let h: StandInHarness;
let query: QueryCloudWatchClient;

/** 120 one-second datapoints per host: host a counts 1, 2, 3 …; host b twice that; host c (another AZ) ten times. */
async function seed(client: CloudWatchClient): Promise<void> {
  for (const [host, az, factor] of [
    ['a', 'az1', 1],
    ['b', 'az1', 2],
    ['c', 'az2', 10],
  ] as const) {
    for (let chunk = 0; chunk < 120; chunk += 20)
      await client.send(
        new PutMetricDataCommand({
          Namespace: NS,
          MetricData: Array.from({ length: 20 }, (_, i) => ({
            MetricName: 'Requests',
            Dimensions: [
              { Name: 'Host', Value: host },
              { Name: 'AZ', Value: az },
            ],
            Timestamp: new Date(T + (chunk + i) * 1000),
            Value: (chunk + i + 1) * factor,
            Unit: 'Count',
            StorageResolution: 1,
          })),
        }),
      );
  }
  // A metric with one dimension only: SCHEMA(NS, Host, AZ) must leave it out.
  await client.send(
    new PutMetricDataCommand({
      Namespace: NS,
      MetricData: [
        {
          MetricName: 'Requests',
          Dimensions: [{ Name: 'Host', Value: 'a' }],
          Timestamp: new Date(T),
          Value: 1000,
          StorageResolution: 1,
        },
      ],
    }),
  );
}

beforeAll(async () => {
  h = await startStandIn(T + 10 * 60_000);
  query = new QueryCloudWatchClient(sdkConfig(h.url));
  await seed(h.client);
});

afterAll(async () => {
  query.destroy();
  await h.close();
});

afterEach(() => {
  expect(h.drainProblems()).toEqual([]);
});

const hostA = [
  { Name: 'Host', Value: 'a' },
  { Name: 'AZ', Value: 'az1' },
];

describe('GetMetricStatistics', () => {
  it('answers every statistic per minute over JSON 1.0, oldest first, with the unit', async () => {
    const out = await h.client.send(
      new GetMetricStatisticsCommand({
        Namespace: NS,
        MetricName: 'Requests',
        Dimensions: hostA,
        StartTime: new Date(T),
        EndTime: new Date(T + 120_000),
        Period: 60,
        Statistics: ['Sum', 'Average', 'Minimum', 'Maximum', 'SampleCount'],
      }),
    );
    expect(out.Label).toBe('Requests');
    expect(out.Datapoints).toEqual([
      {
        Timestamp: new Date(T),
        Sum: 1830,
        Average: 30.5,
        Minimum: 1,
        Maximum: 60,
        SampleCount: 60,
        Unit: 'Count',
      },
      {
        Timestamp: new Date(T + 60_000),
        Sum: 5430,
        Average: 90.5,
        Minimum: 61,
        Maximum: 120,
        SampleCount: 60,
        Unit: 'Count',
      },
    ]);
  });

  it('answers percentiles as ExtendedStatistics over awsQuery, as the 3.523.0 client reads them', async () => {
    const out = await query.send(
      new QueryGetMetricStatisticsCommand({
        Namespace: NS,
        MetricName: 'Requests',
        Dimensions: hostA,
        StartTime: new Date(T),
        EndTime: new Date(T + 60_000),
        Period: 60,
        ExtendedStatistics: ['p50', 'p99'],
      }),
    );
    expect(out.Datapoints).toEqual([
      { Timestamp: new Date(T), ExtendedStatistics: { p50: 30, p99: 60 }, Unit: 'Count' },
    ]);
  });

  it('reads high-resolution data in 10 s periods and leaves empty periods out', async () => {
    const out = await h.client.send(
      new GetMetricStatisticsCommand({
        Namespace: NS,
        MetricName: 'Requests',
        Dimensions: hostA,
        StartTime: new Date(T + 100_000),
        EndTime: new Date(T + 140_000),
        Period: 10,
        Statistics: ['Sum'],
      }),
    );
    expect(out.Datapoints?.map((d) => [d.Timestamp?.getTime(), d.Sum])).toEqual([
      [T + 100_000, 1055],
      [T + 110_000, 1155],
    ]);
  });

  it('refuses both statistic kinds at once, neither, a bad period and more than 1,440 datapoints, naming the parameter', async () => {
    const base = {
      Namespace: NS,
      MetricName: 'Requests',
      StartTime: new Date(T),
      EndTime: new Date(T + 60_000),
      Period: 60,
    };
    await expect(
      h.client.send(
        new GetMetricStatisticsCommand({ ...base, Statistics: ['Sum'], ExtendedStatistics: ['p99'] }),
      ),
    ).rejects.toMatchObject({ name: 'InvalidParameterCombinationException' });
    await expect(h.client.send(new GetMetricStatisticsCommand(base))).rejects.toThrow(
      /Statistics or ExtendedStatistics/,
    );
    await expect(
      h.client.send(new GetMetricStatisticsCommand({ ...base, Period: 7, Statistics: ['Sum'] })),
    ).rejects.toThrow(/Period must be 1, 5, 10, 30 or a multiple of 60/);
    await expect(
      h.client.send(
        new GetMetricStatisticsCommand({
          ...base,
          EndTime: new Date(T + 2 * 3600_000),
          Period: 1,
          Statistics: ['Sum'],
        }),
      ),
    ).rejects.toThrow(/exceeds the limit of 1,440/);
  });
});

describe('Metrics Insights SELECT in GetMetricData', () => {
  async function select(expression: string, period = 60) {
    const out = await h.client.send(
      new GetMetricDataCommand({
        StartTime: new Date(T),
        EndTime: new Date(T + 120_000),
        ScanBy: 'TimestampAscending',
        MetricDataQueries: [{ Id: 'q', Expression: expression, Period: period }],
      }),
    );
    return (out.MetricDataResults ?? []).map((r) => ({ id: r.Id, label: r.Label, values: r.Values }));
  }

  it('aggregates a namespace: SUM over every metric of that name', async () => {
    expect(await select(`SELECT SUM(Requests) FROM "${NS}"`)).toEqual([
      { id: 'q', label: 'Requests', values: [1830 * 13 + 1000, 5430 * 13] },
    ]);
  });

  it('takes only metrics with exactly the SCHEMA dimensions, filtered by WHERE', async () => {
    expect(await select(`SELECT MAX(Requests) FROM SCHEMA("${NS}", Host, AZ) WHERE AZ = 'az1'`)).toEqual([
      { id: 'q', label: 'Requests', values: [120, 240] },
    ]);
    expect(
      await select(
        `SELECT COUNT(Requests) FROM SCHEMA("${NS}", Host, AZ) WHERE AZ != 'az1' OR Host LIKE 'b%'`,
      ),
    ).toEqual([{ id: 'q', label: 'Requests', values: [120, 120] }]);
  });

  it('returns one series per GROUP BY value, ordered by ORDER BY … DESC and cut by LIMIT', async () => {
    expect(
      await select(
        `SELECT AVG(Requests) FROM SCHEMA("${NS}", Host, AZ) GROUP BY Host ORDER BY AVG() DESC LIMIT 2`,
      ),
    ).toEqual([
      { id: 'q', label: 'c', values: [305, 905] },
      { id: 'q', label: 'b', values: [61, 181] },
    ]);
  });

  it('answers a query that does not parse with a ValidationError naming the query and the position', async () => {
    await expect(select(`SELECT SUM(Requests) FROM "${NS}" WHERE Host =`)).rejects.toThrow(
      /Metrics Insights query q: expected a quoted value at position \d+/,
    );
    await expect(
      h.client.send(
        new GetMetricDataCommand({
          StartTime: new Date(T),
          EndTime: new Date(T + 60_000),
          MetricDataQueries: [{ Id: 'q', Expression: `SELECT SUM(Requests) FROM "${NS}"` }],
        }),
      ),
    ).rejects.toThrow(/needs a Period/);
  });
});

const moto = await startMotoForContract('cloudwatch-fidelity');

describeAgainstMoto(
  'GetMetricStatistics agrees with moto_server',
  moto,
  { client: cloudWatchClient, standIn: () => startStandIn(Date.now()) },
  (backends) => {
    it('gives the same Sum, SampleCount, Minimum and Maximum for the same data', async () => {
      const now = Math.floor(Date.now() / 60_000) * 60_000 - 5 * 60_000;
      backends.standIn.clock.t = now + 10 * 60_000;
      const [ours, theirs] = await backends.both(async (client) => {
        await client.send(
          new PutMetricDataCommand({
            Namespace: 'Moto/Compare',
            MetricData: [3, 5, 7, 11].map((v, i) => ({
              MetricName: 'Latency',
              Timestamp: new Date(now + i * 10_000),
              Value: v,
              Unit: 'Milliseconds',
            })),
          }),
        );
        const out = await client.send(
          new GetMetricStatisticsCommand({
            Namespace: 'Moto/Compare',
            MetricName: 'Latency',
            StartTime: new Date(now),
            EndTime: new Date(now + 60_000),
            Period: 60,
            Statistics: ['Sum', 'SampleCount', 'Minimum', 'Maximum'],
          }),
        );
        return (out.Datapoints ?? []).map((d) => ({
          Sum: d.Sum,
          SampleCount: d.SampleCount,
          Minimum: d.Minimum,
          Maximum: d.Maximum,
        }));
      });
      expect(ours).toEqual([{ Sum: 26, SampleCount: 4, Minimum: 3, Maximum: 11 }]);
      expect(theirs).toEqual(ours);
    });
  },
);
