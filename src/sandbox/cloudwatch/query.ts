/**
 * Runs a set of metric data queries (GetMetricData's `MetricDataQueries`, a metric-math alarm's
 * `Metrics`): MetricStat queries aggregate stored data, expressions combine other queries by id.
 * Period and StartTime rules follow docs/design/cloudwatch.md#getmetricdata.
 */
import { validationError } from './errors.js';
import {
  evaluateExpression,
  MathError,
  parseExpression,
  referencedIds,
  toSeries,
  type MathValue,
  type TimeSeries,
} from './math.js';
import { parseStat, type Dimension, type MetricStore } from './store.js';
import {
  INSIGHTS_WINDOW_MS,
  InsightsError,
  isInsightsQuery,
  parseInsights,
  runInsights,
  type InsightsQuery,
} from './insights.js';

/** A metric data query as decoded from the wire. */
export interface MetricDataQueryInput {
  Id: string;
  MetricStat?: {
    Metric: { Namespace?: string; MetricName?: string; Dimensions?: Dimension[] };
    Period: number;
    Stat: string;
    Unit?: string;
  };
  Expression?: string;
  Label?: string;
  ReturnData?: boolean;
  Period?: number;
  AccountId?: string;
}

/** One query's result: its series, ascending by time. */
export interface QueryResult {
  id: string;
  label: string;
  returnData: boolean;
  periodS: number;
  points: TimeSeries;
}

/** Query ids: letters, digits and underscore, starting with a lowercase letter (M-CW `MetricDataQuery.Id`). */
const QUERY_ID = /^[a-z][a-zA-Z0-9_]*$/;
/** Periods a high-resolution query may use below one minute (docs/design/cloudwatch.md#getmetricdata). */
const SUB_MINUTE_PERIODS = [1, 5, 10, 30];
const DAY_MS = 24 * 3600 * 1000;
/** Default period of an expression that references no MetricStat and names no Period. */
const DEFAULT_EXPRESSION_PERIOD_S = 60;

/** Checks a period is 1, 5, 10, 30 or a multiple of 60. */
export function isValidQueryPeriod(p: number): boolean {
  return SUB_MINUTE_PERIODS.includes(p) || (p > 0 && p % 60 === 0);
}

/**
 * Rounds StartTime down as CloudWatch does: to the period for 1–30 s periods, else to the minute when
 * less than 15 days old, 5 minutes up to 63 days, the hour beyond (docs/design/cloudwatch.md#getmetricdata).
 */
export function alignStart(start: number, periodS: number, now: number): number {
  const age = now - start;
  let unitMs: number;
  if (periodS < 60) unitMs = periodS * 1000;
  else if (age < 15 * DAY_MS) unitMs = 60_000;
  else if (age < 63 * DAY_MS) unitMs = 300_000;
  else unitMs = 3_600_000;
  return Math.floor(start / unitMs) * unitMs;
}

function gridOf(start: number, end: number, periodMs: number): number[] {
  const grid: number[] = [];
  for (let t = start; t < end; t += periodMs) grid.push(t);
  return grid;
}

/** How a run of queries chooses period starts. */
export interface RunOptions {
  /** `now` for StartTime rounding; when absent `start` is used as given (alarms align it themselves). */
  now?: number;
}

/** Runs the queries over `[start, end)`; throws a ValidationError naming the query on bad input. */
export function runQueries(
  store: MetricStore,
  queries: readonly MetricDataQueryInput[],
  start: number,
  end: number,
  opts: RunOptions = {},
): QueryResult[] {
  const byId = new Map<string, MetricDataQueryInput>();
  queries.forEach((q, i) => {
    const at = `MetricDataQueries.member.${i + 1}`;
    if (!QUERY_ID.test(q.Id))
      throw validationError(
        `${at}.Id ${JSON.stringify(q.Id)} must start with a lowercase letter and hold only letters, digits and _`,
      );
    if (byId.has(q.Id)) throw validationError(`The metric data query Id ${q.Id} is used more than once`);
    if ((q.MetricStat === undefined) === (q.Expression === undefined))
      throw validationError(`${at} must have exactly one of MetricStat and Expression`);
    if (q.MetricStat) {
      if (!isValidQueryPeriod(q.MetricStat.Period))
        throw validationError(
          `${at}.MetricStat.Period ${q.MetricStat.Period} must be 1, 5, 10, 30 or a multiple of 60`,
        );
      if (!parseStat(q.MetricStat.Stat))
        throw validationError(
          `${at}.MetricStat.Stat ${JSON.stringify(q.MetricStat.Stat)} is not a supported statistic`,
        );
      if (!q.MetricStat.Metric.Namespace || !q.MetricStat.Metric.MetricName)
        throw validationError(`${at}.MetricStat.Metric needs Namespace and MetricName`);
    }
    if (q.Period !== undefined && !isValidQueryPeriod(q.Period))
      throw validationError(`${at}.Period ${q.Period} must be 1, 5, 10, 30 or a multiple of 60`);
    byId.set(q.Id, q);
  });

  const parsed = new Map<string, ReturnType<typeof parseExpression>>();
  const insights = new Map<string, InsightsQuery>();
  for (const q of queries) {
    if (q.Expression === undefined) continue;
    if (isInsightsQuery(q.Expression)) {
      try {
        insights.set(q.Id, parseInsights(q.Expression));
      } catch (e) {
        if (e instanceof InsightsError)
          throw validationError(`Error in Metrics Insights query ${q.Id}: ${e.message}`);
        throw e;
      }
      if (q.Period === undefined)
        throw validationError(
          `The Metrics Insights query ${q.Id} needs a Period (1, 5, 10, 30 or a multiple of 60).`,
        );
      continue;
    }
    try {
      const node = parseExpression(q.Expression);
      for (const ref of referencedIds(node)) {
        if (!byId.has(ref)) throw new MathError(`${ref} is not the Id of a query in this request`);
      }
      parsed.set(q.Id, node);
    } catch (e) {
      if (e instanceof MathError) throw validationError(`Error in expression ${q.Id}: ${e.message}`);
      throw e;
    }
  }

  const periodOf = (q: MetricDataQueryInput, seen: Set<string> = new Set()): number => {
    if (q.MetricStat) return q.MetricStat.Period;
    if (q.Period !== undefined) return q.Period;
    if (insights.has(q.Id)) return DEFAULT_EXPRESSION_PERIOD_S;
    if (seen.has(q.Id)) return DEFAULT_EXPRESSION_PERIOD_S;
    seen.add(q.Id);
    const refs = referencedIds(parsed.get(q.Id) as NonNullable<ReturnType<typeof parsed.get>>);
    const periods = refs.map((r) => periodOf(byId.get(r) as MetricDataQueryInput, seen));
    return periods.length ? Math.max(...periods) : DEFAULT_EXPRESSION_PERIOD_S;
  };

  const results = new Map<string, MathValue>();
  const visiting = new Set<string>();
  const valueOf = (id: string): MathValue => {
    const cached = results.get(id);
    if (cached) return cached;
    const q = byId.get(id);
    if (!q) throw new MathError(`${id} is not the Id of a query in this request`);
    if (insights.has(id))
      throw new MathError(`${id} is a Metrics Insights query, which metric math cannot use`);
    if (visiting.has(id)) throw new MathError(`circular reference through ${id}`);
    visiting.add(id);
    const periodS = periodOf(q);
    const s = opts.now === undefined ? start : alignStart(start, periodS, opts.now);
    let value: MathValue;
    if (q.MetricStat) {
      const { Metric, Stat, Unit } = q.MetricStat;
      const series = store.get(
        Metric.Namespace as string,
        Metric.MetricName as string,
        Metric.Dimensions ?? [],
      );
      const points: TimeSeries = new Map();
      if (series) {
        for (const dp of store.aggregate(series, s, end, periodS * 1000, parseStat(Stat)!, Unit))
          points.set(dp.t, dp.value);
      }
      value = { kind: 'series', points };
    } else {
      const grid = gridOf(s, end, periodS * 1000);
      value = evaluateExpression(parsed.get(id)!, {
        grid,
        resolve: valueOf,
        metrics: () =>
          queries
            .filter((m) => m.MetricStat)
            .map((m) => {
              const v = valueOf(m.Id);
              return v.kind === 'series' ? v.points : new Map();
            }),
      });
      value = { kind: 'series', points: toSeries(value, grid) };
    }
    visiting.delete(id);
    results.set(id, value);
    return value;
  };

  return queries.flatMap((q): QueryResult[] => {
    const insight = insights.get(q.Id);
    if (insight) {
      const periodS = q.Period ?? DEFAULT_EXPRESSION_PERIOD_S;
      // Metrics Insights reads the most recent three hours only (docs/design/cloudwatch.md#getmetricdata).
      const from = Math.max(start, (opts.now ?? end) - INSIGHTS_WINDOW_MS);
      const s = opts.now === undefined ? from : alignStart(from, periodS, opts.now);
      return runInsights(store, insight, s, end, periodS * 1000).map((series) => ({
        id: q.Id,
        label: q.Label ?? series.label,
        returnData: q.ReturnData ?? true,
        periodS,
        points: series.points,
      }));
    }
    let v: MathValue;
    try {
      v = valueOf(q.Id);
    } catch (e) {
      if (e instanceof MathError) throw validationError(`Error in expression ${q.Id}: ${e.message}`);
      throw e;
    }
    const points = v.kind === 'series' ? v.points : new Map<number, number>();
    const sorted = new Map([...points].sort((a, b) => a[0] - b[0]));
    return [
      {
        id: q.Id,
        label: q.Label ?? q.MetricStat?.Metric.MetricName ?? q.Id,
        returnData: q.ReturnData ?? true,
        periodS: periodOf(q),
        points: sorted,
      },
    ];
  });
}
