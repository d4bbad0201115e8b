/**
 * chaos-gate's own CloudWatch alarms: the lease (dead-man's switch) and the kill switch. Both are stop
 * conditions of every template chaos-gate provisions, so FIS itself stops an experiment when the runner
 * dies or someone pulls the switch — no command has to reach FIS from a dead runner.
 */
import {
  DeleteAlarmsCommand,
  DescribeAlarmsCommand,
  PutMetricAlarmCommand,
  PutMetricDataCommand,
  SetAlarmStateCommand,
  type CloudWatchClient,
  type MetricAlarm,
} from '@aws-sdk/client-cloudwatch';
import type { Lease } from '../injector.js';
import { DEADLINES, sendWithin } from '../../net/deadline.js';

export const NAMESPACE = 'ChaosGate';
export const LEASE_METRIC = 'LeaseHeartbeat';
export const KILL_METRIC = 'KillSwitch';
export const KILL_SWITCH_ALARM = 'chaos-gate-kill-switch';
/** docs/design/run.md#the-lease: a heartbeat every 5 s; the alarm looks at 10 s periods. */
export const LEASE_BEAT_MS = 5_000;
export const LEASE_PERIOD_S = 10;
/**
 * One 10 s period without a heartbeat trips the alarm. The alarm turns ALARM at the end of the first
 * whole period after the last beat, i.e. 10–20 s after it, so a SIGKILLed runner's fault stops 5–20 s
 * after the kill plus FIS's polling (docs/design/run.md#the-lease target ≤ 30 s). Two of two periods was the first choice,
 * but its worst case is 30 s before FIS even polls (measured 28.7 s in the sandbox). With a beat every
 * 5 s, a period is empty only after more than 10 s of silence: a single lost beat empties one only when
 * the beats around it straddle a period boundary within their timing jitter.
 */
export const LEASE_EVALUATION_PERIODS = 1;
export const LEASE_DATAPOINTS_TO_ALARM = 1;
/**
 * The alarm evaluates `FILL(beats, 0)`, not the raw metric. CloudWatch fetches an evaluation range longer
 * than EvaluationPeriods and, when that range still holds EvaluationPeriods real datapoints, evaluates the
 * most recent real ones and ignores TreatMissingData (CW-alarms, "How alarm state is evaluated when data
 * is missing"). A plain heartbeat alarm therefore stays OK on old beats until the silence covers most of
 * the range — measured at ~39 s in the sandbox. Filling the silent periods with 0 makes them datapoints
 * that breach at once.
 */
export const LEASE_EXPRESSION = 'FILL(beats, 0)';

/** Every lease alarm's name starts so; the rest names the plan and, for a run's own lease, the run. */
export const LEASE_ALARM_PREFIX = 'chaos-gate-lease-';

/**
 * The lease alarm of one run: `chaos-gate-lease-<plan>-<run key>`. The run key is unique per run (a
 * per-process nonce, see compose/run.ts): two runners of one plan — a matrix job, two pull requests —
 * each beat and watch their own alarm, so a live runner can never keep a dead one's lease alive.
 * Without a run key (tests of the alarm itself) the name is the plan's alone.
 */
export function leaseAlarmName(planId: string, runKey?: string): string {
  return runKey ? `${LEASE_ALARM_PREFIX}${planId}-${runKey}` : `${LEASE_ALARM_PREFIX}${planId}`;
}

/** The heartbeat metric's dimensions: the plan, and the run when the lease is the run's own. */
function leaseDimensions(planId: string, runKey?: string): { Name: string; Value: string }[] {
  return runKey
    ? [
        { Name: 'Plan', Value: planId },
        { Name: 'Run', Value: runKey },
      ]
    : [{ Name: 'Plan', Value: planId }];
}

/** Deletes this run's own lease alarm (DeleteAlarms names it exactly; never another run's). */
export async function deleteLeaseAlarm(
  cw: CloudWatchClient,
  planId: string,
  runKey: string,
  signal?: AbortSignal,
): Promise<void> {
  await sendWithin(
    cw,
    new DeleteAlarmsCommand({ AlarmNames: [leaseAlarmName(planId, runKey)] }),
    DEADLINES.cloudwatchOther,
    "CloudWatch DeleteAlarms (the run's lease alarm)",
    signal,
  );
}

/*
 * Every CloudWatch call below has a deadline (src/net/deadline.ts, DEADLINES) and honours the caller's
 * signal: a CloudWatch that does not answer fails the call with a DeadlineError, never holds the run.
 */

async function describe(cw: CloudWatchClient, names: string[], signal?: AbortSignal): Promise<MetricAlarm[]> {
  const out = await sendWithin(
    cw,
    new DescribeAlarmsCommand({ AlarmNames: names, AlarmTypes: ['MetricAlarm'] }),
    DEADLINES.cloudwatchDescribeAlarms,
    'CloudWatch DescribeAlarms',
    signal,
  );
  return out.MetricAlarms ?? [];
}

/** Creates the lease alarm when missing (never rewrites a live one: PutMetricAlarm keeps state, but be explicit). */
export async function ensureLeaseAlarm(
  cw: CloudWatchClient,
  planId: string,
  signal?: AbortSignal,
  runKey?: string,
  known?: { existing: MetricAlarm | undefined; arnPrefix: string | undefined },
): Promise<MetricAlarm> {
  const name = leaseAlarmName(planId, runKey);
  const existing = known ? known.existing : (await describe(cw, [name], signal))[0];
  const wanted = {
    AlarmName: name,
    AlarmDescription: `chaos-gate lease for plan ${planId}${runKey ? ` run ${runKey}` : ''}: ALARM when the runner stops sending heartbeats; the stop condition of the run's FIS experiment`,
    Metrics: [
      {
        Id: 'beats',
        MetricStat: {
          Metric: {
            Namespace: NAMESPACE,
            MetricName: LEASE_METRIC,
            Dimensions: leaseDimensions(planId, runKey),
          },
          Period: LEASE_PERIOD_S,
          Stat: 'SampleCount',
        },
        ReturnData: false,
      },
      { Id: 'lease', Expression: LEASE_EXPRESSION, Label: 'heartbeats per period', ReturnData: true },
    ],
    EvaluationPeriods: LEASE_EVALUATION_PERIODS,
    DatapointsToAlarm: LEASE_DATAPOINTS_TO_ALARM,
    Threshold: 1,
    ComparisonOperator: 'LessThanThreshold' as const,
    // Should the expression return nothing at all (no series yet), missing still means a dead runner.
    TreatMissingData: 'breaching',
  };
  const same =
    existing &&
    existing.EvaluationPeriods === wanted.EvaluationPeriods &&
    existing.DatapointsToAlarm === wanted.DatapointsToAlarm &&
    existing.TreatMissingData === wanted.TreatMissingData &&
    existing.Metrics?.some((m) => m.Expression === LEASE_EXPRESSION) === true &&
    existing.Metrics?.some((m) => m.MetricStat?.Period === LEASE_PERIOD_S) === true;
  if (same) return existing;
  await sendWithin(
    cw,
    new PutMetricAlarmCommand(wanted),
    DEADLINES.cloudwatchOther,
    'CloudWatch PutMetricAlarm',
    signal,
  );
  // An alarm's ARN is its account's alarm prefix and its name: known from another alarm of the account,
  // it needs no second DescribeAlarms (an account quota of 9 TPS every run's start draws on).
  if (known?.arnPrefix) return { AlarmName: name, AlarmArn: `${known.arnPrefix}${name}` };
  const alarm = (await describe(cw, [name], signal))[0];
  if (!alarm?.AlarmArn)
    throw new Error(`CloudWatch did not return the lease alarm ${name} after PutMetricAlarm`);
  return alarm;
}

/**
 * Creates the kill-switch alarm when missing, disengaged (OK). The switch is the alarm's state, set with
 * SetAlarmState: its metric is never published and missing data keeps the current state, so no
 * evaluation can flip it. (An earlier design published 1/0 datapoints; a 1 still inside the 60 s period
 * re-raised the alarm right after `kill --release`, and would have stopped the next run mid-fault.)
 */
export async function ensureKillSwitchAlarm(
  cw: CloudWatchClient,
  signal?: AbortSignal,
): Promise<MetricAlarm> {
  let alarm = (await describe(cw, [KILL_SWITCH_ALARM], signal))[0];
  if (!alarm) {
    await sendWithin(
      cw,
      new PutMetricAlarmCommand({
        AlarmName: KILL_SWITCH_ALARM,
        AlarmDescription:
          'chaos-gate kill switch: ALARM stops every chaos-gate experiment (a stop condition of each template) and makes new runs refuse. Engage with `chaos-gate kill`, release with `chaos-gate kill --release`. Its metric is never published: the state is the switch.',
        Namespace: NAMESPACE,
        MetricName: KILL_METRIC,
        Statistic: 'Maximum',
        Period: 60,
        EvaluationPeriods: 1,
        Threshold: 1,
        ComparisonOperator: 'GreaterThanOrEqualToThreshold',
        // Missing data keeps the last state: an engaged switch stays engaged until released, and back.
        TreatMissingData: 'ignore',
      }),
      DEADLINES.cloudwatchOther,
      'CloudWatch PutMetricAlarm',
      signal,
    );
    await sendWithin(
      cw,
      new SetAlarmStateCommand({
        AlarmName: KILL_SWITCH_ALARM,
        StateValue: 'OK',
        StateReason: 'chaos-gate created the kill switch disengaged',
      }),
      DEADLINES.cloudwatchSetAlarmState,
      'CloudWatch SetAlarmState',
      signal,
    );
    alarm = (await describe(cw, [KILL_SWITCH_ALARM], signal))[0];
  }
  if (!alarm?.AlarmArn)
    throw new Error(`CloudWatch did not return the kill-switch alarm ${KILL_SWITCH_ALARM}`);
  return alarm;
}

/**
 * The run's two alarms with one DescribeAlarms for both: the kill switch (created disengaged when
 * missing) and the run's lease (created when missing; its ARN derived from the kill switch's).
 */
export async function ensureRunAlarms(
  cw: CloudWatchClient,
  planId: string,
  runKey: string | undefined,
  signal?: AbortSignal,
): Promise<{ lease: MetricAlarm; kill: MetricAlarm }> {
  const leaseName = leaseAlarmName(planId, runKey);
  const found = await describe(cw, [KILL_SWITCH_ALARM, leaseName], signal);
  const killFound = found.find((a) => a.AlarmName === KILL_SWITCH_ALARM);
  const kill = killFound?.AlarmArn ? killFound : await ensureKillSwitchAlarm(cw, signal);
  const arn = kill.AlarmArn ?? '';
  const at = arn.indexOf(':alarm:');
  const lease = await ensureLeaseAlarm(cw, planId, signal, runKey, {
    existing: found.find((a) => a.AlarmName === leaseName),
    arnPrefix: at >= 0 ? arn.slice(0, at + ':alarm:'.length) : undefined,
  });
  return { lease, kill };
}

/** What chaos-gate reads of an alarm's state, metric or composite. */
export interface AlarmStateRead {
  AlarmName?: string | undefined;
  AlarmArn?: string | undefined;
  StateValue?: string | undefined;
  StateReason?: string | undefined;
}

/**
 * Current state of alarms by name, metric and composite alike (DescribeAlarms with both AlarmTypes), in
 * batches of 100 names (the AlarmNames limit), every page of each batch, each call under its deadline.
 */
export async function alarmStates(
  cw: CloudWatchClient,
  names: string[],
  signal?: AbortSignal,
): Promise<Map<string, AlarmStateRead>> {
  const map = new Map<string, AlarmStateRead>();
  for (let i = 0; i < names.length; i += 100) {
    let token: string | undefined;
    do {
      const out = await sendWithin(
        cw,
        new DescribeAlarmsCommand({
          AlarmNames: names.slice(i, i + 100),
          AlarmTypes: ['MetricAlarm', 'CompositeAlarm'],
          MaxRecords: 100,
          NextToken: token,
        }),
        DEADLINES.cloudwatchDescribeAlarms,
        'CloudWatch DescribeAlarms',
        signal,
      );
      for (const a of [...(out.MetricAlarms ?? []), ...(out.CompositeAlarms ?? [])])
        if (a.AlarmName) map.set(a.AlarmName, a);
      token = out.NextToken;
    } while (token);
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
    private readonly runKey?: string,
  ) {}

  /**
   * One heartbeat within `DEADLINES.cloudwatchHeartbeat` (3 s, under the 5 s cadence): a beat that has
   * not landed by then is abandoned with a DeadlineError rather than delaying the next one.
   */
  async beat(signal?: AbortSignal): Promise<void> {
    await sendWithin(
      this.cw,
      new PutMetricDataCommand({
        Namespace: NAMESPACE,
        MetricData: [
          {
            MetricName: LEASE_METRIC,
            Dimensions: leaseDimensions(this.planId, this.runKey),
            Value: 1,
            StorageResolution: 1,
          },
        ],
      }),
      DEADLINES.cloudwatchHeartbeat,
      'CloudWatch PutMetricData (lease heartbeat)',
      signal,
    );
  }

  /**
   * Forces the lease alarm to ALARM: FIS treats it like any ALARM transition of a stop condition
   * (docs/design/fis.md#stop-conditions) and stops the experiment. The forced state lasts only until the alarm's next
   * evaluation, which is why the engine stops beating first and re-asserts it until the stop is seen.
   */
  async trip(reason: string, signal?: AbortSignal): Promise<void> {
    await sendWithin(
      this.cw,
      new SetAlarmStateCommand({
        AlarmName: leaseAlarmName(this.planId, this.runKey),
        StateValue: 'ALARM',
        // StateReason is at most 1023 characters (CloudWatch model).
        StateReason: `chaos-gate tripped its lease: ${reason}`.slice(0, 1023),
      }),
      DEADLINES.cloudwatchSetAlarmState,
      'CloudWatch SetAlarmState (lease trip)',
      signal,
    );
  }
}
