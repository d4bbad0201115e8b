import { describe, expect, it } from 'vitest';
import { histogramQuantile, type Bucket } from '../../src/metrics/scrape/quantile.js';

const b = (pairs: [number, number][]): Bucket[] =>
  pairs.map(([upperBound, count]) => ({ upperBound, count }));

describe('histogramQuantile (Prometheus histogram_quantile semantics)', () => {
  const buckets = b([
    [0.025, 10],
    [0.05, 16],
    [0.1, 18],
    [0.25, 18],
    [0.5, 20],
    [Infinity, 20],
  ]);

  it('interpolates linearly inside the bucket that holds the rank', () => {
    // rank 19 of 20 lies 1 of 2 observations into (0.25, 0.5].
    expect(histogramQuantile(0.95, buckets)).toBeCloseTo(0.375, 12);
    // rank 10 of 20 is exactly the count of the first bucket: its upper bound.
    expect(histogramQuantile(0.5, buckets)).toBeCloseTo(0.025, 12);
    // rank 5 is half of the first bucket, whose lower bound is 0.
    expect(histogramQuantile(0.25, buckets)).toBeCloseTo(0.0125, 12);
  });

  it('returns the highest finite bound when the rank falls in the +Inf bucket', () => {
    expect(
      histogramQuantile(
        0.99,
        b([
          [1, 50],
          [5, 90],
          [Infinity, 100],
        ]),
      ),
    ).toBe(5);
  });

  it('sorts buckets by le and makes cumulative counts monotonic before interpolating', () => {
    const shuffled = b([
      [Infinity, 100],
      [0.5, 40],
      [0.1, 45],
      [1, 100],
    ]);
    // 0.1 has 45 and 0.5 only 40: 0.5 is raised to 45. rank 50 falls in (0.5, 1]: 0.5 + 0.5 * 5/55.
    expect(histogramQuantile(0.5, shuffled)).toBeCloseTo(0.5 + 0.5 * (5 / 55), 12);
  });

  it('returns a non-positive first upper bound as is', () => {
    expect(
      histogramQuantile(
        0.1,
        b([
          [-1, 5],
          [0, 8],
          [Infinity, 10],
        ]),
      ),
    ).toBe(-1);
  });

  it('merges buckets with the same bound', () => {
    // le="1" and le="1.0" from two series hold 5 together; rank 7.5 is half-way into (1, 2].
    expect(
      histogramQuantile(
        0.75,
        b([
          [1, 2],
          [1, 3],
          [2, 10],
          [Infinity, 10],
        ]),
      ),
    ).toBeCloseTo(1.5, 12);
  });

  it('is NaN without observations, without a +Inf bucket, or with only the +Inf bucket', () => {
    expect(
      histogramQuantile(
        0.5,
        b([
          [1, 0],
          [Infinity, 0],
        ]),
      ),
    ).toBeNaN();
    expect(
      histogramQuantile(
        0.5,
        b([
          [1, 3],
          [2, 5],
        ]),
      ),
    ).toBeNaN();
    expect(histogramQuantile(0.5, b([[Infinity, 5]]))).toBeNaN();
    expect(histogramQuantile(0.5, [])).toBeNaN();
  });

  it('returns -Inf below 0, +Inf above 1 and NaN for a NaN quantile', () => {
    expect(histogramQuantile(-0.1, buckets)).toBe(-Infinity);
    expect(histogramQuantile(1.1, buckets)).toBe(Infinity);
    expect(histogramQuantile(NaN, buckets)).toBeNaN();
  });
});
