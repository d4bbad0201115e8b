/**
 * The ISO-8601 duration pattern FIS parameters are read with: anchored at both ends, days before the time
 * part, hours, minutes and seconds in that order, each a whole number or a decimal with digits on both
 * sides of the point, and neither a bare `P` nor a `T` with nothing after it. One reader holds the rule
 * (`parseIsoDuration`, src/plan/duration.ts) for the action-limit check (fis-actions.ts), the static
 * timing refusals (refusals-timing.ts) and `chaos-gate import`.
 */
import { describe, expect, it } from 'vitest';
import { parseIsoDuration } from '../../src/plan/duration.js';

const S = 1000;
const M = 60 * S;
const H = 60 * M;
const D = 24 * H;

describe('parseIsoDuration', () => {
  const parse = parseIsoDuration;
  it.each([
    ['PT5M', 5 * M],
    ['PT15M', 15 * M],
    ['PT90S', 90 * S],
    ['PT12H', 12 * H],
    ['PT1H30M', H + 30 * M],
    ['P1D', D],
    ['P12D', 12 * D],
    ['P1DT2H3M4S', D + 2 * H + 3 * M + 4 * S],
  ])('reads %s as %i ms', (text, ms) => {
    expect(parse(text)).toBe(ms);
  });

  it.each([
    ['P1.25D', 1.25 * D],
    ['PT1.25H', 1.25 * H],
    ['PT1.25M', 1.25 * M],
    ['PT1.25S', 1.25 * S],
    ['PT0.5S', 500],
  ])('reads the decimal %s as %i ms', (text, ms) => {
    expect(parse(text)).toBe(ms);
  });

  it.each([
    ['xPT5M', 'text before the P'],
    [' PT5M', 'a blank before the P'],
    ['PT5Mx', 'text after the last unit'],
    ['PT5M ', 'a blank after the last unit'],
    ['P', 'a bare P'],
    ['PT', 'a T with nothing after it'],
    ['P1DT', 'a T with nothing after it, after days'],
    ['PT5', 'a number without a unit'],
    ['5M', 'no P'],
    ['pt5m', 'lower case'],
    ['PT5M1H', 'hours after minutes'],
    ['P1H', 'hours without the T'],
    ['PT-5M', 'a negative number'],
    ['PT.5M', 'no digit before the point'],
    ['PT5.M', 'no digit after the point'],
    ['P1.xD', 'a point followed by something other than digits'],
    ['PT1.xH', 'a point followed by something other than digits, in hours'],
  ])('refuses %j (%s)', (text) => {
    expect(parse(text)).toBeUndefined();
  });
});
