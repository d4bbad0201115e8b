/**
 * `chaos-gate kill`: stop every running chaos-gate experiment in the account/Region, force the kill-switch
 * alarm (a stop condition of every chaos-gate template) to ALARM, engage the FIS safety lever where the
 * endpoint has one, and make later starts refuse until `--release`. Deliberately small: it needs only
 * fis:ListExperiments, fis:GetExperiment, fis:StopExperiment, cloudwatch:SetAlarmState/DescribeAlarms
 * (+ PutMetricAlarm the first time) and, optionally, the safety-lever permissions.
 */
import {
  GetExperimentCommand,
  ListExperimentsCommand,
  StopExperimentCommand,
  type FisClient,
} from '@aws-sdk/client-fis';
import {
  DescribeAlarmsCommand,
  SetAlarmStateCommand,
  type CloudWatchClient,
} from '@aws-sdk/client-cloudwatch';
import { ensureKillSwitchAlarm, KILL_SWITCH_ALARM } from './alarms.js';
import { getSafetyLever, updateSafetyLever, type LeverResult } from './safety-lever.js';
import { TAG_PLAN } from './tags.js';
import { errorMessage } from '../../errors/message.js';

/** Experiments that may still inject: `stopping` included, since its actions are not all stopped yet. */
const LIVE = new Set(['pending', 'initiating', 'running', 'stopping']);
const TERMINAL = new Set(['completed', 'stopped', 'failed', 'cancelled']);
/**
 * How long `kill` waits for the experiments it stopped to reach a terminal state. FIS stops actions in
 * seconds; 30 s matches the lease's stop target (docs/design/run.md#the-lease), after which the report says what is still live.
 */
export const KILL_VERIFY_MS = 30_000;
const KILL_POLL_MS = 1_000;

export interface KillReport {
  /** Every chaos-gate experiment that was live, with the state it ended in (`stopped` when verified). */
  stopped: { id: string; plan: string; status: string }[];
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

async function statusOf(fis: FisClient, id: string): Promise<string> {
  const out = await fis.send(new GetExperimentCommand({ id }));
  return String(out.experiment?.state?.status ?? 'unknown');
}

/**
 * Engages the kill switch. The live experiments are listed before the alarm is forced, because the alarm
 * (a stop condition) and the lever make FIS stop them at once and they would no longer show as running;
 * they are listed again afterwards to catch one that started in between. Each gets a StopExperiment
 * (an experiment FIS is already stopping answers with an error that is not a failure), and the report
 * waits up to {@link KILL_VERIFY_MS} for each to reach a terminal state.
 */
export async function engageKillSwitch(
  clients: { fis: FisClient; cloudwatch: CloudWatchClient; region: string },
  reason: string,
  options: { verifyMs?: number; sleep?: (ms: number) => Promise<void> } = {},
): Promise<KillReport> {
  const { fis, cloudwatch: cw, region } = clients;
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const before = await liveChaosGateExperiments(fis);
  await ensureKillSwitchAlarm(cw);
  // The state itself is the switch: the alarm's metric never gets data and missing data keeps the state
  // (see ensureKillSwitchAlarm), so no later evaluation can undo an engage or a release.
  await cw.send(
    new SetAlarmStateCommand({
      AlarmName: KILL_SWITCH_ALARM,
      StateValue: 'ALARM',
      StateReason: `chaos-gate kill: ${reason}`,
    }),
  );
  const lever = await updateSafetyLever(fis, region, 'engaged', `chaos-gate kill: ${reason}`.slice(0, 500));
  const report: KillReport = { stopped: [], failed: [], alarm: 'ALARM', lever };
  const targets = new Map(before.map((e) => [e.id, e]));
  for (const e of await liveChaosGateExperiments(fis)) targets.set(e.id, e);
  const pending: { id: string; plan: string }[] = [];
  for (const e of targets.values()) {
    try {
      await fis.send(new StopExperimentCommand({ id: e.id }));
      pending.push(e);
    } catch (error) {
      // Already stopping or ended (the stop condition got there first): not a failure, verified below.
      const status = await statusOf(fis, e.id).catch(() => 'unknown');
      if (LIVE.has(status) || TERMINAL.has(status)) pending.push(e);
      else report.failed.push({ ...e, error: errorMessage(error) });
    }
  }
  const deadline = Date.now() + (options.verifyMs ?? KILL_VERIFY_MS);
  for (const e of pending) {
    let status = await statusOf(fis, e.id).catch(() => 'unknown');
    while (!TERMINAL.has(status) && Date.now() < deadline) {
      await sleep(KILL_POLL_MS);
      status = await statusOf(fis, e.id).catch(() => 'unknown');
    }
    if (TERMINAL.has(status)) report.stopped.push({ ...e, status });
    else
      report.failed.push({
        ...e,
        error: `still ${status} ${Math.round((options.verifyMs ?? KILL_VERIFY_MS) / 1000)} s after the stop request`,
      });
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
