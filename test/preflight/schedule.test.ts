import { beforeAll, describe, expect, it } from 'vitest';
import type { JournalEvent } from '../../src/journal/types.js';
import { Schedule } from '../../src/plan/schema.js';
import { CronExpressionParser } from 'cron-parser';
import {
  allowWindowsTooShort,
  cronFieldProblem,
  isPlainCron,
  loadCronParser,
  MAX_OCCURRENCES_PER_DECISION,
  ScheduleError,
  scheduleDecision,
  scheduleGate,
  scheduleIssues,
} from '../../src/preflight/schedule.js';
import { addWallClock, formatLocal, instantOf, offsetAt } from '../../src/preflight/zone.js';
import { loadTestPlan } from '../sim/helpers.js';

const MIN = 60_000;

// The synchronous schedule functions expect cron-parser loaded, as the gates load it before using them.
beforeAll(() => loadCronParser());
const H = 60 * MIN;
const at = (iso: string): number => Date.parse(iso);

const weekendFreeze = (timezone: string) =>
  Schedule.parse({ timezone, deny: [{ cron: '0 16 * * FRI', duration: '64h', reason: 'weekend freeze' }] });

describe('zone arithmetic', () => {
  it.each([
    // [zone, local wall time, expected UTC] — including a spring gap and an autumn overlap
    ['Europe/Berlin', '2026-03-29T01:30', '2026-03-29T00:30:00Z'],
    ['Europe/Berlin', '2026-03-29T02:30', '2026-03-29T01:30:00Z'], // does not exist: moved forward to 03:30 CEST
    ['Europe/Berlin', '2026-03-29T03:00', '2026-03-29T01:00:00Z'],
    ['Europe/Berlin', '2026-10-25T02:30', '2026-10-25T00:30:00Z'], // occurs twice: the first (CEST) wins
    ['America/New_York', '2026-03-08T02:30', '2026-03-08T07:30:00Z'], // gap → 03:30 EDT
    ['America/New_York', '2026-11-01T01:30', '2026-11-01T05:30:00Z'], // overlap → 01:30 EDT
    ['UTC', '2026-06-01T12:00', '2026-06-01T12:00:00Z'],
  ])('%s %s is %s', (zone, local, utc) => {
    const [date, time] = local.split('T') as [string, string];
    const [y, mo, d] = date.split('-').map(Number) as [number, number, number];
    const [h, mi] = time.split(':').map(Number) as [number, number];
    expect(
      new Date(
        instantOf({ year: y, month: mo, day: d, hour: h, minute: mi, second: 0, millisecond: 0 }, zone),
      ).toISOString(),
    ).toBe(new Date(utc).toISOString());
  });

  it('reads offsets on both sides of a change', () => {
    expect(offsetAt(at('2026-03-29T00:59:59Z'), 'Europe/Berlin')).toBe(1 * H);
    expect(offsetAt(at('2026-03-29T01:00:00Z'), 'Europe/Berlin')).toBe(2 * H);
  });

  it('adds wall-clock time so Friday 16:00 + 64h is Monday 08:00 across the change', () => {
    const end = addWallClock(at('2026-03-27T15:00:00Z'), 64 * H, 'Europe/Berlin');
    expect(formatLocal(end, 'Europe/Berlin')).toBe('Mon 2026-03-30 08:00 +02:00');
    expect(end - at('2026-03-27T15:00:00Z')).toBe(63 * H);
  });
});

describe('scheduleDecision: a weekend deny window across DST changes', () => {
  // [zone, start, planned, ok, next allowed start]
  const cases: [string, string, number, boolean, string | null][] = [
    // Berlin, clocks go forward on Sunday 2026-03-29: Fri 16:00 CET (15:00Z) → Mon 08:00 CEST (06:00Z), 63 h elapsed.
    ['Europe/Berlin', '2026-03-27T14:40:00Z', 20 * MIN, true, null], // ends exactly when the window opens
    ['Europe/Berlin', '2026-03-27T14:41:00Z', 20 * MIN, false, '2026-03-30T06:00:00Z'], // would end inside
    ['Europe/Berlin', '2026-03-27T15:00:00Z', 20 * MIN, false, '2026-03-30T06:00:00Z'], // the first instant
    ['Europe/Berlin', '2026-03-30T05:59:00Z', 20 * MIN, false, '2026-03-30T06:00:00Z'], // 07:59 CEST, still frozen
    ['Europe/Berlin', '2026-03-30T06:00:00Z', 20 * MIN, true, null], // 08:00 CEST: open (half-open window)
    // Berlin, clocks go back on Sunday 2026-10-25: Fri 16:00 CEST (14:00Z) → Mon 08:00 CET (07:00Z), 65 h elapsed.
    ['Europe/Berlin', '2026-10-26T06:30:00Z', 20 * MIN, false, '2026-10-26T07:00:00Z'], // 64 h elapsed would have let this through
    ['Europe/Berlin', '2026-10-26T07:00:00Z', 20 * MIN, true, null],
    // New York, clocks go forward on Sunday 2026-03-08: Fri 16:00 EST (21:00Z) → Mon 08:00 EDT (12:00Z).
    ['America/New_York', '2026-03-06T20:50:00Z', 20 * MIN, false, '2026-03-09T12:00:00Z'],
    ['America/New_York', '2026-03-09T11:30:00Z', 20 * MIN, false, '2026-03-09T12:00:00Z'],
    ['America/New_York', '2026-03-09T12:00:00Z', 20 * MIN, true, null],
    // New York, clocks go back on Sunday 2026-11-01: Fri 16:00 EDT (20:00Z) → Mon 08:00 EST (13:00Z).
    ['America/New_York', '2026-10-30T19:39:00Z', 20 * MIN, true, null],
    ['America/New_York', '2026-11-02T12:30:00Z', 20 * MIN, false, '2026-11-02T13:00:00Z'],
    ['America/New_York', '2026-11-02T13:00:00Z', 20 * MIN, true, null],
  ];
  it.each(cases)('%s start %s, %d ms run → ok=%s, next %s', (zone, start, planned, ok, next) => {
    const d = scheduleDecision(weekendFreeze(zone), at(start), planned);
    expect(d.ok).toBe(ok);
    if (!d.ok) {
      expect(d.nextAllowedStart === null ? null : new Date(d.nextAllowedStart).toISOString()).toBe(
        next === null ? null : new Date(next).toISOString(),
      );
      expect(d.window.field).toBe('schedule.deny[0]');
      expect(d.reason).toContain('"weekend freeze"');
      expect(d.reason).toContain(zone);
    }
  });

  it('names the window, its local bounds and the next start in the reason', () => {
    const d = scheduleDecision(weekendFreeze('Europe/Berlin'), at('2026-03-27T14:50:00Z'), 17 * MIN + 30_000);
    expect(d.ok).toBe(false);
    if (d.ok) return;
    expect(d.reason).toBe(
      'the planned run of 1050s would end at Fri 2026-03-27 16:07:30 +01:00, inside deny window schedule.deny[0] ' +
        '"weekend freeze" (cron "0 16 * * FRI" for 64h: Fri 2026-03-27 16:00 +01:00 → Mon 2026-03-30 08:00 +02:00, ' +
        'Europe/Berlin); next allowed start Mon 2026-03-30 08:00 +02:00 (2026-03-30T06:00:00.000Z)',
    );
  });
});

describe('scheduleDecision: date ranges', () => {
  const holidays = Schedule.parse({
    timezone: 'Europe/Berlin',
    deny: [{ from: '2026-12-20', to: '2027-01-05', reason: 'holiday freeze' }],
  });
  it.each([
    ['2026-12-19T22:39:00Z', true, null], // 23:39 local, a 20 m run ends 23:59
    ['2026-12-19T22:50:00Z', false, '2027-01-05T23:00:00Z'], // would end at 00:10 on the 20th
    ['2026-12-19T23:00:00Z', false, '2027-01-05T23:00:00Z'], // 00:00 local on the 20th
    ['2027-01-05T22:59:00Z', false, '2027-01-05T23:00:00Z'], // 23:59 on the 5th: `to` includes the whole day
    ['2027-01-05T23:00:00Z', true, null], // 00:00 on the 6th
  ])('start %s → ok=%s, next %s', (start, ok, next) => {
    const d = scheduleDecision(holidays, at(start), 20 * MIN);
    expect(d.ok).toBe(ok);
    if (!d.ok)
      expect(new Date(d.nextAllowedStart ?? 0).toISOString()).toBe(new Date(next ?? 0).toISOString());
  });

  it('reads date-times with an offset as absolute and without one as local', () => {
    const s = Schedule.parse({
      timezone: 'Europe/Berlin',
      deny: [
        { from: '2026-06-01T10:00', to: '2026-06-01T11:00', reason: 'local' }, // 08:00Z–09:00Z
        { from: '2026-06-02T10:00:00Z', to: '2026-06-02T13:00:00+02:00', reason: 'absolute' }, // 10:00Z–11:00Z
      ],
    });
    expect(scheduleDecision(s, at('2026-06-01T07:59:00Z'), MIN).ok).toBe(true);
    expect(scheduleDecision(s, at('2026-06-01T08:00:00Z'), MIN).ok).toBe(false);
    expect(scheduleDecision(s, at('2026-06-01T09:00:00Z'), MIN).ok).toBe(true);
    expect(scheduleDecision(s, at('2026-06-02T09:59:00Z'), MIN).ok).toBe(true);
    expect(scheduleDecision(s, at('2026-06-02T10:30:00Z'), MIN).ok).toBe(false);
    expect(scheduleDecision(s, at('2026-06-02T11:00:00Z'), MIN).ok).toBe(true);
  });

  it('reports no next start when a deny range covers the whole horizon', () => {
    const s = Schedule.parse({
      timezone: 'UTC',
      deny: [{ from: '2026-01-01', to: '2028-01-01', reason: 'moratorium' }],
    });
    const d = scheduleDecision(s, at('2026-03-01T12:00:00Z'), 20 * MIN);
    expect(d.ok).toBe(false);
    if (d.ok) return;
    expect(d.nextAllowedStart).toBeNull();
    expect(d.reason).toContain('no allowed start for a 20m run within 366 days');
  });
});

describe('scheduleDecision: allow windows', () => {
  const office = Schedule.parse({
    timezone: 'America/New_York',
    allow: [{ cron: '0 9 * * MON-FRI', duration: '8h', reason: 'office hours' }],
  });
  it.each([
    // [start, ok, next]
    ['2026-03-04T14:00:00Z', true, null], // Wed 09:00 EST: the window's first instant
    ['2026-03-04T13:59:00Z', false, '2026-03-04T14:00:00Z'], // Wed 08:59: outside every allow window
    ['2026-03-04T21:40:00Z', true, null], // Wed 16:40, a 20 m run ends at 17:00 exactly
    ['2026-03-04T21:41:00Z', false, '2026-03-05T14:00:00Z'], // would end after the window closes
    ['2026-03-06T21:45:00Z', false, '2026-03-09T13:00:00Z'], // Friday late → Monday 09:00 EDT (after the change)
    ['2026-03-07T15:00:00Z', false, '2026-03-09T13:00:00Z'], // Saturday
  ])('start %s → ok=%s, next %s', (start, ok, next) => {
    const d = scheduleDecision(office, at(start), 20 * MIN);
    expect(d.ok).toBe(ok);
    if (!d.ok)
      expect(new Date(d.nextAllowedStart ?? 0).toISOString()).toBe(new Date(next ?? 0).toISOString());
  });

  it('says the run would end after the allow window closes', () => {
    const d = scheduleDecision(office, at('2026-03-04T21:41:00Z'), 20 * MIN);
    expect(!d.ok && d.reason).toContain(
      'after allow window schedule.allow[0] "office hours" closes at Wed 2026-03-04 17:00 -05:00',
    );
  });

  it('treats touching allow occurrences as one span, so a run may cross midnight', () => {
    const always = Schedule.parse({
      timezone: 'UTC',
      allow: [{ cron: '0 0 * * *', duration: '24h', reason: 'daily' }],
    });
    expect(scheduleDecision(always, at('2026-05-05T23:50:00Z'), 20 * MIN).ok).toBe(true);
  });

  it('lets a deny window inside an allow window win', () => {
    const s = Schedule.parse({
      timezone: 'America/New_York',
      allow: [{ cron: '0 9 * * MON-FRI', duration: '8h', reason: 'office hours' }],
      deny: [{ cron: '0 12 * * *', duration: '1h', reason: 'lunch peak' }],
    });
    const d = scheduleDecision(s, at('2026-03-04T16:50:00Z'), 20 * MIN); // 11:50, would end 12:10
    expect(d.ok).toBe(false);
    if (d.ok) return;
    expect(d.window.reason).toBe('lunch peak');
    expect(new Date(d.nextAllowedStart ?? 0).toISOString()).toBe('2026-03-04T18:00:00.000Z');
  });
});

describe('schedule problems', () => {
  it.each([
    [{ timezone: 'Mars/Olympus' }, 'schedule.timezone'],
    [{ deny: [{ cron: '0 16 * * FRX', duration: '1h', reason: 'r' }] }, 'schedule.deny[0].cron'],
    [{ allow: [{ cron: '0 16 * * FRI', duration: '0s', reason: 'r' }] }, 'schedule.allow[0].duration'],
    [{ deny: [{ from: '2026-02-30', to: '2026-03-02', reason: 'r' }] }, 'schedule.deny[0].from'],
    [{ deny: [{ from: '2026-03-05', to: '2026-03-01', reason: 'r' }] }, 'schedule.deny[0].to'],
    [{ deny: [{ from: 'next friday', to: '2026-03-01', reason: 'r' }] }, 'schedule.deny[0].from'],
  ])('%j is refused at %s', (input, field) => {
    const issues = scheduleIssues(Schedule.parse(input));
    expect(issues.map((i) => i.field)).toEqual([field]);
    expect(() => scheduleDecision(Schedule.parse(input), 0, MIN)).toThrow(ScheduleError);
  });

  it('bounds the search for a window that is always on, refusing without a next start', () => {
    const s = Schedule.parse({
      timezone: 'UTC',
      deny: [{ cron: '* * * * *', duration: '1m', reason: 'always' }],
    });
    const d = scheduleDecision(s, at('2026-03-04T10:00:30Z'), 5 * MIN);
    expect(d.ok).toBe(false);
    if (d.ok) return;
    expect(d.nextAllowedStart).toBeNull();
    expect(d.reason).toContain(`more than ${MAX_OCCURRENCES_PER_DECISION} times`);
  });
});

describe('scheduleGate', () => {
  const plan = loadTestPlan();
  const events: Omit<JournalEvent, 'at'>[] = [];
  const ctx = (now: number, schedule: unknown) => ({
    plan: { ...plan, schedule: Schedule.parse(schedule) },
    now,
    record: (e: Omit<JournalEvent, 'at'>) => events.push(e),
  });

  it('is not-run inside a deny window, recording the next allowed start', async () => {
    const outcome = await scheduleGate({ plannedRunMs: 20 * MIN }).check(
      ctx(at('2026-03-28T12:00:00Z'), {
        timezone: 'Europe/Berlin',
        deny: [{ cron: '0 16 * * FRI', duration: '64h', reason: 'weekend freeze' }],
      }),
    );
    expect(outcome).toMatchObject({ pass: false, verdict: 'not-run', field: 'schedule.deny[0]' });
    expect(events.at(-1)?.data?.['nextAllowedStart']).toBe(at('2026-03-30T06:00:00Z'));
  });

  it('is refused for an unusable schedule, naming the field', async () => {
    const outcome = await scheduleGate().check(ctx(0, { timezone: 'Nowhere/City' }));
    expect(outcome).toMatchObject({ pass: false, verdict: 'refused', field: 'schedule.timezone' });
  });

  it('passes outside every window using the plan’s own run length', async () => {
    const outcome = await scheduleGate().check(
      ctx(at('2026-03-25T10:00:00Z'), {
        timezone: 'Europe/Berlin',
        deny: [{ cron: '0 16 * * FRI', duration: '64h', reason: 'weekend freeze' }],
      }),
    );
    expect(outcome.pass).toBe(true);
  });
});

describe('cron fields and allow windows, checked before any run (validate, plan, run)', () => {
  it('names the field, the value and the range of an out-of-range cron number', () => {
    expect(cronFieldProblem('61 9 * * 1-5')).toBe('minute 61 is outside 0-59');
    expect(cronFieldProblem('0 9-24 * * *')).toBe("hour 24 (in '9-24') is outside 0-23");
    expect(cronFieldProblem('0 9 * 13 *')).toBe('month 13 is outside 1-12');
    expect(cronFieldProblem('0 9 * *')).toBe('4 fields instead of 5');
    expect(cronFieldProblem('*/15 0 1,15 * 0-7')).toBeUndefined();
    const issues = scheduleIssues(
      Schedule.parse({ allow: [{ cron: '61 9 * * 1-5', duration: '8h', reason: 'r' }] }),
    );
    expect(issues).toEqual([
      {
        field: 'schedule.allow[0].cron',
        value: '61 9 * * 1-5',
        message:
          '"61 9 * * 1-5": minute 61 is outside 0-59; expected five fields (minute hour day-of-month month day-of-week) such as "0 16 * * FRI"',
      },
    ]);
  });

  it('judges a plain cron expression as cron-parser does, and leaves the rest to cron-parser', () => {
    const parses = (c: string): boolean => {
      try {
        CronExpressionParser.parse(c, { tz: 'UTC' });
        return true;
      } catch {
        return false;
      }
    };
    const plain = [
      '0 9 * * 1-5',
      '0 16 * * FRI',
      '0 0 * JAN-MAR SUN',
      '*/15 * * * *',
      '0 9 * * 1-5/2',
      '0 0 30 * *',
    ];
    for (const c of plain) expect([c, isPlainCron(c), parses(c)]).toEqual([c, true, true]);
    for (const c of [
      '5-1 * * * *',
      '*/0 * * * *',
      '0 9 L * *',
      '0 9 * * 5#2',
      '0 9 ? * *',
      '0 0 31 2 *',
      '0 9 * * fri',
    ])
      expect([c, isPlainCron(c)]).toEqual([c, false]);
  });

  it('refuses allow windows that can never hold the planned run, merging occurrences that touch', () => {
    const short = Schedule.parse({ allow: [{ cron: '0 9 * * 1-5', duration: '2m', reason: 'slot' }] });
    expect(allowWindowsTooShort(short, 3 * MIN)?.message).toContain(
      'every allow window is shorter than the planned run of 3m',
    );
    expect(allowWindowsTooShort(short, 2 * MIN)).toBeUndefined();
    // Hourly 1 h windows touch: together they hold any run.
    const chained = Schedule.parse({ allow: [{ cron: '0 * * * *', duration: '1h', reason: 'always' }] });
    expect(allowWindowsTooShort(chained, 3 * 60 * MIN)).toBeUndefined();
    expect(allowWindowsTooShort(Schedule.parse({}), 3 * MIN)).toBeUndefined();
  });
});
