/**
 * `histogramQuantile` at the edges of its input: φ exactly 0 and 1, a rank exactly on a bucket's count
 * with empty buckets above it, the fewest buckets that still answer, and bounds at or below zero.
 */
import { describe, expect, it } from 'vitest';
import { histogramQuantile, type Bucket } from '../../src/metrics/scrape/quantile.js';

const b = (pairs: [number, number][]): Bucket[] =>
  pairs.map(([upperBound, count]) => ({ upperBound, count }));

describe('histogramQuantile at its edges', () => {
  const buckets = b([
    [0.05, 16],
    [0.1, 18],
    [0.25, 18],
    [0.5, 20],
    [Infinity, 20],
  ]);

  it('answers φ = 0 and φ = 1 inside the buckets, not with ±Inf', () => {
    expect(histogramQuantile(0, buckets)).toBe(0);
    expect(histogramQuantile(1, buckets)).toBe(0.5);
  });

  it('takes the lowest bucket whose count reaches the rank, even when empty buckets follow', () => {
    // rank 18 is reached at le=0.1; le=0.25 holds no more observations and must not be chosen.
    expect(histogramQuantile(0.9, buckets)).toBeCloseTo(0.1, 12);
  });

  it('answers from one finite bucket and the +Inf bucket', () => {
    expect(
      histogramQuantile(
        0.5,
        b([
          [2, 10],
          [Infinity, 10],
        ]),
      ),
    ).toBe(1);
  });

  it('interpolates between bounds below zero, returning only the first bucket’s bound as is', () => {
    const negative = b([
      [-2, 5],
      [-1, 8],
      [Infinity, 10],
    ]);
    // rank 7 is 2 of the 3 observations into (-2, -1].
    expect(histogramQuantile(0.7, negative)).toBeCloseTo(-2 + 2 / 3, 12);
    expect(histogramQuantile(0.2, negative)).toBe(-2);
  });

  it('returns a first bound of exactly 0 for φ = 0 even when that bucket is empty', () => {
    expect(
      histogramQuantile(
        0,
        b([
          [0, 0],
          [1, 5],
          [Infinity, 5],
        ]),
      ),
    ).toBe(0);
  });

  it('is NaN without observations or with a NaN φ, even when the first bound is below zero', () => {
    const belowZero = b([
      [-1, 0],
      [Infinity, 0],
    ]);
    expect(histogramQuantile(0.5, belowZero)).toBeNaN();
    expect(
      histogramQuantile(
        NaN,
        b([
          [-1, 3],
          [Infinity, 5],
        ]),
      ),
    ).toBeNaN();
  });
});
