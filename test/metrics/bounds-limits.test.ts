/**
 * A value exactly on its bound, just inside it and just outside it, for every bound kind: a bound is
 * inclusive (`max: 0.5` holds 0.5), NaN is never within one, and the comparison text says which side
 * the value fell on with both numbers.
 */
import { describe, expect, it } from 'vitest';
import { checkBound, describeBound, formatValue, statusOf } from '../../src/metrics/bounds.js';

const EPS = 1e-9;

describe('bounds at their limits', () => {
  it.each([
    [0.5 - EPS, true, '0.5 <= 0.5'],
    [0.5, true, '0.5 <= 0.5'],
    [0.5 + EPS, false, '0.5 > 0.5'],
    [-Infinity, true, '-Inf <= 0.5'],
    [Infinity, false, '+Inf > 0.5'],
    [NaN, false, 'NaN > 0.5'],
  ])('max 0.5 with %s: within %s (%s)', (value, within, comparison) => {
    expect(checkBound(value, { max: 0.5 })).toEqual({ within, bound: '<= 0.5', comparison });
  });

  it.each([
    [0.998 - EPS, false, '0.998 < 0.998'],
    [0.998, true, '0.998 >= 0.998'],
    [0.998 + EPS, true, '0.998 >= 0.998'],
    [NaN, false, 'NaN < 0.998'],
  ])('min 0.998 with %s: within %s (%s)', (value, within, comparison) => {
    expect(checkBound(value, { min: 0.998 })).toEqual({ within, bound: '>= 0.998', comparison });
  });

  it.each([
    [40 - EPS, false, 'not in'],
    [40, true, 'in'],
    [50, true, 'in'],
    [60, true, 'in'],
    [60 + EPS, false, 'not in'],
    [NaN, false, 'not in'],
  ])('between [40, 60] with %s: within %s', (value, within, word) => {
    expect(checkBound(value, { between: [40, 60] })).toEqual({
      within,
      bound: 'in [40, 60]',
      comparison: `${formatValue(value)} ${word} [40, 60]`,
    });
  });

  it('checks max first, then min, then between when a spec sets several (the schema allows one)', () => {
    expect(checkBound(5, { max: 1, min: 0 }).within).toBe(false);
    expect(checkBound(-1, { min: 0, between: [-2, 2] }).within).toBe(false);
  });

  it('describes each kind of bound, and refuses a spec with none', () => {
    expect(describeBound({ max: 0.18 })).toBe('<= 0.18');
    expect(describeBound({ min: 0.998 })).toBe('>= 0.998');
    expect(describeBound({ between: [0.1, 2.5] })).toBe('in [0.1, 2.5]');
    expect(() => describeBound({})).toThrow('a bound needs one of max, min, between');
  });

  it('formats six significant digits and the non-finite values', () => {
    expect(formatValue(0.1234567)).toBe('0.123457');
    expect(formatValue(1234567)).toBe('1234570');
    expect(formatValue(-0.5)).toBe('-0.5');
    expect(formatValue(Infinity)).toBe('+Inf');
    expect(formatValue(-Infinity)).toBe('-Inf');
    expect(formatValue(NaN)).toBe('NaN');
  });

  it('turns an ok reading on its bound into ok, and one past it into a breach', () => {
    expect(statusOf({ value: 0.5, status: 'ok' }, { max: 0.5 })).toBe('ok');
    expect(statusOf({ value: 0.5 + EPS, status: 'ok' }, { max: 0.5 })).toBe('breach');
    expect(statusOf({ value: 0.998, status: 'ok' }, { min: 0.998 })).toBe('ok');
    expect(statusOf({ value: 0.998 - EPS, status: 'ok' }, { min: 0.998 })).toBe('breach');
    expect(statusOf({ value: 60, status: 'ok' }, { between: [40, 60] })).toBe('ok');
    expect(statusOf({ value: 39, status: 'ok' }, { between: [40, 60] })).toBe('breach');
    // A value on a reading that is not ok does not count.
    expect(statusOf({ value: 99, status: 'no-data' }, { max: 0.5 })).toBe('no-data');
    expect(statusOf({ value: 99, status: 'error' }, { max: 0.5 })).toBe('error');
  });
});
