/**
 * `scan` (docs/design/analysis.md#scan): calibrate a hypothesis threshold over a recorded control run and experiment run
 * without rerunning anything. The input is split into windows, each reduced to a *full share* and a
 * *damage* count; everything after that works on typed arrays so 30 days of 10 s windows stay well
 * under a second (bench/scan.ts measures it).
 */
import type { Journal, Measurement } from '../journal/types.js';
import { formatValue } from '../journal/format.js';
import { allMeasurements } from '../journal/columns.js';

/** Readings (measurements × SLIs) a scan holds at once; a longer journal is refused with the figures. */
export const MAX_SCAN_READINGS = 4_000_000;

/**
 * Every measurement of the journal as an array (a long run's are read from its columns). The scan
 * compares them all against each other, so it holds them; a journal beyond {@link MAX_SCAN_READINGS}
 * readings is refused rather than exhausting memory.
 */
function everyMeasurement(journal: Journal): Measurement[] {
  const all = allMeasurements(journal);
  if (Array.isArray(all)) return all as Measurement[];
  const readings = all.length * Math.max(1, journal.slis.length);
  if (readings > MAX_SCAN_READINGS)
    throw new ScanError(
      `the journal holds ${all.length} measurements of ${journal.slis.length} SLIs (${readings} readings); a scan takes at most ${MAX_SCAN_READINGS}`,
    );
  return [...all];
}

/** One record of a request log: a request, whether the fault could reach it, and how it was served. */
export interface RequestRecord {
  request: number;
  tagged: boolean;
  result: 'full' | 'degraded';
}

/** The request-log input of docs/design/analysis.md#scan. */
export interface RequestLog {
  WINDOW?: number | undefined;
  /** The first request index of the fault window in the experiment run. */
  EXPERIMENT_START?: number | undefined;
  control: RequestRecord[];
  experiment: RequestRecord[];
}

/**
 * A run reduced to windows. `share[i]` is the window's full share, NaN when the window holds nothing
 * measurable; `damage[i]` is what the experiment cost in that window (tagged and degraded requests).
 */
export interface Windows {
  share: Float64Array;
  damage: Float64Array;
}

/** Default share margins of docs/design/analysis.md#scan, in percent. */
export const DEFAULT_MARGINS_PERCENT = [0, 5, 10, 20] as const;
/** Default numbers of consecutive falsified windows an abort needs (docs/design/analysis.md#scan: k = 1..4). */
export const DEFAULT_KS = [1, 2, 3, 4] as const;
/**
 * Slack on `share < baseline − margin`: a baseline is a mean of floating-point shares, so a window
 * exactly at the threshold (e.g. 0.9 against 0.95 − 0.05 = 0.8999999999999999) must not count as falsified.
 */
const SHARE_EPSILON = 1e-9;

export interface MarginRow {
  /** The margin as a fraction of full share (0.05 = 5 percentage points). */
  margin: number;
  /** Control windows below baseline − margin. */
  falseFails: number;
  /** Experiment windows below baseline − margin. */
  falsified: number;
  /** 1-based index of the first falsified experiment window, null for none. */
  firstFalsified: number | null;
}

export interface AbortRow {
  k: number;
  /** 1-based experiment window at which k consecutive falsified windows complete; null for never. */
  abortWindow: number | null;
  /** Tagged and degraded requests up to and including the abort window (all of them if never). */
  damage: number;
  /** Damage beyond what an abort at k = 1 would have cost. */
  costOverK1: number;
}

export interface BlastRadius {
  /** Requests in the fault window (experiment requests from EXPERIMENT_START on). */
  faultWindowRequests: number;
  tagged: number;
  measuredShare: number;
  plannedShare: number | null;
  /** measuredShare / plannedShare: 1 is as planned, 2 is twice as wide. */
  multiplier: number | null;
}

/** The machine-readable result (`scan --json`), exactly the shape of docs/design/analysis.md#scan / issue 6. */
export interface ScanResult {
  baseline: number;
  windows: { control: number; experiment: number };
  margins: MarginRow[];
  chosenMargin: number | null;
  totalDamage: number;
  aborts: AbortRow[];
  blastRadius: BlastRadius | null;
}

/** How the windows were formed, for the text report. */
export interface ScanContext {
  source: 'request-log' | 'journal';
  /** e.g. `40 requests` or `10 s`. */
  window: string;
  /** What a unit of damage is: `requests`, or `measurements` for a journal without request counts. */
  damageUnit: string;
  /** Windows with nothing measurable (no-data or errors only), per run. */
  emptyWindows: { control: number; experiment: number };
}

export interface ScanReport {
  result: ScanResult;
  context: ScanContext;
  /** For a journal: settle, tolerance and bound per SLI from the run's noise (`suggestHypothesis`). */
  suggestion?: HypothesisSuggestion;
}

export interface ScanOptions {
  /** Margins as fractions (0.05 for 5 %). */
  margins?: readonly number[] | undefined;
  ks?: readonly number[] | undefined;
  /** Planned blast radius as a fraction. */
  plannedShare?: number | undefined;
}

/** Thrown when the input cannot be scanned; the CLI prints it and exits 2. */
export class ScanError extends Error {
  override name = 'ScanError';
}

/**
 * The analysis proper: baseline, margin table, chosen margin, abort table. Pure and linear in the
 * number of windows times (margins + k values).
 */
export function analyseWindows(
  control: Windows,
  experiment: Windows,
  options: ScanOptions = {},
): Omit<ScanResult, 'blastRadius'> {
  const margins = [...(options.margins ?? DEFAULT_MARGINS_PERCENT.map((m) => m / 100))].sort((a, b) => a - b);
  const ks = [...(options.ks ?? DEFAULT_KS)].sort((a, b) => a - b);

  let sum = 0;
  let measured = 0;
  for (let i = 0; i < control.share.length; i++) {
    const s = control.share[i]!;
    if (s === s) {
      sum += s;
      measured++;
    }
  }
  if (measured === 0)
    throw new ScanError('the control run has no measurable window, so there is no baseline');
  const baseline = sum / measured;

  const rows: MarginRow[] = margins.map((margin) => {
    const threshold = baseline - margin - SHARE_EPSILON;
    return {
      margin,
      falseFails: countBelow(control.share, threshold),
      falsified: countBelow(experiment.share, threshold),
      firstFalsified: firstBelow(experiment.share, threshold),
    };
  });
  const chosen = rows.find((r) => r.falseFails === 0);

  const n = experiment.damage.length;
  const cumulative = new Float64Array(n);
  let running = 0;
  for (let i = 0; i < n; i++) {
    running += experiment.damage[i]!;
    cumulative[i] = running;
  }
  const totalDamage = running;

  const aborts: AbortRow[] = [];
  if (chosen) {
    const threshold = baseline - chosen.margin - SHARE_EPSILON;
    const damageAt = (k: number): { window: number | null; damage: number } => {
      const index = firstRun(experiment.share, threshold, k);
      return index === -1
        ? { window: null, damage: totalDamage }
        : { window: index + 1, damage: cumulative[index]! };
    };
    const reference = damageAt(1).damage;
    for (const k of ks) {
      const { window, damage } = damageAt(k);
      aborts.push({
        k,
        abortWindow: window,
        damage: roundCount(damage),
        costOverK1: roundCount(damage - reference),
      });
    }
  }

  return {
    baseline: round6(baseline),
    windows: { control: control.share.length, experiment: experiment.share.length },
    margins: rows,
    chosenMargin: chosen ? chosen.margin : null,
    totalDamage: roundCount(totalDamage),
    aborts,
  };
}

function countBelow(shares: Float64Array, threshold: number): number {
  let count = 0;
  for (let i = 0; i < shares.length; i++) if (shares[i]! < threshold) count++;
  return count;
}

function firstBelow(shares: Float64Array, threshold: number): number | null {
  for (let i = 0; i < shares.length; i++) if (shares[i]! < threshold) return i + 1;
  return null;
}

/** 0-based index of the window completing the first run of k windows below the threshold, or -1. */
function firstRun(shares: Float64Array, threshold: number, k: number): number {
  let streak = 0;
  for (let i = 0; i < shares.length; i++) {
    // NaN (nothing measurable) compares false, so an empty window breaks a streak: no evidence, no abort.
    streak = shares[i]! < threshold ? streak + 1 : 0;
    if (streak >= k) return i;
  }
  return -1;
}

function round6(x: number): number {
  return Math.round(x * 1e6) / 1e6;
}

/** Damage is a count; journal-derived damage can be fractional (share × requests), so it is rounded once, at output. */
function roundCount(x: number): number {
  return Math.round(x * 1e6) / 1e6 === Math.round(x) ? Math.round(x) : Math.round(x * 10) / 10;
}

// ---------------------------------------------------------------------------------------------
// Request logs

/** Splits request records into windows of `size` consecutive requests (ordered by request index). */
export function windowRequests(records: readonly RequestRecord[], size: number): Windows {
  const ordered = isSorted(records) ? records : [...records].sort((a, b) => a.request - b.request);
  const count = Math.ceil(ordered.length / size);
  const share = new Float64Array(count);
  const damage = new Float64Array(count);
  for (let w = 0; w < count; w++) {
    const end = Math.min(ordered.length, (w + 1) * size);
    let full = 0;
    let hurt = 0;
    for (let i = w * size; i < end; i++) {
      const r = ordered[i]!;
      if (r.result === 'full') full++;
      else if (r.tagged) hurt++;
    }
    share[w] = full / (end - w * size);
    damage[w] = hurt;
  }
  return { share, damage };
}

function isSorted(records: readonly RequestRecord[]): boolean {
  for (let i = 1; i < records.length; i++) if (records[i]!.request < records[i - 1]!.request) return false;
  return true;
}

/** Share of the fault window's requests that were tagged (docs/design/analysis.md#scan "measured blast radius"). */
export function measureBlastRadius(log: RequestLog, plannedShare?: number): BlastRadius | null {
  const start = log.EXPERIMENT_START ?? -Infinity;
  let total = 0;
  let tagged = 0;
  for (const r of log.experiment) {
    if (r.request < start) continue;
    total++;
    if (r.tagged) tagged++;
  }
  if (total === 0) return null;
  const measuredShare = tagged / total;
  return {
    faultWindowRequests: total,
    tagged,
    measuredShare: round6(measuredShare),
    plannedShare: plannedShare ?? null,
    multiplier: plannedShare ? round6(measuredShare / plannedShare) : null,
  };
}

/** Scans a request log. `window` overrides the log's own WINDOW. */
export function scanRequestLog(
  log: RequestLog,
  options: ScanOptions & { window?: number | undefined } = {},
): ScanReport {
  const size = options.window ?? log.WINDOW;
  if (size === undefined) throw new ScanError('the request log has no WINDOW; pass --window <requests>');
  if (!Number.isInteger(size) || size < 1)
    throw new ScanError(`window ${size}: expected a whole number of requests ≥ 1`);
  const control = windowRequests(log.control, size);
  const experiment = windowRequests(log.experiment, size);
  const result: ScanResult = {
    ...analyseWindows(control, experiment, options),
    blastRadius: measureBlastRadius(log, options.plannedShare),
  };
  return {
    result,
    context: {
      source: 'request-log',
      window: `${size} requests`,
      damageUnit: 'requests',
      emptyWindows: { control: 0, experiment: 0 },
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Journals

/**
 * How a journal measurement becomes a full share:
 * - `bounds` (default): a measurement is full (1) when every SLI it checks is within its bound,
 *   degraded (0) when any SLI breached, and not measurable when the rest had no data or errors;
 * - `{ sli }`: the named SLI's value is itself a ratio in [0, 1] — a success ratio (a `>=` bound) is
 *   the full share, an error ratio (a `<=` bound) is 1 − value.
 */
export type JournalShareMode = 'bounds' | { sli: string };

export interface JournalScanOptions extends ScanOptions {
  /**
   * Window length in seconds, by the measurements' true times (see timeWindows); default: the journal's
   * measurement interval, which puts exactly one measurement in each window despite timer jitter.
   */
  windowSeconds?: number | undefined;
  /** Window length in measurements (alternative to windowSeconds). */
  windowMeasurements?: number | undefined;
  mode?: JournalShareMode | undefined;
}

interface Reading {
  at: number;
  phase: Measurement['phase'];
  /** Full share of the measurement, NaN when it measured nothing. */
  share: number;
  weight: number;
}

/**
 * Scans a chaos-gate journal: the steady-state measurements are the control run, the fault and
 * recovery measurements the experiment run. Every experiment request was exposed to the fault, so its
 * damage is its degraded requests. A journal does not say which requests reached a target, so the
 * blast radius is not computed (null).
 */
export function scanJournal(journal: Journal, options: JournalScanOptions = {}): ScanReport {
  const mode = options.mode ?? 'bounds';
  const steadyOnly = new Set(journal.slis.filter((s) => !s.during).map((s) => s.name));
  const bounds = new Map(journal.slis.map((s) => [s.name, s.bound] as const));
  const control: Measurement[] = [];
  const experiment: Measurement[] = [];
  for (const m of everyMeasurement(journal)) {
    if (m.phase === 'steady') control.push(m);
    else if (m.phase === 'fault' || m.phase === 'recovery') experiment.push(m);
  }
  if (control.length === 0)
    throw new ScanError('the journal has no steady-state measurement (phase "steady")');
  if (mode !== 'bounds' && !bounds.has(mode.sli) && !control.some((m) => mode.sli in m.slis)) {
    throw new ScanError(
      `--sli ${mode.sli}: the journal has no SLI of that name (it has ${[...bounds.keys()].join(', ')})`,
    );
  }

  const toReading = (m: Measurement, skip: Set<string>): Reading => ({
    at: m.at,
    phase: m.phase,
    share: mode === 'bounds' ? boundsShare(m, skip) : ratioShare(m, mode.sli, bounds.get(mode.sli)),
    weight: m.requests ?? NaN,
  });
  const controlReadings = control.map((m) => toReading(m, new Set()));
  const experimentReadings = experiment.map((m) => toReading(m, steadyOnly));
  // Weight by requests only when every usable measurement has a count; mixing counts with unit weights
  // would let a few uncounted ticks dominate or vanish.
  const weighted = [...controlReadings, ...experimentReadings].every(
    (r) => r.share !== r.share || (r.weight === r.weight && r.weight > 0),
  );
  if (!weighted) for (const r of [...controlReadings, ...experimentReadings]) r.weight = 1;

  let windowLabel: string;
  let group: (readings: Reading[]) => Windows;
  if (options.windowMeasurements !== undefined) {
    const n = options.windowMeasurements;
    if (!Number.isInteger(n) || n < 1)
      throw new ScanError(`window ${n}: expected a whole number of measurements ≥ 1`);
    windowLabel = `${n} measurement${n === 1 ? '' : 's'}`;
    group = (readings) => groupReadings(readings, (_, i) => Math.floor(i / n));
  } else {
    const intervalMs = journal.intervalMs;
    const seconds = options.windowSeconds ?? intervalMs / 1000;
    if (!(seconds > 0)) throw new ScanError(`window ${seconds} s: expected a positive number of seconds`);
    const ms = seconds * 1000;
    if (ms < intervalMs) {
      // Shorter windows than the tick would be empty between every two measurements by construction.
      throw new ScanError(
        `window ${seconds} s is shorter than the journal's measurement interval ${intervalMs / 1000} s; ` +
          `expected --window-seconds ≥ ${intervalMs / 1000} (one measurement per window at the least)`,
      );
    }
    windowLabel = `${seconds} s`;
    group = (readings) => {
      const index = timeWindows(readings, intervalMs, ms);
      return groupReadings(readings, (_, i) => index[i]!);
    };
  }
  const controlWindows = group(controlReadings);
  const experimentWindows = group(experimentReadings);
  const result: ScanResult = {
    ...analyseWindows(controlWindows, experimentWindows, options),
    blastRadius: null,
  };
  return {
    result,
    suggestion: suggestHypothesis(journal),
    context: {
      source: 'journal',
      window: windowLabel,
      damageUnit: weighted ? 'requests' : 'measurements',
      emptyWindows: {
        control: countNaN(controlWindows.share),
        experiment: countNaN(experimentWindows.share),
      },
    },
  };
}

/**
 * The window of each measurement of one run (in time order), by the measurements' true times.
 *
 * The engine takes one measurement per tick, but `at` is when the timer fired: in a real run (the demo
 * journals under fixtures/analysis/) consecutive measurements are 992–1031 ms apart at a 1 s interval.
 * Flooring "time since the first measurement" by the window length therefore put two measurements
 * 999 ms apart into one window and left the next window empty, so a clean run reported windows with
 * "nothing measurable". Rounding against one grid from the first measurement is no cure either: the
 * engine re-anchors its schedule after a tick overruns (`next = max(next + interval, now)`), so the
 * ticks drift off any fixed grid by up to half an interval and jitter decides again.
 *
 * So each measurement first gets its tick slot, counted from the previous measurement: the gap rounded
 * to whole intervals, and at least one (two measurements are never the same tick). A gap of 1.5
 * intervals or more is a tick the engine really missed — a measurement overran — and leaves a slot, and
 * so possibly a window, without a measurement: time nobody measured is shown as such. At a phase change
 * (fault → recovery) the slots restart in a new window: the engine starts a new schedule there, the gap
 * is the time spent stopping the fault rather than missed ticks, and a window never spans two phases
 * (docs/design/evidence.md#measurement). Slot s of a phase then falls in window ⌊s × interval / window⌋ of that phase: with the
 * default window (= the interval) every measurement is exactly one window.
 */
function timeWindows(readings: readonly Reading[], intervalMs: number, windowMs: number): Int32Array {
  const index = new Int32Array(readings.length);
  // Windows of earlier phases come first; `base` is the first window of the current phase.
  let base = 0;
  let slot = 0;
  let window = -1;
  for (let i = 0; i < readings.length; i++) {
    const r = readings[i]!;
    const previous = i === 0 ? undefined : readings[i - 1]!;
    if (previous === undefined || previous.phase !== r.phase) {
      base = window + 1;
      slot = 0;
    } else {
      slot += Math.max(1, Math.round((r.at - previous.at) / intervalMs));
    }
    // The 1e-9 absorbs floating-point error at exact boundaries (slot 3 of 0.1 s ticks in 0.3 s windows).
    window = base + Math.floor((slot * intervalMs) / windowMs + 1e-9);
    index[i] = window;
  }
  return index;
}

function countNaN(xs: Float64Array): number {
  let n = 0;
  for (let i = 0; i < xs.length; i++) if (xs[i]! !== xs[i]!) n++;
  return n;
}

function groupReadings(readings: Reading[], windowOf: (r: Reading, index: number) => number): Windows {
  const last = readings.length === 0 ? -1 : windowOf(readings[readings.length - 1]!, readings.length - 1);
  const count = last + 1;
  const fullWeight = new Float64Array(count);
  const weight = new Float64Array(count);
  for (let i = 0; i < readings.length; i++) {
    const r = readings[i]!;
    if (r.share !== r.share) continue;
    const w = windowOf(r, i);
    weight[w]! += r.weight;
    fullWeight[w]! += r.weight * r.share;
  }
  const share = new Float64Array(count);
  const damage = new Float64Array(count);
  for (let w = 0; w < count; w++) {
    share[w] = weight[w]! > 0 ? fullWeight[w]! / weight[w]! : NaN;
    damage[w] = weight[w]! - fullWeight[w]!;
  }
  return { share, damage };
}

function boundsShare(m: Measurement, skip: Set<string>): number {
  let seen = false;
  let blind = false;
  for (const [name, v] of Object.entries(m.slis)) {
    if (skip.has(name)) continue;
    if (v.status === 'breach') return 0;
    if (v.status === 'ok') seen = true;
    else blind = true;
  }
  return seen && !blind ? 1 : NaN;
}

function ratioShare(m: Measurement, sli: string, bound: string | undefined): number {
  const v = m.slis[sli];
  if (!v || v.value === null || (v.status !== 'ok' && v.status !== 'breach')) return NaN;
  if (v.value < 0 || v.value > 1) {
    throw new ScanError(
      `--sli ${sli}: value ${v.value} at ${new Date(m.at).toISOString()} is not a ratio in [0, 1]`,
    );
  }
  const b = (v.bound ?? bound ?? '').trim();
  if (b.startsWith('>')) return v.value;
  if (b.startsWith('<')) return 1 - v.value;
  throw new ScanError(
    `--sli ${sli}: bound "${b}" is neither a minimum (>=) nor a maximum (<=), so it is not a ratio`,
  );
}

/** What `scan` suggests for one SLI's hypothesis, from a held run's measured noise. */
export interface SliSuggestion {
  sli: string;
  /** The bound as the run applied it. */
  bound: string;
  /**
   * The bound that holds the run's own fault readings (after settle): the worst of them plus a margin
   * of 10 % of how far the fault moved it from the steady state's median, rounded outward at that
   * margin's first digit; null for a range bound or without readings.
   */
  suggestedBound: string | null;
  /**
   * How long after the injection the first stretch of readings outside the bound lasted, rounded up to
   * whole intervals: the settle time that stretch implies (0 when the first reading was already within).
   */
  settleMs: number;
  /** Readings outside the bound after that settle time, and the longest run of them. */
  outside: number;
  longestRun: number;
  /** Of how many judged readings. */
  measured: number;
}

export interface HypothesisSuggestion {
  /** Null when the run did not hold: a failing run's readings are not noise to calibrate on. */
  slis: SliSuggestion[] | null;
  why?: string;
}

/** `value` rounded outward (up for a maximum) to the decimal place of `margin`'s first digit. */
function roundOutward(value: number, margin: number, up: boolean): number {
  const step = 10 ** Math.floor(Math.log10(margin));
  const n = value / step;
  const digits = Math.max(0, -Math.floor(Math.log10(step)));
  return Number(((up ? Math.ceil(n - 1e-9) : Math.floor(n + 1e-9)) * step).toFixed(digits));
}

function median(xs: number[]): number | undefined {
  if (xs.length === 0) return undefined;
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

/**
 * Suggests settle, tolerance and bound per SLI from a held run's journal: the settle time its first
 * readings needed, how many readings after that lay outside (the tolerance the run used, or would have
 * needed), and a bound with a 10 % margin over the worst reading. A suggestion from one run is a start,
 * not a calibration: `scan` says so, and several held runs are the better baseline.
 */
export function suggestHypothesis(journal: Journal): HypothesisSuggestion {
  if (journal.verdict !== 'held') {
    return {
      slis: null,
      why: `the run was ${journal.verdict ?? 'unfinished'}, not held: its readings show the fault's damage, not the noise to tolerate`,
    };
  }
  const injectedAt = journal.timings.injectedAt;
  if (injectedAt === undefined) return { slis: null, why: 'nothing was injected' };
  const interval = journal.intervalMs;
  const measurements = everyMeasurement(journal);
  const fault = measurements.filter((m) => m.phase === 'fault');
  const out: SliSuggestion[] = [];
  for (const s of journal.slis.filter((x) => x.during)) {
    const readings = fault
      .map((m) => ({ at: m.at, v: m.slis[s.name] }))
      .filter((r) => r.v && r.v.value !== null && (r.v.status === 'ok' || r.v.status === 'breach'));
    // The first stretch outside the bound, from the injection on.
    let settleMs = 0;
    for (const r of readings) {
      if (r.v?.status !== 'breach') break;
      settleMs = Math.ceil((r.at - injectedAt + 1) / interval) * interval;
    }
    settleMs = Math.max(settleMs, s.settleMs ?? 0);
    const judged = readings.filter((r) => r.at - injectedAt >= settleMs);
    let outside = 0;
    let run = 0;
    let longestRun = 0;
    for (const r of judged) {
      if (r.v?.status === 'breach') {
        outside++;
        run++;
        longestRun = Math.max(longestRun, run);
      } else run = 0;
    }
    const values = judged.map((r) => r.v?.value ?? 0);
    const steady = median(
      measurements
        .filter((m) => m.phase === 'steady' && m.slis[s.name]?.status === 'ok')
        .map((m) => m.slis[s.name]?.value ?? 0),
    );
    let suggestedBound: string | null = null;
    const up = s.bound.startsWith('<=');
    if (values.length > 0 && (up || s.bound.startsWith('>='))) {
      const worst = up ? Math.max(...values) : Math.min(...values);
      const moved = Math.abs(worst - (steady ?? 0));
      const margin = Math.max(moved * 0.1, Math.abs(worst) * 1e-6, 1e-12);
      const bound = roundOutward(up ? worst + margin : worst - margin, margin, up);
      suggestedBound = `${up ? '<=' : '>='} ${formatValue(bound)}`;
    }
    out.push({
      sli: s.name,
      bound: s.bound,
      suggestedBound,
      settleMs,
      outside,
      longestRun,
      measured: judged.length,
    });
  }
  return { slis: out };
}
