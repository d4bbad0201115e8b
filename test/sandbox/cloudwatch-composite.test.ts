/**
 * Composite alarms in the CloudWatch stand-in, through the real SDK, every exchange checked against the
 * official model: PutCompositeAlarm's rule language (ALARM/OK/INSUFFICIENT_DATA, AND/OR/NOT, TRUE/FALSE,
 * quoted or bare names), the state following the rule as its alarms change, DescribeAlarms listing them
 * only when AlarmTypes asks, and the documented refusals (a rule naming an alarm that does not exist).
 */
import {
  DeleteAlarmsCommand,
  DescribeAlarmsCommand,
  PutCompositeAlarmCommand,
  PutMetricAlarmCommand,
  SetAlarmStateCommand,
} from '@aws-sdk/client-cloudwatch';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { parseAlarmRule, ruleAlarms } from '../../src/sandbox/cloudwatch/composite.js';
import { startStandIn, type StandInHarness } from './cloudwatch-harness.js';

const T = Date.UTC(2026, 1, 1, 10, 0, 0);

describe('CloudWatch stand-in composite alarms', () => {
  let h: StandInHarness;
  beforeAll(async () => {
    h = await startStandIn(T);
    for (const name of ['cpu-high', 'disk-high', 'deploying'])
      await h.client.send(
        new PutMetricAlarmCommand({
          AlarmName: name,
          Namespace: 'Shop',
          MetricName: name,
          Statistic: 'Sum',
          Period: 60,
          EvaluationPeriods: 1,
          Threshold: 1,
          ComparisonOperator: 'GreaterThanThreshold',
        }),
      );
  });
  afterAll(async () => h.close());
  afterEach(() => {
    expect(h.drainProblems()).toEqual([]);
  });

  const set = (name: string, state: 'OK' | 'ALARM') =>
    h.client.send(new SetAlarmStateCommand({ AlarmName: name, StateValue: state, StateReason: 'test' }));
  const composite = async (name: string) =>
    (await h.client.send(new DescribeAlarmsCommand({ AlarmNames: [name], AlarmTypes: ['CompositeAlarm'] })))
      .CompositeAlarms?.[0];

  it('parses the rule language of the API reference, names quoted or bare', () => {
    const rule = parseAlarmRule('(ALARM("cpu-high") OR ALARM(disk-high)) AND NOT ALARM(deploying) OR FALSE');
    expect(ruleAlarms(rule)).toEqual(['cpu-high', 'disk-high', 'deploying']);
    expect(() => parseAlarmRule('ALARM(cpu-high) AND')).toThrow(/unknown term/);
    expect(() => parseAlarmRule('ALARMS(cpu-high)')).toThrow(/unknown term 'ALARMS'/);
    expect(() => parseAlarmRule('ALARM("cpu-high)')).toThrow(/unclosed quote/);
  });

  it('follows its rule as the alarms it names change, and FIS-style listeners hear the transition', async () => {
    const heard: string[] = [];
    h.cw.onAlarmChange((c) => heard.push(`${c.name}:${c.state}`));
    await set('cpu-high', 'OK');
    await set('disk-high', 'OK');
    await set('deploying', 'OK');
    await h.client.send(
      new PutCompositeAlarmCommand({
        AlarmName: 'checkout-degraded',
        AlarmRule: '(ALARM("cpu-high") OR ALARM(disk-high)) AND NOT ALARM("deploying")',
      }),
    );
    expect((await composite('checkout-degraded'))?.StateValue).toBe('OK');
    await set('disk-high', 'ALARM');
    const alarmed = await composite('checkout-degraded');
    expect(alarmed).toMatchObject({
      AlarmName: 'checkout-degraded',
      AlarmArn: 'arn:aws:cloudwatch:us-east-1:123456789012:alarm:checkout-degraded',
      StateValue: 'ALARM',
      AlarmRule: '(ALARM("cpu-high") OR ALARM(disk-high)) AND NOT ALARM("deploying")',
    });
    expect(h.cw.alarmState(alarmed?.AlarmArn ?? '')).toBe('ALARM');
    expect(heard).toContain('checkout-degraded:ALARM');
    await set('deploying', 'ALARM');
    expect((await composite('checkout-degraded'))?.StateValue).toBe('OK');
  });

  it('is listed only when AlarmTypes asks for composite alarms', async () => {
    const metricOnly = await h.client.send(new DescribeAlarmsCommand({ AlarmNames: ['checkout-degraded'] }));
    expect(metricOnly.CompositeAlarms).toEqual([]);
    const both = await h.client.send(
      new DescribeAlarmsCommand({
        AlarmNames: ['cpu-high', 'checkout-degraded'],
        AlarmTypes: ['MetricAlarm', 'CompositeAlarm'],
      }),
    );
    expect(both.MetricAlarms?.map((a) => a.AlarmName)).toEqual(['cpu-high']);
    expect(both.CompositeAlarms?.map((a) => a.AlarmName)).toEqual(['checkout-degraded']);
  });

  it('refuses a rule naming an alarm that does not exist, or one that does not parse', async () => {
    const missing = await h.client
      .send(new PutCompositeAlarmCommand({ AlarmName: 'c2', AlarmRule: 'ALARM(ghost) OR ALARM(cpu-high)' }))
      .catch((e: Error) => e);
    expect((missing as Error).message).toMatch(/alarms \[ghost\] in the alarm rule do not exist/);
    const bad = await h.client
      .send(new PutCompositeAlarmCommand({ AlarmName: 'c3', AlarmRule: 'ALARM(cpu-high) XOR TRUE' }))
      .catch((e: Error) => e);
    expect((bad as Error).message).toMatch(/AlarmRule is not valid/);
    await h.client.send(new DeleteAlarmsCommand({ AlarmNames: ['checkout-degraded'] }));
    expect(await composite('checkout-degraded')).toBeUndefined();
  });
});
