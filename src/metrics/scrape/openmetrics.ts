/**
 * The rules OpenMetrics 1.0 sets above its line syntax, applied to an exposition served as
 * `application/openmetrics-text` (the Prometheus text format keeps Prometheus's leniency): families are
 * not interleaved and their metadata comes first, once each; a sample's name is its family's name plus a
 * suffix its type allows (a counter's `_total`, a histogram's `_bucket`, …); `# UNIT` is a suffix of the
 * name; histogram buckets are sorted by `le`, cumulative and end in `+Inf`; `_count` equals the `+Inf`
 * bucket; counters, counts and buckets are never NaN or negative; exemplars sit only on a counter's total
 * or a bucket; a metric's samples are contiguous and a repeated series has a later timestamp.
 *
 * The specification's sections are cited by name ("Histogram", "MetricFamily metadata", …) next to each
 * rule. A violation throws {@link OpenMetricsViolation} naming the line it was found on.
 */
import type { Labels, Sample } from './sample.js';

/** A sample or metadata line that breaks an OpenMetrics rule; `line` is 1-based. */
export class OpenMetricsViolation extends Error {
  override name = 'OpenMetricsViolation';
  constructor(
    readonly line: number,
    message: string,
  ) {
    super(message);
  }
}

/** The types OpenMetrics names ("Type"); the text format's `untyped` is not one of them. */
export const OPENMETRICS_TYPES = [
  'counter',
  'gauge',
  'histogram',
  'gaugehistogram',
  'stateset',
  'info',
  'summary',
  'unknown',
] as const;
export type OpenMetricsType = (typeof OPENMETRICS_TYPES)[number];

/** The sample-name suffixes each type allows ("Suffixes"); `''` is the family name itself. */
export const SAMPLE_SUFFIXES: Readonly<Record<OpenMetricsType, readonly string[]>> = {
  counter: ['_total', '_created'],
  gauge: [''],
  histogram: ['_bucket', '_count', '_sum', '_created'],
  gaugehistogram: ['_bucket', '_gcount', '_gsum'],
  stateset: [''],
  info: ['_info'],
  summary: ['', '_count', '_sum', '_created'],
  unknown: [''],
};

/** Exemplar label names and values together, in code points ("Exemplars"). */
export const MAX_EXEMPLAR_LABEL_CHARS = 128;

interface FamilyState {
  name: string;
  type: OpenMetricsType;
  typed: boolean;
  help: boolean;
  unit?: string;
  sampled: boolean;
  /** Line of the family's last line: where "its samples ended" points. */
  lastLine: number;
  /** Metric keys seen in this family, to find an interleaved metric. */
  metrics: Set<string>;
  lastMetric?: string | undefined;
  /** Point keys seen in the current metric, to find interleaved MetricPoints. */
  points: Set<string>;
  lastPoint?: string | undefined;
}

interface Bucket {
  le: number;
  text: string;
  value: number;
  line: number;
}

/** One histogram or gauge histogram MetricPoint, checked when it ends. */
interface HistogramPoint {
  family: FamilyState;
  labels: string;
  buckets: Bucket[];
  count?: { value: number; line: number };
  sum?: { value: number; line: number };
  lastLine: number;
}

function isInteger(v: number): boolean {
  return Number.isInteger(v);
}

/** The label set as text, sorted, for keys and messages: `{a="x",b="y"}`. */
function labelText(labels: Labels, without: readonly string[] = []): string {
  const names = Object.keys(labels)
    .filter((n) => !without.includes(n))
    .sort();
  return `{${names.map((n) => `${n}=${JSON.stringify(labels[n])}`).join(',')}}`;
}

/** A float label value (`le`, `quantile`) as the specification reads it: any number, `+Inf` included. */
function labelNumber(text: string): number | undefined {
  if (/^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/.test(text)) return Number(text);
  switch (text.toLowerCase()) {
    case '+inf':
    case 'inf':
    case '+infinity':
    case 'infinity':
      return Infinity;
    case '-inf':
    case '-infinity':
      return -Infinity;
    case 'nan':
      return NaN;
    default:
      return undefined;
  }
}

function show(v: number): string {
  return Number.isNaN(v) ? 'NaN' : v === Infinity ? '+Inf' : v === -Infinity ? '-Inf' : String(v);
}

/** Checks one OpenMetrics exposition line by line; call {@link OpenMetricsChecker.finish} at `# EOF`. */
export class OpenMetricsChecker {
  private readonly families = new Map<string, FamilyState>();
  private current: FamilyState | undefined;
  private point: HistogramPoint | undefined;
  /** Series (name and labels) → the timestamp of its last sample, null when it had none. */
  private readonly series = new Map<string, number | null>();

  /** A `# TYPE`, `# HELP` or `# UNIT` line. */
  metadata(keyword: 'TYPE' | 'HELP' | 'UNIT', name: string, value: string, line: number): void {
    let f = this.families.get(name);
    if (f && f !== this.current) {
      throw new OpenMetricsViolation(
        line,
        `# ${keyword} ${name} after family ${name} ended (line ${f.lastLine}); a family's lines are not interleaved with another's`,
      );
    }
    if (f?.sampled) {
      throw new OpenMetricsViolation(
        line,
        `# ${keyword} ${name} after its samples; a family's metadata comes before its samples`,
      );
    }
    if (!f) {
      const owner = this.ownerOf(name);
      if (owner) {
        throw new OpenMetricsViolation(
          line,
          `family ${name} clashes with ${owner.type} ${owner.name}, whose samples may be named ${name}; family names must not clash with another family's sample names`,
        );
      }
      f = this.open(name, line);
    }
    f.lastLine = line;
    if (keyword === 'TYPE') {
      if (f.typed)
        throw new OpenMetricsViolation(line, `second # TYPE line for ${name}; expected at most one`);
      if (!(OPENMETRICS_TYPES as readonly string[]).includes(value)) {
        throw new OpenMetricsViolation(
          line,
          `'${value}' is not an OpenMetrics type; expected one of ${OPENMETRICS_TYPES.join(', ')}`,
        );
      }
      f.type = value as OpenMetricsType;
      f.typed = true;
      for (const suffix of SAMPLE_SUFFIXES[f.type]) {
        const clash = suffix === '' ? undefined : this.families.get(name + suffix);
        if (clash) {
          throw new OpenMetricsViolation(
            line,
            `${f.type} ${name} would name samples ${name + suffix}, which is family ${clash.name} (line ${clash.lastLine}); family names must not clash with another family's sample names`,
          );
        }
      }
    } else if (keyword === 'HELP') {
      if (f.help)
        throw new OpenMetricsViolation(line, `second # HELP line for ${name}; expected at most one`);
      f.help = true;
    } else {
      if (f.unit !== undefined)
        throw new OpenMetricsViolation(line, `second # UNIT line for ${name}; expected at most one`);
      if (!/^[A-Za-z0-9_:]*$/.test(value)) {
        throw new OpenMetricsViolation(
          line,
          `unit '${value}' has characters a metric name may not; expected letters, digits, _ and :`,
        );
      }
      f.unit = value;
    }
    // "Unit": a non-empty unit is a suffix of the family name; info and stateset have none.
    if (f.unit) {
      if (!name.endsWith(`_${f.unit}`)) {
        throw new OpenMetricsViolation(
          line,
          `unit '${f.unit}' is not a suffix of the family name ${name}; expected a name ending in _${f.unit}`,
        );
      }
      if (f.type === 'info' || f.type === 'stateset') {
        throw new OpenMetricsViolation(
          line,
          `${f.type} ${name} has unit '${f.unit}'; a ${f.type} has no unit`,
        );
      }
    }
  }

  /** A sample line, after its syntax was read. */
  sample(s: Sample): void {
    const f = this.familyOf(s);
    f.sampled = true;
    f.lastLine = s.line;
    const suffix = s.name.slice(f.name.length);
    this.checkValue(f, suffix, s);
    this.checkExemplar(f, suffix, s);

    // "Metric" and "MetricPoint": contiguous, never interleaved.
    const without =
      f.type === 'histogram' || f.type === 'gaugehistogram'
        ? ['le']
        : f.type === 'summary'
          ? ['quantile']
          : f.type === 'stateset'
            ? [f.name]
            : [];
    const metric = labelText(s.labels, without);
    if (metric !== f.lastMetric) {
      if (f.metrics.has(metric)) {
        throw new OpenMetricsViolation(
          s.line,
          `${f.name}${metric} continues after another metric of ${f.name}; the samples of a metric are contiguous`,
        );
      }
      f.metrics.add(metric);
      f.lastMetric = metric;
      f.points = new Set();
      f.lastPoint = undefined;
      this.closePoint();
    }
    const pointKey = s.timestampMs === undefined ? 'none' : String(s.timestampMs);
    if (pointKey !== f.lastPoint) {
      if (f.points.has(pointKey)) {
        throw new OpenMetricsViolation(
          s.line,
          `a MetricPoint of ${f.name}${metric} continues after another of its points; the samples of a MetricPoint are contiguous`,
        );
      }
      f.points.add(pointKey);
      f.lastPoint = pointKey;
      this.closePoint();
    }

    // "Metric": a repeated series needs a later timestamp.
    const key = `${s.name}${labelText(s.labels)}`;
    const previous = this.series.get(key);
    if (previous !== undefined) {
      if (previous === null || s.timestampMs === undefined) {
        throw new OpenMetricsViolation(
          s.line,
          `${key} appears twice without timestamps; a series has one sample per MetricPoint`,
        );
      }
      if (s.timestampMs <= previous) {
        throw new OpenMetricsViolation(
          s.line,
          `${key} at ${s.timestampMs / 1000} does not come after its sample at ${previous / 1000}; MetricPoints have increasing timestamps`,
        );
      }
    }
    this.series.set(key, s.timestampMs ?? null);

    if (f.type === 'histogram' || f.type === 'gaugehistogram') this.addToPoint(f, suffix, s, metric);
  }

  /** At `# EOF`: the last MetricPoint is complete. */
  finish(): void {
    this.closePoint();
  }

  private open(name: string, line: number): FamilyState {
    this.closePoint();
    const f: FamilyState = {
      name,
      type: 'unknown',
      typed: false,
      help: false,
      sampled: false,
      lastLine: line,
      metrics: new Set(),
      points: new Set(),
    };
    this.families.set(name, f);
    this.current = f;
    return f;
  }

  /** The family whose type allows `name` as a sample name, if any. */
  private ownerOf(name: string): FamilyState | undefined {
    for (const f of this.families.values()) {
      if (SAMPLE_SUFFIXES[f.type].some((suffix) => f.name + suffix === name)) return f;
    }
    return undefined;
  }

  private familyOf(s: Sample): FamilyState {
    const c = this.current;
    if (c && SAMPLE_SUFFIXES[c.type].some((suffix) => c.name + suffix === s.name)) return c;
    const owner = this.ownerOf(s.name);
    if (owner) {
      throw new OpenMetricsViolation(
        s.line,
        `${s.name} belongs to ${owner.type} ${owner.name}, which ended at line ${owner.lastLine}; a family's samples are not interleaved with another's`,
      );
    }
    const declared = this.families.get(s.name);
    if (declared) {
      const names = SAMPLE_SUFFIXES[declared.type].map((suffix) => declared.name + suffix).join(', ');
      throw new OpenMetricsViolation(
        s.line,
        `${s.name} is not a sample name of ${declared.type} ${declared.name}; expected ${names}`,
      );
    }
    return this.open(s.name, s.line);
  }

  private checkValue(f: FamilyState, suffix: string, s: Sample): void {
    const v = s.value;
    const what = `${s.name}${labelText(s.labels)} ${show(v)}`;
    const fail = (why: string): never => {
      throw new OpenMetricsViolation(s.line, `${what}: ${why}`);
    };
    const count = (): void => {
      if (!(isInteger(v) && v >= 0)) fail('a count is a whole number, never negative or NaN');
    };
    switch (f.type) {
      case 'counter':
        // "Counter": a Total is non-NaN and, starting from 0, never decreases.
        if (suffix === '_total' && (Number.isNaN(v) || v < 0))
          fail("a counter's total is never NaN or negative");
        break;
      case 'histogram':
      case 'gaugehistogram': {
        if (suffix !== '_bucket' && s.labels['le'] !== undefined)
          fail(`only the _bucket samples of ${f.type} ${f.name} carry le`);
        if (suffix === '_bucket') {
          const le = s.labels['le'];
          if (le === undefined) fail('a bucket without an le label; expected le="<upper bound>"');
          const bound = labelNumber(le ?? '');
          if (bound === undefined || Number.isNaN(bound))
            fail(`le="${le}" is not a number; expected a bound such as 0.5 or +Inf`);
          count();
        }
        if (suffix === '_count' || suffix === '_gcount') count();
        if (suffix === '_sum' && (Number.isNaN(v) || v < 0))
          fail("a histogram's sum is never NaN or negative");
        if (suffix === '_gsum' && Number.isNaN(v)) fail("a gauge histogram's gsum is never NaN");
        break;
      }
      case 'summary':
        if (suffix === '') {
          const q = s.labels['quantile'];
          const quantile = q === undefined ? undefined : labelNumber(q);
          if (quantile === undefined || !(quantile >= 0 && quantile <= 1))
            fail(`quantile="${q ?? ''}" is not a quantile; expected quantile="<0 to 1>"`);
          if (v < 0) fail('a quantile value is never negative');
        } else if (s.labels['quantile'] !== undefined) {
          fail(`only the quantile samples of summary ${f.name} carry quantile`);
        }
        if (suffix === '_count') count();
        if (suffix === '_sum' && (Number.isNaN(v) || v < 0)) fail("a summary's sum is never NaN or negative");
        break;
      case 'info':
        if (v !== 1) fail('an info sample is always 1');
        break;
      case 'stateset':
        if (s.labels[f.name] === undefined) fail(`a state sample carries the label ${f.name}="<state>"`);
        if (v !== 0 && v !== 1) fail('a state is 1 (true) or 0 (false)');
        break;
      default:
        break;
    }
  }

  private checkExemplar(f: FamilyState, suffix: string, s: Sample): void {
    const e = s.exemplar;
    if (!e) return;
    const allowed =
      (f.type === 'counter' && suffix === '_total') ||
      ((f.type === 'histogram' || f.type === 'gaugehistogram') && suffix === '_bucket');
    if (!allowed) {
      throw new OpenMetricsViolation(
        s.line,
        `exemplar on ${s.name}; exemplars sit on a counter's _total or a histogram's _bucket samples only`,
      );
    }
    const chars = Object.entries(e.labels).reduce((n, [k, v]) => n + [...k].length + [...v].length, 0);
    if (chars > MAX_EXEMPLAR_LABEL_CHARS) {
      throw new OpenMetricsViolation(
        s.line,
        `exemplar labels of ${chars} characters; expected at most ${MAX_EXEMPLAR_LABEL_CHARS} (names and values together)`,
      );
    }
    if (suffix === '_bucket') {
      const le = labelNumber(s.labels['le'] ?? '');
      if (le !== undefined && e.value > le) {
        throw new OpenMetricsViolation(
          s.line,
          `exemplar value ${show(e.value)} is above its bucket's le=${s.labels['le']}`,
        );
      }
    }
  }

  private addToPoint(f: FamilyState, suffix: string, s: Sample, metric: string): void {
    if (!this.point) this.point = { family: f, labels: metric, buckets: [], lastLine: s.line };
    const p = this.point;
    p.lastLine = s.line;
    if (suffix === '_bucket') {
      const text = s.labels['le'] ?? '';
      const le = labelNumber(text) as number;
      const prev = p.buckets[p.buckets.length - 1];
      if (prev && !(le > prev.le)) {
        throw new OpenMetricsViolation(
          s.line,
          `bucket le="${text}" after le="${prev.text}" in ${f.name}${metric}; buckets are sorted by le, each bound once`,
        );
      }
      if (prev && s.value < prev.value) {
        throw new OpenMetricsViolation(
          s.line,
          `bucket le="${text}" counts ${show(s.value)}, fewer than the ${show(prev.value)} of le="${prev.text}" below it; buckets are cumulative`,
        );
      }
      p.buckets.push({ le, text, value: s.value, line: s.line });
    } else if (suffix === '_count' || suffix === '_gcount') {
      p.count = { value: s.value, line: s.line };
    } else if (suffix === '_sum' || suffix === '_gsum') {
      p.sum = { value: s.value, line: s.line };
    }
  }

  /** "Histogram": a +Inf bucket; _count equals it; _sum if and only if _count; no sum with negative buckets. */
  private closePoint(): void {
    const p = this.point;
    this.point = undefined;
    if (!p) return;
    const f = p.family;
    const where = `${f.name}${p.labels}`;
    const inf = p.buckets.find((b) => b.le === Infinity);
    if (!inf) {
      throw new OpenMetricsViolation(
        p.lastLine,
        `${f.type} ${where} has no le="+Inf" bucket; expected one counting every event`,
      );
    }
    const [countName, sumName] = f.type === 'histogram' ? ['_count', '_sum'] : ['_gcount', '_gsum'];
    if (p.count && p.count.value !== inf.value) {
      throw new OpenMetricsViolation(
        p.count.line,
        `${f.name}${countName} is ${show(p.count.value)} but the +Inf bucket counts ${show(inf.value)}; expected them equal`,
      );
    }
    if ((p.count === undefined) !== (p.sum === undefined)) {
      const [has, lacks] = p.count ? [countName, sumName] : [sumName, countName];
      throw new OpenMetricsViolation(
        (p.count ?? p.sum)?.line ?? p.lastLine,
        `${where} has ${f.name}${has} but no ${f.name}${lacks}; expected both or neither`,
      );
    }
    if (f.type === 'histogram' && p.sum && p.buckets.some((b) => b.le < 0)) {
      throw new OpenMetricsViolation(
        p.sum.line,
        `${where} has buckets below 0 and a _sum; a histogram with negative buckets has no sum`,
      );
    }
  }
}
