/**
 * Number and time formatting shared by the engine's reasons and the renderers, so a reason string and
 * the report quote a value identically, and the one clock every report reads times on.
 */
import type { Journal } from './types.js';

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

/** Formats milliseconds as seconds with one decimal: `45.0 s`. */
export function formatSeconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}

/** What offset 0 is on a report's clock; see `timeOrigin`. */
export type TimeOriginKind = 'injection' | 'last-steady' | 'start';

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
