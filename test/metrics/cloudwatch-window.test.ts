/**
 * The window arithmetic behind CloudWatch readings (issue 12.4): whole periods, on CloudWatch's own
 * period grid, ending at or before `at − allowance`.
 */
import { describe, expect, it } from 'vitest';
import {
  completePeriodsWindow,
  defaultIngestionAllowanceMs,
  formatWindow,
  HIGH_RESOLUTION_INGESTION_ALLOWANCE_MS,
  retentionProblem,
  STANDARD_INGESTION_ALLOWANCE_MS,
  startRoundingMs,
} from '../../src/metrics/cloudwatch/window.js';

const S = 1000;
const M = 60 * S;
const D = 24 * 60 * M;
/** A whole hour, so offsets below read as wall-clock seconds past it. */
const T0 = Date.UTC(2025, 2, 14, 9, 0, 0);

function windowAt(at: number, periodsMs: number[], allowanceMs: number, windowMs = S) {
  const w = completePeriodsWindow({ at, windowMs, periodsMs, allowanceMs });
  return { start: w.startMs - T0, end: w.endMs - T0, grid: w.gridMs };
}

describe('completePeriodsWindow: the newest complete period', () => {
  it('ends on the 5 s grid at or before at − allowance, one period long', () => {
    // 09:00:12.300 − 5 s = 09:00:07.300 → the period 09:00:00–09:00:05 is the newest complete one.
    expect(windowAt(T0 + 12_300, [5 * S], 5 * S)).toEqual({ start: 0, end: 5 * S, grid: 5 * S });
  });

  it('counts a period as complete when at − allowance falls exactly on its end', () => {
    expect(windowAt(T0 + 15 * S, [5 * S], 5 * S)).toMatchObject({ start: 5 * S, end: 10 * S });
    // One millisecond earlier the allowance of that period has not fully passed.
    expect(windowAt(T0 + 15 * S - 1, [5 * S], 5 * S)).toMatchObject({ start: 0, end: 5 * S });
  });

  it('with no allowance, reads the period that ended at or before at, never the one still filling', () => {
    expect(windowAt(T0 + 10 * S, [5 * S], 0)).toMatchObject({ start: 5 * S, end: 10 * S });
    expect(windowAt(T0 + 14_999, [5 * S], 0)).toMatchObject({ start: 5 * S, end: 10 * S });
  });

  it('takes a window shorter than a period as one whole period', () => {
    expect(windowAt(T0 + 20 * S, [5 * S], 0, 1)).toMatchObject({ start: 15 * S, end: 20 * S });
    // 30 s periods lie on :00 and :30, so at 09:00:20 the newest complete one is 08:59:30–09:00:00.
    expect(windowAt(T0 + 20 * S, [30 * S], 0, S)).toMatchObject({ start: -30 * S, end: 0 });
  });

  it('rounds a longer window up to whole periods', () => {
    expect(windowAt(T0 + 20 * S, [5 * S], 0, 10 * S)).toMatchObject({ start: 10 * S, end: 20 * S });
    expect(windowAt(T0 + 20 * S, [5 * S], 0, 12 * S)).toMatchObject({ start: 5 * S, end: 20 * S });
  });

  it('lays minute-or-longer periods on the minute, where CloudWatch rounds StartTime', () => {
    // 60 s period, 2 min allowance: 09:03:10 − 2 min = 09:01:10 → 09:00–09:01.
    expect(windowAt(T0 + 3 * M + 10 * S, [M], 2 * M)).toEqual({ start: 0, end: M, grid: M });
    // A 5 min period still ends on a whole minute (CloudWatch lays it from the minute StartTime).
    expect(windowAt(T0 + 9 * M + 30 * S, [5 * M], 2 * M)).toEqual({ start: 2 * M, end: 7 * M, grid: M });
  });

  it('gives queries of different periods in one call one window that is whole for each', () => {
    // A 5 s SLI with a 60 s request count: both read the same complete minute.
    expect(windowAt(T0 + 2 * M + 15 * S, [5 * S, M], 5 * S)).toEqual({ start: M, end: 2 * M, grid: M });
    // 20 s and 30 s periods share a 60 s grid (their least common multiple).
    expect(windowAt(T0 + 2 * M + 15 * S, [20 * S, 30 * S], 0)).toEqual({ start: M, end: 2 * M, grid: M });
    // 5 s and 10 s: a 10 s window.
    expect(windowAt(T0 + 17 * S, [5 * S, 10 * S], 0)).toEqual({ start: 0, end: 10 * S, grid: 10 * S });
  });

  it('coarsens the grid as CloudWatch does for old starts: 5 min after 15 days, the hour after 63', () => {
    const at = T0 + 7 * M + 42 * S;
    const month = completePeriodsWindow({ at, windowMs: 28 * D, periodsMs: [D], allowanceMs: 2 * M });
    expect(month.gridMs).toBe(5 * M);
    expect(month.endMs).toBe(T0 + 5 * M);
    expect(month.endMs - month.startMs).toBe(28 * D);
    const quarter = completePeriodsWindow({ at, windowMs: 90 * D, periodsMs: [D], allowanceMs: 2 * M });
    expect(quarter.gridMs).toBe(60 * M);
    expect(quarter.endMs).toBe(T0);
    expect(quarter.endMs - quarter.startMs).toBe(90 * D);
  });

  it('holds its invariants at every moment across the grid', () => {
    const cases: Array<[number[], number, number]> = [
      [[S], 0, S],
      [[5 * S], 5 * S, S],
      [[10 * S], 3 * S, 25 * S],
      [[30 * S, 5 * S], 5 * S, 2 * S],
      [[M], 2 * M, 10 * S],
      [[5 * M], 2 * M, M],
    ];
    for (const [periodsMs, allowanceMs, windowMs] of cases) {
      for (let offset = 0; offset < 11 * M; offset += 137) {
        const at = T0 + offset;
        const w = completePeriodsWindow({ at, windowMs, periodsMs, allowanceMs });
        const label = `periods ${periodsMs.join('+')} ms, allowance ${allowanceMs}, at +${offset}`;
        // Complete: the window ended at least the allowance ago…
        expect(w.endMs, label).toBeLessThanOrEqual(at - allowanceMs);
        // …and it is the newest such window on the grid.
        expect(w.endMs, label).toBeGreaterThan(at - allowanceMs - w.gridMs);
        expect(w.endMs % w.gridMs, label).toBe(0);
        expect(w.startMs % w.gridMs, label).toBe(0);
        for (const p of periodsMs) expect((w.endMs - w.startMs) % p, label).toBe(0);
        expect(w.endMs - w.startMs, label).toBeGreaterThanOrEqual(windowMs);
      }
    }
  });

  it('rejects a period that is not whole seconds', () => {
    expect(() => completePeriodsWindow({ at: T0, windowMs: S, periodsMs: [1500], allowanceMs: 0 })).toThrow(
      /whole number of seconds, got 1500 ms/,
    );
  });
});

describe('defaults and rounding', () => {
  it('allows 5 s for sub-minute periods and 2 min for a minute or more', () => {
    expect(HIGH_RESOLUTION_INGESTION_ALLOWANCE_MS).toBe(5 * S);
    expect(STANDARD_INGESTION_ALLOWANCE_MS).toBe(2 * M);
    expect(defaultIngestionAllowanceMs(S)).toBe(5 * S);
    expect(defaultIngestionAllowanceMs(30 * S)).toBe(5 * S);
    expect(defaultIngestionAllowanceMs(M)).toBe(2 * M);
    expect(defaultIngestionAllowanceMs(D)).toBe(2 * M);
  });

  it("follows GetMetricData's StartTime rounding", () => {
    expect(startRoundingMs(5 * S, 0)).toBe(5 * S);
    expect(startRoundingMs(30 * S, 0)).toBe(30 * S);
    expect(startRoundingMs(5 * M, 14 * D)).toBe(M);
    expect(startRoundingMs(M, 15 * D)).toBe(5 * M);
    expect(startRoundingMs(M, 63 * D)).toBe(60 * M);
  });

  it('knows which periods CloudWatch can still answer for an old window', () => {
    const H = 60 * M;
    expect(retentionProblem(5 * S, 3 * H)).toBeUndefined();
    expect(retentionProblem(5 * S, 3 * H + 1)).toMatch(
      /sub-minute data only 3 hours.*use a multiple of 60 s$/,
    );
    expect(retentionProblem(M, 15 * D)).toBeUndefined();
    expect(retentionProblem(M, 15 * D + 1)).toMatch(
      /older than 15 days only as 5-minute.*use a multiple of 300 s$/,
    );
    expect(retentionProblem(5 * M, 63 * D)).toBeUndefined();
    expect(retentionProblem(5 * M, 63 * D + 1)).toMatch(
      /older than 63 days only as 1-hour.*use a multiple of 3600 s$/,
    );
    expect(retentionProblem(D, 400 * D)).toBeUndefined();
  });

  it('writes a window as a half-open ISO interval', () => {
    expect(formatWindow(T0, T0 + 5 * S)).toBe('[2025-03-14T09:00:00.000Z, 2025-03-14T09:00:05.000Z)');
  });
});
