/**
 * Wall-clock arithmetic in a named IANA time zone, built on `Intl.DateTimeFormat` alone (no time-zone
 * database of our own): the offset of an instant, the instant of a local time (DST gaps and overlaps
 * resolved the way `Temporal`'s `compatible` disambiguation does), and a readable local rendering.
 */

/** The calendar fields of a local (wall-clock) time. `month` is 1-based. */
export interface LocalTime {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
  millisecond: number;
}

const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterFor(timeZone: string): Intl.DateTimeFormat {
  let f = formatters.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
      weekday: 'short',
    });
    formatters.set(timeZone, f);
  }
  return f;
}

let canonicalZones: Set<string> | undefined;

/**
 * Names of UTC itself, the zone a plan's schedule defaults to. Its wall clock is the UTC clock, so it
 * needs no formatter: the first `Intl.DateTimeFormat` with a time zone loads ICU's zone data, 20–50 ms
 * that `validate` of a plan without a schedule paid for nothing. (`UTC` is not in V8's canonical list.)
 */
const UTC_NAMES = new Set(['UTC', 'Etc/UTC']);
const WEEKDAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];

/** True when the runtime knows `timeZone` as an IANA zone name (or `UTC`). */
export function isValidTimeZone(timeZone: string): boolean {
  // The canonical names are a cheap list; a first formatter loads ICU's zone data, which a plan check
  // (`validate`) need not pay for a common zone. Aliases take the formatter's word.
  if (UTC_NAMES.has(timeZone)) return true;
  canonicalZones ??= new Set(Intl.supportedValuesOf('timeZone'));
  if (canonicalZones.has(timeZone)) return true;
  try {
    formatterFor(timeZone);
    return true;
  } catch {
    return false;
  }
}

/** The local calendar fields of `ms` in `timeZone`, plus the short weekday name. */
export function localTimeOf(ms: number, timeZone: string): LocalTime & { weekday: string } {
  if (UTC_NAMES.has(timeZone)) {
    const d = new Date(ms);
    return {
      year: d.getUTCFullYear(),
      month: d.getUTCMonth() + 1,
      day: d.getUTCDate(),
      hour: d.getUTCHours(),
      minute: d.getUTCMinutes(),
      second: d.getUTCSeconds(),
      millisecond: d.getUTCMilliseconds(),
      weekday: WEEKDAYS[d.getUTCDay()] ?? '',
    };
  }
  const parts = formatterFor(timeZone).formatToParts(new Date(ms));
  const get = (type: Intl.DateTimeFormatPartTypes): string => parts.find((p) => p.type === type)?.value ?? '';
  return {
    year: Number(get('year')),
    month: Number(get('month')),
    day: Number(get('day')),
    hour: Number(get('hour')),
    minute: Number(get('minute')),
    second: Number(get('second')),
    millisecond: ((ms % 1000) + 1000) % 1000,
    weekday: get('weekday'),
  };
}

function wallAsUtc(t: LocalTime): number {
  return Date.UTC(t.year, t.month - 1, t.day, t.hour, t.minute, t.second, t.millisecond);
}

/** The zone's offset from UTC at instant `ms`, in ms (Berlin in summer: +7 200 000). */
export function offsetAt(ms: number, timeZone: string): number {
  return wallAsUtc(localTimeOf(ms, timeZone)) - ms;
}

/**
 * The instant at which the wall clock in `timeZone` shows `t`. A time that occurs twice (the autumn
 * overlap) maps to its first occurrence; a time that does not exist (the spring gap) is moved forward by
 * the length of the gap, so 02:30 on a 02:00→03:00 day becomes 03:30. This is what cron-parser does for
 * fire times, so windows and their cron starts agree.
 */
export function instantOf(t: LocalTime, timeZone: string): number {
  const wall = wallAsUtc(t);
  // Offsets half a day either side bracket any single transition.
  const before = offsetAt(wall - 12 * HOUR_MS, timeZone);
  const after = offsetAt(wall + 12 * HOUR_MS, timeZone);
  const candidates = [wall - before, wall - after].filter((c) => offsetAt(c, timeZone) === wall - c);
  if (candidates.length > 0) return Math.min(...candidates);
  return wall - before;
}

/** Adds `ms` of wall-clock time: 16:00 Friday + 64h is 08:00 Monday even across a DST change. */
export function addWallClock(start: number, ms: number, timeZone: string): number {
  // Fast path: with the same offset at both ends, elapsed and wall-clock time agree.
  if (offsetAt(start, timeZone) === offsetAt(start + ms, timeZone)) return start + ms;
  const local = localTimeOf(start, timeZone);
  const shifted = new Date(wallAsUtc(local) + ms);
  return instantOf(
    {
      year: shifted.getUTCFullYear(),
      month: shifted.getUTCMonth() + 1,
      day: shifted.getUTCDate(),
      hour: shifted.getUTCHours(),
      minute: shifted.getUTCMinutes(),
      second: shifted.getUTCSeconds(),
      millisecond: shifted.getUTCMilliseconds(),
    },
    timeZone,
  );
}

/** The instant the local day after the date `t` begins (a bare `to` date ends there). */
export function startOfNextDay(t: Pick<LocalTime, 'year' | 'month' | 'day'>, timeZone: string): number {
  const next = new Date(Date.UTC(t.year, t.month - 1, t.day) + DAY_MS);
  return instantOf(
    {
      year: next.getUTCFullYear(),
      month: next.getUTCMonth() + 1,
      day: next.getUTCDate(),
      hour: 0,
      minute: 0,
      second: 0,
      millisecond: 0,
    },
    timeZone,
  );
}

function pad(n: number, width = 2): string {
  return String(n).padStart(width, '0');
}

function formatOffset(offsetMs: number): string {
  const sign = offsetMs < 0 ? '-' : '+';
  const minutes = Math.round(Math.abs(offsetMs) / 60_000);
  return `${sign}${pad(Math.floor(minutes / 60))}:${pad(minutes % 60)}`;
}

/** `Fri 2026-03-27 16:00 +01:00`: the local time in `timeZone` with its offset (seconds only when set). */
export function formatLocal(ms: number, timeZone: string): string {
  const t = localTimeOf(ms, timeZone);
  const seconds = t.second !== 0 ? `:${pad(t.second)}` : '';
  return `${t.weekday} ${t.year}-${pad(t.month)}-${pad(t.day)} ${pad(t.hour)}:${pad(t.minute)}${seconds} ${formatOffset(offsetAt(ms, timeZone))}`;
}
