/**
 * Metric storage and statistics for the CloudWatch stand-in: raw observations kept per metric
 * (namespace, name, dimension set), aggregated on read into periods with a statistic (docs/design/cloudwatch.md#putmetricdata,
 * §5.2, §8.7).
 */

/** A metric dimension. */
export interface Dimension {
  Name: string;
  Value: string;
}

/** One stored observation. Several values (Values/Counts, StatisticValues) collapse into one. */
export interface Observation {
  /** Milliseconds since the epoch, truncated to the storage resolution. */
  t: number;
  count: number;
  sum: number;
  min: number;
  max: number;
  /** Raw values with their counts; absent for a StatisticSet, which carries no distribution. */
  values: Array<[value: number, count: number]> | undefined;
  unit: string;
}

/** All observations of one metric. */
export interface Series {
  namespace: string;
  metricName: string;
  /** Sorted by name, which is how CloudWatch identifies a dimension set. */
  dimensions: Dimension[];
  key: string;
  obs: Observation[];
  sorted: boolean;
  lastPutAt: number;
}

/** One aggregated datapoint: the start of its period and the statistic's value. */
export interface Datapoint {
  t: number;
  value: number;
  sampleCount: number;
}

/** A parsed statistic name. */
export type Stat =
  | { kind: 'SampleCount' | 'Average' | 'Sum' | 'Minimum' | 'Maximum'; name: string }
  | { kind: 'percentile'; p: number; name: string };

/**
 * Standard-resolution data are kept 15 days at 60 s (docs/design/cloudwatch.md#getmetricdata "Retention"); the stand-in keeps
 * every observation for that long and drops older ones.
 */
export const RETENTION_MS = 15 * 24 * 3600 * 1000;
/** Storage resolutions PutMetricData accepts (docs/design/cloudwatch.md#putmetricdata). */
export const STORAGE_RESOLUTIONS = [1, 60] as const;

const PERCENTILE = /^p(\d{1,2}(?:\.\d{1,10})?|100(?:\.0+)?)$/;

/** Parses `Sum`, `Average`, `Minimum`, `Maximum`, `SampleCount` or `pNN[.NN]`; undefined if unsupported. */
export function parseStat(stat: string): Stat | undefined {
  if (
    stat === 'SampleCount' ||
    stat === 'Average' ||
    stat === 'Sum' ||
    stat === 'Minimum' ||
    stat === 'Maximum'
  )
    return { kind: stat, name: stat };
  const m = PERCENTILE.exec(stat);
  if (m) {
    const p = Number(m[1]);
    if (p >= 0 && p <= 100) return { kind: 'percentile', p, name: stat };
  }
  return undefined;
}

/** The identity key of a metric. */
export function seriesKey(namespace: string, metricName: string, dimensions: readonly Dimension[]): string {
  const dims = [...dimensions].sort((a, b) => (a.Name < b.Name ? -1 : a.Name > b.Name ? 1 : 0));
  return JSON.stringify([namespace, metricName, dims.map((d) => [d.Name, d.Value])]);
}

function computeStat(stat: Stat, obs: readonly Observation[]): number | undefined {
  if (obs.length === 0) return undefined;
  let count = 0;
  let sum = 0;
  let min = Infinity;
  let max = -Infinity;
  for (const o of obs) {
    count += o.count;
    sum += o.sum;
    if (o.min < min) min = o.min;
    if (o.max > max) max = o.max;
  }
  switch (stat.kind) {
    case 'SampleCount':
      return count;
    case 'Sum':
      return sum;
    case 'Average':
      return count === 0 ? undefined : sum / count;
    case 'Minimum':
      return min;
    case 'Maximum':
      return max;
    case 'percentile':
      return percentile(obs, stat.p);
  }
}

/**
 * Nearest-rank percentile over the raw values. CloudWatch does not document its estimator; nearest
 * rank returns a value that was actually published, which keeps test expectations exact.
 */
function percentile(obs: readonly Observation[], p: number): number | undefined {
  const values: Array<[number, number]> = [];
  for (const o of obs) if (o.values) values.push(...o.values);
  if (values.length === 0) return undefined;
  values.sort((a, b) => a[0] - b[0]);
  const total = values.reduce((acc, [, c]) => acc + c, 0);
  if (total <= 0) return undefined;
  const rank = Math.max(1, Math.ceil((p / 100) * total));
  let seen = 0;
  for (const [v, c] of values) {
    seen += c;
    if (seen >= rank) return v;
  }
  return values[values.length - 1]?.[0];
}

/** In-memory metric storage. */
export class MetricStore {
  private readonly series = new Map<string, Series>();

  /** Adds one observation to a metric, creating the metric on first use. */
  put(
    namespace: string,
    metricName: string,
    dimensions: readonly Dimension[],
    o: Observation,
    now: number,
  ): void {
    const key = seriesKey(namespace, metricName, dimensions);
    let s = this.series.get(key);
    if (!s) {
      const dims = [...dimensions].sort((a, b) => (a.Name < b.Name ? -1 : a.Name > b.Name ? 1 : 0));
      s = { namespace, metricName, dimensions: dims, key, obs: [], sorted: true, lastPutAt: now };
      this.series.set(key, s);
    }
    const last = s.obs[s.obs.length - 1];
    if (last && last.t > o.t) s.sorted = false;
    s.obs.push(o);
    s.lastPutAt = now;
  }

  /** The metric with exactly this namespace, name and dimension set. */
  get(namespace: string, metricName: string, dimensions: readonly Dimension[]): Series | undefined {
    return this.series.get(seriesKey(namespace, metricName, dimensions));
  }

  /** Every stored metric, in insertion order. */
  all(): Series[] {
    return [...this.series.values()];
  }

  /** Drops observations older than the retention window. */
  prune(now: number): void {
    const cutoff = now - RETENTION_MS;
    for (const s of this.series.values()) {
      if (s.obs.length && (s.obs[0] as Observation).t < cutoff) {
        this.sort(s);
        s.obs = s.obs.filter((o) => o.t >= cutoff);
      }
    }
  }

  private sort(s: Series): void {
    if (!s.sorted) {
      s.obs.sort((a, b) => a.t - b.t);
      s.sorted = true;
    }
  }

  /**
   * Aggregates a metric over `[start, end)` into periods that begin at `start` (already aligned by
   * the caller), returning only periods that hold data, oldest first. `unit` filters observations by
   * unit; there is no conversion between units (docs/design/cloudwatch.md#getmetricdata).
   */
  aggregate(s: Series, start: number, end: number, periodMs: number, stat: Stat, unit?: string): Datapoint[] {
    this.sort(s);
    const obs = s.obs;
    let lo = 0;
    let hi = obs.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if ((obs[mid] as Observation).t < start) lo = mid + 1;
      else hi = mid;
    }
    const out: Datapoint[] = [];
    let bucket: Observation[] = [];
    let bucketStart = -1;
    const flush = () => {
      if (bucket.length === 0) return;
      const value = computeStat(stat, bucket);
      if (value !== undefined && Number.isFinite(value)) {
        out.push({ t: bucketStart, value, sampleCount: bucket.reduce((a, o) => a + o.count, 0) });
      }
      bucket = [];
    };
    for (let i = lo; i < obs.length; i++) {
      const o = obs[i] as Observation;
      if (o.t >= end) break;
      if (unit !== undefined && o.unit !== unit) continue;
      const b = start + Math.floor((o.t - start) / periodMs) * periodMs;
      if (b !== bucketStart) {
        flush();
        bucketStart = b;
      }
      bucket.push(o);
    }
    flush();
    return out;
  }
}
