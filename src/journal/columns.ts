/**
 * Every measurement of a run, kept compactly, and the bounded view of them a journal carries.
 *
 * A run of 12 h at 1 s with 60 SLIs takes 43 200 measurements and 2.6 million readings. As objects they
 * take gigabytes; as columns (a value, a status byte and two string indexes per reading) about 17 bytes a
 * reading. {@link MeasurementColumns} is that store: the engine's judgement and the exact counts a
 * report makes (breach episodes, budget damage) read every measurement from it, one at a time.
 *
 * {@link MeasurementDigest} builds, from the same stream, what a journal object holds in memory and what
 * the final record carries: at most {@link MAX_KEPT_MEASUREMENTS} whole measurements (a thinned sample,
 * every phase's first and last kept) and a {@link MeasurementSummary}: per series, buckets of a stated
 * width with the count, minimum, maximum, outside and no-data readings of each, so a chart drawn from it
 * shows every extreme the run had.
 */
import type {
  Journal,
  Measurement,
  MeasurementSummary,
  Phase,
  SliStatus,
  SliValue,
  SummaryBucket,
  SummarySeries,
} from './types.js';

/** Whole measurements a journal object keeps; beyond it they are thinned (every other one, repeatedly). */
export const MAX_KEPT_MEASUREMENTS = 1000;

/** Buckets per summary series; the width doubles whenever the run outgrows them. */
export const MAX_SUMMARY_BUCKETS = 400;

export type { MeasurementSummary, SummaryBucket, SummarySeries } from './types.js';

const STATUS_CODES: Record<SliStatus, number> = { ok: 1, breach: 2, 'no-data': 3, error: 4 };
const STATUSES: readonly (SliStatus | undefined)[] = [undefined, 'ok', 'breach', 'no-data', 'error'];
const PHASE_CODES: Record<Phase, number> = { preflight: 0, steady: 1, fault: 2, recovery: 3 };
const PHASES: readonly Phase[] = ['preflight', 'steady', 'fault', 'recovery'];
/** Status byte flag: the reading's value is null. */
const NULL_VALUE = 8;
/** Phase byte flag: `requests` is null. */
const NULL_REQUESTS = 8;

function grow<T extends Float64Array | Uint8Array | Uint32Array>(a: T, size: number): T {
  if (a.length >= size) return a;
  const next = new (a.constructor as new (n: number) => T)(Math.max(size, a.length * 2));
  next.set(a);
  return next;
}

/** One named series of readings (an SLI or an expectation), a row per measurement. */
class Column {
  values = new Float64Array(0);
  /** Status code (0: no reading in that measurement) | NULL_VALUE. */
  status = new Uint8Array(0);
  bound = new Uint32Array(0);
  query = new Uint32Array(0);
  /** Errors of the readings that had one, by row. */
  errors = new Map<number, string>();
  /** The last bound and query interned for this column (they rarely change from row to row). */
  lastBound: string | undefined;
  lastBoundIndex = 0;
  lastQuery: string | undefined;
  lastQueryIndex = 0;

  ensure(size: number): void {
    this.values = grow(this.values, size);
    this.status = grow(this.status, size);
    this.bound = grow(this.bound, size);
    this.query = grow(this.query, size);
  }
}

/** Every measurement of a run as columns; see the module comment. */
export class MeasurementColumns implements Iterable<Measurement> {
  private rows = 0;
  private at = new Float64Array(0);
  private windowMs = new Float64Array(0);
  private requests = new Float64Array(0);
  private phase = new Uint8Array(0);
  private readonly slis = new Map<string, Column>();
  private readonly expect = new Map<string, Column>();
  /** Interned strings (bounds, queries); index 0 is "absent". */
  private readonly strings: string[] = [''];
  private readonly stringIndex = new Map<string, number>();

  get length(): number {
    return this.rows;
  }

  private intern(s: string | undefined): number {
    if (s === undefined) return 0;
    let i = this.stringIndex.get(s);
    if (i === undefined) {
      i = this.strings.length;
      this.strings.push(s);
      this.stringIndex.set(s, i);
    }
    return i;
  }

  private column(map: Map<string, Column>, name: string): Column {
    let c = map.get(name);
    if (!c) {
      c = new Column();
      map.set(name, c);
    }
    c.ensure(this.at.length);
    return c;
  }

  private put(map: Map<string, Column>, row: number, readings: Record<string, SliValue>): void {
    for (const name in readings) {
      const v = readings[name] as SliValue;
      const c = this.column(map, name);
      c.values[row] = typeof v.value === 'number' ? v.value : 0;
      c.status[row] = (STATUS_CODES[v.status] ?? 3) | (typeof v.value === 'number' ? 0 : NULL_VALUE);
      if (v.bound !== c.lastBound) {
        c.lastBound = v.bound;
        c.lastBoundIndex = this.intern(v.bound);
      }
      if (v.query !== c.lastQuery) {
        c.lastQuery = v.query;
        c.lastQueryIndex = this.intern(v.query);
      }
      c.bound[row] = c.lastBoundIndex;
      c.query[row] = c.lastQueryIndex;
      if (v.error !== undefined) c.errors.set(row, v.error);
    }
  }

  add(m: Measurement): void {
    const row = this.rows;
    if (row >= this.at.length) {
      const size = Math.max(64, this.at.length * 2);
      this.at = grow(this.at, size);
      this.windowMs = grow(this.windowMs, size);
      this.requests = grow(this.requests, size);
      this.phase = grow(this.phase, size);
      for (const c of this.slis.values()) c.ensure(size);
      for (const c of this.expect.values()) c.ensure(size);
    }
    this.at[row] = m.at;
    this.windowMs[row] = m.windowMs ?? NaN;
    this.requests[row] = m.requests ?? 0;
    this.phase[row] = (PHASE_CODES[m.phase] ?? 0) | (m.requests === null ? NULL_REQUESTS : 0);
    this.put(this.slis, row, m.slis);
    if (m.expect) this.put(this.expect, row, m.expect);
    this.rows++;
  }

  private read(c: Column, row: number): SliValue | undefined {
    const code = c.status[row] ?? 0;
    const status = STATUSES[code & 7];
    if (status === undefined) return undefined;
    const v: SliValue = {
      value: code & NULL_VALUE ? null : (c.values[row] ?? null),
      status,
      query: this.strings[c.query[row] ?? 0] ?? '',
    };
    const bound = c.bound[row] ?? 0;
    if (bound !== 0) v.bound = this.strings[bound] ?? '';
    const error = c.errors.get(row);
    if (error !== undefined) v.error = error;
    return v;
  }

  /** Measurement `row` as a new object (the journal line it was built from, less the retired `t`). */
  get(row: number): Measurement {
    if (row < 0 || row >= this.rows) throw new RangeError(`no measurement ${row} of ${this.rows}`);
    const p = this.phase[row] ?? 0;
    const m: Measurement = {
      at: this.at[row] ?? 0,
      phase: PHASES[p & 7] ?? 'preflight',
      requests: p & NULL_REQUESTS ? null : (this.requests[row] ?? 0),
      slis: {},
    };
    const w = this.windowMs[row] ?? NaN;
    if (!Number.isNaN(w)) m.windowMs = w;
    for (const [name, c] of this.slis) {
      const v = this.read(c, row);
      if (v) m.slis[name] = v;
    }
    if (this.expect.size > 0) {
      const expect: Record<string, SliValue> = {};
      let any = false;
      for (const [name, c] of this.expect) {
        const v = this.read(c, row);
        if (v) {
          expect[name] = v;
          any = true;
        }
      }
      if (any) m.expect = expect;
    }
    return m;
  }

  *[Symbol.iterator](): Iterator<Measurement> {
    for (let row = 0; row < this.rows; row++) yield this.get(row);
  }
}

/** Where a journal object keeps every measurement when `measurements` holds only a sample of them. */
const ALL = Symbol.for('chaos-gate.journal.all-measurements');

type WithAll = Journal & { [ALL]?: MeasurementColumns };

/**
 * Every measurement of a journal, in order: from its columns when its `measurements` is a sample (a long
 * run, written or read), else `measurements` itself. The one way to count over a whole run.
 */
export function allMeasurements(journal: Journal): Iterable<Measurement> & { readonly length: number } {
  return (journal as WithAll)[ALL] ?? journal.measurements;
}

/**
 * Ties `columns` to `journal` (an enumerable symbol property: object spread keeps it, JSON ignores it),
 * so {@link allMeasurements} finds every measurement on copies of the journal too.
 */
export function attachMeasurements(journal: Journal, columns: MeasurementColumns): void {
  (journal as WithAll)[ALL] = columns;
}

/** True when the journal's `measurements` leaves some of the run's measurements out. */
export function isSampled(journal: Journal): boolean {
  const s = journal.summary;
  return s !== undefined && s.kept < s.measurements;
}

/** Accumulates one bucket. */
function addTo(b: SummaryBucket, v: SliValue | undefined): void {
  b[1]++;
  if (!v || v.status === 'no-data' || v.status === 'error' || v.value === null) {
    b[5]++;
    return;
  }
  if (Number.isFinite(v.value)) {
    b[2] = b[2] === null ? v.value : Math.min(b[2], v.value);
    b[3] = b[3] === null ? v.value : Math.max(b[3], v.value);
  }
  if (v.status === 'breach') b[4]++;
}

function merge(a: SummaryBucket, b: SummaryBucket): SummaryBucket {
  const min = a[2] === null ? b[2] : b[2] === null ? a[2] : Math.min(a[2], b[2]);
  const max = a[3] === null ? b[3] : b[3] === null ? a[3] : Math.max(a[3], b[3]);
  return [a[0], a[1] + b[1], min, max, a[4] + b[4], a[5] + b[5]];
}

interface Builder {
  name: string;
  kind: SummarySeries['kind'];
  /** Buckets by index from the origin. */
  buckets: Map<number, SummaryBucket>;
  /** The bucket last added to (most measurements fall into the one before them). */
  lastIndex: number;
  lastBucket: SummaryBucket | undefined;
}

/**
 * The sample and summary of a stream of measurements, and (with `keepAll`) the columns of all of them.
 * Feed it every measurement in order; read `kept()` and `summary()` at any point.
 */
export class MeasurementDigest {
  readonly columns: MeasurementColumns | undefined;
  private sample: Measurement[] = [];
  /** Measurements of the sample that thinning never drops: the first and last of each phase run. */
  private readonly pinned = new WeakSet<Measurement>();
  private stride = 1;
  private count = 0;
  private last: Measurement | undefined;
  private lastInSample = false;
  private readonly phases: Record<Phase, number> = { preflight: 0, steady: 0, fault: 0, recovery: 0 };
  private firstAt: number | undefined;
  private lastAt: number | undefined;
  private lastSteadyAt: number | undefined;
  private bucketMs: number;
  private readonly series = new Map<string, Builder>();
  private readonly sliNames: ReadonlySet<string>;
  private readonly requestSeries: Builder;
  private readonly sliSeries: [string, Builder][];
  private readonly expectSeries: [string, Builder][];

  constructor(
    private readonly names: { slis: readonly string[]; expectations: readonly string[] },
    o: { intervalMs: number; keepAll: boolean },
  ) {
    this.columns = o.keepAll ? new MeasurementColumns() : undefined;
    this.bucketMs = Math.max(1, o.intervalMs);
    this.sliNames = new Set(names.slis);
    this.requestSeries = this.builder('requests', 'requests');
    this.sliSeries = names.slis.map((n) => [n, this.builder(`sli:${n}`, 'sli', n)]);
    this.expectSeries = names.expectations.map((n) => [n, this.builder(`expect:${n}`, 'expectation', n)]);
  }

  private builder(key: string, kind: SummarySeries['kind'], name = key): Builder {
    let b = this.series.get(key);
    if (!b) {
      b = { name, kind, buckets: new Map(), lastIndex: -1, lastBucket: undefined };
      this.series.set(key, b);
    }
    return b;
  }

  private bucket(b: Builder, at: number): SummaryBucket {
    const origin = this.firstAt ?? at;
    const i = Math.floor((at - origin) / this.bucketMs);
    if (i === b.lastIndex && b.lastBucket) return b.lastBucket;
    let bucket = b.buckets.get(i);
    if (!bucket) {
      bucket = [origin + i * this.bucketMs, 0, null, null, 0, 0];
      b.buckets.set(i, bucket);
    }
    b.lastIndex = i;
    b.lastBucket = bucket;
    return bucket;
  }

  /** Doubles the bucket width until `at` falls within the bucket budget. */
  private widen(at: number): void {
    const origin = this.firstAt ?? at;
    while ((at - origin) / this.bucketMs >= MAX_SUMMARY_BUCKETS) {
      this.bucketMs *= 2;
      for (const b of this.series.values()) {
        const next = new Map<number, SummaryBucket>();
        for (const [i, bucket] of b.buckets) {
          const j = Math.floor(i / 2);
          const prev = next.get(j);
          const moved: SummaryBucket = [origin + j * this.bucketMs, ...bucket.slice(1)] as SummaryBucket;
          next.set(j, prev ? merge(prev, moved) : moved);
        }
        b.buckets = next;
        b.lastIndex = -1;
        b.lastBucket = undefined;
      }
    }
  }

  add(m: Measurement): void {
    this.columns?.add(m);
    this.count++;
    this.phases[m.phase] = (this.phases[m.phase] ?? 0) + 1;
    this.firstAt ??= m.at;
    this.lastAt = m.at;
    if (m.phase === 'steady') this.lastSteadyAt = m.at;
    this.widen(m.at);
    const requests: SliValue | undefined =
      m.requests === null ? undefined : { value: m.requests, status: 'ok', query: '' };
    addTo(this.bucket(this.requestSeries, m.at), requests);
    for (const [n, b] of this.sliSeries) addTo(this.bucket(b, m.at), m.slis[n]);
    for (const n in m.slis)
      if (!this.sliNames.has(n)) addTo(this.bucket(this.builder(`sli:${n}`, 'sli', n), m.at), m.slis[n]);
    for (const [n, b] of this.expectSeries) addTo(this.bucket(b, m.at), m.expect?.[n]);
    this.keep(m);
  }

  private keep(m: Measurement): void {
    const prev = this.last;
    const edge = prev === undefined || prev.phase !== m.phase;
    if (edge && prev && !this.lastInSample) {
      // The last measurement of the phase that ended: kept, so the time origin and spans stay exact.
      this.sample.push(prev);
      this.pinned.add(prev);
    } else if (edge && prev) this.pinned.add(prev);
    this.last = m;
    this.lastInSample = edge || (this.count - 1) % this.stride === 0;
    if (!this.lastInSample) return;
    this.sample.push(m);
    if (edge) this.pinned.add(m);
    if (this.sample.length > MAX_KEPT_MEASUREMENTS) this.thin();
  }

  /** Drops every other unpinned measurement of the sample and doubles the stride. */
  private thin(): void {
    this.stride *= 2;
    let odd = false;
    this.sample = this.sample.filter((m) => {
      if (this.pinned.has(m) || m === this.last) return true;
      odd = !odd;
      return !odd;
    });
    if (!this.sample.includes(this.last as Measurement)) this.lastInSample = false;
  }

  /** The sample: every measurement while there are few, else a thinned set with the latest one. */
  kept(): Measurement[] {
    if (this.last && !this.lastInSample) return [...this.sample, this.last];
    return this.sample;
  }

  /** True once the sample leaves measurements out. */
  get sampled(): boolean {
    return this.kept().length < this.count;
  }

  summary(): MeasurementSummary {
    const s: MeasurementSummary = {
      measurements: this.count,
      kept: this.kept().length,
      phases: { ...this.phases },
      bucketMs: this.bucketMs,
      series: [...this.series.values()].map((b) => ({
        name: b.name,
        kind: b.kind,
        buckets: [...b.buckets.entries()].sort(([a], [c]) => a - c).map(([, bucket]) => bucket),
      })),
    };
    if (this.firstAt !== undefined) {
      s.firstAt = this.firstAt;
      s.originAt = this.firstAt;
    }
    if (this.lastAt !== undefined) s.lastAt = this.lastAt;
    if (this.lastSteadyAt !== undefined) s.lastSteadyAt = this.lastSteadyAt;
    return s;
  }
}
