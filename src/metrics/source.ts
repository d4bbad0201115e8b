/**
 * The narrow interface every metric source implements. A measurement error is a value
 * (`status: 'error'`), never a throw: the engine decides what blindness means.
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
  value: number | null;
  status: ReadingStatus;
  /** The query as sent (resolved PromQL, GetMetricData query, scrape URL + selector). */
  query: string;
  /** Why there is no value (Prometheus's own message, HTTP status, …). */
  error?: string;
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
