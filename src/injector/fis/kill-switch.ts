/**
 * `chaos-gate kill`: stop every running chaos-gate experiment in the account/Region, force the kill-switch
 * alarm (a stop condition of every chaos-gate template) to ALARM, engage the FIS safety lever where the
 * endpoint has one, and make later starts refuse until `--release`. Deliberately small: it needs only
 * fis:ListExperiments, fis:StopExperiment, cloudwatch:PutMetricData/SetAlarmState/DescribeAlarms
 * (+ PutMetricAlarm the first time) and, optionally, the safety-lever permissions.
 */
import { ListExperimentsCommand, StopExperimentCommand, type FisClient } from '@aws-sdk/client-fis';
import {
  DescribeAlarmsCommand,
  PutMetricDataCommand,
  SetAlarmStateCommand,
  type CloudWatchClient,
} from '@aws-sdk/client-cloudwatch';
import { ensureKillSwitchAlarm, KILL_METRIC, KILL_SWITCH_ALARM, NAMESPACE } from './alarms.js';
import { getSafetyLever, updateSafetyLever, type LeverResult } from './safety-lever.js';
import { TAG_PLAN } from './template.js';

const LIVE = new Set(['pending', 'initiating', 'running']);

export interface KillReport {
  stopped: { id: string; plan: string }[];
  failed: { id: string; plan: string; error: string }[];
  alarm: string;
  lever: LeverResult;
}

async function liveChaosGateExperiments(fis: FisClient): Promise<{ id: string; plan: string }[]> {
  const live: { id: string; plan: string }[] = [];
  let nextToken: string | undefined;
  do {
    const page = await fis.send(
      new ListExperimentsCommand({ maxResults: 100, ...(nextToken ? { nextToken } : {}) }),
    );
    for (const e of page.experiments ?? []) {
      const plan = e.tags?.[TAG_PLAN];
      if (e.id && plan && LIVE.has(String(e.state?.status))) live.push({ id: e.id, plan });
    }
    nextToken = page.nextToken;
  } while (nextToken);
  return live;
}

export async function engageKillSwitch(
  clients: { fis: FisClient; cloudwatch: CloudWatchClient; region: string },
  reason: string,
): Promise<KillReport> {
  const { fis, cloudwatch: cw, region } = clients;
  await ensureKillSwitchAlarm(cw);
  // The datapoint keeps the alarm in ALARM through later evaluations; SetAlarmState makes it immediate.
  await cw.send(
    new PutMetricDataCommand({ Namespace: NAMESPACE, MetricData: [{ MetricName: KILL_METRIC, Value: 1 }] }),
  );
  await cw.send(
    new SetAlarmStateCommand({
      AlarmName: KILL_SWITCH_ALARM,
      StateValue: 'ALARM',
      StateReason: `chaos-gate kill: ${reason}`,
    }),
  );
  const lever = await updateSafetyLever(fis, region, 'engaged', `chaos-gate kill: ${reason}`.slice(0, 500));
  const report: KillReport = { stopped: [], failed: [], alarm: 'ALARM', lever };
  for (const e of await liveChaosGateExperiments(fis)) {
    try {
      await fis.send(new StopExperimentCommand({ id: e.id }));
      report.stopped.push(e);
    } catch (error) {
      report.failed.push({ ...e, error: error instanceof Error ? error.message : String(error) });
    }
  }
  return report;
}

export async function releaseKillSwitch(
  clients: { fis: FisClient; cloudwatch: CloudWatchClient; region: string },
  reason: string,
): Promise<{ alarm: string; lever: LeverResult }> {
  const { fis, cloudwatch: cw, region } = clients;
  await ensureKillSwitchAlarm(cw);
  await cw.send(
    new PutMetricDataCommand({ Namespace: NAMESPACE, MetricData: [{ MetricName: KILL_METRIC, Value: 0 }] }),
  );
  await cw.send(
    new SetAlarmStateCommand({
      AlarmName: KILL_SWITCH_ALARM,
      StateValue: 'OK',
      StateReason: `chaos-gate kill --release: ${reason}`,
    }),
  );
  let lever = await getSafetyLever(fis, region);
  if (lever.available && lever.state !== 'disengaged') {
    lever = await updateSafetyLever(
      fis,
      region,
      'disengaged',
      `chaos-gate kill --release: ${reason}`.slice(0, 500),
    );
  }
  const alarm = await cw.send(new DescribeAlarmsCommand({ AlarmNames: [KILL_SWITCH_ALARM] }));
  return { alarm: alarm.MetricAlarms?.[0]?.StateValue ?? 'missing', lever };
}

/** Whether the kill switch is engaged: the alarm in ALARM, or the FIS safety lever engaged. */
export async function killSwitchStatus(clients: {
  fis: FisClient;
  cloudwatch: CloudWatchClient;
  region: string;
}): Promise<{ engaged: boolean; reason?: string }> {
  const alarm = await clients.cloudwatch.send(new DescribeAlarmsCommand({ AlarmNames: [KILL_SWITCH_ALARM] }));
  const a = alarm.MetricAlarms?.[0];
  if (a?.StateValue === 'ALARM') {
    return {
      engaged: true,
      reason: `kill-switch alarm ${KILL_SWITCH_ALARM} is ALARM (${a.StateReason ?? 'no reason'})`,
    };
  }
  const lever = await getSafetyLever(clients.fis, clients.region);
  if (lever.available && lever.state !== 'disengaged') {
    return { engaged: true, reason: `FIS safety lever is ${lever.state} (${lever.reason ?? 'no reason'})` };
  }
  return { engaged: false };
}
