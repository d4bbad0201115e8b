/**
 * `histogram_quantile` for classic histograms, step for step as Prometheus computes it
 * (promql/quantile.go `bucketQuantile`), so a scrape SLI and a PromQL SLI over the same buckets agree.
 * The cross-check test compares this function with a real Prometheus server.
 */

/** One cumulative bucket: observations ≤ `upperBound` (the `le` label). */
export interface Bucket {
  upperBound: number;
  count: number;
}

/**
 * The φ-quantile of cumulative buckets. As in Prometheus: q < 0 → -Inf, q > 1 → +Inf; NaN when there is
 * no +Inf bucket, fewer than two buckets, or no observations; a rank in the +Inf bucket returns the
 * highest finite bound; the first bucket's lower bound is 0 (unless its upper bound is ≤ 0, which is
 * then returned as is); linear interpolation inside the bucket.
 */
export function histogramQuantile(q: number, input: readonly Bucket[]): number {
  if (Number.isNaN(q)) return NaN;
  if (q < 0) return -Infinity;
  if (q > 1) return Infinity;
  if (input.length === 0) return NaN;
  const sorted = [...input].sort((a, b) => a.upperBound - b.upperBound);
  if ((sorted[sorted.length - 1] as Bucket).upperBound !== Infinity) return NaN;
  const buckets = coalesce(sorted);
  makeMonotonic(buckets);
  if (buckets.length < 2) return NaN;
  const observations = (buckets[buckets.length - 1] as Bucket).count;
  if (observations === 0) return NaN;
  let rank = q * observations;
  // The first bucket (the +Inf one excluded) whose cumulative count reaches the rank.
  let b = 0;
  while (b < buckets.length - 1 && (buckets[b] as Bucket).count < rank) b++;
  if (b === buckets.length - 1) return (buckets[buckets.length - 2] as Bucket).upperBound;
  const bucket = buckets[b] as Bucket;
  if (b === 0 && bucket.upperBound <= 0) return bucket.upperBound;
  let start = 0;
  let count = bucket.count;
  if (b > 0) {
    const previous = buckets[b - 1] as Bucket;
    start = previous.upperBound;
    count -= previous.count;
    rank -= previous.count;
  }
  return start + (bucket.upperBound - start) * (rank / count);
}

/** Merges buckets with the same bound (`le="1"` and `le="1.0"` from two series), summing their counts. */
function coalesce(sorted: readonly Bucket[]): Bucket[] {
  const out: Bucket[] = [];
  for (const b of sorted) {
    const last = out[out.length - 1];
    if (last && last.upperBound === b.upperBound) last.count += b.count;
    else out.push({ upperBound: b.upperBound, count: b.count });
  }
  return out;
}

/**
 * Cumulative counts must not decrease; they can when buckets are scraped while requests complete, or
 * after rate() extrapolation. Prometheus raises each count to the running maximum.
 */
function makeMonotonic(buckets: Bucket[]): void {
  let max = -Infinity;
  for (const b of buckets) {
    if (b.count > max) max = b.count;
    else if (b.count < max) b.count = max;
  }
}
