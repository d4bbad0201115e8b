/**
 * The CloudWatch metric operations: PutMetricData, GetMetricData (metric math and Metrics Insights through
 * `query.ts`), GetMetricStatistics and ListMetrics, with the limits AWS documents for each, and the
 * canary's in-process path for one datapoint.
 */
import {
  invalidParameterCombination,
  invalidParameterValue,
  missingParameter,
  validationError,
} from './errors.js';
import {
  checkDimensions,
  checkValue,
  decodeToken,
  encodeToken,
  STANDARD_UNITS,
  STATISTICS,
  str,
  type CloudWatchState,
  type Input,
  type Output,
} from './operation.js';
import { alignStart, isValidQueryPeriod, runQueries, type MetricDataQueryInput } from './query.js';
import { parseStat, STORAGE_RESOLUTIONS, type Dimension, type Observation } from './store.js';
import { XmlMap } from './wire.js';

/** PutMetricData: at most 1000 metrics per request (M-CW PutMetricData doc). */
export const MAX_METRICS_PER_PUT = 1000;
/** MetricDatum.Values: at most 150 values (M-CW `Values` doc). */
export const MAX_VALUES_PER_DATUM = 150;
/** Timestamps: up to two weeks in the past and two hours in the future (M-CW PutMetricData doc). */
export const MAX_PAST_MS = 14 * 24 * 3600 * 1000;
export const MAX_FUTURE_MS = 2 * 3600 * 1000;
/** GetMetricData: at most 500 queries per call, not adjustable (GR-CW; M-CW). */
export const MAX_QUERIES_PER_GET = 500;
/** GetMetricData MaxDatapoints default (M-CW `GetMetricDataMaxDatapoints` doc). */
export const DEFAULT_MAX_DATAPOINTS = 100_800;
/** GetMetricStatistics returns at most 1,440 datapoints per call (M-CW GetMetricStatistics doc; GR-CW). */
export const MAX_STATISTICS_DATAPOINTS = 1440;
/** GetMetricStatistics: 1–5 Statistics, 1–10 ExtendedStatistics (M-CW length traits). */
export const MAX_STATISTICS = 5;
export const MAX_EXTENDED_STATISTICS = 10;
/** ListMetrics returns up to 500 metrics per call (M-CW ListMetrics doc). */
export const LIST_METRICS_PAGE = 500;
/** ListMetrics `RecentlyActive: PT3H` window. */
const RECENTLY_ACTIVE_MS = 3 * 3600 * 1000;

/** One datapoint published from inside the sandbox (the canary), bypassing HTTP. */
export interface Datum {
  namespace: string;
  metricName: string;
  dimensions: Record<string, string>;
  value: number;
  /** Epoch milliseconds. */
  timestamp: number;
  storageResolution?: number | undefined;
  unit?: string | undefined;
}

interface MetricDatumInput {
  MetricName?: string;
  Dimensions?: Dimension[];
  Timestamp?: number;
  Value?: number;
  StatisticValues?: { SampleCount?: number; Sum?: number; Minimum?: number; Maximum?: number };
  Values?: number[];
  Counts?: number[];
  Unit?: string;
  StorageResolution?: number;
}

/** Publishes one datapoint without HTTP (the canary's path). Bad values throw. */
export function putDatum(cw: CloudWatchState, d: Datum): void {
  checkValue(d.value, 'value');
  const resolution = d.storageResolution ?? 60;
  if (!(STORAGE_RESOLUTIONS as readonly number[]).includes(resolution))
    throw invalidParameterValue(`storageResolution must be 1 or 60, got ${resolution}.`);
  const dims = Object.entries(d.dimensions).map(([Name, Value]) => ({ Name, Value }));
  checkDimensions(dims, 'datum');
  const unit = d.unit ?? 'None';
  if (!STANDARD_UNITS.has(unit))
    throw invalidParameterValue(`unit ${unit} is not a CloudWatch StandardUnit.`);
  const t = Math.floor(d.timestamp / (resolution * 1000)) * resolution * 1000;
  cw.store.put(
    d.namespace,
    d.metricName,
    dims,
    { t, count: 1, sum: d.value, min: d.value, max: d.value, values: [[d.value, 1]], unit },
    cw.now(),
  );
}

/** PutMetricData: every datum is checked before any is stored. */
export function putMetricData(cw: CloudWatchState, input: Input): Output {
  const now = cw.now();
  const ns = str(input.Namespace);
  if (ns === undefined) throw missingParameter('The parameter Namespace is required.');
  if (ns.length < 1 || ns.length > 255 || ns.startsWith(':'))
    throw invalidParameterValue(
      `The value ${ns} for parameter Namespace is invalid: 1 to 255 characters, not starting with ':'.`,
    );
  if (ns.startsWith('AWS/'))
    throw invalidParameterValue(
      `The value ${ns} for parameter Namespace is invalid: the AWS/ prefix is reserved.`,
    );
  const entity = (input.EntityMetricData as Array<{ MetricData?: MetricDatumInput[] }> | undefined) ?? [];
  const data = [
    ...((input.MetricData as MetricDatumInput[] | undefined) ?? []),
    ...entity.flatMap((e) => e.MetricData ?? []),
  ];
  if (input.MetricData === undefined && input.EntityMetricData === undefined)
    throw missingParameter('The parameter MetricData is required.');
  if (data.length > MAX_METRICS_PER_PUT)
    throw invalidParameterValue(
      `The collection MetricData must not have a size greater than ${MAX_METRICS_PER_PUT}.`,
    );
  const pending: Array<{ name: string; dims: Dimension[]; o: Observation }> = [];
  data.forEach((d, idx) => {
    const at = `MetricData.member.${idx + 1}`;
    if (d.MetricName === undefined) throw missingParameter(`The parameter ${at}.MetricName is required.`);
    if (d.MetricName.length < 1 || d.MetricName.length > 255)
      throw invalidParameterValue(`${at}.MetricName must be 1 to 255 characters.`);
    checkDimensions(d.Dimensions, at);
    const given = [d.Value !== undefined, d.StatisticValues !== undefined, d.Values !== undefined].filter(
      Boolean,
    ).length;
    if (given > 1)
      throw invalidParameterCombination(
        `The parameters ${at}.Value, ${at}.StatisticValues and ${at}.Values are mutually exclusive and more than one was given.`,
      );
    if (given === 0)
      throw missingParameter(`One of ${at}.Value, ${at}.StatisticValues or ${at}.Values must be given.`);
    const unit = d.Unit ?? 'None';
    if (!STANDARD_UNITS.has(unit))
      throw invalidParameterValue(`The value ${unit} for parameter ${at}.Unit is not a StandardUnit.`);
    const resolution = d.StorageResolution ?? 60;
    if (!(STORAGE_RESOLUTIONS as readonly number[]).includes(resolution))
      throw invalidParameterValue(
        `The value ${resolution} for parameter ${at}.StorageResolution is invalid: use 1 or 60.`,
      );
    const ts = d.Timestamp ?? now;
    if (ts < now - MAX_PAST_MS)
      throw invalidParameterValue(
        `The parameter ${at}.Timestamp must specify a time no more than two weeks in the past.`,
      );
    if (ts > now + MAX_FUTURE_MS)
      throw invalidParameterValue(
        `The parameter ${at}.Timestamp must specify a time no more than two hours in the future.`,
      );
    const t = Math.floor(ts / (resolution * 1000)) * resolution * 1000;
    let o: Observation;
    if (d.Value !== undefined) {
      checkValue(d.Value, `${at}.Value`);
      o = { t, count: 1, sum: d.Value, min: d.Value, max: d.Value, values: [[d.Value, 1]], unit };
    } else if (d.StatisticValues !== undefined) {
      const s = d.StatisticValues;
      for (const k of ['SampleCount', 'Sum', 'Minimum', 'Maximum'] as const) {
        if (s[k] === undefined)
          throw missingParameter(`The parameter ${at}.StatisticValues.${k} is required.`);
        checkValue(s[k], `${at}.StatisticValues.${k}`);
      }
      if ((s.SampleCount as number) <= 0)
        throw invalidParameterValue(`${at}.StatisticValues.SampleCount must be greater than 0.`);
      if ((s.Minimum as number) > (s.Maximum as number))
        throw invalidParameterValue(`${at}.StatisticValues.Minimum is greater than Maximum.`);
      o = {
        t,
        count: s.SampleCount as number,
        sum: s.Sum as number,
        min: s.Minimum as number,
        max: s.Maximum as number,
        values: undefined,
        unit,
      };
    } else {
      const values = d.Values ?? [];
      if (values.length === 0)
        throw missingParameter(`The parameter ${at}.Values must hold at least one value.`);
      if (values.length > MAX_VALUES_PER_DATUM)
        throw invalidParameterValue(
          `${at}.Values has ${values.length} values; at most ${MAX_VALUES_PER_DATUM} are allowed.`,
        );
      const counts = d.Counts ?? values.map(() => 1);
      if (counts.length !== values.length)
        throw invalidParameterValue(
          `${at}.Counts has ${counts.length} items but ${at}.Values has ${values.length}; they must match.`,
        );
      values.forEach((v, i) => checkValue(v, `${at}.Values.member.${i + 1}`));
      counts.forEach((c, i) => {
        checkValue(c, `${at}.Counts.member.${i + 1}`);
        if (c < 0) throw invalidParameterValue(`${at}.Counts.member.${i + 1} must not be negative.`);
      });
      const pairs = values
        .map((v, i) => [v, counts[i] as number] as [number, number])
        .filter(([, c]) => c > 0);
      const count = pairs.reduce((a, [, c]) => a + c, 0);
      if (count === 0) return;
      o = {
        t,
        count,
        sum: pairs.reduce((a, [v, c]) => a + v * c, 0),
        min: Math.min(...pairs.map(([v]) => v)),
        max: Math.max(...pairs.map(([v]) => v)),
        values: pairs,
        unit,
      };
    }
    pending.push({ name: d.MetricName, dims: d.Dimensions ?? [], o });
  });
  for (const p of pending) cw.store.put(ns, p.name, p.dims, p.o, now);
  return undefined;
}

/** GetMetricData: the queries' datapoints in ScanBy order, at most MaxDatapoints per page. */
export function getMetricData(cw: CloudWatchState, input: Input): Output {
  const now = cw.now();
  const queries = input.MetricDataQueries as MetricDataQueryInput[] | undefined;
  if (!queries || queries.length === 0)
    throw validationError('The parameter MetricDataQueries is required and must hold at least one query.');
  if (queries.length > MAX_QUERIES_PER_GET)
    throw validationError(
      `The collection MetricDataQueries must not have a size greater than ${MAX_QUERIES_PER_GET}; it has ${queries.length}.`,
    );
  const start = input.StartTime as number | undefined;
  const end = input.EndTime as number | undefined;
  if (start === undefined) throw validationError('The parameter StartTime is required.');
  if (end === undefined) throw validationError('The parameter EndTime is required.');
  if (start >= end) throw validationError('The parameter StartTime must be less than the parameter EndTime.');
  const scanBy = str(input.ScanBy) ?? 'TimestampDescending';
  if (scanBy !== 'TimestampDescending' && scanBy !== 'TimestampAscending')
    throw validationError(`ScanBy must be TimestampDescending or TimestampAscending, got ${scanBy}.`);
  const maxDatapoints = (input.MaxDatapoints as number | undefined) ?? DEFAULT_MAX_DATAPOINTS;
  if (maxDatapoints < 1) throw validationError('MaxDatapoints must be at least 1.');
  const key = JSON.stringify([queries, start, end, scanBy, maxDatapoints]);
  const offset = decodeToken(str(input.NextToken), key);
  const results = runQueries(cw.store, queries, start, end, { now }).filter((r) => r.returnData);
  let skip = offset;
  let room = maxDatapoints;
  let total = 0;
  const out = results.map((r) => {
    let points = [...r.points];
    if (scanBy === 'TimestampDescending') points.reverse();
    total += points.length;
    const drop = Math.min(skip, points.length);
    skip -= drop;
    points = points.slice(drop);
    const take = points.slice(0, room);
    room -= take.length;
    return {
      Id: r.id,
      Label: r.label,
      Timestamps: take.map(([t]) => new Date(t)),
      Values: take.map(([, v]) => v),
      StatusCode: take.length < points.length ? 'PartialData' : 'Complete',
    };
  });
  const served = offset + maxDatapoints;
  return {
    MetricDataResults: out,
    ...(served < total ? { NextToken: encodeToken(served, key) } : {}),
    Messages: [],
  };
}

/**
 * GetMetricStatistics (M-CW): one metric, the named statistics per period. Exactly one of Statistics and
 * ExtendedStatistics; at most 1,440 datapoints; StartTime rounded as for GetMetricData (docs/design/cloudwatch.md#getmetricdata);
 * periods without data are absent; a Unit filters the data without converting it.
 */
export function getMetricStatistics(cw: CloudWatchState, input: Input): Output {
  const now = cw.now();
  const ns = str(input.Namespace);
  const name = str(input.MetricName);
  if (ns === undefined) throw missingParameter('The parameter Namespace is required.');
  if (name === undefined) throw missingParameter('The parameter MetricName is required.');
  const start = input.StartTime as number | undefined;
  const end = input.EndTime as number | undefined;
  const period = input.Period as number | undefined;
  if (start === undefined) throw missingParameter('The parameter StartTime is required.');
  if (end === undefined) throw missingParameter('The parameter EndTime is required.');
  if (period === undefined) throw missingParameter('The parameter Period is required.');
  if (!isValidQueryPeriod(period))
    throw invalidParameterValue(
      `The parameter Period must be 1, 5, 10, 30 or a multiple of 60; ${period} is not valid.`,
    );
  if (start >= end)
    throw invalidParameterValue('The parameter StartTime must be less than the parameter EndTime.');
  const stats = (input.Statistics as string[] | undefined) ?? [];
  const extended = (input.ExtendedStatistics as string[] | undefined) ?? [];
  if (stats.length === 0 && extended.length === 0)
    throw missingParameter('The request must contain either the parameter Statistics or ExtendedStatistics.');
  if (stats.length > 0 && extended.length > 0)
    throw invalidParameterCombination(
      'The parameters Statistics and ExtendedStatistics are mutually exclusive.',
    );
  if (stats.length > MAX_STATISTICS)
    throw invalidParameterValue(
      `The collection Statistics must not have more than ${MAX_STATISTICS} members.`,
    );
  if (extended.length > MAX_EXTENDED_STATISTICS)
    throw invalidParameterValue(
      `The collection ExtendedStatistics must not have more than ${MAX_EXTENDED_STATISTICS} members.`,
    );
  for (const st of stats)
    if (!STATISTICS.has(st))
      throw invalidParameterValue(
        `The value ${st} for parameter Statistics is not one of ${[...STATISTICS].join(', ')}.`,
      );
  for (const st of extended)
    if (parseStat(st)?.kind !== 'percentile')
      throw invalidParameterValue(
        `The value ${st} for parameter ExtendedStatistics is not a percentile such as p99.`,
      );
  const unit = str(input.Unit);
  if (unit !== undefined && !STANDARD_UNITS.has(unit))
    throw invalidParameterValue(`The value ${unit} for parameter Unit is not a StandardUnit.`);
  const dims = (input.Dimensions as Dimension[] | undefined) ?? [];
  checkDimensions(dims, 'GetMetricStatistics');
  const from = alignStart(start, period, now);
  const requested = Math.ceil((end - from) / (period * 1000));
  if (requested > MAX_STATISTICS_DATAPOINTS)
    throw invalidParameterCombination(
      `You have requested up to ${requested} datapoints, which exceeds the limit of ${MAX_STATISTICS_DATAPOINTS.toLocaleString('en-US')}. You may reduce the datapoints requested by increasing Period, or decreasing the time range.`,
    );
  const series = cw.store.get(ns, name, dims);
  const points = new Map<number, Record<string, unknown>>();
  const extendedValues = new Map<number, Record<string, number>>();
  if (series) {
    for (const st of stats)
      for (const dp of cw.store.aggregate(series, from, end, period * 1000, parseStat(st)!, unit)) {
        const p = points.get(dp.t) ?? { Timestamp: new Date(dp.t) };
        p[st] = dp.value;
        points.set(dp.t, p);
      }
    for (const st of extended)
      for (const dp of cw.store.aggregate(series, from, end, period * 1000, parseStat(st)!, unit)) {
        if (!points.has(dp.t)) points.set(dp.t, { Timestamp: new Date(dp.t) });
        extendedValues.set(dp.t, { ...extendedValues.get(dp.t), [st]: dp.value });
      }
  }
  const units = new Set(
    (series?.obs ?? []).filter((o) => unit === undefined || o.unit === unit).map((o) => o.unit),
  );
  const datapoints = [...points]
    .sort((a, b) => a[0] - b[0])
    .map(([t, p]) => ({
      ...p,
      Unit: unit ?? (units.size === 1 ? [...units][0] : 'None'),
      ...(extendedValues.has(t) ? { ExtendedStatistics: new XmlMap(extendedValues.get(t)!) } : {}),
    }));
  return { Label: name, Datapoints: datapoints };
}

/** ListMetrics: the stored metrics matching namespace, name, dimension filters and RecentlyActive. */
export function listMetrics(cw: CloudWatchState, input: Input): Output {
  const now = cw.now();
  const ns = str(input.Namespace);
  const name = str(input.MetricName);
  const filters = (input.Dimensions as Array<{ Name: string; Value?: string }> | undefined) ?? [];
  const recent = str(input.RecentlyActive);
  if (recent !== undefined && recent !== 'PT3H') throw invalidParameterValue('RecentlyActive must be PT3H.');
  const matching = cw.store.all().filter((s) => {
    if (ns !== undefined && s.namespace !== ns) return false;
    if (name !== undefined && s.metricName !== name) return false;
    if (recent && s.lastPutAt < now - RECENTLY_ACTIVE_MS) return false;
    return filters.every((f) =>
      s.dimensions.some((d) => d.Name === f.Name && (f.Value === undefined || d.Value === f.Value)),
    );
  });
  const key = JSON.stringify([ns, name, filters, recent]);
  const offset = decodeToken(str(input.NextToken), key);
  const page = matching.slice(offset, offset + LIST_METRICS_PAGE);
  return {
    Metrics: page.map((s) => ({
      Namespace: s.namespace,
      MetricName: s.metricName,
      Dimensions: s.dimensions,
    })),
    ...(offset + LIST_METRICS_PAGE < matching.length
      ? { NextToken: encodeToken(offset + LIST_METRICS_PAGE, key) }
      : {}),
  };
}
