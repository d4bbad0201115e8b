/**
 * CloudWatch SLIs: every CloudWatch query of a tick goes into ONE GetMetricData call (SPEC §7, §12:
 * up to 500 queries per call), with high-resolution periods and metric math. Errors become readings.
 */
import {
  GetMetricDataCommand,
  type CloudWatchClient,
  type MetricDataQuery,
} from '@aws-sdk/client-cloudwatch';
import type { CloudWatchSource } from '../../plan/schema.js';
import type { MetricSource, Query, Reading } from '../source.js';

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
    const plans = queries.map((q, i) => {
      const spec = q.spec.cloudwatch;
      if (!spec) return undefined;
      return { q, spec, ...queriesFor(`q${i}`, spec) };
    });
    const all = plans.flatMap((p) => p?.queries ?? []);
    const readings: Reading[] = plans.map((p, i) => ({
      name: queries[i]?.name ?? '',
      value: null,
      status: 'error',
      query: p ? describeQuery(p.spec) : '',
      ...(p ? {} : { error: 'not a CloudWatch query' }),
    }));
    if (all.length === 0) return readings;
    if (all.length > GET_METRIC_DATA_MAX_QUERIES) {
      return readings.map((r) => ({
        ...r,
        error: `${all.length} GetMetricData queries exceed CloudWatch's limit of ${GET_METRIC_DATA_MAX_QUERIES} per call`,
      }));
    }
    // The window must cover at least one full period of the longest query.
    const longest = Math.max(...plans.map((p) => p?.spec.period ?? 0), windowMs);
    try {
      this.calls++;
      const out = await this.cw.send(
        new GetMetricDataCommand({
          StartTime: new Date(at - longest),
          EndTime: new Date(at),
          MetricDataQueries: all,
          ScanBy: 'TimestampDescending',
        }),
        signal ? { abortSignal: signal as never } : {},
      );
      const byId = new Map((out.MetricDataResults ?? []).map((r) => [r.Id, r]));
      return plans.map((p, i) => {
        const base = readings[i] as Reading;
        if (!p) return base;
        const result = byId.get(p.resultId);
        if (!result) return { ...base, error: `GetMetricData returned no result for ${p.resultId}` };
        if (result.StatusCode === 'InternalError' || result.StatusCode === 'Forbidden') {
          const msg = (result.Messages ?? []).map((m) => `${m.Code}: ${m.Value}`).join('; ');
          return { ...base, error: `GetMetricData ${result.StatusCode}${msg ? `: ${msg}` : ''}` };
        }
        const values = result.Values ?? [];
        const stamps = result.Timestamps ?? [];
        // Latest datapoint first (ScanBy TimestampDescending), but do not trust order blindly.
        let best = -1;
        for (let k = 0; k < values.length; k++) {
          if (best < 0 || (stamps[k]?.getTime() ?? 0) > (stamps[best]?.getTime() ?? 0)) best = k;
        }
        const value = best >= 0 ? values[best] : undefined;
        if (value === undefined || Number.isNaN(value)) {
          const { error: _e, ...rest } = base;
          return { ...rest, status: 'no-data' as const };
        }
        const { error: _e, ...rest } = base;
        return { ...rest, value, status: 'ok' as const };
      });
    } catch (error) {
      const message = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
      return readings.map((r) => ({ ...r, error: `GetMetricData failed: ${message}` }));
    }
  }
}
