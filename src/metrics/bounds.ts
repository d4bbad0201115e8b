/**
 * Bound evaluation: whether a value is within an SLI's `max`, `min` or `between`, and the text that
 * reports it (`0.612 > 0.5`). Pure, so the engine, `measure` and the reports agree on every comparison.
 */
import type { SliStatus } from '../journal/types.js';
import type { Reading } from './source.js';

/** A bound as the plan writes it: exactly one of the three is set. */
export interface BoundSpec {
  max?: number | undefined;
  min?: number | undefined;
  between?: readonly [number, number] | undefined;
}

/** The outcome of checking one value against one bound. */
export interface BoundCheck {
  within: boolean;
  /** The bound alone: `<= 0.18`, `>= 0.998`, `in [40, 60]`. */
  bound: string;
  /** The comparison with the value: `0.612 > 0.5`, `0.12 <= 0.18`, `70 not in [40, 60]`. */
  comparison: string;
}

/**
 * Formats a number for reasons and tables: six significant digits, enough that a value just past a
 * bound (0.99949 against 0.9995) never prints as equal to it.
 */
export function formatValue(value: number): string {
  if (!Number.isFinite(value)) return Number.isNaN(value) ? 'NaN' : value > 0 ? '+Inf' : '-Inf';
  return String(Number(value.toPrecision(6)));
}

/** Describes a bound (`<= 0.18`); throws when the spec sets none, which the plan schema already refuses. */
export function describeBound(b: BoundSpec): string {
  if (b.max !== undefined) return `<= ${formatValue(b.max)}`;
  if (b.min !== undefined) return `>= ${formatValue(b.min)}`;
  if (b.between !== undefined) return `in [${formatValue(b.between[0])}, ${formatValue(b.between[1])}]`;
  throw new Error('a bound needs one of max, min, between');
}

/** Checks `value` against `b`. NaN is never within a bound. */
export function checkBound(value: number, b: BoundSpec): BoundCheck {
  const bound = describeBound(b);
  const v = formatValue(value);
  if (b.max !== undefined) {
    const within = value <= b.max;
    return { within, bound, comparison: `${v} ${within ? '<=' : '>'} ${formatValue(b.max)}` };
  }
  if (b.min !== undefined) {
    const within = value >= b.min;
    return { within, bound, comparison: `${v} ${within ? '>=' : '<'} ${formatValue(b.min)}` };
  }
  const [lo, hi] = b.between as readonly [number, number];
  const within = value >= lo && value <= hi;
  return {
    within,
    bound,
    comparison: `${v} ${within ? 'in' : 'not in'} [${formatValue(lo)}, ${formatValue(hi)}]`,
  };
}

/**
 * The status of a reading against a bound: a value outside it is a `breach`; no-data and error pass
 * through, and a value that is not a finite number is no-data (never within a bound).
 */
export function statusOf(reading: Pick<Reading, 'value' | 'status'>, b: BoundSpec): SliStatus {
  if (reading.status !== 'ok' || reading.value === null || !Number.isFinite(reading.value))
    return reading.status === 'ok' ? 'no-data' : reading.status;
  return checkBound(reading.value, b).within ? 'ok' : 'breach';
}
