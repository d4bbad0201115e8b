/**
 * The one place metric sources are built from typed options, plus the helpers front doors need to read
 * Prometheus settings from flags and the environment. Front doors call `createMetricSources` once and
 * pass the result to the engine, which knows only the `MetricSource` interface.
 */
import { PrometheusSource, type PrometheusOptions } from './prometheus/source.js';
import { BadInputError } from '../errors/bad-input.js';
import { redact, secrets } from '../security/redact.js';
import { ScrapeMetricSource, type ScrapeOptions } from './scrape/source.js';
import {
  finiteOnly,
  sourceKindOf,
  type MetricSource,
  type Query,
  type Reading,
  type SourceKind,
} from './source.js';

export { PrometheusSource, substituteWindow, type PrometheusOptions } from './prometheus/source.js';
export { REDACTED } from '../security/redact.js';
export { credentialsFromEnv, type CredentialsProvider, type AwsCredentials } from './prometheus/sigv4.js';
export { ScrapeMetricSource, type ScrapeOptions } from './scrape/source.js';
export {
  incidentOpen,
  prometheusBudgetStore,
  prometheusIncidentCheck,
  type IncidentCheck,
  type IncidentStatus,
} from './incidents.js';

/** The environment variables the Prometheus settings may come from (flags and action inputs win). */
export const PROMETHEUS_ENV = {
  url: 'CHAOS_GATE_PROMETHEUS_URL',
  bearerToken: 'CHAOS_GATE_PROMETHEUS_BEARER_TOKEN',
  username: 'CHAOS_GATE_PROMETHEUS_USERNAME',
  password: 'CHAOS_GATE_PROMETHEUS_PASSWORD',
  /** Newline-separated `Name: value` lines. */
  headers: 'CHAOS_GATE_PROMETHEUS_HEADERS',
  /** Setting a region turns on SigV4 signing for Amazon Managed Prometheus. */
  sigv4Region: 'CHAOS_GATE_PROMETHEUS_SIGV4_REGION',
} as const;

/** Sources by kind; a kind is absent when nothing configures it. */
export type MetricSources = Partial<Record<SourceKind, MetricSource>>;

/** What `createMetricSources` builds from. The CloudWatch source is built by its own module and passed in. */
export interface MetricSourcesOptions {
  prometheus?: PrometheusOptions | undefined;
  scrape?: ScrapeOptions | undefined;
  cloudwatch?: MetricSource | undefined;
}

/** Builds every configured source. Throws (an edge error) on contradictory Prometheus options. */
export function createMetricSources(options: MetricSourcesOptions): MetricSources {
  const sources: MetricSources = { scrape: new ScrapeMetricSource(options.scrape ?? {}) };
  if (options.prometheus) sources.prometheus = new PrometheusSource(options.prometheus);
  if (options.cloudwatch) sources.cloudwatch = options.cloudwatch;
  return sources;
}

/**
 * Parses a `Name: value` header line. The error never quotes the value, which may be a secret.
 */
export function parseHeaderLine(line: string): [string, string] {
  const colon = line.indexOf(':');
  const name = colon > 0 ? line.slice(0, colon).trim() : '';
  const value = colon > 0 ? line.slice(colon + 1).trim() : '';
  // The value is a secret even in a malformed line: register it before any message can show it.
  secrets.addHeader(value || line);
  if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name)) {
    throw new BadInputError(
      `Prometheus header '${colon > 0 ? redact(name) : '(no name)'}' is not 'Name: value'; expected an HTTP header name, a colon and the value`,
    );
  }
  return [name, value];
}

/** The Prometheus inputs a front door collects (flags or action inputs); unset ones fall back to the env. */
export interface PrometheusInputs {
  url?: string | undefined;
  /** `Name: value` lines. */
  headers?: readonly string[] | undefined;
  bearerToken?: string | undefined;
  sigv4Region?: string | undefined;
  timeoutMs?: number | undefined;
}

/**
 * Resolves Prometheus options from explicit inputs and the environment (`PROMETHEUS_ENV`). Returns
 * undefined when no URL is configured. Secrets are best given through the environment, not flags, so
 * they do not show in process listings.
 */
export function prometheusOptionsFrom(
  inputs: PrometheusInputs,
  env: Record<string, string | undefined>,
): PrometheusOptions | undefined {
  const url = inputs.url ?? env[PROMETHEUS_ENV.url];
  // Every credential below is a secret wherever it comes from (flag, input or environment), whether or
  // not a URL is configured: registered with the one redactor before anything can print it.
  secrets.addUrl(url);
  secrets.add(inputs.bearerToken ?? env[PROMETHEUS_ENV.bearerToken]);
  secrets.add(env[PROMETHEUS_ENV.password]);
  if (url === undefined || url === '') return undefined;
  const headers: Record<string, string> = {};
  const lines = [...(env[PROMETHEUS_ENV.headers] ?? '').split('\n'), ...(inputs.headers ?? [])];
  for (const line of lines) {
    if (line.trim() === '') continue;
    const [name, value] = parseHeaderLine(line);
    headers[name] = value;
  }
  const options: PrometheusOptions = { url };
  if (Object.keys(headers).length > 0) options.headers = headers;
  const bearerToken = inputs.bearerToken ?? env[PROMETHEUS_ENV.bearerToken];
  if (bearerToken) options.bearerToken = bearerToken;
  const username = env[PROMETHEUS_ENV.username];
  const password = env[PROMETHEUS_ENV.password];
  if (username !== undefined || password !== undefined) {
    options.basicAuth = { username: username ?? '', password: password ?? '' };
  }
  const region = inputs.sigv4Region ?? env[PROMETHEUS_ENV.sigv4Region];
  if (region) options.sigv4 = { region, service: 'aps' };
  if (inputs.timeoutMs !== undefined) options.timeoutMs = inputs.timeoutMs;
  return options;
}

/**
 * Reads queries of several kinds in one tick: each source gets its own queries (concurrently), and the
 * readings come back in the order of `queries`. A kind without a source yields error readings.
 */
export async function readAll(
  sources: MetricSources,
  queries: readonly Query[],
  at: number,
  windowMs: number,
  signal?: AbortSignal,
): Promise<Reading[]> {
  const byKind = new Map<SourceKind, { index: number; query: Query }[]>();
  queries.forEach((query, index) => {
    const kind = sourceKindOf(query.spec);
    byKind.set(kind, [...(byKind.get(kind) ?? []), { index, query }]);
  });
  const out: Reading[] = new Array<Reading>(queries.length);
  await Promise.all(
    [...byKind].map(async ([kind, items]) => {
      const source = sources[kind];
      const readings: Reading[] = source
        ? await source.read(
            items.map((i) => i.query),
            at,
            windowMs,
            signal,
          )
        : items.map((i) => ({
            name: i.query.name,
            value: null,
            status: 'error' as const,
            query: '',
            error:
              kind === 'prometheus'
                ? 'no Prometheus URL configured (--prometheus-url or CHAOS_GATE_PROMETHEUS_URL)'
                : `no ${kind} source configured`,
          }));
      items.forEach((item, k) => {
        const reading = readings[k];
        out[item.index] = reading
          ? finiteOnly(reading)
          : {
              name: item.query.name,
              value: null,
              status: 'error',
              query: '',
              error: `the ${kind} source returned no reading`,
            };
      });
    }),
  );
  return out;
}
