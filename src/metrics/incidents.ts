/**
 * "Is an incident open right now?" for the schedule gate: a Prometheus query whose non-empty result means
 * yes (e.g. `ALERTS{alertstate="firing", severity="page"}`). Other sources (a CloudWatch alarm state)
 * implement the same `IncidentCheck` interface.
 */
import { formatLabels, type PrometheusSource } from './prometheus/source.js';

/** Deadline for one incident query when the caller gives none; preflight is not on a tick budget. */
export const DEFAULT_INCIDENT_BUDGET_MS = 10_000;

/** How many open series the detail lists. */
const MAX_LISTED = 5;

/**
 * The answer of an incident check. When the question cannot be answered (`error` set), `open` is true:
 * an unknown incident state must not let an experiment start (fail closed).
 */
export interface IncidentStatus {
  open: boolean;
  /** What was seen: the open series, or `no series` — suitable for a refusal reason. */
  detail: string;
  error?: string;
}

/** One way of asking whether an incident is open. */
export interface IncidentCheck {
  /** The query or alarm name, for reasons and the journal. */
  readonly describe: string;
  check(at: number, signal?: AbortSignal): Promise<IncidentStatus>;
}

/** Runs `query` at `at` (ms): any series (or a non-zero scalar) in the result means an incident is open. */
export async function incidentOpen(
  query: string,
  source: PrometheusSource,
  at: number,
  options: { budgetMs?: number; signal?: AbortSignal } = {},
): Promise<IncidentStatus> {
  const deadline = Date.now() + (options.budgetMs ?? DEFAULT_INCIDENT_BUDGET_MS);
  const outcome = await source.instant(query, at, deadline, options.signal);
  if (!outcome.ok) {
    return {
      open: true,
      detail: `cannot tell whether an incident is open: ${outcome.error}`,
      error: outcome.error,
    };
  }
  const data = outcome.data;
  if (data.resultType === 'vector') {
    if (data.result.length === 0) return { open: false, detail: 'no series' };
    const listed = data.result.slice(0, MAX_LISTED).map((s) => formatLabels(s.metric));
    const more = data.result.length > MAX_LISTED ? ` and ${data.result.length - MAX_LISTED} more` : '';
    return { open: true, detail: `${data.result.length} series: ${listed.join(', ')}${more}` };
  }
  if (data.resultType === 'scalar') {
    const value = Number(data.result[1]);
    const open = !Number.isNaN(value) && value !== 0;
    return { open, detail: `scalar ${data.result[1]}` };
  }
  const error = `incident query '${query}' returned a ${data.resultType}; expected an instant vector`;
  return { open: true, detail: error, error };
}

/** An `IncidentCheck` over a Prometheus query. */
export function prometheusIncidentCheck(
  query: string,
  source: PrometheusSource,
  budgetMs?: number,
): IncidentCheck {
  return {
    describe: query,
    check: (at, signal) =>
      incidentOpen(query, source, at, {
        ...(budgetMs !== undefined ? { budgetMs } : {}),
        ...(signal ? { signal } : {}),
      }),
  };
}

/**
 * The SLO store `budget.from` reads (preflight/budget-store.ts): one instant query at `at`, its series
 * and their values. Anything but an instant vector is an error, never an empty answer.
 */
export function prometheusBudgetStore(source: PrometheusSource): {
  instant(
    query: string,
    at: number,
    signal?: AbortSignal,
  ): Promise<{ series: { labels: Record<string, string>; value: number }[] } | { error: string }>;
} {
  return {
    async instant(query, at, signal) {
      const outcome = await source.instant(query, at, Date.now() + DEFAULT_INCIDENT_BUDGET_MS, signal);
      if (!outcome.ok) return { error: outcome.error };
      if (outcome.data.resultType !== 'vector')
        return { error: `the answer is a ${outcome.data.resultType}; expected an instant vector` };
      return {
        series: outcome.data.result.map((s) => ({ labels: s.metric, value: Number(s.value[1]) })),
      };
    },
  };
}
