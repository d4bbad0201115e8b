/**
 * One way a duration reads in every reason and report (src/journal/format.ts `formatDuration`): seconds
 * with one decimal under a minute, its two largest human units above. A 21-day window is `21 d`.
 */
import { describe, expect, it } from 'vitest';
import { formatDuration, formatSeconds } from '../../src/journal/format.js';

const S = 1000;
const MIN = 60 * S;
const H = 60 * MIN;
const D = 24 * H;

describe('formatDuration', () => {
  it.each([
    [250, '0.3 s'],
    [2500, '2.5 s'],
    [45 * S, '45.0 s'],
    [MIN, '1 min'],
    [90 * S, '1 min 30 s'],
    [H + 30 * MIN, '1 h 30 min'],
    [12 * H, '12 h'],
    [21 * D, '21 d'],
    [2 * D + 3 * H, '2 d 3 h'],
    [90 * D, '90 d'],
    [-90 * S, '-1 min 30 s'],
  ])('%d ms reads %s', (ms, text) => {
    expect(formatDuration(ms)).toBe(text);
  });

  it('never writes a long window in seconds, and formatSeconds is the same formatter', () => {
    expect(formatSeconds(1_814_400_000)).toBe('21 d');
    expect(formatSeconds(2_592_000_000)).not.toMatch(/\d{4,} s/);
  });
});
