/**
 * The data a replay page plays: the same shape for a run journal and for the failover model, so one
 * player drives both. Times are seconds on the replay's own axis (for runs the clock every report shares,
 * `timeOrigin` in journal/format: from injection; for the model, from the start of the inspection window).
 */

/** A point `[t, value, status?]`; a null value is a gap (no data). */
export type ReplayPoint = [number, number | null] | [number, number | null, string];

export interface ReplaySeries {
  name: string;
  /** CSS class of the line: `s0`..`s3` pick a colour. */
  cls: string;
  points: ReplayPoint[];
}

export interface ReplayPanel {
  id: string;
  title: string;
  unit: string;
  series: ReplaySeries[];
  /** Horizontal reference lines: SLI bounds, abort thresholds, capacity. */
  bounds: { label: string; value: number; cls: string }[];
  /** Shaded time spans: the fault, the outage. */
  bands: { from: number; to: number; label: string }[];
}

/** A value shown for the inspection time: the last point at or before it. */
export interface ReplayReadout {
  id: string;
  label: string;
  unit: string;
  decimals: number;
  points: ReplayPoint[];
}

export interface ReplayEvent {
  t: number;
  type: string;
  message: string;
}

/** A moment marked on every chart with a vertical line and a label: injection, first breach, stop… */
export interface ReplayMarker {
  /** Stable id (`injected`, `first-breach`, `stop-requested`, `stopped`, `recovered`). */
  id: string;
  t: number;
  label: string;
}

export interface ReplayData {
  kind: 'run' | 'failover';
  /** Moments marked on every chart (runs: the timings of the journal). */
  markers?: ReplayMarker[];
  title: string;
  subtitle: string;
  start: number;
  end: number;
  events: ReplayEvent[];
  panels: ReplayPanel[];
  readouts: ReplayReadout[];
  verdict: { label: string; ok: boolean | null; reason: string };
  metrics: { id: string; label: string; value: string; ok: boolean | null }[];
}
