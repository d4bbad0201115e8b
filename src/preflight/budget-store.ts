/**
 * `budget.from`: the error budget where the team keeps it — the recording rules Sloth or Pyrra generate,
 * read from Prometheus at the start. The store gives three numbers per SLO:
 *
 * - Sloth: `slo:period_error_budget_remaining:ratio` (the share of the period's budget left: 1 untouched,
 *   0 spent, below 0 overspent), `slo:objective:ratio` (0.999) and `slo:time_period:days` (30), each
 *   with the labels `sloth_service` and `sloth_slo`;
 * - Pyrra: `pyrra_availability` (good share over the window), `pyrra_objective` (0.99) and
 *   `pyrra_window` (seconds), each with the label `slo`; the share left is
 *   (availability − objective) ÷ (1 − objective).
 *
 * Each query must answer exactly one finite series: none (the rules are not loaded, or not evaluated
 * yet), several (the labels do not single the SLO out) or NaN (no traffic in the window) is no evidence,
 * and the gate is `not-run` with the series named — never a pass.
 */
import type { Plan } from '../plan/schema.js';

type From = NonNullable<NonNullable<Plan['budget']>['from']>;

/** One instant query against the SLO store: the series of the answer, or why there are none. */
export interface BudgetStore {
  instant(
    query: string,
    at: number,
    signal?: AbortSignal,
  ): Promise<{ series: { labels: Record<string, string>; value: number }[] } | { error: string }>;
}

/** What the store says about one SLO. */
export interface StoreBudget {
  /** `Sloth` or `Pyrra`. */
  store: string;
  objective: number;
  windowMs: number;
  /** Share of the window's budget left (1 untouched, ≤ 0 spent). */
  remaining: number;
  /** The series the remaining share was read from, and its value, for reasons. */
  evidence: string;
  /** The series the objective and the window came from, for the journal. */
  sources: string;
}

function selector(metric: string, labels: Record<string, string>): string {
  const inner = Object.entries(labels)
    .map(([k, v]) => `${k}=${JSON.stringify(v)}`)
    .join(', ');
  return `${metric}{${inner}}`;
}

/** `0.999`, `-12.5`: a store's value as a reason quotes it (up to 6 significant digits). */
function shown(v: number): string {
  return String(Number(v.toPrecision(6)));
}

async function one(store: BudgetStore, query: string, at: number, signal?: AbortSignal): Promise<number> {
  const answer = await store.instant(query, at, signal);
  if ('error' in answer) throw new Error(`${query}: ${answer.error}`);
  const n = answer.series.length;
  if (n === 0) throw new Error(`${query}: no series (are the recording rules loaded and evaluated?)`);
  if (n > 1) throw new Error(`${query}: ${n} series; expected one for the SLO`);
  const value = (answer.series[0] as { value: number }).value;
  if (!Number.isFinite(value))
    throw new Error(`${query}: ${value}, not a finite number (no traffic in the window?)`);
  return value;
}

/** Reads the SLO's budget from the store; throws naming the series that could not be read. */
export async function readStoreBudget(
  from: From,
  store: BudgetStore,
  at: number,
  signal?: AbortSignal,
): Promise<StoreBudget> {
  if ('sloth' in from) {
    const labels = { sloth_service: from.sloth.service, sloth_slo: from.sloth.slo };
    const q = {
      remaining: selector('slo:period_error_budget_remaining:ratio', labels),
      objective: selector('slo:objective:ratio', labels),
      days: selector('slo:time_period:days', labels),
    };
    const [remaining, objective, days] = await Promise.all([
      one(store, q.remaining, at, signal),
      one(store, q.objective, at, signal),
      one(store, q.days, at, signal),
    ]);
    check(objective, days * 86_400_000, q.objective, q.days);
    return {
      store: 'Sloth',
      objective,
      windowMs: days * 86_400_000,
      remaining,
      evidence: `${q.remaining} = ${shown(remaining)}`,
      sources: `${q.objective} = ${shown(objective)}, ${q.days} = ${shown(days)}`,
    };
  }
  const labels = { slo: from.pyrra.slo };
  const q = {
    availability: selector('pyrra_availability', labels),
    objective: selector('pyrra_objective', labels),
    window: selector('pyrra_window', labels),
  };
  const [availability, objective, seconds] = await Promise.all([
    one(store, q.availability, at, signal),
    one(store, q.objective, at, signal),
    one(store, q.window, at, signal),
  ]);
  check(objective, seconds * 1000, q.objective, q.window);
  const remaining = (availability - objective) / (1 - objective);
  return {
    store: 'Pyrra',
    objective,
    windowMs: seconds * 1000,
    remaining,
    evidence: `${q.availability} = ${shown(availability)} against ${q.objective} = ${shown(objective)}, so ${shown(remaining)} of the budget is left`,
    sources: `${q.objective} = ${shown(objective)}, ${q.window} = ${shown(seconds)}`,
  };
}

function check(objective: number, windowMs: number, objectiveQuery: string, windowQuery: string): void {
  if (!(objective > 0 && objective < 1))
    throw new Error(`${objectiveQuery} = ${objective}: an objective between 0 and 1 (exclusive) is expected`);
  if (!(windowMs > 0)) throw new Error(`${windowQuery}: a window longer than 0 is expected`);
}
