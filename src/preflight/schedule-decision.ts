/**
 * When a run may start (docs/design/gates.md#schedule-and-incidents): the occurrence maths over a compiled schedule — deny windows touched,
 * allow occurrences merged into spans, the window that blocks a start, the next allowed start within a
 * year and a day, and allow windows too short to ever hold the planned run. Pure functions of the schedule
 * and the times given; the gates that call them are in schedule.ts.
 */
import { formatDuration } from '../plan/duration.js';
import { formatLocal } from './zone.js';
import {
  compileSchedule,
  OccurrenceBudget,
  SearchLimitError,
  type CompiledSchedule,
  type CompiledWindow,
  type Occurrence,
  type ScheduleIssue,
  type ScheduleSpec,
  type WindowSpec,
} from './schedule-windows.js';

/** How far ahead the next allowed start is searched: a year and a day covers any yearly freeze. */
export const NEXT_START_HORIZON_MS = 366 * 86_400_000;

/** Enumeration step of the next-start search; one local day keeps each step's occurrence list small. */
const SEARCH_STEP_MS = 86_400_000;

/**
 * A reference fortnight for the length of cron allow windows: long enough to hold every weekly pattern
 * twice, fixed so the answer does not depend on today (1 January 2001 was a Monday).
 */
const REFERENCE_FROM_MS = Date.UTC(2001, 0, 1);
const REFERENCE_SPAN_MS = 15 * 86_400_000;

/**
 * When allow windows exist but none can hold the planned run — every window, with the occurrences that
 * touch merged into one, is shorter than it — the run could never start: a problem with the plan, not the
 * time. Undefined when some window is long enough, or when a window fires too often to enumerate.
 */
export function allowWindowsTooShort(
  schedule: ScheduleSpec,
  plannedRunMs: number,
): ScheduleIssue | undefined {
  if (!allowNeedsEnumeration(schedule, plannedRunMs)) return undefined;
  const compiled = compileSchedule(schedule);
  const budget = new OccurrenceBudget();
  let occurrences: Occurrence[];
  try {
    occurrences = compiled.allow.flatMap((w) =>
      'cron' in (schedule.allow[w.index] ?? {})
        ? w.occurrences(REFERENCE_FROM_MS, REFERENCE_FROM_MS + REFERENCE_SPAN_MS, budget)
        : w.occurrences(-Infinity, Infinity, budget),
    );
  } catch (error) {
    if (error instanceof SearchLimitError) return undefined;
    throw error;
  }
  let longest: ReturnType<typeof mergeSpans>[number] | undefined;
  for (const span of mergeSpans(occurrences)) {
    if (!longest || span.end - span.start > longest.end - longest.start) longest = span;
  }
  if (!longest || longest.end - longest.start >= plannedRunMs) return undefined;
  const planned = formatDuration(plannedRunMs);
  return {
    field: 'schedule.allow',
    value: planned,
    message: `every allow window is shorter than the planned run of ${planned} (the longest, ${longest.first.window.field} ${longest.first.window.describe}, lasts ${formatDuration(longest.end - longest.start)}), so the run can never start; expected an allow window of at least ${planned}`,
  };
}

/** False when there are no allow windows, or one is long enough on its own (the common case). */
export function allowNeedsEnumeration(schedule: ScheduleSpec, plannedRunMs: number): boolean {
  if (schedule.allow.length === 0) return false;
  const ownLength = (w: WindowSpec): number =>
    'cron' in w ? w.duration : Date.parse(w.to) - Date.parse(w.from) || Infinity;
  return !schedule.allow.some((w) => ownLength(w) >= plannedRunMs);
}

/** The window a refusal names, with the bounds of the occurrence that applied. */
export interface WindowRef {
  kind: 'allow' | 'deny';
  field: string;
  reason: string;
  describe: string;
  /** The occurrence's bounds (epoch ms), when one applied. */
  start?: number;
  end?: number;
}

export type ScheduleDecision =
  | { ok: true; plannedRunMs: number }
  | {
      ok: false;
      window: WindowRef;
      /** Why the time is wrong: names the window, its bounds in the plan's time zone, and the next start. */
      reason: string;
      /** The earliest start within the horizon at which the planned run fits; null when none was found. */
      nextAllowedStart: number | null;
      plannedRunMs: number;
    };

interface Blocker {
  window: WindowRef;
  /** The clause before the next-start sentence. */
  what: string;
}

function refOf(o: Occurrence): WindowRef {
  return {
    kind: o.window.kind,
    field: o.window.field,
    reason: o.window.reason,
    describe: o.window.describe,
    start: o.start,
    end: o.end,
  };
}

function bounds(o: { start: number; end: number }, tz: string): string {
  return `${formatLocal(o.start, tz)} → ${formatLocal(o.end, tz)}`;
}

function windowText(o: Occurrence, tz: string): string {
  return `${o.window.kind} window ${o.window.field} "${o.window.reason}" (${o.window.describe}: ${bounds(o, tz)}, ${tz})`;
}

/** Merges allow occurrences that touch or overlap into continuous spans, keeping the first occurrence. */
function mergeSpans(occurrences: Occurrence[]): { start: number; end: number; first: Occurrence }[] {
  const sorted = [...occurrences].sort((a, b) => a.start - b.start);
  const spans: { start: number; end: number; first: Occurrence }[] = [];
  for (const o of sorted) {
    const last = spans[spans.length - 1];
    if (last && o.start <= last.end) last.end = Math.max(last.end, o.end);
    else spans.push({ start: o.start, end: o.end, first: o });
  }
  return spans;
}

interface Snapshot {
  deny: Occurrence[];
  allowSpans: { start: number; end: number; first: Occurrence }[];
}

function snapshot(s: CompiledSchedule, from: number, to: number, budget: OccurrenceBudget): Snapshot {
  return {
    deny: s.deny.flatMap((w) => w.occurrences(from, to, budget)).sort((a, b) => a.start - b.start),
    allowSpans: mergeSpans(s.allow.flatMap((w) => w.occurrences(from, to, budget))),
  };
}

/** Why a run [start, start + planned) may not start, or undefined when it may. */
function blocker(s: CompiledSchedule, snap: Snapshot, start: number, planned: number): Blocker | undefined {
  const tz = s.timezone;
  const end = start + planned;
  const inside = snap.deny.find((d) => d.start <= start && start < d.end);
  if (inside) return { window: refOf(inside), what: `inside ${windowText(inside, tz)}` };
  const crossed = snap.deny.find((d) => start < d.start && end > d.start);
  if (crossed) {
    return {
      window: refOf(crossed),
      what: `the planned run of ${formatDuration(planned)} would end at ${formatLocal(end, tz)}, inside ${windowText(crossed, tz)}`,
    };
  }
  if (s.allow.length === 0) return undefined;
  const span = snap.allowSpans.find((a) => a.start <= start && start < a.end);
  if (span && end <= span.end) return undefined;
  if (span) {
    return {
      window: { ...refOf(span.first), start: span.start, end: span.end },
      what:
        `the planned run of ${formatDuration(planned)} would end at ${formatLocal(end, tz)}, after ` +
        `allow window ${span.first.window.field} "${span.first.window.reason}" closes at ${formatLocal(span.end, tz)} (${tz})`,
    };
  }
  const first = s.allow[0] as CompiledWindow;
  return {
    window: { kind: 'allow', field: 'schedule.allow', reason: first.reason, describe: first.describe },
    what: `outside every allow window (${s.allow.map((w) => `${w.field} "${w.reason}": ${w.describe}`).join('; ')}; ${tz})`,
  };
}

function fits(s: CompiledSchedule, snap: Snapshot, start: number, planned: number): boolean {
  return blocker(s, snap, start, planned) === undefined;
}

/**
 * The earliest start at or after `from` (within `NEXT_START_HORIZON_MS`) at which a run of `planned` ms
 * touches no deny window and lies inside an allow span. Candidates are `from`, every deny end and every
 * allow-span start: the set of good starts is a union of intervals whose left ends are among them.
 */
export function nextAllowedStart(
  s: CompiledSchedule,
  from: number,
  planned: number,
  budget = new OccurrenceBudget(),
): number | null {
  for (let step = from; step < from + NEXT_START_HORIZON_MS; step += SEARCH_STEP_MS) {
    const stepEnd = step + SEARCH_STEP_MS;
    const snap = snapshot(s, step, stepEnd + planned + 1, budget);
    const candidates = [step, ...snap.deny.map((d) => d.end), ...snap.allowSpans.map((a) => a.start)]
      .filter((c) => c >= step && c < stepEnd && c >= from)
      .sort((a, b) => a - b);
    for (const c of candidates) if (fits(s, snap, c, planned)) return c;
  }
  return null;
}

/**
 * May a run of `plannedRunMs` start at `startMs`? When not, names the window (its reason and bounds in the
 * plan's time zone) and the next allowed start. Throws `ScheduleError` for an unusable schedule.
 */
export function scheduleDecision(
  schedule: ScheduleSpec,
  startMs: number,
  plannedRunMs: number,
): ScheduleDecision {
  const s = compileSchedule(schedule);
  const budget = new OccurrenceBudget();
  let block: Blocker | undefined;
  try {
    block = blocker(s, snapshot(s, startMs, startMs + plannedRunMs + 1, budget), startMs, plannedRunMs);
  } catch (error) {
    if (!(error instanceof SearchLimitError)) throw error;
    // Fail closed: a window too dense to enumerate is treated as covering the run.
    const w = error.window;
    return {
      ok: false,
      window: { kind: w.kind, field: w.field, reason: w.reason, describe: w.describe },
      reason: `${w.field} "${w.reason}" (${w.describe}) fires more than ${error.limit} times around the planned run; cannot decide, so the run does not start`,
      nextAllowedStart: null,
      plannedRunMs,
    };
  }
  if (!block) return { ok: true, plannedRunMs };
  let next: number | null;
  let limitNote = '';
  try {
    next = nextAllowedStart(s, startMs, plannedRunMs, budget);
  } catch (error) {
    if (!(error instanceof SearchLimitError)) throw error;
    next = null;
    limitNote = ` (search stopped: ${error.message})`;
  }
  const nextText =
    next === null
      ? `no allowed start for a ${formatDuration(plannedRunMs)} run within ${NEXT_START_HORIZON_MS / 86_400_000} days${limitNote}`
      : `next allowed start ${formatLocal(next, s.timezone)} (${new Date(next).toISOString()})`;
  return {
    ok: false,
    window: block.window,
    reason: `${block.what}; ${nextText}`,
    nextAllowedStart: next,
    plannedRunMs,
  };
}
