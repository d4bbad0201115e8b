/**
 * The run's estimated AWS cost, from what the run counted: its API calls by operation (the run meter),
 * the metrics its GetMetricData calls requested, the FIS action-minutes of its experiment (each action's
 * start and end as FIS reports them), and how long its lease alarm and custom metrics existed. The
 * prices are public list prices for US East (N. Virginia); docs/cost.md gives their sources and date.
 * The estimate ignores free tiers (it is what the run adds to a bill already past them).
 */
import type { ActionState } from '../injector/injector.js';
import type { CostLine, RunCost } from '../journal/types.js';

/** The public prices the estimate uses (us-east-1, read 2026-12-04; docs/cost.md). */
export const PRICES = {
  source: 'https://aws.amazon.com/fis/pricing/ and https://aws.amazon.com/cloudwatch/pricing/',
  asOf: '2026-12-04',
  region: 'us-east-1',
  /** FIS: per action-minute. */
  fisActionMinute: 0.1,
  /** CloudWatch API requests (PutMetricData, DescribeAlarms, PutMetricAlarm, SetAlarmState, ...): per request. */
  cloudwatchRequest: 0.01 / 1000,
  /** GetMetricData: per metric requested. */
  getMetricDataMetric: 0.01 / 1000,
  /** A high-resolution (10 s) alarm: per alarm-month, prorated by the hour. */
  highResolutionAlarmMonth: 0.3,
  /** A custom metric: per metric-month (first tier), prorated by the hour. */
  customMetricMonth: 0.3,
} as const;

/** Hours in a month as AWS prorates monthly prices (730). */
const HOURS_PER_MONTH = 730;

/** FIS bills an action from its start to its end, rounded to the nearest minute. */
export function actionMinutes(actions: Record<string, ActionState> | undefined, now: number): number {
  let minutes = 0;
  for (const a of Object.values(actions ?? {})) {
    if (a.startTime === undefined) continue;
    const end = a.endTime ?? now;
    minutes += Math.round(Math.max(0, end - a.startTime) / 60_000);
  }
  return minutes;
}

export interface CostInput {
  calls: Record<string, number>;
  metricsRequested: number;
  fisActionMinutes: number;
  /** How long the run's lease alarm and its heartbeat metric existed, ms (0: the run made none). */
  leaseMs: number;
}

const round6 = (x: number): number => Math.round(x * 1e6) / 1e6;

/** The priced lines and their total. */
export function estimateCost(input: CostInput): RunCost {
  const cwRequests = Object.entries(input.calls)
    .filter(([k]) => k.startsWith('cloudwatch:') && k !== 'cloudwatch:GetMetricData')
    .reduce((n, [, v]) => n + v, 0);
  const leaseHours = input.leaseMs > 0 ? Math.ceil(input.leaseMs / 3_600_000) : 0;
  const line = (item: string, quantity: number, unit: string, unitUsd: number): CostLine => ({
    item,
    quantity,
    unit,
    unitUsd,
    usd: round6(quantity * unitUsd),
  });
  const lines: CostLine[] = [
    line('FIS actions', input.fisActionMinutes, 'action-minute', PRICES.fisActionMinute),
    line('CloudWatch GetMetricData', input.metricsRequested, 'metric requested', PRICES.getMetricDataMetric),
    line('CloudWatch other API requests', cwRequests, 'request', PRICES.cloudwatchRequest),
    line(
      'CloudWatch high-resolution lease alarm',
      leaseHours,
      'alarm-hour',
      PRICES.highResolutionAlarmMonth / HOURS_PER_MONTH,
    ),
    line(
      'CloudWatch lease heartbeat metric',
      leaseHours,
      'metric-hour',
      PRICES.customMetricMonth / HOURS_PER_MONTH,
    ),
  ].filter((l) => l.quantity > 0);
  return {
    calls: input.calls,
    metricsRequested: input.metricsRequested,
    fisActionMinutes: input.fisActionMinutes,
    lines,
    totalUsd: round6(lines.reduce((s, l) => s + l.usd, 0)),
    prices: { source: PRICES.source, asOf: PRICES.asOf, region: PRICES.region },
  };
}
