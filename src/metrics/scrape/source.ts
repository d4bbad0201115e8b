/**
 * The scrape source: reads `/metrics` endpoints directly, without a Prometheus server, and turns the
 * difference between two consecutive scrapes into an SLI (counter increase, ratio, rate, quantile) or
 * reads a gauge as is. Each URL is fetched once per tick however many queries use it.
 *
 * Deadlines: a scrape — connecting, the headers, the whole body, parsing — ends within `timeoutMs`
 * (default `DEADLINES.scrapeRequest`) cut to the tick's window, and as soon as the caller's signal
 * aborts. A scrape that misses its deadline gives `error` readings that say it timed out; `read` never
 * rejects.
 *
 * Evidence: an exposition is read up to {@link MAX_EXPOSITION_BYTES} (an error page up to
 * {@link MAX_ERROR_BODY_BYTES}); a value that is not finite (a `+Inf` gauge, a ratio over an infinite
 * counter) is `no-data`, and so is one computed from samples whose own timestamps (the optional third
 * field of an exposition line) lie ahead of the scrape beyond `SAMPLE_TIME_TOLERANCE_MS` or before the
 * reading's window: the endpoint is relaying figures that are not the service's state now.
 */
import { DEADLINES, isDeadlineError, tickDeadline, withDeadline } from '../../net/deadline.js';
import { expandEnv } from '../../plan/env.js';
import type { ScrapeSource as ScrapeSpec } from '../../plan/schema.js';
import {
  nonFiniteProblem,
  SAMPLE_TIME_TOLERANCE_MS,
  type MetricSource,
  type Query,
  type Reading,
} from '../source.js';
import {
  ExpositionError,
  detectFormat,
  parseExposition,
  type Exposition,
  type Labels,
  type Sample,
} from './exposition.js';
import { histogramQuantile, type Bucket } from './quantile.js';
import { SelectorError, parseSelector, selectorMatches, withMetric, type Selector } from './selector.js';
import { errorMessage } from '../../errors/message.js';

/**
 * Largest exposition accepted. A busy service with a few thousand series serves well under 4 MiB;
 * 32 MiB bounds memory against a runaway endpoint while leaving room for large exporters.
 */
export const MAX_EXPOSITION_BYTES = 32 * 1024 * 1024;

/** How much of an error answer (a non-2xx status) is read, to quote its start in the reading. */
export const MAX_ERROR_BODY_BYTES = 4 * 1024;

/** Per-request timeout when none is given; the tick's own deadline shortens it further. */
export const DEFAULT_SCRAPE_TIMEOUT_MS: number = DEADLINES.scrapeRequest;

/** The Accept header Prometheus itself sends, so endpoints pick OpenMetrics when they can. */
const ACCEPT =
  'application/openmetrics-text;version=1.0.0,application/openmetrics-text;version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1';

/** Options of the scrape source. */
export interface ScrapeOptions {
  /**
   * The variables `${NAME}` in a URL may expand: the plan's declared `env:` values (plan/env.ts), never
   * the whole environment. Default: none.
   */
  env?: Record<string, string> | undefined;
  /** Per-request timeout (ms), capped by the tick's window. */
  timeoutMs?: number | undefined;
  /** Extra request headers (e.g. a bearer token for a protected endpoint). */
  headers?: Record<string, string> | undefined;
}

/** A parsed scrape of one URL, kept until the next tick as the start of the window. */
export interface Snapshot {
  at: number;
  samples: Sample[];
  /** Samples by metric name, so a selector that names its metric skips every other series. */
  byName: Map<string, Sample[]>;
  /** Series key → `_created` value (OpenMetrics), to detect resets that a higher value would hide. */
  created: Map<string, number>;
}

type Scraped = { ok: true; snapshot: Snapshot } | { ok: false; error: string };

export { expandEnv } from '../../plan/env.js';

/** A stable key for a series: its name and sorted labels. */
function seriesKey(name: string, labels: Labels, omit?: string): string {
  const keys = Object.keys(labels)
    .filter((k) => k !== omit)
    .sort();
  let key = name;
  for (const k of keys) key += `\u0000${k}\u0001${labels[k] ?? ''}`;
  return key;
}

const COUNTER_SUFFIXES = ['_total', '_bucket', '_count', '_sum'];

/** The `_created` series a counter-like sample belongs to (`x_total{a}` → `x_created{a}`), if any. */
function createdKeyFor(sample: Sample): string | undefined {
  for (const suffix of COUNTER_SUFFIXES) {
    if (sample.name.endsWith(suffix)) {
      return seriesKey(sample.name.slice(0, -suffix.length) + '_created', sample.labels, 'le');
    }
  }
  return undefined;
}

/** What a query reads, parsed once. */
type Plan =
  | { kind: 'ratio'; numerator: Selector; denominator: Selector }
  | { kind: 'increase'; selector: Selector }
  | { kind: 'rate'; selector: Selector }
  | { kind: 'gauge'; selector: Selector }
  | { kind: 'quantile'; q: number; histogram: Selector; buckets: Selector };

function planOf(spec: ScrapeSpec): Plan {
  if (spec.ratio) {
    return {
      kind: 'ratio',
      numerator: parseSelector(spec.ratio.numerator),
      denominator: parseSelector(spec.ratio.denominator),
    };
  }
  if (spec.quantile) {
    const histogram = parseSelector(spec.quantile.histogram);
    if (histogram.metric === undefined) {
      throw new SelectorError(
        `histogram selector '${spec.quantile.histogram}' must name the histogram metric`,
      );
    }
    const base = histogram.metric.endsWith('_bucket')
      ? histogram.metric.slice(0, -'_bucket'.length)
      : histogram.metric;
    return {
      kind: 'quantile',
      q: spec.quantile.q,
      histogram,
      buckets: withMetric(histogram, `${base}_bucket`),
    };
  }
  if (spec.increase !== undefined) return { kind: 'increase', selector: parseSelector(spec.increase) };
  if (spec.rate !== undefined) return { kind: 'rate', selector: parseSelector(spec.rate) };
  if (spec.gauge !== undefined) return { kind: 'gauge', selector: parseSelector(spec.gauge) };
  throw new SelectorError('the scrape source names none of ratio, increase, rate, quantile, gauge');
}

/** A human-readable form of the query for the journal: URL and what is read from it. */
export function describeScrape(spec: ScrapeSpec, url: string = spec.url): string {
  if (spec.ratio) return `${url} ratio(${spec.ratio.numerator} / ${spec.ratio.denominator})`;
  if (spec.quantile) return `${url} quantile(${spec.quantile.q}, ${spec.quantile.histogram})`;
  if (spec.increase !== undefined) return `${url} increase(${spec.increase})`;
  if (spec.rate !== undefined) return `${url} rate(${spec.rate})`;
  return `${url} gauge(${spec.gauge ?? ''})`;
}

/** Increase of one series between two scrapes: a lower value (or a new `_created`) means the counter reset. */
function seriesIncrease(previous: number | undefined, current: number, reset: boolean): number {
  if (previous === undefined) return current; // a new series counts from zero
  if (reset || current < previous) return current;
  return current - previous;
}

interface Window {
  previous: Snapshot;
  current: Snapshot;
  /** Previous values by series key, built per metric name on first use. */
  previousIndex: Map<string, Map<string, number>>;
}

/** Sum over matching series of their increase in the window; `matched` counts series seen now. */
function increaseOf(
  w: Window,
  selector: Selector,
  byLabel?: string,
): { total: number; matched: number; by: Map<string, number>; times: Stamps } {
  let total = 0;
  let matched = 0;
  const by = new Map<string, number>();
  const times = new Stamps();
  for (const s of candidates(w.current, selector)) {
    if (!selectorMatches(selector, s.name, s.labels)) continue;
    matched++;
    times.add(s);
    const key = seriesKey(s.name, s.labels);
    const createdKey =
      w.current.created.size > 0 && w.previous.created.size > 0 ? createdKeyFor(s) : undefined;
    const createdNow = createdKey === undefined ? undefined : w.current.created.get(createdKey);
    const createdBefore = createdKey === undefined ? undefined : w.previous.created.get(createdKey);
    const reset = createdNow !== undefined && createdBefore !== undefined && createdNow !== createdBefore;
    const inc = seriesIncrease(previousValues(w, s.name).get(key), s.value, reset);
    total += inc;
    if (byLabel !== undefined) {
      const k = s.labels[byLabel] ?? '';
      by.set(k, (by.get(k) ?? 0) + inc);
    }
  }
  return { total, matched, by, times };
}

/** The oldest and newest explicit sample timestamps among the samples a value is computed from. */
class Stamps {
  oldest = Infinity;
  newest = -Infinity;
  add(sample: Sample): void {
    if (sample.timestampMs === undefined) return;
    this.oldest = Math.min(this.oldest, sample.timestampMs);
    this.newest = Math.max(this.newest, sample.timestampMs);
  }
  /** Why these samples are not the endpoint's state at `at` over `windowMs`, if they are not. */
  problem(at: number, windowMs: number): string | undefined {
    if (this.newest - at > SAMPLE_TIME_TOLERANCE_MS) {
      return `from the future: a sample is stamped ${new Date(this.newest).toISOString()}, ${((this.newest - at) / 1000).toFixed(1)} s after the scrape; tolerance ${(SAMPLE_TIME_TOLERANCE_MS / 1000).toFixed(1)} s`;
    }
    if (at - this.oldest > windowMs + SAMPLE_TIME_TOLERANCE_MS) {
      return `stale: a sample is stamped ${new Date(this.oldest).toISOString()}, ${((at - this.oldest) / 1000).toFixed(1)} s before the scrape, older than the reading's ${(windowMs / 1000).toFixed(1)} s window`;
    }
    return undefined;
  }
}

/** The SLI value of one query over the window, or why there is none. */
function evaluate(
  plan: Plan,
  w: Window | undefined,
  current: Snapshot,
  windowMs?: number,
): Omit<Reading, 'name' | 'query'> {
  // A difference covers the span between the two scrapes; a gauge, the reading's window.
  const span = w ? w.current.at - w.previous.at : (windowMs ?? Infinity);
  if (plan.kind === 'gauge') {
    let sum = 0;
    let matched = 0;
    const times = new Stamps();
    for (const s of candidates(current, plan.selector)) {
      if (selectorMatches(plan.selector, s.name, s.labels)) {
        sum += s.value;
        matched++;
        times.add(s);
      }
    }
    if (matched === 0) return noData(`no series match ${plan.selector.text}`);
    const stale = times.problem(current.at, windowMs ?? span);
    return stale !== undefined ? noData(stale) : finite(sum, 'the gauge');
  }
  if (!w) return noData('first scrape: the window starts here and is measured at the next tick');
  if (plan.kind === 'ratio') {
    const num = increaseOf(w, plan.numerator);
    const den = increaseOf(w, plan.denominator);
    if (den.matched === 0) return noData(`no series match the denominator ${plan.denominator.text}`);
    if (num.matched === 0) return noData(`no series match the numerator ${plan.numerator.text}`);
    const stale = num.times.problem(current.at, span) ?? den.times.problem(current.at, span);
    if (stale !== undefined) return noData(stale);
    if (den.total === 0) return noData('the denominator did not increase in the window');
    return finite(num.total / den.total);
  }
  if (plan.kind === 'increase' || plan.kind === 'rate') {
    const inc = increaseOf(w, plan.selector);
    if (inc.matched === 0) return noData(`no series match ${plan.selector.text}`);
    const stale = inc.times.problem(current.at, span);
    if (stale !== undefined) return noData(stale);
    if (plan.kind === 'increase') return finite(inc.total);
    const seconds = (w.current.at - w.previous.at) / 1000;
    if (!(seconds > 0)) return noData('the two scrapes have the same time');
    return finite(inc.total / seconds);
  }
  const inc = increaseOf(w, plan.buckets, 'le');
  if (inc.matched === 0) return noData(`no bucket series match ${plan.buckets.text}`);
  const stale = inc.times.problem(current.at, span);
  if (stale !== undefined) return noData(stale);
  const buckets: Bucket[] = [];
  for (const [le, count] of inc.by) {
    const upperBound = Number(le === '+Inf' || le === 'Inf' ? Infinity : le);
    // Prometheus ignores buckets whose `le` is not a number.
    if (le !== '' && !Number.isNaN(upperBound)) buckets.push({ upperBound, count });
  }
  if (!buckets.some((b) => b.upperBound === Infinity)) {
    return {
      value: null,
      status: 'error',
      error: `histogram ${plan.histogram.text} has no le="+Inf" bucket`,
    };
  }
  const value = histogramQuantile(plan.q, buckets);
  if (Number.isNaN(value)) return noData('no observations in the window');
  return finite(value, 'the quantile');
}

function noData(reason: string): Omit<Reading, 'name' | 'query'> {
  return { value: null, status: 'no-data', error: reason };
}
/** The value as an `ok` reading when it is a finite number, else no-data saying what it is. */
function finite(value: number, what = 'the value'): Omit<Reading, 'name' | 'query'> {
  const problem = nonFiniteProblem(value, what);
  return problem === undefined ? { value, status: 'ok' } : noData(problem);
}

/** Reads `/metrics` endpoints and measures SLIs from consecutive scrapes. */
export class ScrapeMetricSource implements MetricSource {
  readonly kind = 'scrape' as const;
  private readonly env: Record<string, string>;
  private readonly timeoutMs: number;
  private readonly headers: Record<string, string>;
  private readonly previous = new Map<string, Snapshot>();
  private readonly plans = new Map<string, Plan | SelectorError>();

  constructor(options: ScrapeOptions = {}) {
    this.env = options.env ?? {};
    this.timeoutMs = options.timeoutMs ?? DEFAULT_SCRAPE_TIMEOUT_MS;
    this.headers = options.headers ?? {};
  }

  async read(
    queries: readonly Query[],
    at: number,
    windowMs: number,
    signal?: AbortSignal,
  ): Promise<Reading[]> {
    const urls = new Map<string, string | Error>();
    for (const q of queries) {
      if (q.spec.scrape && !urls.has(q.spec.scrape.url)) {
        try {
          urls.set(q.spec.scrape.url, expandEnv(q.spec.scrape.url, this.env));
        } catch (error) {
          urls.set(q.spec.scrape.url, error as Error);
        }
      }
    }
    const timeout = tickDeadline(windowMs, this.timeoutMs);
    const scraped = new Map<string, Scraped>();
    await Promise.all(
      [...new Set([...urls.values()].filter((u): u is string => typeof u === 'string'))].map(async (url) => {
        scraped.set(url, await this.scrape(url, at, timeout, signal));
      }),
    );
    const windows = new Map<string, Window | undefined>();
    for (const [url, result] of scraped) {
      if (!result.ok) continue;
      const previous = this.previous.get(url);
      windows.set(url, previous ? windowOf(previous, result.snapshot) : undefined);
      // A failed scrape keeps the older snapshot, so the next window stretches back to it.
      this.previous.set(url, result.snapshot);
    }
    return queries.map((q) => {
      const spec = q.spec.scrape;
      if (!spec)
        return { name: q.name, value: null, status: 'error', query: '', error: 'not a scrape query' };
      const url = urls.get(spec.url);
      const query = describeScrape(spec);
      if (url instanceof Error || url === undefined) {
        return { name: q.name, value: null, status: 'error', query, error: errorMessage(url) };
      }
      const result = scraped.get(url) as Scraped;
      if (!result.ok) return { name: q.name, value: null, status: 'error', query, error: result.error };
      const plan = this.planFor(q.name, spec);
      if (plan instanceof SelectorError)
        return { name: q.name, value: null, status: 'error', query, error: plan.message };
      try {
        return { name: q.name, query, ...evaluate(plan, windows.get(url), result.snapshot, windowMs) };
      } catch (error) {
        return { name: q.name, value: null, status: 'error', query, error: errorMessage(error) };
      }
    });
  }

  private planFor(name: string, spec: ScrapeSpec): Plan | SelectorError {
    const key = `${name}\u0000${JSON.stringify(spec)}`;
    let plan = this.plans.get(key);
    if (plan === undefined) {
      try {
        plan = planOf(spec);
      } catch (error) {
        plan = error instanceof SelectorError ? error : new SelectorError(errorMessage(error));
      }
      this.plans.set(key, plan);
    }
    return plan;
  }

  /** One scrape of `url`, settled within `timeoutMs` or when `signal` aborts; never rejects. */
  private async scrape(url: string, at: number, timeoutMs: number, signal?: AbortSignal): Promise<Scraped> {
    if (signal?.aborted) return { ok: false, error: `${url}: cancelled before it answered` };
    try {
      return await withDeadline((inner) => this.fetchSnapshot(url, at, inner), timeoutMs, url, signal);
    } catch (error) {
      if (isDeadlineError(error))
        return { ok: false, error: `${url}: timed out: no answer within ${timeoutMs} ms` };
      if (signal?.aborted) return { ok: false, error: `${url}: cancelled before it answered` };
      const cause = (error as { cause?: unknown }).cause;
      return {
        ok: false,
        error: `${url}: ${errorMessage(error)}${cause ? ` (${errorMessage(cause)})` : ''}`,
      };
    }
  }

  /** Fetches and parses one exposition; `signal` aborts the request and the body (the deadline). */
  private async fetchSnapshot(url: string, at: number, signal: AbortSignal): Promise<Scraped> {
    try {
      const response = await fetch(url, { headers: { accept: ACCEPT, ...this.headers }, signal });
      if (!response.ok) {
        const body = ((await readBounded(response, MAX_ERROR_BODY_BYTES, true)) ?? '').slice(0, 200);
        return { ok: false, error: `${url}: HTTP ${response.status} ${response.statusText}: ${body}`.trim() };
      }
      const declared = Number(response.headers.get('content-length') ?? '0');
      if (declared > MAX_EXPOSITION_BYTES) {
        await response.body?.cancel();
        return {
          ok: false,
          error: `${url}: exposition of ${declared} bytes exceeds ${MAX_EXPOSITION_BYTES}`,
        };
      }
      const text = await readBounded(response, MAX_EXPOSITION_BYTES);
      if (text === undefined)
        return { ok: false, error: `${url}: exposition exceeds ${MAX_EXPOSITION_BYTES} bytes` };
      const parsed = parseExposition(text, url, detectFormat(text, response.headers.get('content-type')));
      return { ok: true, snapshot: snapshotOf(parsed, at) };
    } catch (error) {
      if (error instanceof ExpositionError) return { ok: false, error: error.message };
      throw error;
    }
  }
}

/** A snapshot of a parsed exposition taken at `at` (ms). */
export function snapshotOf(parsed: Exposition, at: number): Snapshot {
  const created = new Map<string, number>();
  const byName = new Map<string, Sample[]>();
  for (const s of parsed.samples) {
    if (s.name.endsWith('_created')) created.set(seriesKey(s.name, s.labels), s.value);
    const list = byName.get(s.name);
    if (list) list.push(s);
    else byName.set(s.name, [s]);
  }
  return { at, samples: parsed.samples, byName, created };
}

/**
 * One scrape SLI from two snapshots, without the source's caching or HTTP: what `read` computes for a
 * query. `previous` undefined is the priming read.
 */
export function evaluateScrape(
  spec: ScrapeSpec,
  previous: Snapshot | undefined,
  current: Snapshot,
): Omit<Reading, 'name' | 'query'> {
  try {
    return evaluate(planOf(spec), previous ? windowOf(previous, current) : undefined, current);
  } catch (error) {
    return { value: null, status: 'error', error: errorMessage(error) };
  }
}

function windowOf(previous: Snapshot, current: Snapshot): Window {
  return { previous, current, previousIndex: new Map() };
}

/** The samples a selector can match: those of its metric when it names one, else all. */
function candidates(snapshot: Snapshot, selector: Selector): readonly Sample[] {
  return selector.metric === undefined ? snapshot.samples : (snapshot.byName.get(selector.metric) ?? []);
}

/** Previous values of one metric's series, keyed by series. */
function previousValues(w: Window, name: string): Map<string, number> {
  let index = w.previousIndex.get(name);
  if (!index) {
    index = new Map();
    for (const s of w.previous.byName.get(name) ?? []) index.set(seriesKey(s.name, s.labels), s.value);
    w.previousIndex.set(name, index);
  }
  return index;
}

/**
 * Reads a body as UTF-8 text up to `limit` bytes. Past it the rest is abandoned (the stream cancelled,
 * so the connection is not drained) and the answer is undefined, or with `head` the first `limit` bytes.
 */
async function readBounded(response: Response, limit: number, head = false): Promise<string | undefined> {
  if (!response.body) return '';
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let text = '';
  let bytes = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return text + decoder.decode();
    bytes += value.byteLength;
    if (bytes > limit) {
      await reader.cancel().catch(() => undefined);
      return head ? text + decoder.decode(value.subarray(0, value.byteLength - (bytes - limit))) : undefined;
    }
    text += decoder.decode(value, { stream: true });
  }
}
