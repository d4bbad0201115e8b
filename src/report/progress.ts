/**
 * Console progress: one line per measurement (`+12.0s  fault  success_ratio 0.9991 ok  req 812`).
 * A renderer of journal events and measurements shared by both front doors: `chaos-gate run` prints it
 * to the terminal, and the action's step log (action/step-log.ts) prints it to GitHub's log.
 *
 * Times follow the clock every report shares (`timeOrigin` in journal/format): seconds from the
 * injection. Live, that origin is not known before the injection, so steady-state lines printed then
 * count from the first steady-state measurement and say so (`steady 3.0s`) instead of guessing an
 * offset that the reports would later contradict. `journalProgressLines` prints a finished (or crashed)
 * journal with every line on the shared clock.
 */
import type { Journal, JournalEvent, Measurement } from '../journal/types.js';
import { formatOffset, formatValue, secondsFrom, timeOrigin } from '../journal/format.js';
import { forLog } from '../security/log-text.js';
import { expectationRows, latencyRows, sliRows } from './common.js';

/** Events worth a line of their own while a run goes. */
const LOUD_EVENTS = new Set([
  'notify',
  'steady-state',
  'inject',
  'expectation-observed',
  'first-breach',
  'abort',
  'stop-requested',
  'stop-verified',
  'stop-failed',
  'fault-ended',
  'recovery',
  'refused',
  'not-run',
  'error',
]);

/** Width of the time column: fits `steady 9999.0s`, so steady and fault lines stay aligned. */
const TIME_WIDTH = 14;

/**
 * The time printed at the start of a line:
 * - `offset`: seconds on the journal's clock (from injection, negative before), printed `+12.0s`;
 * - `steady`: live, before the injection: seconds since the first steady-state measurement, `steady 3.0s`;
 * - `unknown`: live, a fault or recovery line whose injection this printer never heard of.
 */
export type TickTime =
  { kind: 'offset'; seconds: number } | { kind: 'steady'; seconds: number } | { kind: 'unknown' };

function timeText(time: TickTime): string {
  switch (time.kind) {
    case 'offset':
      return formatOffset(time.seconds).replace(' s', 's');
    case 'steady':
      return `steady ${time.seconds.toFixed(1)}s`;
    case 'unknown':
      return '?';
  }
}

/** ANSI colours for a terminal; the identity when colour is off. */
export interface Paint {
  ok(text: string): string;
  bad(text: string): string;
  warn(text: string): string;
  dim(text: string): string;
  bold(text: string): string;
}

const SGR = (code: string) => (text: string) => `\u001b[${code}m${text}\u001b[0m`;
/** Colours: green, red, yellow, grey, bold. */
export const COLOR: Paint = { ok: SGR('32'), bad: SGR('31'), warn: SGR('33'), dim: SGR('2'), bold: SGR('1') };
/** No colour: plain text for logs, pipes, `NO_COLOR` and CI. */
export const PLAIN: Paint = { ok: (t) => t, bad: (t) => t, warn: (t) => t, dim: (t) => t, bold: (t) => t };

/**
 * Whether to colour a stream: only a terminal, never with `NO_COLOR` set (no-color.org: present and not
 * empty) and never in CI (`CI` set, as GitHub Actions and most CI systems do), whose logs keep escapes raw.
 */
export function useColor(env: Record<string, string | undefined>, isTty: boolean): boolean {
  if (!isTty) return false;
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  return !env.CI;
}

function paintStatus(status: string, paint: Paint): string {
  if (status === 'ok') return paint.ok(status);
  if (status === 'breach') return paint.bad(status);
  return paint.warn(status);
}

/** What a compact line adds: each SLI's worst value since the injection, and how many readings it stands for. */
export interface TickExtras {
  worst?: Record<string, number> | undefined;
  /** Measurements since the previous line, this one included. */
  readings?: number | undefined;
  paint?: Paint | undefined;
}

/** One measurement as a single terminal line, at the time given. */
export function formatTick(m: Measurement, time: TickTime, extras: TickExtras = {}): string {
  const paint = extras.paint ?? PLAIN;
  const parts = [timeText(time).padStart(TIME_WIDTH), m.phase.padEnd(8)];
  if (extras.readings !== undefined) parts.push(paint.dim(`×${extras.readings}`));
  for (const [name, v] of Object.entries(m.slis)) {
    const worst = extras.worst?.[name];
    const tail = worst === undefined ? '' : ` (worst ${formatValue(worst)})`;
    parts.push(`${forLog(name)} ${formatValue(v.value)} ${paintStatus(v.status, paint)}${tail}`);
  }
  for (const [name, v] of Object.entries(m.expect ?? {}))
    parts.push(`${forLog(name)} ${formatValue(v.value)}${v.status === 'ok' ? ` ${paint.ok('seen')}` : ''}`);
  if (m.requests !== null) parts.push(`req ${formatValue(m.requests)}`);
  return parts.join('  ');
}

/** True when `candidate` is further toward a breach of `bound` (`<= x`, `>= x`, `in [a, b]`) than `current`. */
export function isWorse(bound: string | undefined, candidate: number, current: number): boolean {
  const text = (bound ?? '').trim();
  if (text.startsWith('<') || text.startsWith('≤')) return candidate > current;
  if (text.startsWith('>') || text.startsWith('≥')) return candidate < current;
  const range = /^in\s*\[\s*([-+0-9.eE]+)\s*,\s*([-+0-9.eE]+)\s*\]$/.exec(text);
  if (range) {
    const lo = Number(range[1]);
    const hi = Number(range[2]);
    const margin = (v: number): number => Math.min(v - lo, hi - v);
    return margin(candidate) < margin(current);
  }
  return false;
}

/** Every measurement of a journal as a progress line, on the clock every report shares. */
export function journalProgressLines(journal: Journal): string[] {
  const origin = timeOrigin(journal);
  return journal.measurements.map((m) =>
    formatTick(m, { kind: 'offset', seconds: secondsFrom(origin, m.at) }),
  );
}

/** An event as a progress line, or undefined for quiet ones (`loud`: which events get a line). */
export function formatEvent(
  e: JournalEvent,
  loud: ReadonlySet<string> = LOUD_EVENTS,
  paint: Paint = PLAIN,
): string | undefined {
  if (!loud.has(e.type)) return undefined;
  const type = BAD_EVENTS.has(e.type) ? paint.bad(e.type) : paint.bold(e.type);
  // The message quotes what others said (FIS reasons, Prometheus errors, plan fields): one line, no command.
  return `${' '.repeat(TIME_WIDTH + 1)}» ${type}: ${forLog(e.message)}`;
}

/** Events that mean something went wrong, coloured red on a terminal. */
const BAD_EVENTS = new Set(['first-breach', 'abort', 'stop-failed', 'refused', 'not-run', 'error']);

/** The events a full story prints (the action's step log): every loud one plus preflight and provisioning. */
export const STORY_EVENTS: ReadonlySet<string> = new Set([
  ...LOUD_EVENTS,
  'run-started',
  'preflight',
  'provision',
  'targets-resolved',
  'gap',
  'signal',
  'budget',
]);

/** How a printer paces and styles its lines. */
export interface ProgressOptions {
  /** Steady-state lines at most this often (a long steady state stays short). */
  steadyEveryMs?: number | undefined;
  /**
   * Fault lines: one per measurement for this long after the injection, then compact lines (each SLI's
   * latest value with its worst since the injection) every `compactEveryMs`. A measurement that is not
   * `ok` always gets its own line. Default: never compact.
   */
  compactAfterMs?: number | undefined;
  /** Spacing of compact lines (default 5 s). */
  compactEveryMs?: number | undefined;
  /** Which events get a line (default: the loud ones). */
  events?: ReadonlySet<string> | undefined;
  paint?: Paint | undefined;
}

/** Default spacing of compact fault lines. */
export const COMPACT_EVERY_MS = 5_000;

/**
 * Prints ticks and notable events; in the steady state only every `steadyEveryMs`, and in a long fault
 * compact lines after `compactAfterMs` (see {@link ProgressOptions}).
 */
export function progressPrinter(
  out: (line: string) => void,
  options: ProgressOptions = {},
): { onTick: (m: Measurement) => void; onEvent: (e: JournalEvent) => void } {
  const paint = options.paint ?? PLAIN;
  const loud = options.events ?? LOUD_EVENTS;
  const compactEvery = options.compactEveryMs ?? COMPACT_EVERY_MS;
  let lastSteady = -Infinity;
  let firstSteadyAt: number | undefined;
  // The live origin is the `inject` event, which the engine stamps when it records `timings.injectedAt`
  // (StartExperiment returned). When the engine later refines `injectedAt` to FIS's own action start,
  // the `experiment-state` event that reported it carries the new value, and later lines use it.
  let injectedAt: number | undefined;
  // Compact fault lines: the worst value of each SLI since the injection, and readings since the last line.
  const worst: Record<string, number> = {};
  let lastFaultLine = -Infinity;
  let unprinted = 0;
  const timeOf = (m: Measurement): TickTime => {
    if (injectedAt !== undefined) return { kind: 'offset', seconds: (m.at - injectedAt) / 1000 };
    if (m.phase !== 'steady') return { kind: 'unknown' };
    firstSteadyAt ??= m.at;
    return { kind: 'steady', seconds: (m.at - firstSteadyAt) / 1000 };
  };
  return {
    onTick(m) {
      const time = timeOf(m);
      if (m.phase === 'steady' && options.steadyEveryMs !== undefined) {
        if (m.at - lastSteady < options.steadyEveryMs) return;
        lastSteady = m.at;
      }
      if (m.phase === 'fault') {
        for (const [name, v] of Object.entries(m.slis)) {
          if (v.value === null || !Number.isFinite(v.value)) continue;
          const before = worst[name];
          if (before === undefined || isWorse(v.bound, v.value, before)) worst[name] = v.value;
        }
        unprinted++;
        const compact =
          options.compactAfterMs !== undefined &&
          injectedAt !== undefined &&
          m.at - injectedAt >= options.compactAfterMs;
        if (compact) {
          const anomaly = Object.values(m.slis).some((v) => v.status !== 'ok');
          if (!anomaly && m.at - lastFaultLine < compactEvery) return;
          out(formatTick(m, time, anomaly ? { paint } : { worst, readings: unprinted, paint }));
          lastFaultLine = m.at;
          unprinted = 0;
          return;
        }
        lastFaultLine = m.at;
        unprinted = 0;
      }
      out(formatTick(m, time, { paint }));
    },
    onEvent(e) {
      if (e.type === 'inject') injectedAt = e.at;
      if (e.type === 'experiment-state' && typeof e.data?.injectedAt === 'number')
        injectedAt = e.data.injectedAt;
      const line = formatEvent(e, loud, paint);
      if (line !== undefined) out(line);
    },
  };
}

/**
 * The console recap of a finished run: the judgement (src/journal/judgement.ts) as lines, one per SLI
 * with the same cells as every other report, then each expectation and latency figure. Printed by
 * `chaos-gate run` and the action's step log after the last measurement line; never recounted.
 */
export function judgementLines(journal: Journal): string[] {
  const out = ['judgement:'];
  for (const r of sliRows(journal)) {
    const parts = [
      `outside ${r.bound} ${r.outside}`,
      `tolerated ${r.tolerated}`,
      `first outside ${r.first}`,
      `worst ${r.worst}`,
      `no data ${r.noData}`,
    ];
    if (r.settling !== '—') parts.push(`settling (not judged) ${r.settling}`);
    if (r.recovery !== '—') parts.push(`recovery (steady bound) ${r.recovery}`);
    out.push(`  ${r.label}: ${parts.join(' · ')}`);
  }
  for (const [k, v] of expectationRows(journal)) out.push(`  expectation ${k}: ${v}`);
  for (const [k, v] of latencyRows(journal)) out.push(`  ${k}: ${v}`);
  return out;
}
