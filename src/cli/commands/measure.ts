/**
 * `chaos-gate measure <plan>`: measures one window of every SLI now and prints each value, its bound,
 * its status and the request count — how a user checks a plan's queries before any experiment.
 * Exit 0 when every SLI is ok, 1 otherwise, 2 for bad usage or an invalid plan.
 */
import { sleepFor } from '../../net/timer.js';
import { resolve } from 'node:path';
import { createCloudWatchClient } from '../../injector/aws/clients.js';
import { REQUESTS_QUERY } from '../../engine/run.js';
import type { SliStatus } from '../../journal/types.js';
import { boundText, sliBound, statusOf, withinBound } from '../../engine/bounds.js';
import { formatValue } from '../../journal/format.js';
import { CloudWatchSourceImpl } from '../../metrics/cloudwatch/index.js';
import {
  createMetricSources,
  prometheusOptionsFrom,
  readAll,
  type MetricSources,
} from '../../metrics/index.js';
import type { Query, Reading } from '../../metrics/source.js';
import { formatIssue, loadPlan, PlanError, type LoadedPlan } from '../../plan/load.js';
import { resolvePlanEnv } from '../../plan/env.js';
import { registerPlanSecrets } from '../../compose/run.js';
import { checkSetup, SettingError } from '../../compose/setup.js';
import type { Plan } from '../../plan/schema.js';
import { formatDuration } from '../../plan/duration.js';
import { parseFlags, UsageError, type CliCommand } from '../command.js';
import { exitCodesHelp } from '../exit-codes.js';
import { errorMessage } from '../../errors/message.js';

/** Exit code when the plan cannot be read or is invalid (docs/design/verdicts.md). */
const EXIT_INVALID = 2;

/** One SLI's measurement as printed. */
export interface MeasuredSli {
  name: string;
  value: number | null;
  bound: string;
  status: SliStatus;
  query: string;
  error?: string;
}

/** One expectation's measurement: informational, since expectations are meant for the fault. */
export interface MeasuredExpectation {
  name: string;
  value: number | null;
  /** `>= 1`, `<= 0`, … */
  wants: string;
  status: 'seen' | 'not-seen' | 'no-data' | 'error';
  query: string;
  error?: string;
}

/** What `measure` found; `--json` prints it as is. */
export interface MeasureResult {
  file: string;
  at: string;
  windowMs: number;
  requests: {
    value: number | null;
    minRequests: number;
    status: SliStatus;
    query: string;
    error?: string;
  } | null;
  slis: MeasuredSli[];
  expect: MeasuredExpectation[];
  ok: boolean;
}

/** Time for `measurePlan`: a real clock in the CLI, a controllable one in tests. */
export interface MeasureClock {
  now(): number;
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

function sourceOf(
  x: Pick<Plan['hypothesis']['slis'][number], 'prometheus' | 'cloudwatch' | 'scrape'>,
): Query['spec'] {
  return { prometheus: x.prometheus, cloudwatch: x.cloudwatch, scrape: x.scrape };
}

function wantsOf(e: Plan['hypothesis']['expect'][number]): string {
  const parts: string[] = [];
  if (e.atLeast !== undefined) parts.push(`>= ${formatValue(e.atLeast)}`);
  if (e.atMost !== undefined) parts.push(`<= ${formatValue(e.atMost)}`);
  return parts.join(' and ');
}

function withError<T extends object>(row: T, error: string | undefined): T & { error?: string } {
  return error === undefined ? row : { ...row, error };
}

/**
 * Measures one window (the plan's interval) of every SLI, expectation and the request count. Scrape
 * sources are primed one interval earlier, since they measure the difference between two scrapes.
 */
export async function measurePlan(
  plan: Plan,
  file: string,
  sources: MetricSources,
  clock: MeasureClock,
  signal?: AbortSignal,
): Promise<MeasureResult> {
  const windowMs = plan.hypothesis.interval;
  const queries: Query[] = [
    ...plan.hypothesis.slis.map((s) => ({ name: s.name, spec: sourceOf(s) })),
    ...plan.hypothesis.expect.map((e) => ({ name: e.name, spec: sourceOf(e) })),
  ];
  if (plan.hypothesis.requests)
    queries.push({ name: REQUESTS_QUERY, spec: sourceOf(plan.hypothesis.requests) });

  const scrapes = queries.filter((q) => q.spec.scrape !== undefined);
  if (scrapes.length > 0) {
    await readAll(sources, scrapes, clock.now(), windowMs, signal);
    await clock.sleep(windowMs, signal);
  }
  const at = clock.now();
  const readings = await readAll(sources, queries, at, windowMs, signal);
  const byName = new Map<string, Reading>(readings.map((r) => [r.name, r]));

  const minRequests = plan.hypothesis.minRequests;
  const req = byName.get(REQUESTS_QUERY);
  let requests: MeasureResult['requests'] = null;
  let starved: string | undefined;
  if (req) {
    let status: SliStatus = req.status;
    if (req.status === 'ok' && req.value !== null && req.value < minRequests) {
      status = 'no-data';
      starved = `${formatValue(req.value)} requests in the window < minRequests ${minRequests}`;
    }
    requests = withError({ value: req.value, minRequests, status, query: req.query }, req.error ?? starved);
  }

  const slis = plan.hypothesis.slis.map((s): MeasuredSli => {
    const r = byName.get(s.name) as Reading;
    const bound = boundText(sliBound(s));
    if (starved !== undefined) {
      return { name: s.name, value: r.value, bound, status: 'no-data', query: r.query, error: starved };
    }
    return withError(
      { name: s.name, value: r.value, bound, status: statusOf(r, sliBound(s)), query: r.query },
      r.error,
    );
  });

  const expect = plan.hypothesis.expect.map((e): MeasuredExpectation => {
    const r = byName.get(e.name) as Reading;
    const wants = wantsOf(e);
    let status: MeasuredExpectation['status'] = r.status === 'ok' ? 'seen' : r.status;
    if (r.status === 'ok' && r.value !== null) {
      const low = e.atLeast === undefined || withinBound({ min: e.atLeast }, r.value);
      const high = e.atMost === undefined || withinBound({ max: e.atMost }, r.value);
      status = low && high ? 'seen' : 'not-seen';
    }
    return withError({ name: e.name, value: r.value, wants, status, query: r.query }, r.error);
  });

  const ok =
    slis.every((s) => s.status === 'ok') &&
    (requests === null || requests.status === 'ok') &&
    expect.every((e) => e.status !== 'error');
  return { file, at: new Date(at).toISOString(), windowMs, requests, slis, expect, ok };
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/** The human-readable table of a measurement. */
export function formatMeasure(result: MeasureResult): string {
  const lines = [`${result.file}: one ${formatDuration(result.windowMs)} window at ${result.at}`];
  if (result.requests) {
    const r = result.requests;
    const value = r.value === null ? '-' : formatValue(r.value);
    lines.push(
      `requests ${value} (minRequests ${r.minRequests}) ${r.status}${r.error ? `: ${r.error}` : ''}`,
    );
  }
  const rows = result.slis.map((s) => [
    s.name,
    s.value === null ? '-' : formatValue(s.value),
    s.bound,
    s.status,
  ]);
  const expectRows = result.expect.map((e) => [
    e.name,
    e.value === null ? '-' : formatValue(e.value),
    e.wants,
    e.status,
  ]);
  const header = ['SLI', 'VALUE', 'BOUND', 'STATUS'];
  const all = [header, ...rows, ...expectRows];
  const widths = header.map((_, i) => Math.max(...all.map((r) => (r[i] ?? '').length)));
  const fmt = (r: string[]): string =>
    r
      .map((c, i) => c.padEnd(widths[i] ?? 0))
      .join('  ')
      .trimEnd();
  lines.push(fmt(header));
  result.slis.forEach((s, i) => {
    lines.push(fmt(rows[i] ?? []));
    lines.push(`    query: ${oneLine(s.query)}`);
    if (s.error) lines.push(`    ${s.status === 'error' ? 'error' : 'note'}: ${s.error}`);
  });
  if (result.expect.length > 0) {
    lines.push('expectations (observed during a fault; shown for checking the queries):');
    result.expect.forEach((e, i) => {
      lines.push(fmt(expectRows[i] ?? []));
      lines.push(`    query: ${oneLine(e.query)}`);
      if (e.error) lines.push(`    ${e.status === 'error' ? 'error' : 'note'}: ${e.error}`);
    });
  }
  lines.push(result.ok ? 'all SLIs ok' : 'not all SLIs ok');
  return lines.join('\n');
}

const usage = `Usage: chaos-gate measure <plan> [--json] [--prometheus-url URL] [--prometheus-header 'Name: value']...

Measures one window (hypothesis.interval) of every SLI of the plan now and prints each value,
its bound, its status and the request count. Scrape SLIs scrape twice, one interval apart.
Nothing is injected.

Options:
  --prometheus-url URL          Prometheus HTTP API base URL (default: $CHAOS_GATE_PROMETHEUS_URL)
  --prometheus-header 'K: V'    extra request header, repeatable (e.g. X-Scope-OrgID: tenant)
  --json                        print one JSON object {file, at, windowMs, requests, slis, expect, ok}
  -h, --help                    show this help

Environment (secrets belong here, not in flags):
  CHAOS_GATE_PROMETHEUS_BEARER_TOKEN, CHAOS_GATE_PROMETHEUS_USERNAME / _PASSWORD,
  CHAOS_GATE_PROMETHEUS_HEADERS (newline-separated 'Name: value'),
  CHAOS_GATE_PROMETHEUS_SIGV4_REGION (signs for Amazon Managed Prometheus with AWS_* credentials)

${exitCodesHelp('measure')}`;

export const measure: CliCommand = {
  name: 'measure',
  usage,
  async run(argv, io) {
    const parsed = parseFlags(argv, {
      json: { type: 'boolean', default: false },
      'prometheus-url': { type: 'string' },
      'prometheus-header': { type: 'string', multiple: true },
    });
    const [file, ...extra] = parsed.positionals;
    if (file === undefined) throw new UsageError('missing the plan file argument');
    if (extra.length > 0) throw new UsageError(`expected one plan file, got also: ${extra.join(' ')}`);

    let loaded: LoadedPlan;
    try {
      loaded = await loadPlan(resolve(io.cwd, file), file);
    } catch (error) {
      if (error instanceof PlanError) {
        for (const issue of error.issues) io.err(formatIssue(issue));
        return EXIT_INVALID;
      }
      throw error;
    }
    const plan = loaded.plan;
    let sources: MetricSources;
    try {
      const planEnv = resolvePlanEnv(plan, io.env);
      registerPlanSecrets(plan, planEnv);
      const prometheus = prometheusOptionsFrom(
        { url: parsed.values['prometheus-url'], headers: parsed.values['prometheus-header'] },
        io.env,
      );
      // A missing setting is bad input (exit 2), not a measurement that failed: nothing was measured.
      // The same check as `run` (compose/setup.ts), for the parts `measure` reads.
      checkSetup(loaded, { prometheus: prometheus !== undefined, cloudwatch: true, scrape: true }, [
        'hypothesis',
      ]);
      const usesCloudWatch =
        [...plan.hypothesis.slis, ...plan.hypothesis.expect].some((s) => s.cloudwatch) ||
        plan.hypothesis.requests?.cloudwatch !== undefined;
      sources = createMetricSources({
        prometheus,
        scrape: { env: planEnv.values },
        cloudwatch: usesCloudWatch
          ? new CloudWatchSourceImpl(createCloudWatchClient({ env: io.env }))
          : undefined,
      });
    } catch (error) {
      if (error instanceof SettingError) throw error;
      throw new UsageError(errorMessage(error));
    }
    const clock: MeasureClock = {
      now: () => Date.now(),
      sleep: (ms) => sleepFor(ms),
    };
    const result = await measurePlan(plan, file, sources, clock);
    io.out(parsed.values.json ? JSON.stringify(result, null, 2) : formatMeasure(result));
    return result.ok ? 0 : 1;
  },
};
