/**
 * A value exactly on its bound, just inside it and just outside it, for every bound kind, through the one
 * bound evaluator (src/engine/bounds.ts) that the run and `chaos-gate measure` share: a bound is inclusive
 * (`max: 0.5` holds 0.5), NaN is never within one, and the breach text names both numbers with the
 * journal's `formatValue` (four significant digits, as every report prints them).
 */
import { describe, expect, it } from 'vitest';
import { boundText, breachText, statusOf, withinBound } from '../../src/engine/bounds.js';
import { formatValue } from '../../src/journal/format.js';

const EPS = 1e-9;

describe('bounds at their limits', () => {
  it.each([
    [0.5 - EPS, true],
    [0.5, true],
    [0.5 + EPS, false],
    [-Infinity, true],
    [Infinity, false],
    [NaN, false],
  ])('max 0.5 with %s: within %s', (value, within) => {
    expect(withinBound({ max: 0.5 }, value)).toBe(within);
  });

  it.each([
    [0.998 - EPS, false],
    [0.998, true],
    [0.998 + EPS, true],
    [NaN, false],
  ])('min 0.998 with %s: within %s', (value, within) => {
    expect(withinBound({ min: 0.998 }, value)).toBe(within);
  });

  it.each([
    [40 - EPS, false],
    [40, true],
    [50, true],
    [60, true],
    [60 + EPS, false],
    [NaN, false],
  ])('between [40, 60] with %s: within %s', (value, within) => {
    expect(withinBound({ between: [40, 60] }, value)).toBe(within);
  });

  it('says which side a value fell on, with both numbers', () => {
    expect(breachText({ max: 0.5 }, Infinity)).toBe('+Inf > 0.5');
    expect(breachText({ max: 0.5 }, NaN)).toBe('NaN > 0.5');
    expect(breachText({ min: 0.998 }, 0.99)).toBe('0.99 < 0.998');
    expect(breachText({ between: [40, 60] }, 70)).toBe('70 outside [40, 60]');
  });

  it('checks max first, then min, then between when a spec sets several (the schema allows one)', () => {
    expect(withinBound({ max: 1, min: 0 }, 5)).toBe(false);
    expect(withinBound({ min: 0, between: [-2, 2] }, -1)).toBe(false);
  });

  it('describes each kind of bound, and a spec with none as unbounded', () => {
    expect(boundText({ max: 0.18 })).toBe('<= 0.18');
    expect(boundText({ min: 0.998 })).toBe('>= 0.998');
    expect(boundText({ between: [0.1, 2.5] })).toBe('in [0.1, 2.5]');
    expect(boundText({ max: 0.00012 })).toBe('<= 0.00012');
    expect(boundText({})).toBe('unbounded');
  });

  it('formats four significant digits and the non-finite values', () => {
    expect(formatValue(0.1234567)).toBe('0.1235');
    expect(formatValue(0.9991)).toBe('0.9991');
    expect(formatValue(1234567)).toBe('1234567');
    expect(formatValue(12345.6)).toBe('12346');
    expect(formatValue(-0.5)).toBe('-0.5');
    expect(formatValue(Infinity)).toBe('+Inf');
    expect(formatValue(-Infinity)).toBe('-Inf');
    expect(formatValue(NaN)).toBe('NaN');
  });

  it('turns an ok reading on its bound into ok, one past it into a breach, and no value into no-data', () => {
    expect(statusOf({ value: 0.5, status: 'ok' }, { max: 0.5 })).toBe('ok');
    expect(statusOf({ value: 0.5 + EPS, status: 'ok' }, { max: 0.5 })).toBe('breach');
    expect(statusOf({ value: 0.998, status: 'ok' }, { min: 0.998 })).toBe('ok');
    expect(statusOf({ value: 0.998 - EPS, status: 'ok' }, { min: 0.998 })).toBe('breach');
    expect(statusOf({ value: 60, status: 'ok' }, { between: [40, 60] })).toBe('ok');
    expect(statusOf({ value: 39, status: 'ok' }, { between: [40, 60] })).toBe('breach');
    expect(statusOf({ value: null, status: 'ok' }, { max: 0.18 })).toBe('no-data');
    expect(statusOf({ value: NaN, status: 'ok' }, { max: 0.18 })).toBe('no-data');
    // A value on a reading that is not ok does not count.
    expect(statusOf({ value: 99, status: 'no-data' }, { max: 0.5 })).toBe('no-data');
    expect(statusOf({ value: 99, status: 'error' }, { max: 0.5 })).toBe('error');
  });
});
