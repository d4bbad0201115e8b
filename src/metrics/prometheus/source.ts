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
 */
import { clampTimerMs } from '../../net/timer.js';
import { systemClock, type Clock } from '../../clock/clock.js';
import { DEADLINES, isDeadlineError, tickDeadline, withDeadline } from '../../net/deadline.js';
import type { MetricSource, Query, Reading } from '../source.js';
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
}

/** The `data` of a successful Prometheus query response. */
export type QueryData =
  | { resultType: 'vector'; result: { metric: Record<string, string>; value: [number, string] }[] }
  | { resultType: 'matrix'; result: { metric: Record<string, string>; values: [number, string][] }[] }
  | { resultType: 'scalar' | 'string'; result: [number, string] };

/** The outcome of one instant query: data, or an error message that is already redacted. */
export type QueryOutcome = { ok: true; data: QueryData; warnings?: string[] } | { ok: false; error: string };

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

/** Parses a Prometheus sample value string (`"0.25"`, `"NaN"`, `"+Inf"`). */
function sampleValue(text: string): number {
  if (text === '+Inf' || text === 'Inf') return Infinity;
  if (text === '-Inf') return -Infinity;
  return Number(text);
}

/** Turns a query result into a reading: one number, no-data, or an error that names the query. */
export function interpretResult(name: string, query: string, data: QueryData): Reading {
  const reading = (value: number): Reading =>
    Number.isNaN(value)
      ? { name, value: null, status: 'no-data', query, error: 'the query returned NaN' }
      : { name, value, status: 'ok', query };
  switch (data.resultType) {
    case 'scalar':
      return reading(sampleValue(data.result[1]));
    case 'vector': {
      const series = data.result;
      if (series.length === 0) return { name, value: null, status: 'no-data', query, error: 'empty result' };
      if (series.length === 1) return reading(sampleValue((series[0] as (typeof series)[number]).value[1]));
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
      this.now() + Math.min(this.budgetMs ?? windowMs, tickDeadline(windowMs, DEADLINES.prometheusRead));
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
      if (!outcome.ok) return { name: q.name, value: null, status: 'error', query, error: outcome.error };
      const reading = interpretResult(q.name, query, outcome.data);
      return reading.error === undefined ? reading : { ...reading, error: this.redact(reading.error) };
    } catch (error) {
      return { name: q.name, value: null, status: 'error', query, error: this.redact(errorMessage(error)) };
    }
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
      response = await fetch(url, { method, headers: sendHeaders, body: body ?? null, signal: combined });
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
    let text: string;
    try {
      text = await response.text();
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
    const body = json as {
      status?: string;
      data?: QueryData;
      errorType?: string;
      error?: string;
      warnings?: string[];
    };
    if (body.status === 'success' && response.ok && body.data) {
      return body.warnings
        ? { ok: true, data: body.data, warnings: body.warnings }
        : { ok: true, data: body.data };
    }
    const kind = body.errorType ? `${body.errorType}: ` : '';
    const message = body.error ?? `unexpected response ${text.slice(0, 200)}`;
    return { ok: false, error: this.redact(`Prometheus ${kind}${message} (HTTP ${response.status})`) };
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
