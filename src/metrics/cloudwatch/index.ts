/**
 * CloudWatch SLIs: every CloudWatch query of a tick goes into ONE GetMetricData call (SPEC §7, §12:
 * up to 500 queries per call), with high-resolution periods and metric math. Errors become readings.
 * Only complete periods are read (`window.ts`): the newest period is still being ingested.
 */
import {
  GetMetricDataCommand,
  type CloudWatchClient,
  type MetricDataQuery,
} from '@aws-sdk/client-cloudwatch';
import type { CloudWatchSource } from '../../plan/schema.js';
import { formatDuration } from '../../plan/duration.js';
import type { MetricSource, Query, Reading } from '../source.js';
import {
  completePeriodsWindow,
  defaultIngestionAllowanceMs,
  formatWindow,
  retentionProblem,
} from './window.js';

/** GetMetricData accepts at most 500 MetricDataQuery entries per call (CloudWatch quotas). */
export const GET_METRIC_DATA_MAX_QUERIES = 500;

function dims(d: Record<string, string> | undefined): { Name: string; Value: string }[] {
  return Object.entries(d ?? {}).map(([Name, Value]) => ({ Name, Value }));
}

/** The GetMetricData queries for one SLI, with ids prefixed so several SLIs share one call. */
export function queriesFor(
  prefix: string,
  spec: CloudWatchSource,
): { queries: MetricDataQuery[]; resultId: string } {
  const period = Math.max(1, Math.round(spec.period / 1000));
  if ('expression' in spec) {
    const queries: MetricDataQuery[] = Object.entries(spec.metrics).map(([id, m]) => ({
      Id: `${prefix}_${id}`,
      MetricStat: {
        Metric: { Namespace: m.namespace, MetricName: m.metricName, Dimensions: dims(m.dimensions) },
        Period: period,
        Stat: m.stat,
      },
      ReturnData: false,
    }));
    // Ids inside the expression are rewritten to their prefixed form.
    let expression = spec.expression;
    for (const id of Object.keys(spec.metrics)) {
      expression = expression.replace(new RegExp(`\\b${id}\\b`, 'g'), `${prefix}_${id}`);
    }
    const resultId = `${prefix}_result`;
    queries.push({ Id: resultId, Expression: expression, Period: period, ReturnData: true });
    return { queries, resultId };
  }
  const resultId = `${prefix}_result`;
  return {
    queries: [
      {
        Id: resultId,
        MetricStat: {
          Metric: {
            Namespace: spec.namespace,
            MetricName: spec.metricName,
            Dimensions: dims(spec.dimensions),
          },
          Period: period,
          Stat: spec.stat,
          ...(spec.unit ? { Unit: spec.unit as never } : {}),
        },
        ReturnData: true,
      },
    ],
    resultId,
  };
}

export function describeQuery(spec: CloudWatchSource): string {
  if ('expression' in spec) {
    const parts = Object.entries(spec.metrics).map(
      ([id, m]) => `${id}=${m.namespace}/${m.metricName}${JSON.stringify(m.dimensions ?? {})} ${m.stat}`,
    );
    return `${spec.expression} where ${parts.join('; ')} (period ${spec.period / 1000}s)`;
  }
  return `${spec.namespace}/${spec.metricName}${JSON.stringify(spec.dimensions ?? {})} ${spec.stat} (period ${spec.period / 1000}s)`;
}

/** How several periods of one statistic add up to the window's value, where that is exact. */
type Combine = { label: string; fold: (a: number, b: number) => number };

const COMBINE: Record<string, Combine> = {
  Sum: { label: 'added', fold: (a, b) => a + b },
  SampleCount: { label: 'added', fold: (a, b) => a + b },
  Minimum: { label: 'lowest', fold: Math.min },
  Maximum: { label: 'highest', fold: Math.max },
};

/**
 * How the periods of a window become one value. Sums, counts, minima and maxima of consecutive periods
 * combine exactly into the window's own figure; an average, a percentile or a metric-math result does
 * not, so those read the newest period of the window alone (and say so in the reading).
 */
function combinerOf(spec: CloudWatchSource): Combine | undefined {
  return 'expression' in spec ? undefined : COMBINE[spec.stat];
}

/** The ingestion allowance of one query: its own `ingestionDelay`, else the default for its period. */
export function ingestionAllowanceOf(spec: CloudWatchSource): number {
  return spec.ingestionDelay ?? defaultIngestionAllowanceMs(spec.period);
}

export class CloudWatchSourceImpl implements MetricSource {
  readonly kind = 'cloudwatch' as const;
  /** Calls made, for the "one GetMetricData per tick" figure. */
  calls = 0;

  constructor(private readonly cw: CloudWatchClient) {}

  async read(
    queries: readonly Query[],
    at: number,
    windowMs: number,
    signal?: AbortSignal,
  ): Promise<Reading[]> {
    const specs = queries.map((q) => q.spec.cloudwatch);
    const present = specs.filter((s): s is CloudWatchSource => s !== undefined);
    // One call per tick means one StartTime/EndTime for every query in it: the window has to be complete
    // for the slowest-arriving query and whole for every period, and the request count shares it.
    const allowanceMs = Math.max(0, ...present.map(ingestionAllowanceOf));
    const window =
      present.length > 0
        ? completePeriodsWindow({ at, windowMs, periodsMs: present.map((s) => s.period), allowanceMs })
        : undefined;
    const plans = specs.map((spec, i) => {
      if (!spec || !window) return undefined;
      const combine = combinerOf(spec);
      const periods = (window.endMs - window.startMs) / spec.period;
      // What the value will describe: the whole window, or its newest period when periods do not combine.
      const from = combine ? window.startMs : window.endMs - spec.period;
      const how =
        periods > 1
          ? combine
            ? `, ${periods} periods ${combine.label}`
            : `, newest of ${periods} periods (${'expression' in spec ? 'metric math' : spec.stat} does not combine across periods)`
          : '';
      const text = `${describeQuery(spec)} over ${formatWindow(from, window.endMs)}${how}, ingestion allowance ${formatDuration(allowanceMs)}`;
      // A period finer than CloudWatch keeps for the window's age returns nothing: say so, do not send it.
      const expired = retentionProblem(spec.period, at - window.startMs);
      return { spec, combine, from, text, expired, ...queriesFor(`q${i}`, spec) };
    });
    const readings: Reading[] = plans.map((p, i) => ({
      name: queries[i]?.name ?? '',
      value: null,
      status: 'error',
      query: p ? p.text : '',
      ...(!p ? { error: 'not a CloudWatch query' } : p.expired !== undefined ? { error: p.expired } : {}),
    }));
    const sent = plans.filter((p) => p !== undefined && p.expired === undefined);
    const all = sent.flatMap((p) => p?.queries ?? []);
    if (all.length === 0 || !window) return readings;
    if (all.length > GET_METRIC_DATA_MAX_QUERIES) {
      return readings.map((r) => ({
        ...r,
        error: `${all.length} GetMetricData queries exceed CloudWatch's limit of ${GET_METRIC_DATA_MAX_QUERIES} per call`,
      }));
    }
    try {
      this.calls++;
      const out = await this.cw.send(
        new GetMetricDataCommand({
          StartTime: new Date(window.startMs),
          EndTime: new Date(window.endMs),
          MetricDataQueries: all,
          ScanBy: 'TimestampDescending',
        }),
        signal ? { abortSignal: signal as never } : {},
      );
      const byId = new Map((out.MetricDataResults ?? []).map((r) => [r.Id, r]));
      return plans.map((p, i) => {
        const base = readings[i] as Reading;
        if (!p || p.expired !== undefined) return base;
        const result = byId.get(p.resultId);
        if (!result) return { ...base, error: `GetMetricData returned no result for ${p.resultId}` };
        if (result.StatusCode === 'InternalError' || result.StatusCode === 'Forbidden') {
          const msg = (result.Messages ?? []).map((m) => `${m.Code}: ${m.Value}`).join('; ');
          return { ...base, error: `GetMetricData ${result.StatusCode}${msg ? `: ${msg}` : ''}` };
        }
        if (p.combine && result.StatusCode === 'PartialData') {
          // Newest datapoints come first, so a truncated answer would make the window's total short.
          return {
            ...base,
            error:
              'GetMetricData returned PartialData: the window holds more datapoints than one call returns',
          };
        }
        const values = result.Values ?? [];
        const stamps = result.Timestamps ?? [];
        // Only datapoints of the periods the value describes, whatever order or extras come back.
        let value: number | undefined;
        values.forEach((v, k) => {
          const t = stamps[k]?.getTime();
          if (t === undefined || t < p.from || t >= window.endMs || Number.isNaN(v)) return;
          value = value === undefined ? v : p.combine ? p.combine.fold(value, v) : value;
        });
        const { error: _e, ...rest } = base;
        if (value === undefined) return { ...rest, status: 'no-data' as const };
        return { ...rest, value, status: 'ok' as const };
      });
    } catch (error) {
      const message = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
      return readings.map((r, i) =>
        plans[i] && plans[i]?.expired === undefined ? { ...r, error: `GetMetricData failed: ${message}` } : r,
      );
    }
  }
}
