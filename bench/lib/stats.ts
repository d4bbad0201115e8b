/**
 * Summary statistics of a bench figure's samples, and the row the bench table prints for it.
 */

/** The nearest-rank percentile `p` (0–100) of `values`; NaN when there are none. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1] as number;
}

/** The median (mean of the two middle samples for an even count); NaN when there are none. */
export function median(values: readonly number[]): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

/** How a figure compares with its target: the larger value must not exceed it. */
export interface Target {
  /** Upper bound, in the figure's unit. */
  max: number;
  /** The target as docs/design/targets.md phrases it, e.g. `≤ 250 ms`. */
  text: string;
}

/** One row of the bench table, as written to `bench/results.json`. */
export interface FigureResult {
  /** Stable key, e.g. `tripwire-reaction`. */
  id: string;
  /** The figure as docs/design/targets.md names it. */
  figure: string;
  unit: string;
  /** Every measured sample, in the unit. Empty when not measured. */
  samples: number[];
  median: number | null;
  p99: number | null;
  target: string;
  /** p99 within the target (so every repetition met it); null when not measured. */
  meets: boolean | null;
  /** How the figure was obtained, in one sentence. */
  method: string;
  /** Set when the figure could not be measured here, saying why. */
  notMeasured?: string | undefined;
  /** Extra facts worth keeping (per-sample targets, verdicts, counts). */
  details?: Record<string, unknown> | undefined;
}

/** Builds a measured row; `target.max` may differ per sample (`perSampleMax`), e.g. `for + interval + 1 s`. */
export function measured(
  base: Pick<FigureResult, 'id' | 'figure' | 'unit' | 'method'> & { details?: Record<string, unknown> },
  samples: number[],
  target: Target,
  perSampleMax?: readonly number[],
): FigureResult {
  if (samples.length === 0) return notMeasured(base, target.text, 'no sample was collected');
  const meets = perSampleMax
    ? samples.every((s, i) => s <= (perSampleMax[i] ?? target.max))
    : percentile(samples, 99) <= target.max;
  return {
    ...base,
    samples,
    median: median(samples),
    p99: percentile(samples, 99),
    target: target.text,
    meets,
  };
}

/** A row for a figure that could not be measured, with the reason. */
export function notMeasured(
  base: Pick<FigureResult, 'id' | 'figure' | 'unit' | 'method'> & { details?: Record<string, unknown> },
  target: string,
  why: string,
): FigureResult {
  return { ...base, samples: [], median: null, p99: null, target, meets: null, notMeasured: why };
}
