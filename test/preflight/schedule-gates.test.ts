/**
 * The two schedule gates' answers for a schedule that cannot be used: the static gate refuses naming the
 * first problem and how many more, records each, and says nothing about a usable schedule; the run-time
 * gate refuses an unusable schedule instead of deciding a time. `scheduleRefusals` names each rule.
 */
import { describe, expect, it } from 'vitest';
import type { JournalEvent } from '../../src/journal/types.js';
import { Schedule } from '../../src/plan/schema.js';
import { scheduleGate, scheduleRefusals, scheduleValidityGate } from '../../src/preflight/schedule.js';
import { loadTestPlan } from '../sim/helpers.js';

const plan = loadTestPlan();
const HOUR = 3_600_000;
const context = (schedule: unknown, events: Omit<JournalEvent, 'at'>[] = []) => ({
  plan: { ...plan, schedule: Schedule.parse(schedule) },
  now: Date.UTC(2026, 5, 1, 12),
  record: (e: Omit<JournalEvent, 'at'>) => void events.push(e),
});
const twoBadDates = {
  deny: [
    { from: '2026-02-30', to: '2026-03-02', reason: 'a' },
    { from: '2026-03-01', to: '2026-02-01', reason: 'b' },
  ],
};

describe('scheduleRefusals', () => {
  it('names an unusable field as schedule-invalid, with the field in the message', () => {
    expect(
      scheduleRefusals(Schedule.parse(twoBadDates), HOUR).map((r) => [
        r.rule,
        r.field,
        r.message.split(':')[0],
      ]),
    ).toEqual([
      ['schedule-invalid', 'schedule.deny[0].from', 'schedule.deny[0].from'],
      ['schedule-invalid', 'schedule.deny[1].to', 'schedule.deny[1].to'],
    ]);
  });

  it('names allow windows too short for the run as schedule-never-fits, and nothing for a usable schedule', () => {
    const short = Schedule.parse({
      allow: [{ from: '2026-06-01T10:00Z', to: '2026-06-01T10:30Z', reason: 'x' }],
    });
    expect(scheduleRefusals(short, HOUR).map((r) => [r.rule, r.field])).toEqual([
      ['schedule-never-fits', 'schedule.allow'],
    ]);
    expect(scheduleRefusals(short, HOUR / 4)).toEqual([]);
  });
});

describe('the static schedule gate', () => {
  it('passes a usable schedule', async () => {
    expect(await scheduleValidityGate().check(context({}))).toEqual({ pass: true });
  });

  it('refuses with the first problem and a count of the rest, recording each', async () => {
    const events: Omit<JournalEvent, 'at'>[] = [];
    const out = await scheduleValidityGate().check(context(twoBadDates, events));
    expect(out).toMatchObject({ pass: false, verdict: 'refused', field: 'schedule.deny[0].from' });
    expect((out as { reason: string }).reason).toMatch(/^schedule\.deny\[0\]\.from: .* \(and 1 more\)$/);
    expect(events.map((e) => (e.data as { field: string }).field)).toEqual([
      'schedule.deny[0].from',
      'schedule.deny[1].to',
    ]);
  });

  it('judges the windows against the planned run it is given', async () => {
    const short = { allow: [{ from: '2026-06-01T10:00Z', to: '2026-06-01T10:30Z', reason: 'x' }] };
    expect(await scheduleValidityGate({ plannedRunMs: HOUR / 4 }).check(context(short))).toEqual({
      pass: true,
    });
    expect(await scheduleValidityGate({ plannedRunMs: HOUR }).check(context(short))).toMatchObject({
      pass: false,
      field: 'schedule.allow',
    });
  });
});

describe('the run-time schedule gate', () => {
  it('refuses an unusable schedule, naming every problem', async () => {
    const out = await scheduleGate().check(context(twoBadDates));
    expect(out).toMatchObject({ pass: false, verdict: 'refused', field: 'schedule.deny[0].from' });
    const reason = (out as { reason: string }).reason;
    expect(reason.startsWith('schedule.deny[0].from: ')).toBe(true);
    expect(reason).toContain('; schedule.deny[1].to: ');
  });
});
