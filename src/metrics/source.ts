/**
 * The narrow interface every metric source implements. A measurement error is a value
 * (`status: 'error'`), never a throw: the engine decides what blindness means.
 *
 * A reading is `ok` only when its evidence is fresh, finite and whole (docs/metrics.md, "What counts as
 * a reading"); anything else is `no-data` or `error` with the reason in `error`. The few rules every
 * source and the engine share live here, so no source can judge them differently.
 */
import type { SourceSpec } from '../plan/schema.js';

export type SourceKind = 'prometheus' | 'cloudwatch' | 'scrape';

/** One number to read: an SLI, an expectation, or the request count. */
export interface Query {
  /** Unique within a tick: the SLI or expectation name, or `__requests`. */
  name: string;
  spec: SourceSpec;
}

export type ReadingStatus = 'ok' | 'no-data' | 'error';

export interface Reading {
  name: string;
  /** A finite number when `status` is `ok`; null otherwise. */
  value: number | null;
  status: ReadingStatus;
  /** The query as sent (resolved PromQL, GetMetricData query, scrape URL + selector). */
  query: string;
  /**
   * Why there is no value (Prometheus's own message, HTTP status, a stale or partial answer, …). Text
   * from outside is kept as data, capped at {@link MAX_REASON_CHARS}; renderers neutralise it.
   */
  error?: string;
}

/**
 * How far the time an answer is for may be from the time asked for, and how far ahead of the runner's
 * clock a sample may be stamped. A Prometheus instant query answers for exactly the `time=` it was sent
 * (sent with millisecond precision); one second more covers a server or proxy that rounds the evaluation
 * time to whole seconds and the clock skew between a runner and CloudWatch, and is no longer than an
 * interval of 1 s (the default), the time the same answer repeated would be off by. At shorter
 * intervals a repeated answer is caught by its sample time not advancing (the Prometheus source).
 */
export const SAMPLE_TIME_TOLERANCE_MS = 1_000;

/** The longest text from outside (a warning, an error body) a reading's `error` keeps. */
export const MAX_REASON_CHARS = 500;

/** `text` cut to `max` characters, saying how much was cut. */
export function capReason(text: string, max: number = MAX_REASON_CHARS): string {
  if (text.length <= max) return text;
  return `${text.slice(0, max)}… (${text.length - max} more characters)`;
}

/** Why `value` is not evidence (`the value is +Inf`), or undefined for a finite number. */
export function nonFiniteProblem(value: number, what = 'the value'): string | undefined {
  if (Number.isFinite(value)) return undefined;
  const text = Number.isNaN(value) ? 'NaN' : value > 0 ? '+Inf' : '-Inf';
  return `${what} is ${text}, not a finite number`;
}

export interface MetricSource {
  readonly kind: SourceKind;
  /**
   * Reads every query of one tick at time `at` (ms) over the window `windowMs` that ends at `at`.
   * Must resolve (never reject) with one reading per query, in order.
   */
  read(queries: readonly Query[], at: number, windowMs: number, signal?: AbortSignal): Promise<Reading[]>;
}

/** Which source kind a spec uses. */
export function sourceKindOf(spec: SourceSpec): SourceKind {
  if (spec.prometheus !== undefined) return 'prometheus';
  if (spec.cloudwatch !== undefined) return 'cloudwatch';
  return 'scrape';
}

/**
 * An `ok` reading whose value is not a finite number (or missing) as the `no-data` reading it is; any
 * other reading as it is. The last line behind the sources' own checks (the engine and `readAll` apply
 * it to every reading), so that no source can leak a NaN or ±Inf into a verdict.
 */
export function finiteOnly(r: Reading): Reading {
  if (r.status !== 'ok') return r;
  const problem =
    r.value === null ? 'the source gave no value' : nonFiniteProblem(r.value, "the source's value");
  if (problem === undefined) return r;
  return { ...r, value: null, status: 'no-data', error: problem };
}
