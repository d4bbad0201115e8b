/** Bounds and abort thresholds at, just under and just over their limits (src/engine/bounds.ts). */
import { describe, expect, it } from 'vitest';
import {
  boundText,
  breachText,
  expectationBound,
  ruleBreached,
  ruleCount,
  ruleText,
  sliBound,
  specOf,
  withinBound,
} from '../../src/engine/bounds.js';
import type { AbortRule, Bound } from '../../src/plan/schema.js';

const EPS = 1e-9;

describe('withinBound: limits are inclusive', () => {
  it.each([
    ['max', { max: 0.18 }, 0.18, true],
    ['max', { max: 0.18 }, 0.18 - EPS, true],
    ['max', { max: 0.18 }, 0.18 + EPS, false],
    ['min', { min: 0.998 }, 0.998, true],
    ['min', { min: 0.998 }, 0.998 - EPS, false],
    ['min', { min: 0.998 }, 0.998 + EPS, true],
    ['between (low end)', { between: [40, 60] }, 40, true],
    ['between (below)', { between: [40, 60] }, 40 - EPS, false],
    ['between (high end)', { between: [40, 60] }, 60, true],
    ['between (above)', { between: [40, 60] }, 60 + EPS, false],
    ['between (inside)', { between: [40, 60] }, 50, true],
    ['max 0', { max: 0 }, 0, true],
    ['max 0', { max: 0 }, EPS, false],
    ['min 0', { min: 0 }, -EPS, false],
  ] as [string, Bound, number, boolean][])('%s %j with %d → %s', (_kind, bound, value, held) => {
    expect(withinBound(bound, value)).toBe(held);
  });

  it('holds every value when no bound is declared', () => {
    expect(withinBound({}, -1e12)).toBe(true);
    expect(withinBound({}, 1e12)).toBe(true);
  });
});

describe('bound and breach text', () => {
  it('renders each bound kind as journals write it', () => {
    expect(boundText({ max: 0.18 })).toBe('<= 0.18');
    expect(boundText({ min: 0.998 })).toBe('>= 0.998');
    expect(boundText({ between: [40, 60] })).toBe('in [40, 60]');
    expect(boundText({})).toBe('unbounded');
  });

  it('describes a value outside each bound kind with the numbers', () => {
    expect(breachText({ max: 0.18 }, 0.25)).toBe('0.25 > 0.18');
    expect(breachText({ min: 0.998 }, 0.99)).toBe('0.99 < 0.998');
    expect(breachText({ between: [40, 60] }, 35)).toBe('35 outside [40, 60]');
    expect(breachText({}, 7)).toBe('7');
  });

  it('takes only the bound fields of an SLI, and the source fields of a spec', () => {
    expect(sliBound({ max: 1 })).toEqual({ max: 1 });
    expect(sliBound({ min: 2 })).toEqual({ min: 2 });
    expect(sliBound({ between: [1, 2] })).toEqual({ between: [1, 2] });
    expect(sliBound({})).toEqual({});
    expect(specOf({ prometheus: 'up' })).toEqual({ prometheus: 'up' });
    expect(specOf({ scrape: { url: 'http://x/metrics', gauge: 'g' } } as never)).toEqual({
      scrape: { url: 'http://x/metrics', gauge: 'g' },
    });
    expect(specOf({})).toEqual({});
  });
});

describe('expectations as bounds (seen when value ≥ atLeast and ≤ atMost)', () => {
  const e = (atLeast?: number, atMost?: number) =>
    expectationBound({ name: 'x', within: 3000, prometheus: 'q', atLeast, atMost } as never);

  it('maps atLeast, atMost and both to min, max and between', () => {
    expect(e(1)).toEqual({ min: 1 });
    expect(e(undefined, 5)).toEqual({ max: 5 });
    expect(e(1, 5)).toEqual({ between: [1, 5] });
  });

  it('sees a value exactly at atLeast and atMost, and not just past them', () => {
    expect(withinBound(e(1), 1)).toBe(true);
    expect(withinBound(e(1), 1 - EPS)).toBe(false);
    expect(withinBound(e(undefined, 5), 5)).toBe(true);
    expect(withinBound(e(undefined, 5), 5 + EPS)).toBe(false);
    expect(withinBound(e(1, 5), 1)).toBe(true);
    expect(withinBound(e(1, 5), 5)).toBe(true);
    expect(withinBound(e(1, 5), 5 + EPS)).toBe(false);
  });
});

describe('abort thresholds are strict, as `above` and `below` say', () => {
  const above: AbortRule = { sli: 'p95', above: 0.5, for: 3000 };
  const below: AbortRule = { sli: 'ok', below: 0.99, for: 3000 };

  it.each([
    [above, 0.5, false],
    [above, 0.5 + EPS, true],
    [above, 0.5 - EPS, false],
    [below, 0.99, false],
    [below, 0.99 - EPS, true],
    [below, 0.99 + EPS, false],
  ])('%j with %d → breached %s', (rule, value, breached) => {
    expect(ruleBreached(rule, value)).toBe(breached);
  });

  it('never breaches a rule without a threshold', () => {
    expect(ruleBreached({ sli: 'x', for: 0 } as AbortRule, 1e12)).toBe(false);
    expect(ruleBreached({ sli: 'x', for: 0 } as AbortRule, -1e12)).toBe(false);
  });

  it('renders the threshold', () => {
    expect(ruleText(above)).toBe('> 0.5');
    expect(ruleText(below)).toBe('< 0.99');
  });

  it('needs ⌈for / interval⌉ measurements, at least one', () => {
    expect(ruleCount(3000, 1000)).toBe(3);
    expect(ruleCount(2999, 1000)).toBe(3);
    expect(ruleCount(3001, 1000)).toBe(4);
    expect(ruleCount(2500, 1000)).toBe(3);
    expect(ruleCount(1, 1000)).toBe(1);
    expect(ruleCount(0, 1000)).toBe(1);
  });
});
