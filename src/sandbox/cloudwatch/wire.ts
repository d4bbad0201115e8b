/**
 * The two CloudWatch wire protocols (docs/design/cloudwatch.md#wire-protocols):
 * - AWS JSON 1.0 with `awsQueryCompatible` (`@aws-sdk/client-cloudwatch` ≥ 3.949.0): `X-Amz-Target:
 *   GraniteServiceVersion20100801.<Op>`, JSON bodies, timestamps as epoch seconds, errors as
 *   `{"__type","message"}` plus the `x-amzn-query-error: <Code>;<Sender|Receiver>` header;
 * - awsQuery (≤ 3.948.0, AWS CLI v1, older SDKs): form-encoded `Action=<Op>&Version=2010-08-01&…`
 *   with lists as `X.member.N`, XML replies, errors as `<ErrorResponse>`.
 *
 * Both decode to the same plain input object (member names as in the model, timestamps as epoch
 * milliseconds), so the operations never see the protocol. The member schemas below are the subset of
 * the model (`cloudwatch.json`) the stand-in reads; the contract tests validate the stand-in's traffic
 * against the full model.
 */
import { serializationError, validationError, type CloudWatchError } from './errors.js';

/** The JSON protocol's service target prefix. */
export const SERVICE_TARGET = 'GraniteServiceVersion20100801';
/** awsQuery API version and XML namespace (M-CW service traits). */
export const API_VERSION = '2010-08-01';
export const XML_NAMESPACE = 'http://monitoring.amazonaws.com/doc/2010-08-01/';

/** A member schema: string, integer, double, boolean, timestamp, list, structure or map. */
export type Schema =
  'S' | 'I' | 'D' | 'B' | 'T' | { L: Schema } | { M: Record<string, Schema> } | { Map: Schema };

const Dimension: Schema = { M: { Name: 'S', Value: 'S' } };
const Dimensions: Schema = { L: Dimension };
const Metric: Schema = { M: { Namespace: 'S', MetricName: 'S', Dimensions } };
const MetricStat: Schema = { M: { Metric, Period: 'I', Stat: 'S', Unit: 'S' } };
const MetricDataQuery: Schema = {
  M: { Id: 'S', MetricStat, Expression: 'S', Label: 'S', ReturnData: 'B', Period: 'I', AccountId: 'S' },
};
const MetricDatum: Schema = {
  M: {
    MetricName: 'S',
    Dimensions,
    Timestamp: 'T',
    Value: 'D',
    StatisticValues: { M: { SampleCount: 'D', Sum: 'D', Minimum: 'D', Maximum: 'D' } },
    Values: { L: 'D' },
    Counts: { L: 'D' },
    Unit: 'S',
    StorageResolution: 'I',
  },
};
const Strings: Schema = { L: 'S' };

/** Input schemas of the operations the stand-in implements. */
export const INPUT_SCHEMAS: Record<string, Record<string, Schema>> = {
  PutMetricData: {
    Namespace: 'S',
    MetricData: { L: MetricDatum },
    EntityMetricData: {
      L: {
        M: {
          Entity: { M: { KeyAttributes: { Map: 'S' }, Attributes: { Map: 'S' } } },
          MetricData: { L: MetricDatum },
        },
      },
    },
    StrictEntityValidation: 'B',
  },
  GetMetricData: {
    MetricDataQueries: { L: MetricDataQuery },
    StartTime: 'T',
    EndTime: 'T',
    NextToken: 'S',
    ScanBy: 'S',
    MaxDatapoints: 'I',
    LabelOptions: { M: { Timezone: 'S' } },
  },
  PutMetricAlarm: {
    AlarmName: 'S',
    AlarmDescription: 'S',
    ActionsEnabled: 'B',
    OKActions: Strings,
    AlarmActions: Strings,
    InsufficientDataActions: Strings,
    MetricName: 'S',
    Namespace: 'S',
    Statistic: 'S',
    ExtendedStatistic: 'S',
    Dimensions,
    Period: 'I',
    Unit: 'S',
    EvaluationPeriods: 'I',
    DatapointsToAlarm: 'I',
    Threshold: 'D',
    ComparisonOperator: 'S',
    TreatMissingData: 'S',
    EvaluateLowSampleCountPercentile: 'S',
    Metrics: { L: MetricDataQuery },
    Tags: { L: { M: { Key: 'S', Value: 'S' } } },
    ThresholdMetricId: 'S',
  },
  DescribeAlarms: {
    AlarmNames: Strings,
    AlarmNamePrefix: 'S',
    AlarmTypes: Strings,
    ChildrenOfAlarmName: 'S',
    ParentsOfAlarmName: 'S',
    StateValue: 'S',
    ActionPrefix: 'S',
    MaxRecords: 'I',
    NextToken: 'S',
  },
  GetMetricStatistics: {
    Namespace: 'S',
    MetricName: 'S',
    Dimensions,
    StartTime: 'T',
    EndTime: 'T',
    Period: 'I',
    Statistics: Strings,
    ExtendedStatistics: Strings,
    Unit: 'S',
  },
  PutCompositeAlarm: {
    ActionsEnabled: 'B',
    AlarmActions: Strings,
    AlarmDescription: 'S',
    AlarmName: 'S',
    AlarmRule: 'S',
    InsufficientDataActions: Strings,
    OKActions: Strings,
    Tags: { L: { M: { Key: 'S', Value: 'S' } } },
    ActionsSuppressor: 'S',
    ActionsSuppressorWaitPeriod: 'I',
    ActionsSuppressorExtensionPeriod: 'I',
  },
  DeleteAlarms: { AlarmNames: Strings },
  SetAlarmState: { AlarmName: 'S', StateValue: 'S', StateReason: 'S', StateReasonData: 'S' },
  ListMetrics: {
    Namespace: 'S',
    MetricName: 'S',
    Dimensions: { L: Dimension },
    NextToken: 'S',
    RecentlyActive: 'S',
    IncludeLinkedAccounts: 'B',
    OwningAccount: 'S',
  },
  DescribeAlarmHistory: {
    AlarmName: 'S',
    AlarmTypes: Strings,
    HistoryItemType: 'S',
    StartDate: 'T',
    EndDate: 'T',
    MaxRecords: 'I',
    NextToken: 'S',
    ScanBy: 'S',
  },
};

function typeError(path: string, expected: string, got: unknown): CloudWatchError {
  return serializationError(
    `${path || 'body'}: expected ${expected}, got ${JSON.stringify(got)?.slice(0, 40)}`,
  );
}

function parseTimestampText(text: string, path: string): number {
  if (/^-?\d+(\.\d+)?$/.test(text)) return Math.round(Number(text) * 1000);
  const ms = Date.parse(text);
  if (Number.isNaN(ms))
    throw validationError(`${path}: ${JSON.stringify(text)} is not an ISO 8601 timestamp`);
  return ms;
}

function parseDoubleText(text: string, path: string): number {
  if (text === 'NaN') return NaN;
  if (text === 'Infinity') return Infinity;
  if (text === '-Infinity') return -Infinity;
  const n = Number(text);
  if (text.trim() === '' || Number.isNaN(n))
    throw validationError(`${path}: ${JSON.stringify(text)} is not a number`);
  return n;
}

/** Decodes a parsed JSON 1.0 body against a schema; timestamps become epoch milliseconds. */
export function decodeJsonValue(schema: Schema, value: unknown, path: string): unknown {
  if (value === null || value === undefined) return undefined;
  if (schema === 'S') {
    if (typeof value !== 'string') throw typeError(path, 'a string', value);
    return value;
  }
  if (schema === 'I') {
    if (typeof value !== 'number' || !Number.isInteger(value)) throw typeError(path, 'an integer', value);
    return value;
  }
  if (schema === 'D') {
    if (typeof value === 'string') return parseDoubleText(value, path);
    if (typeof value !== 'number') throw typeError(path, 'a number', value);
    return value;
  }
  if (schema === 'B') {
    if (typeof value !== 'boolean') throw typeError(path, 'a boolean', value);
    return value;
  }
  if (schema === 'T') {
    if (typeof value === 'number' && Number.isFinite(value)) return Math.round(value * 1000);
    if (typeof value === 'string') return parseTimestampText(value, path);
    throw typeError(path, 'a timestamp', value);
  }
  if ('L' in schema) {
    if (!Array.isArray(value)) throw typeError(path, 'a list', value);
    return value.map((v, i) => decodeJsonValue(schema.L, v, `${path}[${i}]`));
  }
  if ('Map' in schema) {
    if (typeof value !== 'object' || Array.isArray(value)) throw typeError(path, 'a map', value);
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value as Record<string, unknown>))
      out[k] = decodeJsonValue(schema.Map, v, `${path}.${k}`);
    return out;
  }
  if (typeof value !== 'object' || Array.isArray(value)) throw typeError(path, 'a structure', value);
  const obj = value as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const [name, sub] of Object.entries(schema.M)) {
    const v = decodeJsonValue(sub, obj[name], path ? `${path}.${name}` : name);
    if (v !== undefined) out[name] = v;
  }
  return out;
}

/** Decodes awsQuery form parameters against a structure schema. */
export function decodeQueryParams(
  schema: Record<string, Schema>,
  params: URLSearchParams,
): Record<string, unknown> {
  const flat = new Map<string, string>();
  for (const [k, v] of params) flat.set(k, v);
  const keys = [...flat.keys()];
  const hasPrefix = (p: string) => flat.has(p) || keys.some((k) => k.startsWith(`${p}.`));
  const decode = (s: Schema, p: string): unknown => {
    if (typeof s === 'string') {
      const text = flat.get(p);
      if (text === undefined) return undefined;
      switch (s) {
        case 'S':
          return text;
        case 'I':
          if (!/^-?\d+$/.test(text)) throw validationError(`${p}: ${JSON.stringify(text)} is not an integer`);
          return Number(text);
        case 'D':
          return parseDoubleText(text, p);
        case 'B':
          if (text !== 'true' && text !== 'false')
            throw validationError(`${p}: ${JSON.stringify(text)} is not true or false`);
          return text === 'true';
        case 'T':
          return parseTimestampText(text, p);
      }
    }
    if ('L' in s) {
      if (flat.get(p) === '') return [];
      const items: unknown[] = [];
      for (let n = 1; hasPrefix(`${p}.member.${n}`); n++) items.push(decode(s.L, `${p}.member.${n}`));
      return items;
    }
    if ('Map' in s) {
      const out: Record<string, unknown> = {};
      for (let n = 1; flat.has(`${p}.entry.${n}.key`); n++) {
        out[flat.get(`${p}.entry.${n}.key`) as string] = decode(s.Map, `${p}.entry.${n}.value`);
      }
      return out;
    }
    const out: Record<string, unknown> = {};
    for (const [name, sub] of Object.entries(s.M)) {
      const key = p ? `${p}.${name}` : name;
      if (!hasPrefix(key)) continue;
      const v = decode(sub, key);
      if (v !== undefined) out[name] = v;
    }
    return out;
  };
  return decode({ M: schema }, '') as Record<string, unknown>;
}

/** Serializes an output object for AWS JSON 1.0: Dates become epoch seconds. */
export function encodeJson(output: unknown): string {
  return JSON.stringify(output, function (this: Record<string, unknown>, key: string, v: unknown) {
    const original = this[key];
    if (original instanceof Date) return original.getTime() / 1000;
    if (typeof v === 'number' && !Number.isFinite(v))
      return Number.isNaN(v) ? 'NaN' : v > 0 ? 'Infinity' : '-Infinity';
    return v;
  });
}

/** Escapes text for XML element content. */
export function escapeXml(s: string): string {
  return s.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' })[c] as string,
  );
}

function xmlScalar(v: unknown): string {
  if (v instanceof Date) return v.toISOString();
  if (typeof v === 'number')
    return Number.isNaN(v) ? 'NaN' : Number.isFinite(v) ? String(v) : v > 0 ? 'Infinity' : '-Infinity';
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  return escapeXml(String(v));
}

/**
 * A map member (e.g. `Datapoint.ExtendedStatistics`): awsQuery writes it as `<entry><key/><value/></entry>`
 * items, JSON as an object.
 */
export class XmlMap {
  constructor(readonly entries: Record<string, unknown>) {}
  toJSON(): Record<string, unknown> {
    return this.entries;
  }
}

function xmlBody(v: unknown): string {
  if (v instanceof XmlMap)
    return Object.entries(v.entries)
      .map(([k, x]) => `<entry><key>${escapeXml(k)}</key><value>${xmlBody(x)}</value></entry>`)
      .join('');
  if (Array.isArray(v)) return v.map((item) => `<member>${xmlBody(item)}</member>`).join('');
  if (v !== null && typeof v === 'object' && !(v instanceof Date)) {
    let out = '';
    for (const [k, child] of Object.entries(v as Record<string, unknown>)) {
      if (child === undefined) continue;
      out += `<${k}>${xmlBody(child)}</${k}>`;
    }
    return out;
  }
  return xmlScalar(v);
}

/** The awsQuery success envelope; `output` undefined means the operation has no output shape. */
export function encodeXmlResponse(
  operation: string,
  output: Record<string, unknown> | undefined,
  requestId: string,
): string {
  const result = output === undefined ? '' : `<${operation}Result>${xmlBody(output)}</${operation}Result>`;
  return (
    `<?xml version="1.0" encoding="UTF-8"?>\n<${operation}Response xmlns="${XML_NAMESPACE}">${result}` +
    `<ResponseMetadata><RequestId>${requestId}</RequestId></ResponseMetadata></${operation}Response>`
  );
}

/** The awsQuery error envelope. */
export function encodeXmlError(err: CloudWatchError, requestId: string): string {
  return (
    `<?xml version="1.0" encoding="UTF-8"?>\n<ErrorResponse xmlns="${XML_NAMESPACE}"><Error><Type>${err.fault}</Type>` +
    `<Code>${escapeXml(err.code)}</Code><Message>${escapeXml(err.message)}</Message></Error>` +
    `<RequestId>${requestId}</RequestId></ErrorResponse>`
  );
}

/** The JSON 1.0 error body; InternalServiceFault names its member `Message`, the others `message`. */
export function encodeJsonError(err: CloudWatchError): string {
  const key = err.type.endsWith('#InternalServiceFault') ? 'Message' : 'message';
  return JSON.stringify({ __type: err.type, [key]: err.message });
}
