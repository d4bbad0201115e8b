/**
 * Whether the kill switch is engaged: the kill-switch alarm in ALARM, or the FIS safety lever engaged. Read
 * by the kill-switch gate, its mid-run check and `chaos-gate kill --status`. The alarm is read first and
 * the FIS client is asked for only after it, so a run's first read needs nothing but CloudWatch
 * (compose/early.ts); this module loads no FIS client itself.
 */
import { DescribeAlarmsCommand, type CloudWatchClient } from '@aws-sdk/client-cloudwatch';
import type { FisClient } from '@aws-sdk/client-fis';
import { KILL_SWITCH_ALARM } from './alarms.js';
import { getSafetyLever } from './safety-lever.js';

export interface KillSwitchState {
  engaged: boolean;
  reason?: string;
}

export interface KillSwitchClients {
  cloudwatch: CloudWatchClient;
  /** The FIS client, or how to get it once the alarm has been read. */
  fis: FisClient | (() => Promise<FisClient>);
  region: string;
}

export async function killSwitchStatus(
  clients: KillSwitchClients,
  signal?: AbortSignal,
): Promise<KillSwitchState> {
  // Bounded by the client's attempts and their timeouts (injector/aws/clients.ts), not by a deadline of
  // its own: a throttled read then ends with CloudWatch's own words ("Rate exceeded") after the SDK's
  // retries, which is what the gate's `not-run` reason should say.
  const alarm = await clients.cloudwatch.send(
    new DescribeAlarmsCommand({ AlarmNames: [KILL_SWITCH_ALARM] }),
    signal ? { abortSignal: signal } : {},
  );
  const a = alarm.MetricAlarms?.[0];
  if (a?.StateValue === 'ALARM') {
    return {
      engaged: true,
      reason: `kill-switch alarm ${KILL_SWITCH_ALARM} is ALARM (${a.StateReason ?? 'no reason'})`,
    };
  }
  const fis = typeof clients.fis === 'function' ? await clients.fis() : clients.fis;
  const lever = await getSafetyLever(fis, clients.region, signal ? { signal } : {});
  // A lever that cannot be read is not released: the read fails closed, naming the call and the answer
  // (the gate refuses the start; a refused permission is a broken set-up, throttling is transient).
  if (!lever.available && lever.error) throw lever.error;
  if (lever.available && lever.state !== 'disengaged') {
    return { engaged: true, reason: `FIS safety lever is ${lever.state} (${lever.reason ?? 'no reason'})` };
  }
  return { engaged: false };
}
