/**
 * awsQuery contract: `@aws-sdk/client-cloudwatch@3.523.0` (installed as the dev alias
 * `cloudwatch-awsquery-client`; it is the last line of clients before 3.949.0 that speak awsQuery) and
 * hand-built form requests like the AWS CLI's, against the stand-in, every exchange validated against
 * the model.
 */
import {
  CloudWatchClient as QueryCloudWatchClient,
  DescribeAlarmsCommand,
  GetMetricDataCommand,
  PutMetricAlarmCommand,
  PutMetricDataCommand,
  SetAlarmStateCommand,
  DeleteAlarmsCommand,
} from 'cloudwatch-awsquery-client';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { sdkConfig } from '../helpers/contract.js';
import { startStandIn, type StandInHarness } from './cloudwatch-harness.js';
import { parseXml } from '../helpers/smithy.js';

const T = Date.UTC(2026, 2, 1, 8, 0, 0);

describe('CloudWatch stand-in over awsQuery (form requests, XML replies)', () => {
  let h: StandInHarness;
  let client: QueryCloudWatchClient;
  beforeAll(async () => {
    h = await startStandIn(T);
    client = new QueryCloudWatchClient(sdkConfig(h.url));
  });
  afterAll(async () => {
    client.destroy();
    await h.close();
  });
  afterEach(() => {
    expect(h.drainProblems()).toEqual([]);
  });

  it('the 3.523.0 client really sends awsQuery', async () => {
    await client.send(new DescribeAlarmsCommand({}));
    const ex = h.exchanges[0];
    expect(ex?.protocol).toBe('query');
    expect(ex?.requestHeaders['content-type']).toBe('application/x-www-form-urlencoded');
    expect(ex?.requestBody).toBe('Action=DescribeAlarms&Version=2010-08-01');
    expect(ex?.responseBody).toMatch(
      /^<\?xml version="1.0" encoding="UTF-8"\?>\n<DescribeAlarmsResponse xmlns="http:\/\/monitoring.amazonaws.com\/doc\/2010-08-01\/">/,
    );
  });

  it('puts high-resolution data and reads it back with GetMetricData, timestamps truncated to seconds', async () => {
    await client.send(
      new PutMetricDataCommand({
        Namespace: 'Legacy',
        MetricData: [1, 2, 3, 4].map((v, i) => ({
          MetricName: 'lat',
          Dimensions: [{ Name: 'Host', Value: 'a' }],
          Value: v * 10,
          StorageResolution: 1,
          Timestamp: new Date(T - 4_000 + i * 1000 + 700),
        })),
      }),
    );
    expect(h.exchanges[0]?.requestBody).toContain(
      `MetricData.member.1.Timestamp=${encodeURIComponent(new Date(T - 4_000).toISOString().split('.')[0] + 'Z')}`,
    );
    const res = await client.send(
      new GetMetricDataCommand({
        StartTime: new Date(T - 10_000),
        EndTime: new Date(T),
        MetricDataQueries: [
          {
            Id: 'a',
            MetricStat: {
              Metric: { Namespace: 'Legacy', MetricName: 'lat', Dimensions: [{ Name: 'Host', Value: 'a' }] },
              Period: 1,
              Stat: 'Sum',
            },
          },
          { Id: 'twice', Expression: 'a * 2' },
        ],
      }),
    );
    const [a, twice] = res.MetricDataResults ?? [];
    expect(a?.Timestamps?.map((t) => (t.getTime() - T) / 1000)).toEqual([-1, -2, -3, -4]);
    expect(a?.Values).toEqual([40, 30, 20, 10]);
    expect(twice?.Values).toEqual([80, 60, 40, 20]);
    expect(a?.StatusCode).toBe('Complete');
  });

  it('creates, describes, overrides and deletes an alarm; errors come back as XML ErrorResponse', async () => {
    await client.send(
      new PutMetricAlarmCommand({
        AlarmName: 'legacy-alarm',
        Namespace: 'Legacy',
        MetricName: 'lat',
        Dimensions: [{ Name: 'Host', Value: 'a' }],
        ExtendedStatistic: 'p99',
        Period: 10,
        EvaluationPeriods: 3,
        DatapointsToAlarm: 2,
        Threshold: 25,
        ComparisonOperator: 'GreaterThanThreshold',
        TreatMissingData: 'notBreaching',
        AlarmActions: ['arn:aws:sns:us-east-1:123456789012:pager'],
      }),
    );
    h.cw.evaluate(T + 10_000);
    const [alarm] =
      (await client.send(new DescribeAlarmsCommand({ AlarmNames: ['legacy-alarm'] }))).MetricAlarms ?? [];
    // Periods 07:59:50 holds 10, 20, 30, 40 → p99 40 > 25; 2 filled NonBreaching; 1 of 3 < 2 → OK.
    expect(alarm).toMatchObject({
      AlarmName: 'legacy-alarm',
      StateValue: 'OK',
      Period: 10,
      ExtendedStatistic: 'p99',
      AlarmActions: ['arn:aws:sns:us-east-1:123456789012:pager'],
    });
    expect(alarm?.StateUpdatedTimestamp?.getTime()).toBe(T + 10_000);
    await client.send(
      new SetAlarmStateCommand({
        AlarmName: 'legacy-alarm',
        StateValue: 'ALARM',
        StateReason: 'drill',
        StateReasonData: '{"drill":true}',
      }),
    );
    const [after] =
      (await client.send(new DescribeAlarmsCommand({ StateValue: 'ALARM' }))).MetricAlarms ?? [];
    expect([after?.AlarmName, after?.StateReason, after?.StateReasonData]).toEqual([
      'legacy-alarm',
      'drill',
      '{"drill":true}',
    ]);
    const err = await client
      .send(new SetAlarmStateCommand({ AlarmName: 'nobody', StateValue: 'OK', StateReason: 'x' }))
      .catch((e: Error) => e);
    expect([
      (err as Error).name,
      (err as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode,
    ]).toEqual(['ResourceNotFound', 404]);
    const bad = await client
      .send(
        new PutMetricAlarmCommand({
          AlarmName: 'x',
          Namespace: 'L',
          MetricName: 'm',
          Statistic: 'Sum',
          Period: 7,
          EvaluationPeriods: 1,
          Threshold: 1,
          ComparisonOperator: 'GreaterThanThreshold',
        }),
      )
      .catch((e: Error) => e);
    expect((bad as Error).name).toBe('ValidationError');
    await client.send(new DeleteAlarmsCommand({ AlarmNames: ['legacy-alarm'] }));
    expect(h.cw.alarmState('legacy-alarm')).toBeUndefined();
  });

  it('answers hand-built AWS CLI style form requests, including empty lists and URL query parameters', async () => {
    const post = async (form: Record<string, string>, query = '') => {
      const res = await fetch(`${h.url}/${query}`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded; charset=utf-8' },
        body: new URLSearchParams(form).toString(),
      });
      return { status: res.status, xml: parseXml(await res.text()) };
    };
    const put = await post({
      Action: 'PutMetricData',
      Version: '2010-08-01',
      Namespace: 'Cli',
      'MetricData.member.1.MetricName': 'hits',
      'MetricData.member.1.StatisticValues.SampleCount': '3',
      'MetricData.member.1.StatisticValues.Sum': '9',
      'MetricData.member.1.StatisticValues.Minimum': '1',
      'MetricData.member.1.StatisticValues.Maximum': '5',
      'MetricData.member.1.Timestamp': new Date(T - 30_000).toISOString(),
      'MetricData.member.1.Unit': 'Count',
    });
    expect(put.status).toBe(200);
    expect(put.xml.name).toBe('PutMetricDataResponse');
    const get = await post({
      Action: 'GetMetricData',
      Version: '2010-08-01',
      StartTime: new Date(T - 60_000).toISOString(),
      EndTime: new Date(T).toISOString(),
      'MetricDataQueries.member.1.Id': 'avg',
      'MetricDataQueries.member.1.MetricStat.Metric.Namespace': 'Cli',
      'MetricDataQueries.member.1.MetricStat.Metric.MetricName': 'hits',
      'MetricDataQueries.member.1.MetricStat.Period': '60',
      'MetricDataQueries.member.1.MetricStat.Stat': 'Average',
    });
    const result = get.xml.children[0]?.children[0]?.children[0];
    const field = (n: string) => result?.children.find((c) => c.name === n);
    expect(field('Values')?.children.map((c) => c.text)).toEqual(['3']);
    expect(field('Timestamps')?.children.map((c) => c.text)).toEqual([new Date(T - 60_000).toISOString()]);
    const del = await post({ Action: 'DeleteAlarms', Version: '2010-08-01', AlarmNames: '' });
    expect(del.status).toBe(200);
    const viaQuery = await post({ Version: '2010-08-01' }, '?Action=DescribeAlarms&StateValue=ALARM');
    expect(viaQuery.xml.name).toBe('DescribeAlarmsResponse');
    const unknown = await post({ Action: 'DescribeAnomalyDetectors', Version: '2010-08-01' });
    expect(unknown.status).toBe(400);
    expect(unknown.xml.children[0]?.children.find((c) => c.name === 'Code')?.text).toBe('InvalidAction');
  });
});
