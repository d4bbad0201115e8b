/**
 * The Prometheus source: one instant query per SLI per tick over the HTTP API (`/api/v1/query` with
 * `time=` at the tick), so anything that speaks that API works — Prometheus, Thanos, Mimir,
 * VictoriaMetrics, Amazon Managed Prometheus (SigV4). Queries of a tick run concurrently, and retries
 * stop at the tick's deadline so a slow server never delays the next measurement.
 *
 * Deadlines: each request has its own timeout (`timeoutMs`, default `DEADLINES.prometheusRequest`), cut
 * to what is left of the tick; each query as a whole — signing, retries, backoff and reading the body —
 * ends at the tick's deadline (at most the tick's window) even if something inside ignores its abort
 * signal. A query that misses it is a reading with status `error` saying it timed out; `read` never
 * rejects.
 *
 * Evidence: an answer is read only up to {@link MAX_ANSWER_BYTES}; it counts only when it is whole (no
 * `warnings`, which is how Prometheus, Thanos and Mimir flag a partial answer; well-formed `data`), for
 * the time asked for (the sample time of an instant query is the evaluation time, which must match
 * `time=` within {@link SAMPLE_TIME_TOLERANCE_MS} and advance from one read of a query to the next),
 * and finite. Anything else is a `no-data` reading that says why.
 */
import { clampTimerMs } from '../../net/timer.js';
import { systemClock, type Clock } from '../../clock/clock.js';
import { DEADLINES, isDeadlineError, tickDeadline, withDeadline } from '../../net/deadline.js';
import {
  capReason,
  nonFiniteProblem,
  SAMPLE_TIME_TOLERANCE_MS,
  type MetricSource,
  type Query,
  type Reading,
} from '../source.js';
import { defaultCredentials, signRequest, type CredentialsProvider, type SigV4Options } from './sigv4.js';
import { parsePrometheusUrl } from './url.js';
import { BadInputError } from '../../errors/bad-input.js';
import { secrets as registry } from '../../security/redact.js';

/** Per-request timeout when none is given; the tick's deadline shortens it further. */
export const DEFAULT_TIMEOUT_MS: number = DEADLINES.prometheusRequest;

/** Attempts per query and tick: the first try plus two retries, all within the tick's deadline. */
export const MAX_ATTEMPTS = 3;

/** First retry delay; doubled per retry (50 ms, 100 ms) and always cut to fit the deadline. */
export const RETRY_BASE_MS = 50;

/**
 * Queries longer than this (URL-encoded) are sent as a POST form. Common proxies cap request lines at
 * 8 KiB; 2 000 characters keeps GET (cache- and log-friendly) for every ordinary query.
 */
export const MAX_GET_QUERY_CHARS = 2_000;

/**
 * The largest answer read for one instant query (headers aside). One number is a few hundred bytes; an
 * error listing a few series, or an incident query with a few thousand open alerts, stays well under
 * 1 MiB. Past it the body is abandoned unread, so a runaway answer costs at most this much memory.
 */
export const MAX_ANSWER_BYTES = 1024 * 1024;

/** How many label sets an error about a multi-series result quotes before summarising. */
const MAX_LISTED_SERIES = 5;

/** The error of a query the caller cancelled (its signal aborted) before Prometheus answered. */
const CANCELLED = 'cancelled before Prometheus answered';

/** HTTP statuses worth another attempt: overload and gateway trouble, not a bad query (400/422). */
const RETRYABLE_STATUSES = new Set([429, 502, 503, 504]);

/** Options of the Prometheus source. Secrets given here are redacted from every reading. */
export interface PrometheusOptions {
  /** Base URL of the Prometheus HTTP API (the part before `/api/v1/query`); may carry `user:pass@`. */
  url: string;
  /** Extra headers (e.g. `X-Scope-OrgID` for Mimir); their values are treated as secrets. */
  headers?: Record<string, string> | undefined;
  bearerToken?: string | undefined;
  basicAuth?: { username: string; password: string } | undefined;
  sigv4?: SigV4Options | undefined;
  /** Per-request timeout (ms). */
  timeoutMs?: number | undefined;
  /** Time budget of one tick's reads (ms); defaults to the tick's window and is never longer than it. */
  budgetMs?: number | undefined;
  /** Force GET or POST; by default POST is used only for very long queries. */
  method?: 'GET' | 'POST' | undefined;
  /** Wall clock for deadlines (ms); injectable for tests. Defaults to `clock.now`. */
  now?: (() => number) | undefined;
  /** The clock retry backoff sleeps on (the run's clock); defaults to the system clock. */
  clock?: Pick<Clock, 'now' | 'sleep'> | undefined;
  /** Largest answer body read (bytes); defaults to {@link MAX_ANSWER_BYTES}. */
  maxAnswerBytes?: number | undefined;
  /** The HTTP client; defaults to the global `fetch`. Injectable for tests on a virtual clock. */
  fetch?: typeof fetch | undefined;
}

/** The `data` of a successful Prometheus query response. */
export type QueryData =
  | { resultType: 'vector'; result: { metric: Record<string, string>; value: [number, string] }[] }
  | { resultType: 'matrix'; result: { metric: Record<string, string>; values: [number, string][] }[] }
  | { resultType: 'scalar' | 'string'; result: [number, string] };

/**
 * The outcome of one instant query: whole, well-formed data, or why there is none (already redacted).
 * `noData` marks an answer that came but is not evidence (partial, malformed): a `no-data` reading
 * rather than an `error` one. `infos` are Prometheus 3's informational annotations ("metric might not
 * be a counter"): they do not make an answer partial, so they are kept, capped, for whoever shows them.
 */
export type QueryOutcome =
  { ok: true; data: QueryData; infos?: string[] } | { ok: false; error: string; noData?: true };

const WINDOW_RE = /\[\$window(?=[\]:])/g;

/** Formats a window as a PromQL duration: `10s` when whole seconds, else milliseconds (`1500ms`). */
export function promDuration(ms: number): string {
  const whole = Math.max(1, Math.round(ms));
  return whole % 1000 === 0 ? `${whole / 1000}s` : `${whole}ms`;
}

/** Replaces `[$window]` (and `[$window:step]`) with the tick's window, so plans can write `rate(x[$window])`. */
export function substituteWindow(promql: string, windowMs: number): string {
  return promql.replace(WINDOW_RE, `[${promDuration(windowMs)}`);
}

/** Formats a label set as PromQL does: `{code="500", route="/pay"}`. */
export function formatLabels(metric: Record<string, string>): string {
  const parts = Object.keys(metric)
    .sort()
    .map((k) => `${k}=${JSON.stringify(metric[k])}`);
  return `{${parts.join(', ')}}`;
}

/** Parses a Prometheus sample value string (`"0.25"`, `"NaN"`, `"+Inf"`); undefined when it is none. */
function sampleValue(text: string): number | undefined {
  if (text === '+Inf' || text === 'Inf') return Infinity;
  if (text === '-Inf') return -Infinity;
  if (text === 'NaN') return NaN;
  const value = Number(text);
  return text.trim() === '' || Number.isNaN(value) ? undefined : value;
}

/**
 * Turns a query result into a reading: one finite number, no-data (empty, NaN, ±Inf, not a number), or
 * an error that names the query.
 */
export function interpretResult(name: string, query: string, data: QueryData): Reading {
  const reading = (text: string): Reading => {
    const value = sampleValue(text);
    if (value === undefined) {
      const error = `the query returned ${JSON.stringify(capReason(text, 40))}, not a number`;
      return { name, value: null, status: 'no-data', query, error };
    }
    const problem = nonFiniteProblem(value, "the query's value");
    return problem === undefined
      ? { name, value, status: 'ok', query }
      : { name, value: null, status: 'no-data', query, error: problem };
  };
  switch (data.resultType) {
    case 'scalar':
      return reading(data.result[1]);
    case 'vector': {
      const series = data.result;
      if (series.length === 0) return { name, value: null, status: 'no-data', query, error: 'empty result' };
      if (series.length === 1) return reading((series[0] as (typeof series)[number]).value[1]);
      const listed = series.slice(0, MAX_LISTED_SERIES).map((s) => formatLabels(s.metric));
      const more = series.length > MAX_LISTED_SERIES ? ` and ${series.length - MAX_LISTED_SERIES} more` : '';
      return {
        name,
        value: null,
        status: 'error',
        query,
        error: `query '${query}' returned ${series.length} series where one is expected (aggregate with sum, max, …): ${listed.join(', ')}${more}`,
      };
    }
    case 'matrix':
      return {
        name,
        value: null,
        status: 'error',
        query,
        error: `query '${query}' returned a range vector; wrap it in a function such as rate(…[$window])`,
      };
    default:
      return {
        name,
        value: null,
        status: 'error',
        query,
        error: `query '${query}' returned a ${data.resultType}`,
      };
  }
}

/** `2026-01-01T00:00:05.000Z`, or the raw number when it is no time at all. */
function isoOf(ms: number): string {
  return Number.isFinite(ms) && Math.abs(ms) < 8.64e15 ? new Date(ms).toISOString() : String(ms);
}

/** Seconds with one decimal, for the figures of a freshness reason. */
function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}

/**
 * The sample time (ms) of a one-number result, which for an instant query is the time Prometheus
 * evaluated it at; undefined when the result holds no single sample (empty, several series, a range).
 */
export function sampleTimeOf(data: QueryData): number | undefined {
  if (data.resultType === 'scalar') return data.result[0] * 1000;
  if (data.resultType === 'vector' && data.result.length === 1)
    return (data.result[0] as { value: [number, string] }).value[0] * 1000;
  return undefined;
}

/**
 * Why an answer stamped `sampleMs` is not the answer for `at` (ms), or undefined when it is: stamped
 * more than {@link SAMPLE_TIME_TOLERANCE_MS} before `at` (stale: a cache, a lagging replica) or after
 * it or after the runner's clock `now` (from the future). The reason carries the figures.
 */
export function sampleTimeProblem(
  sampleMs: number,
  at: number,
  now: number,
  windowMs: number,
): string | undefined {
  const tolerance = SAMPLE_TIME_TOLERANCE_MS;
  const asked = `the time asked for (${isoOf(at)})`;
  if (!Number.isFinite(sampleMs)) return `the answer has no valid sample time (${String(sampleMs)})`;
  if (sampleMs - at > tolerance)
    return `from the future: the sample time ${isoOf(sampleMs)} is ${seconds(sampleMs - at)} after ${asked}; tolerance ${seconds(tolerance)}`;
  if (sampleMs - now > tolerance)
    return `from the future: the sample time ${isoOf(sampleMs)} is ${seconds(sampleMs - now)} ahead of the runner's clock (${isoOf(now)}); tolerance ${seconds(tolerance)}`;
  if (at - sampleMs > tolerance) {
    const older = at - sampleMs > windowMs ? `, older than the reading's ${seconds(windowMs)} window` : '';
    return `stale: the sample time ${isoOf(sampleMs)} is ${seconds(at - sampleMs)} before ${asked}${older}; tolerance ${seconds(tolerance)}`;
  }
  return undefined;
}

/**
 * Why `data` (the `data` of a `success` answer) is not a well-formed query result, or undefined when it
 * is: every shape `interpretResult` and the incident check read is checked here, so a malformed answer
 * is no-data with a reason instead of a crash or a silent misread.
 */
export function malformedData(data: unknown): string | undefined {
  if (typeof data !== 'object' || data === null) return '`data` is not an object';
  const { resultType, result } = data as { resultType?: unknown; result?: unknown };
  const sample = (v: unknown): boolean =>
    Array.isArray(v) && v.length === 2 && typeof v[0] === 'number' && typeof v[1] === 'string';
  const labels = (m: unknown): boolean =>
    typeof m === 'object' && m !== null && Object.values(m).every((v) => typeof v === 'string');
  switch (resultType) {
    case 'scalar':
    case 'string':
      return sample(result) ? undefined : `the ${resultType} result is not [time, "value"]`;
    case 'vector': {
      if (!Array.isArray(result)) return 'the vector result is not a list';
      const bad = result.findIndex(
        (e: unknown) =>
          typeof e !== 'object' ||
          e === null ||
          !labels((e as { metric?: unknown }).metric) ||
          !sample((e as { value?: unknown }).value),
      );
      if (bad < 0) return undefined;
      const e = result[bad] as { histogram?: unknown } | null;
      return e !== null && typeof e === 'object' && e.histogram !== undefined
        ? `series ${bad + 1} is a native histogram, not a number (use histogram_quantile)`
        : `series ${bad + 1} of the vector result is not {metric, value: [time, "value"]}`;
    }
    case 'matrix':
      return Array.isArray(result) ? undefined : 'the matrix result is not a list';
    default:
      return `unknown resultType ${JSON.stringify(capReason(String(resultType), 40))}`;
  }
}

/** The annotations of an answer (`warnings`, `infos`) as capped strings; a non-list counts as one. */
function annotations(value: unknown): string[] | undefined {
  if (value === undefined || value === null) return undefined;
  const list = Array.isArray(value) ? value : [value];
  if (list.length === 0) return undefined;
  return list.map((w) => capReason(typeof w === 'string' ? w : JSON.stringify(w)));
}

/** Reads a body as text, up to `limit` bytes; undefined (and the rest abandoned) past it. */
async function readCapped(response: Response, limit: number): Promise<string | undefined> {
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
      return undefined;
    }
    text += decoder.decode(value, { stream: true });
  }
}

function errorMessage(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = (error as { cause?: unknown }).cause;
  return cause instanceof Error ? `${error.message} (${cause.message})` : error.message;
}

/** Reads SLIs from a Prometheus-compatible HTTP API. */
export class PrometheusSource implements MetricSource {
  readonly kind = 'prometheus' as const;
  private readonly base: URL;
  private readonly headers: Record<string, string>;
  private readonly secretList: Set<string>;
  private readonly timeoutMs: number;
  private readonly budgetMs: number | undefined;
  private readonly method: 'GET' | 'POST' | undefined;
  private readonly now: () => number;
  private readonly clock: Pick<Clock, 'now' | 'sleep'>;
  private readonly sigv4: { region: string; service: string; credentials: CredentialsProvider } | undefined;
  private readonly maxAnswerBytes: number;
  private readonly fetch: typeof fetch;
  /**
   * The last accepted sample each query (name and PromQL) was answered with, for the run this source
   * lives for: a later read answered with a sample time that did not advance is a frozen answer (a
   * stuck cache or remote-read), not evidence.
   */
  private readonly lastSample = new Map<string, { at: number; sampleMs: number }>();

  /** Throws (an edge error) when the options are contradictory or the URL is not http(s). */
  constructor(options: PrometheusOptions) {
    // Every credential is registered with the one redactor before anything can print it.
    const { base, basic: fromUrl } = parsePrometheusUrl(options.url);
    const secrets: string[] = [];
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(options.headers ?? {})) {
      headers[k.toLowerCase()] = v;
      registry.addHeader(v);
      secrets.push(v);
    }
    let basic = options.basicAuth;
    if (fromUrl) {
      if (basic)
        throw new BadInputError('prometheus-url carries user:password and basic auth is also given; use one');
      basic = fromUrl;
    }
    const schemes = [options.bearerToken !== undefined, basic !== undefined, options.sigv4 !== undefined];
    if (schemes.filter(Boolean).length > 1) {
      throw new BadInputError(
        'Prometheus auth: give only one of bearer token, basic auth and SigV4 (each sets Authorization)',
      );
    }
    if (options.bearerToken !== undefined) {
      headers['authorization'] = `Bearer ${options.bearerToken}`;
      registry.add(options.bearerToken);
      secrets.push(options.bearerToken);
    }
    if (basic) {
      const token = Buffer.from(`${basic.username}:${basic.password}`).toString('base64');
      headers['authorization'] = `Basic ${token}`;
      registry.addHeader(headers['authorization']);
      secrets.push(basic.password, token);
    }
    if (options.sigv4) {
      this.sigv4 = {
        region: options.sigv4.region,
        service: options.sigv4.service ?? 'aps',
        credentials: options.sigv4.credentials ?? defaultCredentials(),
      };
    }
    if (!base.pathname.endsWith('/')) base.pathname += '/';
    this.base = base;
    this.headers = headers;
    this.secretList = new Set(secrets);
    this.timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.budgetMs = options.budgetMs;
    this.method = options.method;
    this.clock = options.clock ?? systemClock;
    const clock = this.clock;
    this.now = options.now ?? (() => clock.now());
    this.maxAnswerBytes = options.maxAnswerBytes ?? MAX_ANSWER_BYTES;
    this.fetch = options.fetch ?? ((input, init) => fetch(input, init));
  }

  /** The secrets this source redacts, for front doors that must also mask them (e.g. `core.setSecret`). */
  secrets(): readonly string[] {
    return [...this.secretList];
  }

  /** Masks this source's secrets — and every other registered one — with the one redactor. */
  redact(text: string): string {
    return registry.redact(text);
  }

  /** The base URL without credentials, for display. */
  get url(): string {
    return this.base.toString();
  }

  async read(
    queries: readonly Query[],
    at: number,
    windowMs: number,
    signal?: AbortSignal,
  ): Promise<Reading[]> {
    // The tick's reads end within its window: a budget may shorten that, never stretch it into the next tick.
    // A long window (a budget's SLO window, 30 days) is what the query measures, not a deadline: the read
    // as a whole gets at most DEADLINES.prometheusRead.
    const deadline =
      this.now() +
      Math.min(
        this.budgetMs ?? windowMs,
        windowMs > 0 ? tickDeadline(windowMs, DEADLINES.prometheusRead) : 0,
      );
    return Promise.all(queries.map((q) => this.readOne(q, at, windowMs, deadline, signal)));
  }

  private async readOne(
    q: Query,
    at: number,
    windowMs: number,
    deadline: number,
    signal?: AbortSignal,
  ): Promise<Reading> {
    const promql = q.spec.prometheus;
    if (promql === undefined) {
      return { name: q.name, value: null, status: 'error', query: '', error: 'not a Prometheus query' };
    }
    const query = this.redact(substituteWindow(promql, windowMs));
    try {
      const outcome = await this.instant(substituteWindow(promql, windowMs), at, deadline, signal);
      if (!outcome.ok) {
        const status = outcome.noData ? 'no-data' : 'error';
        return { name: q.name, value: null, status, query, error: outcome.error };
      }
      const stale = this.staleness(`${q.name}\u0000${promql}`, outcome.data, at, windowMs);
      if (stale !== undefined) return { name: q.name, value: null, status: 'no-data', query, error: stale };
      const reading = interpretResult(q.name, query, outcome.data);
      return reading.error === undefined ? reading : { ...reading, error: this.redact(reading.error) };
    } catch (error) {
      return { name: q.name, value: null, status: 'error', query, error: this.redact(errorMessage(error)) };
    }
  }

  /**
   * Why the answer to query `key` is not for `at`: the sample time of this query's last accepted answer
   * again (a frozen answer), a sample time off `at` (see `sampleTimeProblem`), or one before the last
   * accepted. Only an accepted answer is remembered, so one lie does not taint the answers after it.
   */
  private staleness(key: string, data: QueryData, at: number, windowMs: number): string | undefined {
    const sampleMs = sampleTimeOf(data);
    if (sampleMs === undefined) return undefined;
    const previous = this.lastSample.get(key);
    const later = previous !== undefined && at > previous.at;
    if (later && sampleMs === previous.sampleMs) {
      return `frozen: the answer is stamped ${isoOf(sampleMs)} again, as at the read for ${isoOf(previous.at)}, though this read asked for ${seconds(at - previous.at)} later`;
    }
    const off = sampleTimeProblem(sampleMs, at, this.now(), windowMs);
    if (off !== undefined) return off;
    if (later && sampleMs < previous.sampleMs) {
      return `frozen: the answer is stamped ${isoOf(sampleMs)}, before the previous answer's ${isoOf(previous.sampleMs)}, though this read asked for ${seconds(at - previous.at)} later`;
    }
    if (previous === undefined || later) this.lastSample.set(key, { at, sampleMs });
    return undefined;
  }

  /**
   * One instant query at `at` (ms), retried on network errors, timeouts and 429/502/503/504 until
   * `deadline` (wall-clock ms). The whole query ends by the deadline even if a step ignores its signal
   * (a credentials provider, a body that trickles). Never throws; errors are redacted.
   */
  async instant(promql: string, at: number, deadline: number, signal?: AbortSignal): Promise<QueryOutcome> {
    if (signal?.aborted) return { ok: false, error: CANCELLED };
    const budget = deadline - this.now();
    if (!(budget > 0))
      return { ok: false, error: 'Prometheus timed out: the deadline passed before the query was sent' };
    try {
      return await withDeadline(
        (inner) => this.attempts(promql, at, deadline, inner),
        budget,
        'Prometheus',
        signal,
      );
    } catch (error) {
      if (isDeadlineError(error))
        return { ok: false, error: `Prometheus timed out: no answer within ${Math.round(budget)} ms` };
      if (signal?.aborted) return { ok: false, error: CANCELLED };
      return { ok: false, error: this.redact(errorMessage(error)) };
    }
  }

  private async attempts(
    promql: string,
    at: number,
    deadline: number,
    signal: AbortSignal,
  ): Promise<QueryOutcome> {
    let last: QueryOutcome = {
      ok: false,
      error: 'Prometheus timed out: the deadline passed before the query was sent',
    };
    for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
      const remaining = deadline - this.now();
      if (signal.aborted) return { ok: false, error: CANCELLED };
      if (remaining <= 0) break;
      const result = await this.attempt(promql, at, Math.min(this.timeoutMs, remaining), signal);
      if (result.outcome.ok || !result.retry) return result.outcome;
      last = result.outcome;
      const backoff = RETRY_BASE_MS * 2 ** (attempt - 1);
      if (attempt === MAX_ATTEMPTS || this.now() + backoff >= deadline) break;
      await this.clock.sleep(backoff, signal);
    }
    return { ok: false, error: this.redact(last.ok ? 'unexpected' : last.error) };
  }

  private async attempt(
    promql: string,
    at: number,
    timeoutMs: number,
    signal?: AbortSignal,
  ): Promise<{ outcome: QueryOutcome; retry: boolean }> {
    const params = new URLSearchParams({ query: promql, time: (at / 1000).toFixed(3) });
    const encoded = params.toString();
    const method = this.method ?? (encoded.length > MAX_GET_QUERY_CHARS ? 'POST' : 'GET');
    const url = new URL('api/v1/query', this.base);
    let body: string | undefined;
    const headers: Record<string, string> = { accept: 'application/json', ...this.headers };
    if (method === 'GET') url.search = encoded;
    else {
      body = encoded;
      headers['content-type'] = 'application/x-www-form-urlencoded';
    }
    const timeout = AbortSignal.timeout(clampTimerMs(Math.max(1, timeoutMs)));
    const combined = signal ? AbortSignal.any([signal, timeout]) : timeout;
    let sendHeaders = headers;
    if (this.sigv4) {
      try {
        sendHeaders = await this.sign(method, url, headers, body);
      } catch (error) {
        return { outcome: { ok: false, error: this.redact(errorMessage(error)) }, retry: false };
      }
    }
    let response: Response;
    try {
      response = await this.fetch(url, {
        method,
        headers: sendHeaders,
        body: body ?? null,
        signal: combined,
      });
    } catch (error) {
      if (timeout.aborted) {
        return {
          outcome: { ok: false, error: `Prometheus timed out: no answer within ${timeoutMs} ms` },
          retry: true,
        };
      }
      if (signal?.aborted) return { outcome: { ok: false, error: CANCELLED }, retry: false };
      return {
        outcome: {
          ok: false,
          error: this.redact(`cannot reach Prometheus at ${this.url}: ${errorMessage(error)}`),
        },
        retry: true,
      };
    }
    const tooLarge = {
      outcome: { ok: false as const, error: `Prometheus answer larger than ${this.maxAnswerBytes} bytes` },
      retry: false,
    };
    if (Number(response.headers.get('content-length') ?? '0') > this.maxAnswerBytes) {
      await response.body?.cancel().catch(() => undefined);
      return tooLarge;
    }
    let text: string | undefined;
    try {
      text = await readCapped(response, this.maxAnswerBytes);
    } catch (error) {
      if (timeout.aborted)
        return {
          outcome: { ok: false, error: `Prometheus timed out: no complete answer within ${timeoutMs} ms` },
          retry: true,
        };
      if (signal?.aborted) return { outcome: { ok: false, error: CANCELLED }, retry: false };
      return {
        outcome: { ok: false, error: this.redact(`Prometheus: ${errorMessage(error)}`) },
        retry: true,
      };
    }
    if (text === undefined) return tooLarge;
    return { outcome: this.outcomeOf(response, text), retry: RETRYABLE_STATUSES.has(response.status) };
  }

  private outcomeOf(response: Response, text: string): QueryOutcome {
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      const snippet = text.slice(0, 200).trim();
      return {
        ok: false,
        error: this.redact(
          `HTTP ${response.status} ${response.statusText} from Prometheus (not JSON): ${snippet}`,
        ),
      };
    }
    const body = (typeof json === 'object' && json !== null ? json : {}) as {
      status?: unknown;
      data?: unknown;
      errorType?: unknown;
      error?: unknown;
      warnings?: unknown;
      infos?: unknown;
    };
    if (body.status === 'success' && response.ok) {
      const malformed = malformedData(body.data);
      if (malformed !== undefined) {
        return {
          ok: false,
          noData: true,
          error: this.redact(`malformed answer: Prometheus said success, but ${malformed}`),
        };
      }
      // Prometheus, Thanos and Mimir say a result may be missing data (a store or querier that did not
      // answer, a limit hit) with `warnings` on an otherwise successful answer: not whole, not evidence.
      const warnings = annotations(body.warnings);
      if (warnings !== undefined) {
        return {
          ok: false,
          noData: true,
          error: this.redact(capReason(`partial answer: Prometheus warned: ${warnings.join('; ')}`)),
        };
      }
      const infos = annotations(body.infos);
      const data = body.data as QueryData;
      return infos ? { ok: true, data, infos: infos.map((i) => this.redact(i)) } : { ok: true, data };
    }
    const kind = typeof body.errorType === 'string' ? `${body.errorType}: ` : '';
    const message = typeof body.error === 'string' ? body.error : `unexpected response ${text.slice(0, 200)}`;
    return {
      ok: false,
      error: this.redact(capReason(`Prometheus ${kind}${message} (HTTP ${response.status})`)),
    };
  }

  private async sign(
    method: string,
    url: URL,
    headers: Record<string, string>,
    body: string | undefined,
  ): Promise<Record<string, string>> {
    const sigv4 = this.sigv4 as NonNullable<PrometheusSource['sigv4']>;
    const credentials = await sigv4.credentials();
    this.secretList.add(credentials.secretAccessKey);
    registry.add(credentials.secretAccessKey);
    registry.add(credentials.accessKeyId);
    if (credentials.sessionToken) {
      this.secretList.add(credentials.sessionToken);
      registry.add(credentials.sessionToken);
    }
    return signRequest(
      { method, url, headers, body },
      { region: sigv4.region, service: sigv4.service, credentials },
    );
  }
}
