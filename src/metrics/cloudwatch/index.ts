/**
 * CloudWatch SLIs: every CloudWatch query of a tick goes into ONE GetMetricData call (docs/design/evidence.md#measurement, docs/design/targets.md:
 * up to 500 queries per call), with high-resolution periods and metric math. Errors become readings.
 * Only complete periods are read (`window.ts`): the newest period is still being ingested.
 *
 * Evidence: a result counts only when it is whole and in time. `PartialData`, any message CloudWatch
 * attaches (to the result or the call: an arithmetic error in metric math drops datapoints), a
 * datapoint stamped after the tick beyond `SAMPLE_TIME_TOLERANCE_MS`, a non-finite value, or only
 * datapoints older than the window make the reading `no-data` with the reason. The answer is read up to
 * {@link MAX_GET_METRIC_DATA_BYTES}; past that the call fails before the SDK parses it.
 */
import { Readable, Transform } from 'node:stream';
import {
  GetMetricDataCommand,
  type CloudWatchClient,
  type MetricDataQuery,
} from '@aws-sdk/client-cloudwatch';
import type { CloudWatchSource } from '../../plan/schema.js';
import { formatDuration } from '../../plan/duration.js';
import {
  capReason,
  nonFiniteProblem,
  SAMPLE_TIME_TOLERANCE_MS,
  type MetricSource,
  type Query,
  type Reading,
} from '../source.js';
import {
  completePeriodsWindow,
  defaultIngestionAllowanceMs,
  formatWindow,
  retentionProblem,
} from './window.js';

/** GetMetricData accepts at most 500 MetricDataQuery entries per call (CloudWatch quotas). */
export const GET_METRIC_DATA_MAX_QUERIES = 500;

/**
 * The largest GetMetricData answer read. A tick's call returns a few datapoints per query; a 30-day
 * window at one-minute periods is about 43 000 datapoints (under 2 MB) per query. 16 MiB leaves room for
 * several of those while bounding what a runaway or hostile endpoint can make the runner hold.
 */
export const MAX_GET_METRIC_DATA_BYTES = 16 * 1024 * 1024;

/** A middleware stack entry's shape, as far as the cap needs it (the SDK's own types are not a dependency). */
type Handler = (args: unknown) => Promise<{ response: unknown }>;

/**
 * A deserialize-step middleware, innermost (it sees the raw HTTP answer before the SDK parses it), that
 * fails the call when the answer declares or streams more than `maxBytes`.
 */
export function answerCap(maxBytes: number): (next: Handler) => Handler {
  const tooLarge = (): Error =>
    Object.assign(new Error(`answer larger than ${maxBytes} bytes`), { name: 'AnswerTooLarge' });
  return (next) => async (args) => {
    const result = await next(args);
    const response = result.response as { headers?: Record<string, string>; body?: unknown };
    const body = response.body;
    if (Number(response.headers?.['content-length'] ?? '0') > maxBytes) {
      if (body instanceof Readable) body.destroy();
      throw tooLarge();
    }
    if (body instanceof Readable) {
      let bytes = 0;
      const limiter = new Transform({
        transform(chunk: Buffer, _encoding, done) {
          bytes += chunk.byteLength;
          if (bytes > maxBytes) {
            body.destroy();
            done(tooLarge());
          } else done(null, chunk);
        },
      });
      body.on('error', (error) => limiter.destroy(error));
      response.body = body.pipe(limiter);
    }
    return result;
  };
}

/** Why CloudWatch's messages make a result not whole: `ArithmeticError: …; …`, capped. */
function messagesText(
  messages: readonly { Code?: string | undefined; Value?: string | undefined }[] | undefined,
): string {
  return capReason((messages ?? []).map((m) => `${m.Code ?? '?'}: ${m.Value ?? ''}`).join('; '));
}

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

  constructor(
    private readonly cw: CloudWatchClient,
    /** Largest GetMetricData answer read (bytes). */
    private readonly maxAnswerBytes: number = MAX_GET_METRIC_DATA_BYTES,
  ) {}

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
      const command = new GetMetricDataCommand({
        StartTime: new Date(window.startMs),
        EndTime: new Date(window.endMs),
        MetricDataQueries: all,
        ScanBy: 'TimestampDescending',
      });
      command.middlewareStack.add(answerCap(this.maxAnswerBytes) as never, {
        step: 'deserialize',
        priority: 'low',
        name: 'chaosGateAnswerCap',
      });
      const out = await this.cw.send(command, signal ? { abortSignal: signal as never } : {});
      const byId = new Map((out.MetricDataResults ?? []).map((r) => [r.Id, r]));
      // A message on the call (e.g. too many metrics) concerns every result of it.
      const callMessages = (out.Messages ?? []).length > 0 ? messagesText(out.Messages) : undefined;
      return plans.map((p, i) => {
        const base = readings[i] as Reading;
        if (!p || p.expired !== undefined) return base;
        const result = byId.get(p.resultId);
        if (!result) return { ...base, error: `GetMetricData returned no result for ${p.resultId}` };
        if (result.StatusCode === 'InternalError' || result.StatusCode === 'Forbidden') {
          const msg = messagesText(result.Messages);
          return { ...base, error: `GetMetricData ${result.StatusCode}${msg ? `: ${msg}` : ''}` };
        }
        const { error: _e, ...rest } = base;
        const noData = (error: string): Reading => ({ ...rest, status: 'no-data', error });
        if (callMessages !== undefined)
          return noData(`GetMetricData answered with messages: ${callMessages}`);
        if (result.StatusCode === 'PartialData') {
          // More datapoints than one call returns, newest first: whatever the statistic, not whole.
          return noData(
            'GetMetricData returned PartialData: the window holds more datapoints than one call returns',
          );
        }
        if ((result.Messages ?? []).length > 0) {
          return noData(
            `GetMetricData answered ${result.StatusCode ?? 'with no status'} with messages: ${messagesText(result.Messages)}`,
          );
        }
        if (result.StatusCode !== 'Complete') {
          return noData(
            `GetMetricData returned status ${JSON.stringify(capReason(String(result.StatusCode), 40))}, not Complete`,
          );
        }
        return evaluateDatapoints(result.Values ?? [], result.Timestamps ?? [], {
          from: p.from,
          endMs: window.endMs,
          at,
          combine: p.combine,
          rest,
        });
      });
    } catch (error) {
      const message = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
      return readings.map((r, i) =>
        plans[i] && plans[i]?.expired === undefined ? { ...r, error: `GetMetricData failed: ${message}` } : r,
      );
    }
  }
}

/** What {@link evaluateDatapoints} needs besides the datapoints. */
interface DatapointWindow {
  /** The first instant the value describes (the window's start, or its newest period's). */
  from: number;
  /** The window's end (exclusive). */
  endMs: number;
  /** The tick's time: a datapoint stamped later than this plus the tolerance is from the future. */
  at: number;
  combine: Combine | undefined;
  rest: Omit<Reading, 'error'>;
}

/**
 * One reading from a Complete result's datapoints: the value of the periods in `[from, endMs)` (summed,
 * lowest or highest when the statistic combines, else the newest), or no-data saying why — a datapoint
 * from the future, a non-finite value, timestamps that do not pair with values, nothing in the window.
 */
export function evaluateDatapoints(
  values: readonly number[],
  stamps: readonly Date[],
  w: DatapointWindow,
): Reading {
  const noData = (error: string): Reading => ({ ...w.rest, value: null, status: 'no-data', error });
  if (values.length !== stamps.length)
    return noData(`malformed answer: ${values.length} values for ${stamps.length} timestamps`);
  let value: number | undefined;
  let newestOlder: number | undefined;
  for (let k = 0; k < values.length; k++) {
    const t = stamps[k]?.getTime();
    const v = values[k] as number;
    if (t === undefined || !Number.isFinite(t))
      return noData(`malformed answer: datapoint ${k + 1} has no time`);
    if (t - w.at > SAMPLE_TIME_TOLERANCE_MS) {
      return noData(
        `from the future: a datapoint is stamped ${new Date(t).toISOString()}, ${((t - w.at) / 1000).toFixed(1)} s after the tick (${new Date(w.at).toISOString()}); tolerance ${(SAMPLE_TIME_TOLERANCE_MS / 1000).toFixed(1)} s`,
      );
    }
    if (t < w.from) {
      newestOlder = Math.max(newestOlder ?? -Infinity, t);
      continue;
    }
    if (t >= w.endMs) continue;
    const problem = nonFiniteProblem(v, `the datapoint at ${new Date(t).toISOString()}`);
    if (problem !== undefined) return noData(problem);
    value = value === undefined ? v : w.combine ? w.combine.fold(value, v) : value;
  }
  const span = formatWindow(w.from, w.endMs);
  if (value === undefined) {
    return noData(
      newestOlder !== undefined
        ? `stale: the newest datapoint (${new Date(newestOlder).toISOString()}) is older than the window ${span}`
        : `no datapoints in ${span}`,
    );
  }
  const problem = nonFiniteProblem(value, 'the combined value');
  return problem === undefined ? { ...w.rest, value, status: 'ok' } : noData(problem);
}
