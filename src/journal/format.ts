/**
 * Number and time formatting shared by the engine's reasons and the renderers, so a reason string and
 * the report quote a value identically.
 */

/** Significant digits shown for a measured value: enough for 0.9991 and 0.612 without float noise. */
const SIGNIFICANT_DIGITS = 4;

/** Formats a measured value: `0.612`, `0.9991`, `812`, `12345`, `n/a` for null. */
export function formatValue(value: number | null | undefined): string {
  if (value === null || value === undefined) return 'n/a';
  if (Number.isNaN(value)) return 'NaN';
  if (!Number.isFinite(value)) return value > 0 ? '+Inf' : '-Inf';
  if (Number.isInteger(value)) return String(value);
  if (Math.abs(value) >= 10 ** SIGNIFICANT_DIGITS) return value.toFixed(0);
  return String(Number(value.toPrecision(SIGNIFICANT_DIGITS)));
}

/** Formats seconds relative to the injection: `+34.0 s`, `-5.0 s`. */
export function formatOffset(seconds: number): string {
  const sign = seconds < 0 ? '-' : '+';
  return `${sign}${Math.abs(seconds).toFixed(1)} s`;
}

/** Formats milliseconds as seconds with one decimal: `45.0 s`. */
export function formatSeconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}
