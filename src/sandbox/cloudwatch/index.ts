/**
 * The sandbox's CloudWatch stand-in: metrics (PutMetricData, GetMetricData with metric math,
 * ListMetrics) and metric alarms (PutMetricAlarm, DescribeAlarms, DeleteAlarms, SetAlarmState,
 * DescribeAlarmHistory) with an alarm evaluator, over AWS JSON 1.0 and awsQuery (SEMANTICS §1.2, §5).
 *
 * The sandbox server mounts it on its `aws` port: it asks {@link CloudWatchStandIn.handles} for each
 * request, passes the body to {@link CloudWatchStandIn.handle}, and calls
 * {@link CloudWatchStandIn.evaluate} every second with its clock.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { gunzipSync } from 'node:zlib';
import { AlarmBook, STATIC_COMPARISON_OPERATORS, type Alarm, type AlarmConfig } from './alarms.js';
import {
  CloudWatchError,
  invalidAction,
  invalidFormat,
  invalidNextToken,
  invalidParameterCombination,
  invalidParameterValue,
  limitExceeded,
  missingParameter,
  resourceNotFound,
  serializationError,
  tooLarge,
  validationError,
} from './errors.js';
import type { AlarmStateValue } from './evaluate.js';
import { runQueries, type MetricDataQueryInput } from './query.js';
import { MetricStore, parseStat, STORAGE_RESOLUTIONS, type Dimension, type Observation } from './store.js';
import {
  API_VERSION,
  decodeJsonValue,
  decodeQueryParams,
  encodeJson,
  encodeJsonError,
  encodeXmlError,
  encodeXmlResponse,
  INPUT_SCHEMAS,
  SERVICE_TARGET,
  XmlMap,
} from './wire.js';
import { alignStart, isValidQueryPeriod } from './query.js';

export { decideAlarmState, parseSlots, TREAT_MISSING_DATA_MODES } from './evaluate.js';
export type { AlarmStateValue, TreatMissingData, Slot, Decision } from './evaluate.js';

/** PutMetricData takes at most 1 MB per request (GR-CW; SEMANTICS §6). */
export const MAX_PUT_METRIC_DATA_BYTES = 1_000_000;
/** A decompressed body above this is refused, so a small gzip body cannot expand without bound. */
export const MAX_DECOMPRESSED_BYTES = 8 * 1024 * 1024;
/** PutMetricData: at most 1000 metrics per request (M-CW PutMetricData doc). */
export const MAX_METRICS_PER_PUT = 1000;
/** MetricDatum.Values: at most 150 values (M-CW `Values` doc). */
export const MAX_VALUES_PER_DATUM = 150;
/** MetricDatum.Dimensions: at most 30 (M-CW `Dimensions` length trait). */
export const MAX_DIMENSIONS = 30;
/** Values must lie within ±2^360 (M-CW `MetricDatum.Value` doc). */
export const MAX_ABS_VALUE = 2 ** 360;
/** Timestamps: up to two weeks in the past and two hours in the future (M-CW PutMetricData doc). */
export const MAX_PAST_MS = 14 * 24 * 3600 * 1000;
export const MAX_FUTURE_MS = 2 * 3600 * 1000;
/** GetMetricData: at most 500 queries per call, not adjustable (GR-CW; M-CW). */
export const MAX_QUERIES_PER_GET = 500;
/** GetMetricData MaxDatapoints default (M-CW `GetMetricDataMaxDatapoints` doc). */
export const DEFAULT_MAX_DATAPOINTS = 100_800;
/** DescribeAlarms / DescribeAlarmHistory page size defaults and limits (M-CW `MaxRecords`, 1–100). */
export const DEFAULT_DESCRIBE_ALARMS_RECORDS = 50;
export const DEFAULT_HISTORY_RECORDS = 100;
/** GetMetricStatistics returns at most 1,440 datapoints per call (M-CW GetMetricStatistics doc; GR-CW). */
export const MAX_STATISTICS_DATAPOINTS = 1440;
/** GetMetricStatistics: 1–5 Statistics, 1–10 ExtendedStatistics (M-CW length traits). */
export const MAX_STATISTICS = 5;
export const MAX_EXTENDED_STATISTICS = 10;
/** ListMetrics returns up to 500 metrics per call (M-CW ListMetrics doc). */
export const LIST_METRICS_PAGE = 500;
/** DeleteAlarms / DescribeAlarms AlarmNames: at most 100 (M-CW `AlarmNames` length trait). */
export const MAX_ALARM_NAMES = 100;
/** Alarms per Region (CW-alarms, "Common features": 5000). */
export const MAX_ALARMS = 5000;
/** Period × EvaluationPeriods may not exceed one day (CW-alarms). */
export const MAX_ALARM_WINDOW_S = 86_400;
/** At most 5 actions per state (SEMANTICS §6, M-CW `ResourceList` length trait). */
export const MAX_ACTIONS_PER_STATE = 5;
/** Metric-math alarms: at most 20 queries (SEMANTICS §5.3). */
export const MAX_ALARM_METRICS = 20;
/** ListMetrics `RecentlyActive: PT3H` window. */
const RECENTLY_ACTIVE_MS = 3 * 3600 * 1000;

const STANDARD_UNITS = new Set([
  'Seconds',
  'Microseconds',
  'Milliseconds',
  'Bytes',
  'Kilobytes',
  'Megabytes',
  'Gigabytes',
  'Terabytes',
  'Bits',
  'Kilobits',
  'Megabits',
  'Gigabits',
  'Terabits',
  'Percent',
  'Count',
  'Bytes/Second',
  'Kilobytes/Second',
  'Megabytes/Second',
  'Gigabytes/Second',
  'Terabytes/Second',
  'Bits/Second',
  'Kilobits/Second',
  'Megabits/Second',
  'Gigabits/Second',
  'Terabits/Second',
  'Count/Second',
  'None',
]);
const STATISTICS = new Set(['SampleCount', 'Average', 'Sum', 'Minimum', 'Maximum']);
const STATE_VALUES = new Set(['OK', 'ALARM', 'INSUFFICIENT_DATA']);
const TREAT_MISSING = new Set(['breaching', 'notBreaching', 'ignore', 'missing']);
const ALARM_PERIODS_BELOW_MINUTE = [10, 30];

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

/** A state transition, as {@link CloudWatchStandIn.onAlarmChange} listeners see it. */
export interface AlarmChangeEvent {
  name: string;
  arn: string;
  state: string;
  reason: string;
}

/** Options of the stand-in. */
export interface CloudWatchStandInOptions {
  now: () => number;
  region: string;
  accountId: string;
}

type Input = Record<string, unknown>;
type Output = Record<string, unknown> | undefined;

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

function str(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

function encodeToken(offset: number, key: string): string {
  return Buffer.from(JSON.stringify({ o: offset, k: key })).toString('base64url');
}

function decodeToken(token: string | undefined, key: string): number {
  if (token === undefined) return 0;
  try {
    const parsed = JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as {
      o?: unknown;
      k?: unknown;
    };
    if (typeof parsed.o === 'number' && Number.isInteger(parsed.o) && parsed.o >= 0 && parsed.k === key)
      return parsed.o;
  } catch {
    // fall through to the error below
  }
  throw invalidNextToken('The service cannot use the NextToken given: it was not issued for this request.');
}

/** Sets headers with setHeader so that a mounting server (and its tests) can read them back. */
function send(res: ServerResponse, status: number, headers: Record<string, string>, body: string): void {
  for (const [k, v] of Object.entries(headers)) res.setHeader(k, v);
  res.statusCode = status;
  res.end(body);
}

function checkDimensions(dims: Dimension[] | undefined, at: string): void {
  if (!dims) return;
  if (dims.length > MAX_DIMENSIONS)
    throw invalidParameterValue(
      `${at}.Dimensions has ${dims.length} dimensions; at most ${MAX_DIMENSIONS} are allowed.`,
    );
  const seen = new Set<string>();
  dims.forEach((d, i) => {
    if (typeof d.Name !== 'string' || d.Name.length < 1 || d.Name.length > 255)
      throw invalidParameterValue(`${at}.Dimensions.member.${i + 1}.Name must be 1 to 255 characters.`);
    if (typeof d.Value !== 'string' || d.Value.length < 1 || d.Value.length > 1024)
      throw invalidParameterValue(`${at}.Dimensions.member.${i + 1}.Value must be 1 to 1024 characters.`);
    if (seen.has(d.Name))
      throw invalidParameterValue(`${at}.Dimensions names the dimension ${d.Name} twice.`);
    seen.add(d.Name);
  });
}

function checkValue(v: number, at: string): void {
  if (!Number.isFinite(v))
    throw invalidParameterValue(
      `The value ${v} for parameter ${at} is invalid: NaN and Infinity are not accepted.`,
    );
  if (Math.abs(v) > MAX_ABS_VALUE)
    throw invalidParameterValue(`The value for parameter ${at} is outside the range -2^360 to 2^360.`);
}

/** The CloudWatch stand-in (one account, one Region). */
export class CloudWatchStandIn {
  private readonly now: () => number;
  private readonly region: string;
  private readonly accountId: string;
  private readonly store = new MetricStore();
  private readonly alarms: AlarmBook;
  private requests = 0;

  constructor(opts: CloudWatchStandInOptions) {
    this.now = opts.now;
    this.region = opts.region;
    this.accountId = opts.accountId;
    this.alarms = new AlarmBook(this.store, `arn:aws:cloudwatch:${opts.region}:${opts.accountId}:alarm:`);
  }

  /**
   * True for CloudWatch traffic: an `X-Amz-Target: GraniteServiceVersion20100801.*` header, or an
   * awsQuery request (form POST, or `?Action=`) that is unsigned or signed for `monitoring`.
   */
  handles(req: IncomingMessage): boolean {
    const target = req.headers['x-amz-target'];
    if (typeof target === 'string') return target.startsWith(`${SERVICE_TARGET}.`);
    const auth = req.headers.authorization;
    if (typeof auth === 'string') {
      const scope = /Credential=[^/]+\/\d{8}\/[^/]+\/([^/]+)\/aws4_request/.exec(auth);
      if (scope && scope[1] !== 'monitoring') return false;
    }
    const type = String(req.headers['content-type'] ?? '');
    if (req.method === 'POST' && type.startsWith('application/x-www-form-urlencoded')) return true;
    return /[?&]Action=/.test(req.url ?? '');
  }

  /** Answers one request (the body already read). Never throws: failures become protocol errors. */
  async handle(req: IncomingMessage, body: Buffer, res: ServerResponse): Promise<void> {
    this.requests++;
    const requestId = randomUUID();
    const target = req.headers['x-amz-target'];
    const json = typeof target === 'string';
    let operation = json ? target.slice(SERVICE_TARGET.length + 1) : 'Unknown';
    try {
      let raw = body;
      if (String(req.headers['content-encoding'] ?? '').toLowerCase() === 'gzip') {
        try {
          raw = gunzipSync(body, { maxOutputLength: MAX_DECOMPRESSED_BYTES });
        } catch {
          throw serializationError('The request body is not valid gzip, or expands beyond the size limit.');
        }
      }
      let input: Input;
      if (json) {
        const schema = INPUT_SCHEMAS[operation];
        if (!schema)
          throw invalidAction(`The operation ${operation} is not supported by the CloudWatch stand-in.`);
        let parsed: unknown;
        try {
          parsed = raw.length ? JSON.parse(raw.toString('utf8')) : {};
        } catch {
          throw serializationError('The request body is not valid JSON.');
        }
        input = decodeJsonValue({ M: schema }, parsed, '') as Input;
      } else {
        const params = new URLSearchParams(raw.toString('utf8'));
        const query = (req.url ?? '').split('?')[1];
        if (query) for (const [k, v] of new URLSearchParams(query)) if (!params.has(k)) params.set(k, v);
        const action = params.get('Action');
        if (!action) throw missingParameter('The request must contain the parameter Action.');
        operation = action;
        const version = params.get('Version');
        if (version !== null && version !== API_VERSION)
          throw invalidParameterValue(`The Version ${version} is not supported; use ${API_VERSION}.`);
        const schema = INPUT_SCHEMAS[operation];
        if (!schema) throw invalidAction(`The action ${operation} is not valid for this web service.`);
        input = decodeQueryParams(schema, params);
      }
      if (operation === 'PutMetricData' && raw.length > MAX_PUT_METRIC_DATA_BYTES)
        throw tooLarge(`PutMetricData requests are limited to ${MAX_PUT_METRIC_DATA_BYTES} bytes.`);
      const output = this.dispatch(operation, input);
      if (json) {
        send(
          res,
          200,
          { 'content-type': 'application/x-amz-json-1.0', 'x-amzn-requestid': requestId },
          encodeJson(output ?? {}),
        );
      } else {
        send(
          res,
          200,
          { 'content-type': 'text/xml', 'x-amzn-requestid': requestId },
          encodeXmlResponse(operation, output, requestId),
        );
      }
    } catch (e) {
      const err =
        e instanceof CloudWatchError
          ? e
          : new CloudWatchError(
              'InternalServiceError',
              `Internal error in the CloudWatch stand-in: ${e instanceof Error ? e.message : String(e)}`,
              500,
              'com.amazonaws.cloudwatch#InternalServiceFault',
              'Receiver',
            );
      if (json) {
        const headers = {
          'content-type': 'application/x-amz-json-1.0',
          'x-amzn-requestid': requestId,
          'x-amzn-query-error': `${err.code};${err.fault}`,
        };
        send(res, err.status, headers, encodeJsonError(err));
      } else {
        send(
          res,
          err.status,
          { 'content-type': 'text/xml', 'x-amzn-requestid': requestId },
          encodeXmlError(err, requestId),
        );
      }
    }
  }

  /** Requests answered so far (for the sandbox's admin endpoint). */
  get requestCount(): number {
    return this.requests;
  }

  /** Publishes one datapoint without HTTP (the canary's path). Bad values throw. */
  putDatum(d: Datum): void {
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
    this.store.put(
      d.namespace,
      d.metricName,
      dims,
      { t, count: 1, sum: d.value, min: d.value, max: d.value, values: [[d.value, 1]], unit },
      this.now(),
    );
  }

  /** The state of an alarm by name or ARN; undefined when there is no such alarm. */
  alarmState(arnOrName: string): AlarmStateValue | undefined {
    return this.alarms.find(arnOrName)?.state;
  }

  /** The alarm's current reason and timestamps, for the admin endpoint and tests. */
  alarmDetails(
    arnOrName: string,
  ): { state: AlarmStateValue; reason: string; stateUpdatedAt: number; arn: string } | undefined {
    const a = this.alarms.find(arnOrName);
    return a && { state: a.state, reason: a.reason, stateUpdatedAt: a.stateUpdatedAt, arn: a.arn };
  }

  /** Evaluates the alarms whose 10 s / 60 s tick has come; call every second with the sandbox clock. */
  evaluate(now: number): void {
    this.alarms.evaluate(now);
    this.store.prune(now);
  }

  /** Registers a listener for alarm state transitions (evaluations and SetAlarmState). */
  onAlarmChange(cb: (a: AlarmChangeEvent) => void): void {
    this.alarms.onChange((c) => cb({ name: c.name, arn: c.arn, state: c.state, reason: c.reason }));
  }

  private dispatch(operation: string, input: Input): Output {
    switch (operation) {
      case 'PutMetricData':
        return this.putMetricData(input);
      case 'GetMetricData':
        return this.getMetricData(input);
      case 'GetMetricStatistics':
        return this.getMetricStatistics(input);
      case 'PutMetricAlarm':
        return this.putMetricAlarm(input);
      case 'DescribeAlarms':
        return this.describeAlarms(input);
      case 'DeleteAlarms':
        return this.deleteAlarms(input);
      case 'SetAlarmState':
        return this.setAlarmState(input);
      case 'ListMetrics':
        return this.listMetrics(input);
      case 'DescribeAlarmHistory':
        return this.describeAlarmHistory(input);
      default:
        throw invalidAction(`The operation ${operation} is not supported by the CloudWatch stand-in.`);
    }
  }

  private putMetricData(input: Input): Output {
    const now = this.now();
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
    for (const p of pending) this.store.put(ns, p.name, p.dims, p.o, now);
    return undefined;
  }

  private getMetricData(input: Input): Output {
    const now = this.now();
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
    if (start >= end)
      throw validationError('The parameter StartTime must be less than the parameter EndTime.');
    const scanBy = str(input.ScanBy) ?? 'TimestampDescending';
    if (scanBy !== 'TimestampDescending' && scanBy !== 'TimestampAscending')
      throw validationError(`ScanBy must be TimestampDescending or TimestampAscending, got ${scanBy}.`);
    const maxDatapoints = (input.MaxDatapoints as number | undefined) ?? DEFAULT_MAX_DATAPOINTS;
    if (maxDatapoints < 1) throw validationError('MaxDatapoints must be at least 1.');
    const key = JSON.stringify([queries, start, end, scanBy, maxDatapoints]);
    const offset = decodeToken(str(input.NextToken), key);
    const results = runQueries(this.store, queries, start, end, { now }).filter((r) => r.returnData);
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
   * ExtendedStatistics; at most 1,440 datapoints; StartTime rounded as for GetMetricData (SEMANTICS §5.2);
   * periods without data are absent; a Unit filters the data without converting it.
   */
  private getMetricStatistics(input: Input): Output {
    const now = this.now();
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
      throw missingParameter(
        'The request must contain either the parameter Statistics or ExtendedStatistics.',
      );
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
    const series = this.store.get(ns, name, dims);
    const points = new Map<number, Record<string, unknown>>();
    const extendedValues = new Map<number, Record<string, number>>();
    if (series) {
      for (const st of stats)
        for (const dp of this.store.aggregate(series, from, end, period * 1000, parseStat(st)!, unit)) {
          const p = points.get(dp.t) ?? { Timestamp: new Date(dp.t) };
          p[st] = dp.value;
          points.set(dp.t, p);
        }
      for (const st of extended)
        for (const dp of this.store.aggregate(series, from, end, period * 1000, parseStat(st)!, unit)) {
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

  private putMetricAlarm(input: Input): Output {
    const now = this.now();
    const name = str(input.AlarmName);
    if (name === undefined) throw validationError('The parameter AlarmName is required.');
    if (name.length < 1 || name.length > 255 || !/^[\x20-\x7e]+$/.test(name))
      throw validationError(
        `AlarmName ${JSON.stringify(name.slice(0, 40))} must be 1 to 255 printable ASCII characters.`,
      );
    const n = input.EvaluationPeriods as number | undefined;
    if (n === undefined) throw validationError('The parameter EvaluationPeriods is required.');
    if (n < 1) throw validationError('EvaluationPeriods must be at least 1.');
    const op = str(input.ComparisonOperator);
    if (op === undefined) throw validationError('The parameter ComparisonOperator is required.');
    if (!STATIC_COMPARISON_OPERATORS.includes(op))
      throw validationError(
        `ComparisonOperator ${op} is not supported here; use one of ${STATIC_COMPARISON_OPERATORS.join(', ')}.`,
      );
    if (input.ThresholdMetricId !== undefined)
      throw validationError('ThresholdMetricId (anomaly detection bands) is not supported by the stand-in.');
    if (input.Threshold === undefined) throw validationError('The parameter Threshold is required.');
    const m = input.DatapointsToAlarm as number | undefined;
    if (m !== undefined && (m < 1 || m > n))
      throw validationError(`DatapointsToAlarm ${m} must be between 1 and EvaluationPeriods (${n}).`);
    const treat = str(input.TreatMissingData);
    if (treat !== undefined && !TREAT_MISSING.has(treat))
      throw validationError(
        `TreatMissingData ${treat} must be one of breaching, notBreaching, ignore, missing.`,
      );
    const lowSample = str(input.EvaluateLowSampleCountPercentile);
    if (lowSample !== undefined && lowSample !== 'evaluate' && lowSample !== 'ignore')
      throw validationError(`EvaluateLowSampleCountPercentile ${lowSample} must be evaluate or ignore.`);
    for (const k of ['OKActions', 'AlarmActions', 'InsufficientDataActions']) {
      const list = (input[k] as string[] | undefined) ?? [];
      if (list.length > MAX_ACTIONS_PER_STATE)
        throw validationError(`${k} may hold at most ${MAX_ACTIONS_PER_STATE} actions.`);
    }
    const unit = str(input.Unit);
    if (unit !== undefined && !STANDARD_UNITS.has(unit))
      throw validationError(`Unit ${unit} is not a StandardUnit.`);
    const metrics = input.Metrics as MetricDataQueryInput[] | undefined;
    let period: number;
    if (metrics !== undefined) {
      for (const k of [
        'MetricName',
        'Namespace',
        'Statistic',
        'ExtendedStatistic',
        'Dimensions',
        'Period',
        'Unit',
      ])
        if (input[k] !== undefined)
          throw validationError(
            `Metrics cannot be combined with ${k}: use either a single metric or Metrics.`,
          );
      if (metrics.length === 0 || metrics.length > MAX_ALARM_METRICS)
        throw validationError(`Metrics must hold 1 to ${MAX_ALARM_METRICS} queries.`);
      const returning = metrics.filter((q) => q.ReturnData !== false);
      if (returning.length !== 1)
        throw validationError(
          `Exactly one query in Metrics must have ReturnData true; ${returning.length} do. Set ReturnData false on the others.`,
        );
      runQueries(this.store, metrics, 0, 0);
      const ret = returning[0] as MetricDataQueryInput;
      period =
        ret.MetricStat?.Period ?? ret.Period ?? metrics.find((q) => q.MetricStat)?.MetricStat?.Period ?? 60;
      for (const q of metrics) {
        const p = q.MetricStat?.Period ?? q.Period;
        if (p !== undefined && !ALARM_PERIODS_BELOW_MINUTE.includes(p) && p % 60 !== 0)
          throw validationError(`The period of query ${q.Id} must be 10, 30 or a multiple of 60.`);
      }
    } else {
      if (input.MetricName === undefined || input.Namespace === undefined)
        throw validationError('A single-metric alarm needs MetricName and Namespace (or use Metrics).');
      const stat = str(input.Statistic);
      const ext = str(input.ExtendedStatistic);
      if ((stat === undefined) === (ext === undefined))
        throw validationError('Give exactly one of Statistic and ExtendedStatistic.');
      if (stat !== undefined && !STATISTICS.has(stat))
        throw validationError(`Statistic ${stat} is not one of ${[...STATISTICS].join(', ')}.`);
      if (ext !== undefined && parseStat(ext)?.kind !== 'percentile')
        throw validationError(`ExtendedStatistic ${ext} is not supported; use a percentile such as p99.`);
      if (input.Period === undefined)
        throw validationError('The parameter Period is required for a single-metric alarm.');
      period = input.Period as number;
      checkDimensions(input.Dimensions as Dimension[] | undefined, 'PutMetricAlarm');
    }
    if (!ALARM_PERIODS_BELOW_MINUTE.includes(period) && (period <= 0 || period % 60 !== 0))
      throw validationError(`Period ${period} is invalid: valid values are 10, 30 and any multiple of 60.`);
    if (period * n > MAX_ALARM_WINDOW_S)
      throw validationError(
        `Period (${period}) times EvaluationPeriods (${n}) must not exceed ${MAX_ALARM_WINDOW_S} seconds.`,
      );
    if (!this.alarms.find(name) && this.alarms.list().length >= MAX_ALARMS)
      throw limitExceeded(`The maximum of ${MAX_ALARMS} alarms has been reached.`);
    const config: AlarmConfig = {
      AlarmName: name,
      AlarmDescription: str(input.AlarmDescription),
      ActionsEnabled: (input.ActionsEnabled as boolean | undefined) ?? true,
      OKActions: (input.OKActions as string[] | undefined) ?? [],
      AlarmActions: (input.AlarmActions as string[] | undefined) ?? [],
      InsufficientDataActions: (input.InsufficientDataActions as string[] | undefined) ?? [],
      MetricName: str(input.MetricName),
      Namespace: str(input.Namespace),
      Statistic: str(input.Statistic),
      ExtendedStatistic: str(input.ExtendedStatistic),
      Dimensions: (input.Dimensions as Dimension[] | undefined) ?? [],
      Period: input.Period as number | undefined,
      Unit: unit,
      EvaluationPeriods: n,
      DatapointsToAlarm: m,
      Threshold: input.Threshold as number,
      ComparisonOperator: op,
      TreatMissingData: treat,
      EvaluateLowSampleCountPercentile: lowSample,
      Metrics: metrics,
      ThresholdMetricId: undefined,
      Tags: (input.Tags as Array<{ Key: string; Value: string }> | undefined) ?? [],
    };
    this.alarms.put(config, now);
    return undefined;
  }

  private describeAlarm(a: Alarm): Record<string, unknown> {
    const c = a.config;
    return {
      AlarmName: c.AlarmName,
      AlarmArn: a.arn,
      AlarmDescription: c.AlarmDescription,
      AlarmConfigurationUpdatedTimestamp: new Date(a.configUpdatedAt),
      ActionsEnabled: c.ActionsEnabled,
      OKActions: c.OKActions,
      AlarmActions: c.AlarmActions,
      InsufficientDataActions: c.InsufficientDataActions,
      StateValue: a.state,
      StateReason: a.reason,
      StateReasonData: a.reasonData,
      StateUpdatedTimestamp: new Date(a.stateUpdatedAt),
      MetricName: c.MetricName,
      Namespace: c.Namespace,
      Statistic: c.Statistic,
      ExtendedStatistic: c.ExtendedStatistic,
      Dimensions: c.Metrics ? undefined : c.Dimensions,
      Period: c.Period,
      Unit: c.Unit,
      EvaluationPeriods: c.EvaluationPeriods,
      DatapointsToAlarm: c.DatapointsToAlarm,
      Threshold: c.Threshold,
      ComparisonOperator: c.ComparisonOperator,
      TreatMissingData: c.TreatMissingData,
      EvaluateLowSampleCountPercentile: c.EvaluateLowSampleCountPercentile,
      Metrics: c.Metrics,
      StateTransitionedTimestamp: new Date(a.stateTransitionedAt),
    };
  }

  private describeAlarms(input: Input): Output {
    const names = input.AlarmNames as string[] | undefined;
    const prefix = str(input.AlarmNamePrefix);
    if (names && names.length > MAX_ALARM_NAMES)
      throw validationError(`AlarmNames may hold at most ${MAX_ALARM_NAMES} names.`);
    if (names && prefix !== undefined)
      throw invalidParameterCombination('AlarmNames and AlarmNamePrefix cannot be given together.');
    const state = str(input.StateValue);
    if (state !== undefined && !STATE_VALUES.has(state))
      throw invalidParameterValue(`StateValue ${state} must be OK, ALARM or INSUFFICIENT_DATA.`);
    const max = (input.MaxRecords as number | undefined) ?? DEFAULT_DESCRIBE_ALARMS_RECORDS;
    if (max < 1 || max > 100) throw invalidParameterValue('MaxRecords must be between 1 and 100.');
    const types = input.AlarmTypes as string[] | undefined;
    const wantMetric =
      (types === undefined || types.length === 0 || types.includes('MetricAlarm')) &&
      input.ChildrenOfAlarmName === undefined &&
      input.ParentsOfAlarmName === undefined;
    const actionPrefix = str(input.ActionPrefix);
    const matching = wantMetric
      ? this.alarms.list().filter((a) => {
          if (names && names.length > 0 && !names.includes(a.config.AlarmName)) return false;
          if (prefix !== undefined && !a.config.AlarmName.startsWith(prefix)) return false;
          if (state !== undefined && a.state !== state) return false;
          if (actionPrefix !== undefined) {
            const all = [
              ...a.config.OKActions,
              ...a.config.AlarmActions,
              ...a.config.InsufficientDataActions,
            ];
            if (!all.some((x) => x.startsWith(actionPrefix))) return false;
          }
          return true;
        })
      : [];
    const key = JSON.stringify([names, prefix, state, max, types, actionPrefix]);
    const offset = decodeToken(str(input.NextToken), key);
    const page = matching.slice(offset, offset + max);
    return {
      CompositeAlarms: [],
      MetricAlarms: page.map((a) => this.describeAlarm(a)),
      ...(offset + max < matching.length ? { NextToken: encodeToken(offset + max, key) } : {}),
    };
  }

  private deleteAlarms(input: Input): Output {
    const names = input.AlarmNames as string[] | undefined;
    if (names === undefined) throw validationError('The parameter AlarmNames is required.');
    if (names.length > MAX_ALARM_NAMES)
      throw validationError(`AlarmNames may hold at most ${MAX_ALARM_NAMES} names.`);
    const missing = names.filter((n) => !this.alarms.find(n) || n.startsWith('arn:'));
    if (missing.length)
      throw resourceNotFound(`Alarm${missing.length > 1 ? 's' : ''} not found: ${missing.join(', ')}`);
    this.alarms.delete(names);
    return undefined;
  }

  private setAlarmState(input: Input): Output {
    const name = str(input.AlarmName);
    const state = str(input.StateValue);
    const reason = str(input.StateReason);
    if (name === undefined) throw validationError('The parameter AlarmName is required.');
    if (state === undefined) throw validationError('The parameter StateValue is required.');
    if (reason === undefined) throw validationError('The parameter StateReason is required.');
    if (!STATE_VALUES.has(state))
      throw validationError(`StateValue ${state} must be OK, ALARM or INSUFFICIENT_DATA.`);
    if (reason.length > 1023) throw validationError('StateReason must be at most 1023 characters.');
    const data = str(input.StateReasonData);
    if (data !== undefined) {
      if (data.length > 4000) throw validationError('StateReasonData must be at most 4000 characters.');
      try {
        JSON.parse(data);
      } catch {
        throw invalidFormat('StateReasonData is not valid JSON.');
      }
    }
    const alarm = this.alarms.find(name);
    if (!alarm || name.startsWith('arn:')) throw resourceNotFound(`Alarm ${name} not found`);
    this.alarms.setState(alarm, state as AlarmStateValue, reason, data, this.now());
    return undefined;
  }

  private listMetrics(input: Input): Output {
    const now = this.now();
    const ns = str(input.Namespace);
    const name = str(input.MetricName);
    const filters = (input.Dimensions as Array<{ Name: string; Value?: string }> | undefined) ?? [];
    const recent = str(input.RecentlyActive);
    if (recent !== undefined && recent !== 'PT3H')
      throw invalidParameterValue('RecentlyActive must be PT3H.');
    const matching = this.store.all().filter((s) => {
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

  private describeAlarmHistory(input: Input): Output {
    const name = str(input.AlarmName);
    const type = str(input.HistoryItemType);
    if (type !== undefined && !['ConfigurationUpdate', 'StateUpdate', 'Action'].includes(type))
      throw validationError(`HistoryItemType ${type} must be ConfigurationUpdate, StateUpdate or Action.`);
    const from = input.StartDate as number | undefined;
    const to = input.EndDate as number | undefined;
    const max = (input.MaxRecords as number | undefined) ?? DEFAULT_HISTORY_RECORDS;
    if (max < 1 || max > 100) throw validationError('MaxRecords must be between 1 and 100.');
    const scanBy = str(input.ScanBy) ?? 'TimestampDescending';
    const types = input.AlarmTypes as string[] | undefined;
    let items = types && types.length && !types.includes('MetricAlarm') ? [] : this.alarms.historyOf(name);
    items = items.filter(
      (h) =>
        (type === undefined || h.type === type) &&
        (from === undefined || h.timestamp >= from) &&
        (to === undefined || h.timestamp <= to),
    );
    if (scanBy === 'TimestampAscending') items.reverse();
    const key = JSON.stringify([name, type, from, to, max, scanBy, types]);
    const offset = decodeToken(str(input.NextToken), key);
    const page = items.slice(offset, offset + max);
    return {
      AlarmHistoryItems: page.map((h) => ({
        AlarmName: h.alarmName,
        AlarmType: 'MetricAlarm',
        Timestamp: new Date(h.timestamp),
        HistoryItemType: h.type,
        HistorySummary: h.summary,
        HistoryData: h.data,
      })),
      ...(offset + max < items.length ? { NextToken: encodeToken(offset + max, key) } : {}),
    };
  }
}
