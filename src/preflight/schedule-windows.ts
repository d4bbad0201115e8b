/**
 * Schedule windows compiled (docs/design/gates.md#schedule-and-incidents): the plan's `allow`/`deny` entries checked and turned into windows
 * that enumerate their occurrences in the plan's IANA time zone — cron windows (cron-parser, loaded on
 * first need) and date ranges — with every unusable field named. No decision about a time is made here;
 * that is schedule-decision.ts.
 */
import type { CronExpression, CronExpressionParser } from 'cron-parser';
import type { Plan } from '../plan/schema.js';
import { formatDuration } from '../plan/duration.js';
import { addWallClock, instantOf, isValidTimeZone, startOfNextDay } from './zone.js';
import { errorMessage } from '../errors/message.js';

export type ScheduleSpec = Plan['schedule'];
export type WindowSpec = ScheduleSpec['allow'][number];

let parserClass: typeof CronExpressionParser | undefined;

/**
 * Loads cron-parser (with Luxon, ~100 kB) on first need: a plan without cron windows, and `validate` of
 * a plan whose cron expressions are plain (`isPlainCron`), never pay for it. The gates await it before
 * they compile a schedule that needs it; the synchronous functions below expect it loaded.
 */
export async function loadCronParser(): Promise<void> {
  // cron-parser is CommonJS. Node's ESM loader finds its named exports; the bundle (esbuild) offers only
  // `default` for it, so the class is looked up in both places (test/setup/bundle.ts runs the suite's
  // child processes on the bundle; under tsx alone this went unnoticed and dist/ could not read a cron).
  const mod = await import('cron-parser');
  parserClass ??=
    (mod.CronExpressionParser as typeof CronExpressionParser | undefined) ?? mod.default.CronExpressionParser;
}

function cronParser(): typeof CronExpressionParser {
  if (!parserClass)
    throw new Error('cron-parser is not loaded: await loadCronParser() before compiling a schedule');
  return parserClass;
}

/**
 * Most cron occurrences one decision may enumerate. An hourly window searched over the whole horizon
 * needs 8 784; the cap only bites on denser windows (a minute cron), where cron-parser's ~0.1 ms per
 * occurrence would otherwise turn a refusal into a minute-long search. Past it the run is still refused,
 * only without a next start.
 */
export const MAX_OCCURRENCES_PER_DECISION = 10_000;

/**
 * Extra look-back before a range when listing cron occurrences: wall-clock durations can exceed elapsed
 * time by a DST shift (one hour in most zones, two in a few historical ones).
 */
const DST_SLACK_MS = 3 * 3_600_000;

/** A problem with the schedule itself (not with the time): becomes a `refused` verdict. */
export interface ScheduleIssue {
  /** Plan field path, e.g. `schedule.deny[1].cron`. */
  field: string;
  value: string;
  message: string;
}

/** Thrown by `compileSchedule` when a window, the time zone or a cron expression is unusable. */
export class ScheduleError extends Error {
  override name = 'ScheduleError';
  constructor(readonly issues: ScheduleIssue[]) {
    super(issues.map((i) => `${i.field}: ${i.message}`).join('\n'));
  }
}

/** One occurrence of a window: [start, end) in epoch ms. */
export interface Occurrence {
  start: number;
  end: number;
  window: CompiledWindow;
}

/** A window ready to enumerate its occurrences. */
export interface CompiledWindow {
  kind: 'allow' | 'deny';
  index: number;
  /** `schedule.deny[0]`. */
  field: string;
  reason: string;
  /** `cron "0 16 * * FRI" for 64h` or `2026-12-20 → 2027-01-05`. */
  describe: string;
  /** Occurrences overlapping [from, to), in start order. */
  occurrences(from: number, to: number, budget: OccurrenceBudget): Occurrence[];
}

/** Counts enumerated cron occurrences against `MAX_OCCURRENCES_PER_DECISION`. */
export class OccurrenceBudget {
  used = 0;
  constructor(readonly limit = MAX_OCCURRENCES_PER_DECISION) {}
  take(window: CompiledWindow): void {
    this.used += 1;
    if (this.used > this.limit) throw new SearchLimitError(window, this.limit);
  }
}

/** Thrown by `OccurrenceBudget.take` when a window fires too often to enumerate within one decision. */
export class SearchLimitError extends Error {
  constructor(
    readonly window: CompiledWindow,
    readonly limit: number,
  ) {
    super(`${window.field} fires more than ${limit} times within the search`);
  }
}

export interface CompiledSchedule {
  timezone: string;
  allow: CompiledWindow[];
  deny: CompiledWindow[];
}

const BARE_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME =
  /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,3})\d*)?)?(Z|[+-]\d{2}:?\d{2})?$/;

type ParsedBound = { ok: true; ms: number } | { ok: false; message: string };

function validCalendar(y: number, mo: number, d: number): boolean {
  const date = new Date(Date.UTC(y, mo - 1, d));
  return date.getUTCFullYear() === y && date.getUTCMonth() === mo - 1 && date.getUTCDate() === d;
}

/** Reads a `from`/`to` bound: a bare date (local midnight; for `to`, the end of that day) or a date-time. */
function parseBound(text: string, side: 'from' | 'to', timeZone: string): ParsedBound {
  const expected = 'a date (2026-12-20) or an ISO date-time (2026-12-20T18:00, 2026-12-20T17:00:00Z)';
  const bare = BARE_DATE.exec(text.trim());
  if (bare) {
    const [y, mo, d] = [Number(bare[1]), Number(bare[2]), Number(bare[3])];
    if (!validCalendar(y, mo, d))
      return { ok: false, message: `"${text}" is not a calendar date; expected ${expected}` };
    const day = { year: y, month: mo, day: d };
    const ms =
      side === 'from'
        ? instantOf({ ...day, hour: 0, minute: 0, second: 0, millisecond: 0 }, timeZone)
        : startOfNextDay(day, timeZone);
    return { ok: true, ms };
  }
  const dt = DATE_TIME.exec(text.trim());
  if (!dt) return { ok: false, message: `"${text}" is not a date or date-time; expected ${expected}` };
  const [y, mo, d, h, mi] = [Number(dt[1]), Number(dt[2]), Number(dt[3]), Number(dt[4]), Number(dt[5])];
  const s = dt[6] === undefined ? 0 : Number(dt[6]);
  const frac = dt[7] === undefined ? 0 : Number(dt[7].padEnd(3, '0'));
  if (!validCalendar(y, mo, d) || h > 23 || mi > 59 || s > 59) {
    return { ok: false, message: `"${text}" is not a valid date-time; expected ${expected}` };
  }
  const zone = dt[8];
  if (zone === undefined) {
    return {
      ok: true,
      ms: instantOf(
        { year: y, month: mo, day: d, hour: h, minute: mi, second: s, millisecond: frac },
        timeZone,
      ),
    };
  }
  let offsetMin = 0;
  if (zone !== 'Z') {
    const sign = zone.startsWith('-') ? -1 : 1;
    const digits = zone.slice(1).replace(':', '');
    offsetMin = sign * (Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2, 4)));
  }
  return { ok: true, ms: Date.UTC(y, mo - 1, d, h, mi, s, frac) - offsetMin * 60_000 };
}

function compileWindow(
  spec: WindowSpec,
  kind: 'allow' | 'deny',
  index: number,
  timeZone: string,
  issues: ScheduleIssue[],
): CompiledWindow | undefined {
  const field = `schedule.${kind}[${index}]`;
  if ('cron' in spec) {
    const durationMs = spec.duration;
    if (!Number.isFinite(durationMs) || durationMs <= 0) {
      issues.push({
        field: `${field}.duration`,
        value: String(spec.duration),
        message: 'expected a duration above 0',
      });
      return undefined;
    }
    const fieldProblem = cronFieldProblem(spec.cron);
    if (fieldProblem) {
      issues.push({
        field: `${field}.cron`,
        value: spec.cron,
        message: `"${spec.cron}": ${fieldProblem}; expected five fields (minute hour day-of-month month day-of-week) such as "0 16 * * FRI"`,
      });
      return undefined;
    }
    try {
      // cron-parser's first parse in a zone costs tens of milliseconds (it sets up Luxon); a plain
      // expression is known valid without it, and its occurrences are enumerated only when asked for.
      if (!isPlainCron(spec.cron)) cronParser().parse(spec.cron, { tz: timeZone });
    } catch (error) {
      issues.push({
        field: `${field}.cron`,
        value: spec.cron,
        message: `"${spec.cron}" is not a cron expression (${errorMessage(error)}); expected five fields such as "0 16 * * FRI"`,
      });
      return undefined;
    }
    let cache: { from: number; list: Occurrence[]; it: CronExpression; done: boolean } | undefined;
    const window: CompiledWindow = {
      kind,
      index,
      field,
      reason: spec.reason,
      describe: `cron "${spec.cron}" for ${formatDuration(durationMs)}`,
      occurrences(from, to, budget) {
        // Any occurrence that started up to one duration (plus DST slack) before `from` may still be open.
        const lookFrom = from - durationMs - DST_SLACK_MS;
        if (cache === undefined || lookFrom < cache.from) {
          cache = {
            from: lookFrom,
            list: [],
            it: cronParser().parse(spec.cron, { currentDate: new Date(lookFrom - 1), tz: timeZone }),
            done: false,
          };
        }
        // The search moves forward in time, so occurrences are enumerated once and reused.
        while (
          !cache.done &&
          (cache.list.length === 0 || (cache.list[cache.list.length - 1] as Occurrence).start < to)
        ) {
          if (!cache.it.hasNext()) {
            cache.done = true;
            break;
          }
          const start = cache.it.next().getTime();
          budget.take(window);
          cache.list.push({ start, end: addWallClock(start, durationMs, timeZone), window });
        }
        return cache.list.filter((o) => o.start < to && o.end > from);
      },
    };
    return window;
  }
  const from = parseBound(spec.from, 'from', timeZone);
  const to = parseBound(spec.to, 'to', timeZone);
  if (!from.ok) issues.push({ field: `${field}.from`, value: spec.from, message: from.message });
  if (!to.ok) issues.push({ field: `${field}.to`, value: spec.to, message: to.message });
  if (!from.ok || !to.ok) return undefined;
  if (to.ms <= from.ms) {
    issues.push({
      field: `${field}.to`,
      value: spec.to,
      message: `"${spec.to}" is not after "${spec.from}"; expected the window to end after it starts`,
    });
    return undefined;
  }
  const window: CompiledWindow = {
    kind,
    index,
    field,
    reason: spec.reason,
    describe: `${spec.from} → ${spec.to}`,
    occurrences(rangeFrom, rangeTo) {
      return from.ms < rangeTo && to.ms > rangeFrom ? [{ start: from.ms, end: to.ms, window }] : [];
    },
  };
  return window;
}

/** The five cron fields, their names and the numbers each accepts (cron(5); 7 is Sunday too). */
const CRON_FIELDS = [
  { name: 'minute', min: 0, max: 59 },
  { name: 'hour', min: 0, max: 23 },
  { name: 'day-of-month', min: 1, max: 31 },
  { name: 'month', min: 1, max: 12 },
  { name: 'day-of-week', min: 0, max: 7 },
] as const;

/**
 * What is wrong with a cron expression's shape, named by field (`minute 61 is outside 0-59`), or undefined
 * when every number is in range: cron-parser's own message names neither the field nor the expression.
 */
export function cronFieldProblem(cron: string): string | undefined {
  const fields = cron.trim().split(/\s+/);
  if (fields.length !== CRON_FIELDS.length) {
    return `${fields.length} ${fields.length === 1 ? 'field' : 'fields'} instead of ${CRON_FIELDS.length}`;
  }
  for (const [i, spec] of CRON_FIELDS.entries()) {
    const text = fields[i] ?? '';
    for (const number of text.match(/\d+/g) ?? []) {
      // `*/15` and `1-5/2`: a step is a count, not a value of the field.
      if (new RegExp(`/${number}(?:$|,)`).test(text)) continue;
      const n = Number(number);
      if (n < spec.min || n > spec.max) {
        const within = text === number ? '' : ` (in '${text}')`;
        return `${spec.name} ${n}${within} is outside ${spec.min}-${spec.max}`;
      }
    }
  }
  return undefined;
}

const MONTHS = ['JAN', 'FEB', 'MAR', 'APR', 'MAY', 'JUN', 'JUL', 'AUG', 'SEP', 'OCT', 'NOV', 'DEC'];
const DAYS = ['SUN', 'MON', 'TUE', 'WED', 'THU', 'FRI', 'SAT'];

/**
 * True when every field of a five-field cron expression is a plain list of `*`, numbers, names
 * (JAN–DEC, SUN–SAT), ascending ranges and steps of at least 1, all in range: a shape cron-parser always
 * accepts. Anything else (L, W, #, ?, a reversed range) is left to cron-parser to judge.
 */
export function isPlainCron(cron: string): boolean {
  const fields = cron.trim().split(/\s+/);
  if (fields.length !== CRON_FIELDS.length) return false;
  // A day past the 28th in chosen months may never occur (31 February): cron-parser judges that.
  const [, , dom = '', month = ''] = fields;
  if (month !== '*' && (dom.match(/\d+/g) ?? []).some((d) => Number(d) > 28)) return false;
  return CRON_FIELDS.every((spec, i) => {
    const names = spec.name === 'month' ? MONTHS : spec.name === 'day-of-week' ? DAYS : [];
    const value = (t: string): number | undefined => {
      if (/^\d+$/.test(t)) return Number(t);
      const n = names.indexOf(t);
      return n < 0 ? undefined : n + (spec.name === 'month' ? 1 : 0);
    };
    return (fields[i] ?? '').split(',').every((item) => {
      const m = /^(\*|([A-Z0-9]+)(?:-([A-Z0-9]+))?)(?:\/(\d+))?$/.exec(item);
      if (!m) return false;
      if (m[4] !== undefined && Number(m[4]) < 1) return false;
      if (m[1] === '*') return true;
      const from = value(m[2] ?? '');
      const to = m[3] === undefined ? from : value(m[3]);
      return from !== undefined && to !== undefined && from >= spec.min && to <= spec.max && from <= to;
    });
  });
}

/** Validates and compiles a schedule; throws `ScheduleError` listing every unusable field. */
export function compileSchedule(schedule: ScheduleSpec): CompiledSchedule {
  const issues: ScheduleIssue[] = [];
  const timezone = schedule.timezone;
  if (!isValidTimeZone(timezone)) {
    throw new ScheduleError([
      {
        field: 'schedule.timezone',
        value: timezone,
        message: `"${timezone}" is not an IANA time zone; expected a name such as Europe/Berlin or UTC`,
      },
    ]);
  }
  const allow = schedule.allow.map((w, i) => compileWindow(w, 'allow', i, timezone, issues));
  const deny = schedule.deny.map((w, i) => compileWindow(w, 'deny', i, timezone, issues));
  if (issues.length > 0) throw new ScheduleError(issues);
  return {
    timezone,
    allow: allow.filter((w): w is CompiledWindow => w !== undefined),
    deny: deny.filter((w): w is CompiledWindow => w !== undefined),
  };
}

/** The problems `compileSchedule` would throw, as a list (empty when the schedule is usable). */
export function scheduleIssues(schedule: ScheduleSpec): ScheduleIssue[] {
  try {
    compileSchedule(schedule);
    return [];
  } catch (error) {
    if (error instanceof ScheduleError) return error.issues;
    throw error;
  }
}
