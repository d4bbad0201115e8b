/**
 * Bounds and abort thresholds: evaluation and the text that reasons quote. The one bound evaluator: the
 * run's engine, `chaos-gate measure` and the reports all compare a value with a bound here, and print it
 * with the journal's `formatValue`.
 */
import type { AbortRule, Bound, Expectation, SourceSpec } from '../plan/schema.js';
import type { SliStatus } from '../journal/types.js';
import { formatValue } from '../journal/format.js';
import type { Reading } from '../metrics/source.js';

/** Renders a bound as written in journals: `<= 0.18`, `>= 0.998`, `in [40, 60]`. */
export function boundText(bound: Bound): string {
  if (bound.max !== undefined) return `<= ${formatValue(bound.max)}`;
  if (bound.min !== undefined) return `>= ${formatValue(bound.min)}`;
  if (bound.between !== undefined)
    return `in [${formatValue(bound.between[0])}, ${formatValue(bound.between[1])}]`;
  return 'unbounded';
}

/** True when `value` satisfies the bound (inclusive limits). */
export function withinBound(bound: Bound, value: number): boolean {
  if (bound.max !== undefined) return value <= bound.max;
  if (bound.min !== undefined) return value >= bound.min;
  if (bound.between !== undefined) return value >= bound.between[0] && value <= bound.between[1];
  return true;
}

/** Describes a value outside its bound: `0.25 > 0.18`, `0.99 < 0.998`, `35 outside [40, 60]`. */
export function breachText(bound: Bound, value: number): string {
  const v = formatValue(value);
  if (bound.max !== undefined) return `${v} > ${formatValue(bound.max)}`;
  if (bound.min !== undefined) return `${v} < ${formatValue(bound.min)}`;
  if (bound.between !== undefined) return `${v} outside ${boundText(bound).slice(3)}`;
  return v;
}

/**
 * The status of a reading against a bound: a value outside it is a `breach`; no-data and error pass
 * through, and a value that is not a finite number is no-data (never within a bound).
 */
export function statusOf(reading: Pick<Reading, 'value' | 'status'>, bound: Bound): SliStatus {
  if (reading.status !== 'ok' || reading.value === null || !Number.isFinite(reading.value))
    return reading.status === 'ok' ? 'no-data' : reading.status;
  return withinBound(bound, reading.value) ? 'ok' : 'breach';
}

/** The bound an SLI declares at its top level. */
export function sliBound(sli: Bound): Bound {
  const b: Bound = {};
  if (sli.max !== undefined) b.max = sli.max;
  if (sli.min !== undefined) b.min = sli.min;
  if (sli.between !== undefined) b.between = sli.between;
  return b;
}

/** An expectation as a bound: seen when value ≥ atLeast and ≤ atMost. */
export function expectationBound(e: Expectation): Bound {
  if (e.atLeast !== undefined && e.atMost !== undefined) return { between: [e.atLeast, e.atMost] };
  if (e.atLeast !== undefined) return { min: e.atLeast };
  return { max: e.atMost ?? Infinity };
}

/**
 * Consecutive measurements an abort rule needs: ⌈for / interval⌉, at least one. `for: 5s` at `1s`
 * is 5 measurements; `for: 0s` trips on the first.
 */
export function ruleCount(forMs: number, intervalMs: number): number {
  return Math.max(1, Math.ceil(forMs / intervalMs));
}

/** True when a value is past the rule's threshold. `above`/`below` are strict, as the words say. */
export function ruleBreached(rule: AbortRule, value: number): boolean {
  if (rule.above !== undefined) return value > rule.above;
  if (rule.below !== undefined) return value < rule.below;
  return false;
}

/** `> 0.5` or `< 0.99`. */
export function ruleText(rule: AbortRule): string {
  return rule.above !== undefined ? `> ${formatValue(rule.above)}` : `< ${formatValue(rule.below)}`;
}

/** The source part of an SLI, expectation or request query. */
export function specOf(s: SourceSpec): SourceSpec {
  const spec: SourceSpec = {};
  if (s.prometheus !== undefined) spec.prometheus = s.prometheus;
  if (s.cloudwatch !== undefined) spec.cloudwatch = s.cloudwatch;
  if (s.scrape !== undefined) spec.scrape = s.scrape;
  return spec;
}
