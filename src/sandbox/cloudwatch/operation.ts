/**
 * What every CloudWatch operation shares: the state it works on (clock, metric store, alarm book), the
 * parameter checks more than one operation makes (units, statistics, dimensions, values), and NextToken
 * paging.
 */
import type { AlarmBook } from './alarms.js';
import type { CompositeBook } from './composite.js';
import { invalidNextToken, invalidParameterValue } from './errors.js';
import type { Dimension, MetricStore } from './store.js';

/** The state of one account and Region that the operations read and change. */
export interface CloudWatchState {
  now: () => number;
  store: MetricStore;
  alarms: AlarmBook;
  composites: CompositeBook;
}

/** A decoded request, member names as in the model. */
export type Input = Record<string, unknown>;
/** An operation's answer; undefined for an operation with no output members. */
export type Output = Record<string, unknown> | undefined;

/** MetricDatum.Dimensions: at most 30 (M-CW `Dimensions` length trait). */
export const MAX_DIMENSIONS = 30;
/** Values must lie within ±2^360 (M-CW `MetricDatum.Value` doc). */
export const MAX_ABS_VALUE = 2 ** 360;

/** CloudWatch's StandardUnit enum (M-CW). */
export const STANDARD_UNITS = new Set([
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
/** The simple statistics (M-CW `Statistic`); percentiles and the like are extended statistics. */
export const STATISTICS = new Set(['SampleCount', 'Average', 'Sum', 'Minimum', 'Maximum']);

/** The value when it is a string, else undefined. */
export function str(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

/** A NextToken for the item at `offset` of the request whose parameters serialise to `key`. */
export function encodeToken(offset: number, key: string): string {
  return Buffer.from(JSON.stringify({ o: offset, k: key })).toString('base64url');
}

/** The offset a NextToken stands for (0 without one); InvalidNextToken when it was issued for another request. */
export function decodeToken(token: string | undefined, key: string): number {
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

/** At most 30 dimensions, each name 1–255 and value 1–1024 characters, no name twice. */
export function checkDimensions(dims: Dimension[] | undefined, at: string): void {
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

/** A finite value within ±2^360. */
export function checkValue(v: number, at: string): void {
  if (!Number.isFinite(v))
    throw invalidParameterValue(
      `The value ${v} for parameter ${at} is invalid: NaN and Infinity are not accepted.`,
    );
  if (Math.abs(v) > MAX_ABS_VALUE)
    throw invalidParameterValue(`The value for parameter ${at} is outside the range -2^360 to 2^360.`);
}
