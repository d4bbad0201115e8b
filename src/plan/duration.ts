/** Durations in plans are strings such as `500ms`, `5s`, `2m`, `1h`, `30d`; internally milliseconds. */
import { isoDurationMs } from '../fis-reference/actions.js';
const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** What a duration field accepts, phrased for error messages. */
export const DURATION_EXPECTED = 'a duration such as 500ms, 5s, 2m, 1h or 30d';

/** The longest duration a plan may write: a year and a day (366 d), well inside what a `Date` holds. */
export const MAX_DURATION_MS = 366 * 86_400_000;

export const DURATION_PATTERN = '^\\s*(\\d+(?:\\.\\d+)?)(ms|s|m|h|d)\\s*$';
const DURATION_RE = new RegExp(DURATION_PATTERN);

/** Parses a duration string; returns undefined when it is not one. */
export function parseDuration(text: string): number | undefined {
  const m = DURATION_RE.exec(text);
  if (!m || m[1] === undefined || m[2] === undefined) return undefined;
  const unit = UNIT_MS[m[2]];
  if (unit === undefined) return undefined;
  return Math.round(Number(m[1]) * unit);
}

/** Formats milliseconds back into the shortest exact plan notation (`90s`, `1500ms`, `2m`). */
export function formatDuration(ms: number): string {
  for (const [unit, size] of [
    ['d', 86_400_000],
    ['h', 3_600_000],
    ['m', 60_000],
    ['s', 1000],
  ] as const) {
    if (ms >= size && ms % size === 0) return `${ms / size}${unit}`;
  }
  if (ms >= 1000) return `${(ms / 1000).toFixed(1)}s`;
  return `${ms}ms`;
}

/**
 * Parses an ISO-8601 duration as FIS takes them (`PT60S`, `PT1M`, `PT1H30M`, `P1D`) into ms: the one
 * reader of FIS's durations (the action limits, the timing refusals, `chaos-gate import`).
 */
export const parseIsoDuration: (text: string) => number | undefined = isoDurationMs;
