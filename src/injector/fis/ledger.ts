/**
 * The chaos ledger (docs/design/run.md#the-chaos-ledger): each run's measured damage (bad events above the steady-state rate while
 * the fault was on) is written to CloudWatch as a custom metric per service, so the budget check of the
 * next run, on any runner, sees what earlier runs spent.
 */
import {
  GetMetricDataCommand,
  PutMetricDataCommand,
  type CloudWatchClient,
} from '@aws-sdk/client-cloudwatch';
import { NAMESPACE } from './alarms.js';

export const LEDGER_METRIC = 'ChaosDamage';

export async function recordDamage(
  cw: CloudWatchClient,
  entry: { service: string; planId: string; badEvents: number; at: number },
): Promise<void> {
  await cw.send(
    new PutMetricDataCommand({
      Namespace: NAMESPACE,
      MetricData: [
        {
          MetricName: LEDGER_METRIC,
          Dimensions: [{ Name: 'Service', Value: entry.service }],
          Timestamp: new Date(entry.at),
          Value: Math.max(0, entry.badEvents),
          Unit: 'Count',
        },
      ],
    }),
  );
}

/** Sum of recorded damage for the service over the SLO window ending now. */
export async function ledgerSpent(
  cw: CloudWatchClient,
  service: string,
  windowMs: number,
  now: number,
): Promise<number> {
  // One datapoint covering the whole window: the period is the window rounded up to whole minutes.
  const period = Math.max(60, Math.ceil(windowMs / 60_000) * 60);
  const out = await cw.send(
    new GetMetricDataCommand({
      StartTime: new Date(now - period * 1000),
      EndTime: new Date(now),
      MetricDataQueries: [
        {
          Id: 'spent',
          MetricStat: {
            Metric: {
              Namespace: NAMESPACE,
              MetricName: LEDGER_METRIC,
              Dimensions: [{ Name: 'Service', Value: service }],
            },
            Period: period,
            Stat: 'Sum',
          },
        },
      ],
    }),
  );
  return (out.MetricDataResults?.[0]?.Values ?? []).reduce((a, b) => a + b, 0);
}
