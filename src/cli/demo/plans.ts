/**
 * The demo's two plans and their Prometheus variants.
 *
 * A plan names one source per SLI and cannot switch by itself, so the fixture plans read the canary's
 * /metrics directly (the scrape source: works everywhere) and, when a Prometheus server is available,
 * the demo writes a copy whose every scrape definition is replaced by the PromQL below — the same
 * numbers computed by Prometheus — and runs that copy. Bounds, abort rules and the FIS part are
 * untouched, so the verdicts mean the same thing in both modes.
 */
import { isMap, isSeq, parseDocument, Scalar, type YAMLMap } from 'yaml';
import { parseYamlDocument, type DocumentOptions } from '../../files/document.js';
import { loadYamlDocumentSync } from '../../files/load.js';
import { readFileBoundedSync } from '../../files/read.js';
import type { Verdict } from '../../journal/types.js';
import { MAX_PLAN_BYTES } from '../../plan/load.js';

/** One run of the demo. */
export interface DemoPlan {
  /** The fixture, relative to the repository (or installed package) root. */
  file: string;
  /** The canary's fallback for this run (admin `PUT /canary {"fallback"}`). */
  fallback: boolean;
  /** The verdict the demo expects; any other makes `chaos-gate demo` exit 1. */
  expected: Verdict;
  /** One line on what the run shows. */
  story: string;
}

/** The two runs, in order: the fallback holds, then the same partition without it. */
export const DEMO_PLANS: readonly DemoPlan[] = [
  {
    file: 'fixtures/plans/demo-holds.yaml',
    fallback: true,
    expected: 'held',
    story: 'canary fallback ON: the breaker opens, requests stay fast and successful',
  },
  {
    file: 'fixtures/plans/demo-aborts.yaml',
    fallback: false,
    expected: 'aborted',
    story: 'canary fallback OFF: requests fail, a tripwire stops the experiment',
  },
];

/**
 * Range of the Prometheus rates. Prometheus scrapes every 1 s and `rate` needs two samples, so the
 * window must span at least two scrapes; 3 s still has two when one scrape lands late.
 */
export const PROMQL_WINDOW = '3s';

/** The query the demo waits on before the first run: the canary's request rate has data. */
export const PROMETHEUS_READY_QUERY = `sum(rate(http_requests_total[${PROMQL_WINDOW}]))`;

/**
 * PromQL for every scrape definition in the demo plans, by SLI/expectation name (`requests` is the
 * request-count query). The request count is a per-second rate, which at the plans' 1 s interval is
 * the number of requests per window that `minRequests` is compared with.
 */
export const DEMO_PROMQL: Readonly<Record<string, string>> = {
  requests: PROMETHEUS_READY_QUERY,
  error_ratio: `sum(rate(http_requests_total{status="503"}[${PROMQL_WINDOW}])) / sum(rate(http_requests_total[${PROMQL_WINDOW}]))`,
  p95_latency_s: `histogram_quantile(0.95, sum by (le) (rate(http_request_duration_seconds_bucket[${PROMQL_WINDOW}])))`,
  breaker_opened: 'max(circuit_breaker_open)',
};

/** Replaces the `scrape` pair of `map` by `prometheus: <query>`, in place (keeps order and comments). */
function toPrometheus(
  map: YAMLMap,
  name: string,
  file: string,
  queries: Readonly<Record<string, string>>,
): void {
  const pair = map.items.find((p) => (p.key instanceof Scalar ? p.key.value : p.key) === 'scrape');
  if (!pair) return;
  const query = queries[name];
  if (query === undefined)
    throw new Error(
      `${file}: ${name} reads a scrape source, but the demo has no PromQL for it (src/cli/demo/plans.ts)`,
    );
  pair.key = new Scalar('prometheus');
  pair.value = new Scalar(query);
}

function nameOf(map: YAMLMap): string {
  const v = map.get('name');
  return typeof v === 'string' ? v : '';
}

/**
 * The Prometheus variant of a demo plan's YAML: every scrape source (request count, SLIs,
 * expectations) becomes the matching PromQL of `queries`. Throws when a scrape source has no query.
 */
export function prometheusVariant(
  text: string,
  file: string,
  queries: Readonly<Record<string, string>> = DEMO_PROMQL,
): string {
  // The one loader's limits (size, aliases, unique keys, no custom tags) hold before the text is edited.
  parseYamlDocument(text, demoPlanFile(file));
  const doc = parseDocument(text);
  const hypothesis = doc.get('hypothesis');
  if (!isMap(hypothesis)) throw new Error(`${file}: no hypothesis`);
  const requests = hypothesis.get('requests');
  if (isMap(requests)) toPrometheus(requests, 'requests', file, queries);
  for (const key of ['slis', 'expect']) {
    const list = hypothesis.get(key);
    if (!isSeq(list)) continue;
    for (const item of list.items) if (isMap(item)) toPrometheus(item, nameOf(item), file, queries);
  }
  // The schema hint is relative to the fixture's folder; the variant lives elsewhere.
  const body = doc.toString({ lineWidth: 0 }).replace(/^# yaml-language-server:.*\n(#\n)?/m, '');
  return `# Written by \`chaos-gate demo\` from ${file}: the same plan, its SLIs read from Prometheus.\n${body}`;
}

function demoPlanFile(file: string): DocumentOptions {
  return { file, what: 'plan file', maxBytes: MAX_PLAN_BYTES, limitName: 'MAX_PLAN_BYTES' };
}

/** The `id` of a plan file (it names the check run and the output files). */
export function planIdOf(file: string): string {
  const data = loadYamlDocumentSync(file, demoPlanFile(file)).data;
  const id = data !== null && typeof data === 'object' ? (data as Record<string, unknown>)['id'] : undefined;
  if (typeof id !== 'string' || id === '') throw new Error(`${file}: the plan has no id`);
  return id;
}

/** Reads a demo plan (a regular file, capped while reading) and returns its Prometheus variant. */
export function prometheusVariantOf(file: string): string {
  return prometheusVariant(
    readFileBoundedSync(file, { what: 'plan file', maxBytes: MAX_PLAN_BYTES }).text,
    file,
  );
}
