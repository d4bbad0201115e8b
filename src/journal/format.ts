/**
 * Number and time formatting shared by the engine's reasons and the renderers, so a reason string and
 * the report quote a value identically, and the one clock every report reads times on.
 */
import type { Journal, TimeOriginKind } from './types.js';

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

/**
 * Formats seconds relative to the injection: `+34.0 s`, `-5.0 s`. The sign is that of the rounded value,
 * so -0.04 s prints `+0.0 s` (never `-0.0 s`) and every report prints a given instant the same way.
 */
export function formatOffset(seconds: number): string {
  const text = Math.abs(seconds).toFixed(1);
  const sign = seconds < 0 && Number(text) !== 0 ? '-' : '+';
  return `${sign}${text} s`;
}

/** Units of a human duration, largest first. */
const HUMAN_UNITS = [
  ['d', 86_400_000],
  ['h', 3_600_000],
  ['min', 60_000],
] as const;

/**
 * The one way a duration reads in a reason or a report, in human units: under a minute as seconds with
 * one decimal (`45.0 s`, `2.5 s`), longer as its two largest units (`1 min 30 s`, `1 h 30 min`, `21 d`,
 * `2 d 3 h`). A 21-day budget window is `21 d`, never `1814400.0 s`. Plans write durations in their own
 * notation (`90s`, `30d`: plan/duration.ts), which messages quoting the plan keep.
 */
export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms)) return ms > 0 ? 'for ever' : 'n/a';
  const sign = ms < 0 ? '-' : '';
  const abs = Math.abs(ms);
  if (abs < 60_000) return `${sign}${(abs / 1000).toFixed(1)} s`;
  // Whole seconds from a minute on: tenths of a second do not matter next to minutes.
  let rest = Math.round(abs / 1000) * 1000;
  const parts: string[] = [];
  for (const [unit, size] of HUMAN_UNITS) {
    const n = Math.floor(rest / size);
    rest -= n * size;
    if (n > 0 || parts.length > 0) parts.push(`${n} ${unit}`);
  }
  parts.push(`${rest / 1000} s`);
  // The two largest units, without a trailing zero (`21 d`, not `21 d 0 h`).
  const shown = parts.slice(0, 2).filter((p, i) => i === 0 || !p.startsWith('0 '));
  return `${sign}${shown.join(' ')}`;
}

/** Formats milliseconds as a duration in human units (see {@link formatDuration}): `45.0 s`, `1 h 30 min`. */
export function formatSeconds(ms: number): string {
  return formatDuration(ms);
}

/** What offset 0 is on a report's clock; see `timeOrigin`. */
export type { TimeOriginKind } from './types.js';

export interface TimeOrigin {
  /** Epoch milliseconds of offset 0. */
  at: number;
  kind: TimeOriginKind;
  /** What the offsets count from, for axis titles and column headers: `seconds from ${label}`. */
  label: string;
}

/** The parts of a journal the clock reads (a crashed prefix has them too). */
export type JournalClock = Pick<Journal, 'timings' | 'measurements' | 'startedAt'>;

const ORIGIN_LABEL: Record<TimeOriginKind, string> = {
  injection: 'injection',
  'last-steady': 'the last steady-state measurement',
  start: 'the start of the run',
};

/**
 * The one clock every report (Markdown, check run, PR comment, HTML replay, console) reads times on.
 *
 * - The run injected: `timings.injectedAt` (StartExperiment returned; the engine may refine it to when
 *   FIS reports the first action running). Steady-state measurements are negative.
 * - Nothing was injected (not-run, refused, failed before the start): the last steady-state
 *   measurement. That is where the injection would have come, so the steady state still reads as
 *   "seconds before", and a steady state broken by its last measurement puts that breach at 0.
 * - Nothing was injected or measured (refused in preflight): the start of the run.
 *
 * `Measurement.t` is deliberately not read: older engines computed it for the steady state against a
 * *planned* injection time, several seconds off the real one, so the reports disagreed with each other.
 */
export function timeOrigin(journal: JournalClock): TimeOrigin {
  const injectedAt = journal.timings.injectedAt;
  if (injectedAt !== undefined) return { at: injectedAt, kind: 'injection', label: ORIGIN_LABEL.injection };
  const measurements = journal.measurements;
  // From the end: a run that never injected stops measuring right after its steady state.
  for (let i = measurements.length - 1; i >= 0; i--) {
    const m = measurements[i];
    if (m?.phase === 'steady') return { at: m.at, kind: 'last-steady', label: ORIGIN_LABEL['last-steady'] };
  }
  return { at: journal.startedAt, kind: 'start', label: ORIGIN_LABEL.start };
}

/** Seconds from `origin` to `at` (negative before it). */
export function secondsFrom(origin: TimeOrigin, at: number): number {
  return (at - origin.at) / 1000;
}

/** Seconds from the journal's time origin to `at`: the offset every report prints for a measurement or event. */
export function offsetSeconds(journal: JournalClock, at: number): number {
  return secondsFrom(timeOrigin(journal), at);
}
