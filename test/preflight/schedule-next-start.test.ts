/**
 * Two searches of the schedule decision: which allow window counts as the longest when every window is
 * shorter than the planned run (and so which one the refusal names), and where the next allowed start is
 * found — the earliest candidate in time order, never a candidate from before the day being searched,
 * never past the year-and-a-day horizon, and `from` itself when it already fits.
 */
import { describe, expect, it } from 'vitest';
import { Schedule } from '../../src/plan/schema.js';
import {
  allowNeedsEnumeration,
  allowWindowsTooShort,
  nextAllowedStart,
  NEXT_START_HORIZON_MS,
  scheduleDecision,
} from '../../src/preflight/schedule-decision.js';
import { compileSchedule, type ScheduleSpec } from '../../src/preflight/schedule-windows.js';

const MIN = 60_000;
const H = 60 * MIN;
/** A fixed origin (a UTC midnight) for the dated windows below. */
const T = Date.UTC(2026, 5, 1);
const iso = (ms: number): string => new Date(ms).toISOString();
/** A dated window [from, to) in UTC. */
const dated = (from: number, to: number, reason: string) => ({ from: iso(from), to: iso(to), reason });
const schedule = (allow: ReturnType<typeof dated>[], deny: ReturnType<typeof dated>[] = []): ScheduleSpec =>
  Schedule.parse({ timezone: 'UTC', allow, deny });

describe('allowWindowsTooShort: the longest allow window', () => {
  it('names the longest window, wherever it is listed, with its own length', () => {
    const s = schedule([
      dated(T, T + 10 * MIN, 'short'),
      dated(T + 2 * H, T + 2 * H + 30 * MIN, 'longest'),
      dated(T + 4 * H, T + 4 * H + 20 * MIN, 'middle'),
    ]);
    const issue = allowWindowsTooShort(s, H);
    expect(issue?.field).toBe('schedule.allow');
    expect(issue?.value).toBe('1h');
    expect(issue?.message).toContain(`(the longest, schedule.allow[1] ${iso(T + 2 * H)} →`);
    expect(issue?.message).toContain('lasts 30m)');
  });

  it('names the earlier of two equally long windows', () => {
    const s = schedule([
      dated(T, T + 30 * MIN, 'first'),
      dated(T + 2 * H, T + 2 * H + 10 * MIN, 'short'),
      dated(T + 4 * H, T + 4 * H + 30 * MIN, 'second'),
    ]);
    expect(allowWindowsTooShort(s, H)?.message).toContain(
      `(the longest, schedule.allow[0] ${iso(T)} → ${iso(T + 30 * MIN)}, lasts 30m)`,
    );
  });

  it('counts touching windows as one span: exactly the planned run is long enough, a minute more is not', () => {
    const s = schedule([dated(T, T + 10 * MIN, 'a'), dated(T + 10 * MIN, T + 20 * MIN, 'b')]);
    expect(allowWindowsTooShort(s, 20 * MIN)).toBeUndefined();
    const issue = allowWindowsTooShort(s, 21 * MIN);
    expect(issue?.message).toContain('(the longest, schedule.allow[0]');
    expect(issue?.message).toContain('lasts 20m)');
  });

  it('joins touching windows listed out of time order', () => {
    const later = dated(T + 10 * MIN, T + 20 * MIN, 'later');
    const earlier = dated(T, T + 10 * MIN, 'earlier');
    const s = schedule([later, earlier]);
    expect(allowWindowsTooShort(s, 20 * MIN)).toBeUndefined();
    expect(scheduleDecision(s, T, 20 * MIN).ok).toBe(true);
  });

  it('refuses a dated allow window shorter than the run, and passes one that is long enough', () => {
    expect(allowWindowsTooShort(schedule([dated(T, T + 10 * MIN, 'short')]), 20 * MIN)?.message).toContain(
      'lasts 10m)',
    );
    expect(allowWindowsTooShort(schedule([dated(T, T + 20 * MIN, 'enough')]), 20 * MIN)).toBeUndefined();
  });
});

describe('allowNeedsEnumeration: when the occurrences must be merged to tell', () => {
  const cron = (duration: string) => ({ cron: '0 9 * * MON-FRI', duration, reason: 'office' });
  const spec = (allow: ReturnType<typeof cron>[]): ScheduleSpec => Schedule.parse({ timezone: 'UTC', allow });

  it('never without allow windows', () => {
    expect(allowNeedsEnumeration(spec([]), 20 * MIN)).toBe(false);
  });

  it('not when one window on its own lasts the planned run, exactly or more', () => {
    expect(allowNeedsEnumeration(spec([cron('20m')]), 20 * MIN)).toBe(false);
    expect(allowNeedsEnumeration(spec([cron('5m'), cron('8h')]), 20 * MIN)).toBe(false);
  });

  it('only when every window on its own is shorter', () => {
    expect(allowNeedsEnumeration(spec([cron('5m'), cron('19m')]), 20 * MIN)).toBe(true);
  });
});

describe('nextAllowedStart', () => {
  const next = (s: ScheduleSpec, from: number, planned: number) =>
    nextAllowedStart(compileSchedule(s), from, planned);

  it('returns from itself when a run may start there', () => {
    const s = schedule([dated(T, T + 24 * H, 'day')]);
    expect(next(s, T + H, 20 * MIN)).toBe(T + H);
  });

  it('returns the earliest fitting candidate in time order, not in the order they were collected', () => {
    // Candidates: from (outside the allow window), the deny end (T+6h) and the allow start (T+2h).
    const s = schedule([dated(T + 2 * H, T + 20 * H, 'allow')], [dated(T + 5 * H, T + 6 * H, 'deny')]);
    expect(next(s, T, H)).toBe(T + 2 * H);
  });

  it('never offers a candidate from before the day searched, whose deny windows are no longer looked at', () => {
    // Day 0 finds nothing: T is outside the allow span, its start (T+12h) is inside deny a, a's end (T+22h)
    // is inside deny b. Day 1 still sees the allow span starting at T+12h but no longer deny a.
    const s = schedule(
      [dated(T + 12 * H, T + 72 * H, 'allow')],
      [dated(T + 12 * H, T + 22 * H, 'a'), dated(T + 22 * H, T + 36 * H, 'b')],
    );
    expect(next(s, T, H)).toBe(T + 36 * H);
  });

  it('searches a year and a day: a start just inside the horizon is found, one at the horizon is not', () => {
    const horizon = T + NEXT_START_HORIZON_MS;
    const justInside = schedule([dated(horizon - 1, horizon + 24 * H, 'late')]);
    expect(next(justInside, T, H)).toBe(horizon - 1);
    const atHorizon = schedule([dated(horizon, horizon + 24 * H, 'too late')]);
    expect(next(atHorizon, T, H)).toBeNull();
  });

  it('gives the same next start through scheduleDecision when the requested start is refused', () => {
    const s = schedule([dated(T + 2 * H, T + 20 * H, 'allow')], [dated(T + 5 * H, T + 6 * H, 'deny')]);
    const d = scheduleDecision(s, T, H);
    expect(d.ok).toBe(false);
    expect(!d.ok && d.nextAllowedStart).toBe(T + 2 * H);
  });
});
