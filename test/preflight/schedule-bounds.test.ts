/**
 * How a dated window's `from` and `to` are read: calendar dates and clock fields at their limits, an
 * explicit UTC offset of either sign (with or without a colon), fractions of a second, surrounding blanks,
 * and a bare `to` date that ends with its day.
 */
import { describe, expect, it } from 'vitest';
import {
  compileSchedule,
  OccurrenceBudget,
  scheduleIssues,
  type ScheduleSpec,
} from '../../src/preflight/schedule-windows.js';

const schedule = (from: string, to: string, timezone = 'UTC'): ScheduleSpec =>
  ({ timezone, allow: [], deny: [{ from, to, reason: 'freeze' }] }) as unknown as ScheduleSpec;
const problems = (from: string, to = '2030-01-01') =>
  scheduleIssues(schedule(from, to)).map((i) => `${i.field}: ${i.value}`);
/** The [start, end) of the one deny window, as ISO text. */
function span(from: string, to: string, timezone = 'UTC'): [string, string] {
  const [window] = compileSchedule(schedule(from, to, timezone)).deny;
  const [o] = window!.occurrences(0, Date.UTC(2100, 0, 1), new OccurrenceBudget());
  return [new Date(o!.start).toISOString(), new Date(o!.end).toISOString()];
}

describe('dated window bounds', () => {
  it('refuses a date that is not on the calendar', () => {
    expect(problems('2026-02-30')).toEqual(['schedule.deny[0].from: 2026-02-30']);
    expect(problems('2026-13-01')).toEqual(['schedule.deny[0].from: 2026-13-01']);
    expect(problems('2026-02-30T10:00')).toEqual(['schedule.deny[0].from: 2026-02-30T10:00']);
    expect(problems('2028-02-29')).toEqual([]);
  });

  it.each([
    ['2026-12-20T23:59:59', true],
    ['2026-12-20T24:00', false],
    ['2026-12-20T23:60', false],
    ['2026-12-20T23:59:60', false],
  ])('%s is a valid date-time: %s', (from, valid) => {
    expect(problems(from)).toEqual(valid ? [] : [`schedule.deny[0].from: ${from}`]);
  });

  it('reads an explicit offset of either sign, with or without a colon, and Z', () => {
    expect(span('2026-12-20T18:00+01:30', '2026-12-21')[0]).toBe('2026-12-20T16:30:00.000Z');
    expect(span('2026-12-20T18:00-0500', '2026-12-21T12:00Z')).toEqual([
      '2026-12-20T23:00:00.000Z',
      '2026-12-21T12:00:00.000Z',
    ]);
  });

  it('keeps seconds and milliseconds, and reads a local time in the schedule zone', () => {
    expect(span('2026-12-20T18:00:05.25Z', '2026-12-21')[0]).toBe('2026-12-20T18:00:05.250Z');
    expect(span('2026-07-01T12:00', '2026-07-02', 'Europe/Berlin')[0]).toBe('2026-07-01T10:00:00.000Z');
  });

  it('ignores surrounding blanks, and ends a bare to date with its day', () => {
    expect(span(' 2026-12-20 ', ' 2026-12-20 ')).toEqual([
      '2026-12-20T00:00:00.000Z',
      '2026-12-21T00:00:00.000Z',
    ]);
    expect(span(' 2026-12-20T18:00Z ', '2026-12-21')[0]).toBe('2026-12-20T18:00:00.000Z');
  });
});
