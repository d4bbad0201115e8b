/**
 * chaos-gate's own CloudWatch alarms: the lease (dead-man's switch) and the kill switch. Both are stop
 * conditions of every template chaos-gate provisions, so FIS itself stops an experiment when the runner
 * dies or someone pulls the switch — no command has to reach FIS from a dead runner.
 */
import {
  DescribeAlarmsCommand,
  PutMetricAlarmCommand,
  PutMetricDataCommand,
  SetAlarmStateCommand,
  type CloudWatchClient,
  type MetricAlarm,
} from '@aws-sdk/client-cloudwatch';
import type { Lease } from '../injector.js';

export const NAMESPACE = 'ChaosGate';
export const LEASE_METRIC = 'LeaseHeartbeat';
export const KILL_METRIC = 'KillSwitch';
export const KILL_SWITCH_ALARM = 'chaos-gate-kill-switch';
/** SPEC §6.3: a heartbeat every 5 s; the alarm looks at 10 s periods. */
export const LEASE_BEAT_MS = 5_000;
export const LEASE_PERIOD_S = 10;
/**
 * Two of two 10 s periods without a heartbeat trip the alarm: the runner's death is seen 20–30 s later
 * (SPEC §6.3 target ≤ 30 s), and one lost beat (of two per period) never trips it. With 2-of-2 the alarm
 * turns OK after the first period with a beat, so a run does not wait 20 s for a 2-of-3 alarm to clear.
 */
export const LEASE_EVALUATION_PERIODS = 2;
export const LEASE_DATAPOINTS_TO_ALARM = 2;

export function leaseAlarmName(planId: string): string {
  return `chaos-gate-lease-${planId}`;
}

async function describe(cw: CloudWatchClient, names: string[]): Promise<MetricAlarm[]> {
  const out = await cw.send(new DescribeAlarmsCommand({ AlarmNames: names, AlarmTypes: ['MetricAlarm'] }));
  return out.MetricAlarms ?? [];
}

/** Creates the lease alarm when missing (never rewrites a live one: PutMetricAlarm keeps state, but be explicit). */
export async function ensureLeaseAlarm(cw: CloudWatchClient, planId: string): Promise<MetricAlarm> {
  const name = leaseAlarmName(planId);
  const existing = (await describe(cw, [name]))[0];
  const wanted = {
    AlarmName: name,
    AlarmDescription: `chaos-gate lease for plan ${planId}: ALARM when the runner stops sending heartbeats; a stop condition of the plan's FIS template`,
    Namespace: NAMESPACE,
    MetricName: LEASE_METRIC,
    Dimensions: [{ Name: 'Plan', Value: planId }],
    Statistic: 'SampleCount' as const,
    Period: LEASE_PERIOD_S,
    EvaluationPeriods: LEASE_EVALUATION_PERIODS,
    DatapointsToAlarm: LEASE_DATAPOINTS_TO_ALARM,
    Threshold: 1,
    ComparisonOperator: 'LessThanThreshold' as const,
    TreatMissingData: 'breaching',
  };
  const same =
    existing &&
    existing.Period === wanted.Period &&
    existing.EvaluationPeriods === wanted.EvaluationPeriods &&
    existing.DatapointsToAlarm === wanted.DatapointsToAlarm &&
    existing.TreatMissingData === wanted.TreatMissingData &&
    existing.MetricName === wanted.MetricName;
  if (!same) await cw.send(new PutMetricAlarmCommand(wanted));
  const alarm = (await describe(cw, [name]))[0];
  if (!alarm?.AlarmArn)
    throw new Error(`CloudWatch did not return the lease alarm ${name} after PutMetricAlarm`);
  return alarm;
}

/** Creates the kill-switch alarm when missing, disengaged (OK). */
export async function ensureKillSwitchAlarm(cw: CloudWatchClient): Promise<MetricAlarm> {
  let alarm = (await describe(cw, [KILL_SWITCH_ALARM]))[0];
  if (!alarm) {
    await cw.send(
      new PutMetricAlarmCommand({
        AlarmName: KILL_SWITCH_ALARM,
        AlarmDescription:
          'chaos-gate kill switch: ALARM stops every chaos-gate experiment (a stop condition of each template) and makes new runs refuse. Engage with `chaos-gate kill`, release with `chaos-gate kill --release`.',
        Namespace: NAMESPACE,
        MetricName: KILL_METRIC,
        Statistic: 'Maximum',
        Period: 60,
        EvaluationPeriods: 1,
        Threshold: 1,
        ComparisonOperator: 'GreaterThanOrEqualToThreshold',
        // Missing data keeps the last state: an engaged switch stays engaged until released.
        TreatMissingData: 'ignore',
      }),
    );
    await cw.send(
      new PutMetricDataCommand({ Namespace: NAMESPACE, MetricData: [{ MetricName: KILL_METRIC, Value: 0 }] }),
    );
    await cw.send(
      new SetAlarmStateCommand({
        AlarmName: KILL_SWITCH_ALARM,
        StateValue: 'OK',
        StateReason: 'chaos-gate created the kill switch disengaged',
      }),
    );
    alarm = (await describe(cw, [KILL_SWITCH_ALARM]))[0];
  }
  if (!alarm?.AlarmArn)
    throw new Error(`CloudWatch did not return the kill-switch alarm ${KILL_SWITCH_ALARM}`);
  return alarm;
}

/** Current state of alarms by name or ARN-derived name. */
export async function alarmStates(cw: CloudWatchClient, names: string[]): Promise<Map<string, MetricAlarm>> {
  const map = new Map<string, MetricAlarm>();
  for (let i = 0; i < names.length; i += 100) {
    for (const a of await describe(cw, names.slice(i, i + 100))) if (a.AlarmName) map.set(a.AlarmName, a);
  }
  return map;
}

/** Alarm name from an alarm ARN (`arn:aws:cloudwatch:region:acct:alarm:NAME`). */
export function alarmNameFromArn(arn: string): string {
  const i = arn.indexOf(':alarm:');
  return i >= 0 ? arn.slice(i + ':alarm:'.length) : arn;
}

/** The lease: one high-resolution heartbeat datapoint per beat. */
export class CloudWatchLease implements Lease {
  readonly intervalMs = LEASE_BEAT_MS;
  constructor(
    private readonly cw: CloudWatchClient,
    private readonly planId: string,
  ) {}

  async beat(): Promise<void> {
    await this.cw.send(
      new PutMetricDataCommand({
        Namespace: NAMESPACE,
        MetricData: [
          {
            MetricName: LEASE_METRIC,
            Dimensions: [{ Name: 'Plan', Value: this.planId }],
            Value: 1,
            StorageResolution: 1,
          },
        ],
      }),
    );
  }
}
