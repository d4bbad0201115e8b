/**
 * The error budget (docs/design/gates.md#error-budget, docs/design/run.md#the-chaos-ledger): chaos may spend a share of what the SLO allows, and no more.
 *
 * - allowed bad events = (1 − objective) × total events over the SLO window;
 * - service consumed   = bad events over the same window (everything, chaos included);
 * - chaos allowance    = chaosShare × allowed;
 * - ledger spent       = what earlier chaos runs debited within the window (the chaos ledger).
 *
 * A run is refused when the ledger has reached the allowance or the service has reached its own budget.
 * "Reached" includes equality: a budget spent to exactly its allowance has nothing left for this run, and
 * any run does some damage. Comparisons allow a relative 1e-9 so that (1 − 0.999) × 10⁶ (which floating
 * point makes 1000.0000000000009) still counts as 1000.
 */
import type { Gate } from '../engine/gates.js';
import type { Measurement } from '../journal/types.js';
import type { BudgetFigures } from '../journal/types.js';
import type { MetricSource, SourceKind } from '../metrics/source.js';
import { sourceKindOf } from '../metrics/source.js';
import { formatDuration } from '../journal/format.js';
import { budgetWindowMs, type Plan } from '../plan/schema.js';
import { readStoreBudget, type BudgetStore, type StoreBudget } from './budget-store.js';
import type { LedgerReader } from '../injector/ports.js';
import { rethrowSetupError } from './setup-error.js';
import { errorMessage } from '../errors/message.js';

type BudgetSpec = NonNullable<Plan['budget']>;
/** The error or total query of the budget: exactly one of prometheus, cloudwatch. */
export type CountSpec = BudgetSpec['total'];

/** A count over a window, or why there is none. */
export interface CountReading {
  value: number | null;
  /** The query as sent, for the journal. */
  query: string;
  error?: string;
}

/** Reads an event count over `windowMs` ending at `at` (the budget's error and total queries). */
export interface CountReader {
  count(
    name: string,
    spec: CountSpec,
    windowMs: number,
    at: number,
    signal?: AbortSignal,
  ): Promise<CountReading>;
}

export type { LedgerReader } from '../injector/ports.js';

/** Relative tolerance of budget comparisons; see the module comment. */
const RELATIVE_TOLERANCE = 1e-9;

function reached(value: number, limit: number): boolean {
  return value >= limit - RELATIVE_TOLERANCE * Math.max(1, Math.abs(limit));
}

/** Inputs of the budget decision, all measured. */
export interface BudgetInputs {
  objective: number;
  windowMs: number;
  totalEvents: number;
  serviceBadEvents: number;
  chaosShare: number;
  ledgerSpent: number;
}

export type BudgetDecision =
  { ok: true; figures: BudgetFigures } | { ok: false; figures: BudgetFigures; reason: string; field: string };

/** Formats an event count: integers as is, fractions to two places. */
export function formatCount(n: number): string {
  if (Number.isInteger(n)) return String(n);
  return n.toFixed(2).replace(/\.?0+$/, '');
}

/** The four numbers, as one clause every budget message repeats. */
export function describeFigures(f: BudgetFigures): string {
  return (
    `allowed ${formatCount(f.allowedBadEvents)} bad events over ${formatDuration(f.windowMs)} ` +
    `(objective ${f.objective}), service consumed ${formatCount(f.serviceBadEvents)}, ` +
    `chaos allowance ${formatCount(f.chaosAllowance)}, ledger spent ${formatCount(f.ledgerSpent)}`
  );
}

/** Computes the four figures and decides whether chaos may spend budget now. */
export function budgetDecision(input: BudgetInputs): BudgetDecision {
  const allowed = (1 - input.objective) * input.totalEvents;
  const allowance = input.chaosShare * allowed;
  const figures: BudgetFigures = {
    objective: input.objective,
    windowMs: input.windowMs,
    allowedBadEvents: allowed,
    serviceBadEvents: input.serviceBadEvents,
    chaosAllowance: allowance,
    ledgerSpent: input.ledgerSpent,
  };
  if (input.totalEvents === 0) {
    return {
      ok: false,
      figures,
      field: 'budget.total',
      reason: `no events over the SLO window, so no error budget to spend (${describeFigures(figures)})`,
    };
  }
  if (reached(input.serviceBadEvents, allowed)) {
    return {
      ok: false,
      figures,
      field: 'budget.objective',
      reason:
        `the service has exhausted its error budget: consumed ${formatCount(input.serviceBadEvents)} ≥ ` +
        `allowed ${formatCount(allowed)} (${describeFigures(figures)})`,
    };
  }
  if (reached(input.ledgerSpent, allowance)) {
    return {
      ok: false,
      figures,
      field: 'budget.chaosShare',
      reason:
        `the chaos allowance is used: ledger spent ${formatCount(input.ledgerSpent)} ≥ ` +
        `allowance ${formatCount(allowance)} (${describeFigures(figures)})`,
    };
  }
  return { ok: true, figures };
}

/** The figures after a run debited `debit` bad events. */
export function withDebit(figures: BudgetFigures, debit: number): BudgetFigures {
  return { ...figures, debit, remainingAfter: figures.chaosAllowance - figures.ledgerSpent - debit };
}

export interface DamageOptions {
  /** The SLI whose value is the share of bad (or good) requests in a window. */
  sli: string;
  /** `error-ratio`: the value is bad/total; `success-ratio`: good/total, so bad = 1 − value. */
  kind: 'error-ratio' | 'success-ratio';
}

export interface Damage {
  /** Bad events above the steady-state rate while the fault was on, floored at 0 per window. */
  damage: number;
  /** Bad share measured in the steady state (0 when it has no usable window). */
  baselineRatio: number;
  /** Fault windows that contributed (value and request count both present). */
  windows: number;
  /** Fault windows without a value or a request count: their damage is unknown, not zero. */
  unmeasuredWindows: number;
}

function badRatio(m: Measurement, o: DamageOptions): { ratio: number; requests: number } | undefined {
  const v = m.slis[o.sli];
  if (!v || v.value === null || m.requests === null || !Number.isFinite(v.value)) return undefined;
  if (v.status !== 'ok' && v.status !== 'breach') return undefined;
  const ratio = o.kind === 'error-ratio' ? v.value : 1 - v.value;
  return { ratio: Math.min(1, Math.max(0, ratio)), requests: m.requests };
}

/**
 * The measured damage of a run, from the journal's measurements:
 *
 *   baseline = Σ bad_w / Σ requests_w over the steady-state windows, with bad_w = ratio_w × requests_w;
 *   damage   = Σ over fault windows of max(0, ratio_w × requests_w − baseline × requests_w).
 *
 * Each window is floored at 0 on its own, so a better-than-usual window does not pay for a worse one.
 * Without a usable steady-state window the baseline is 0 and every bad event counts (never undercharge).
 */
export function measuredDamage(measurements: Iterable<Measurement>, options: DamageOptions): Damage {
  let steadyBad = 0;
  let steadyRequests = 0;
  for (const m of measurements) {
    if (m.phase !== 'steady') continue;
    const r = badRatio(m, options);
    if (!r) continue;
    steadyBad += r.ratio * r.requests;
    steadyRequests += r.requests;
  }
  const baselineRatio = steadyRequests > 0 ? steadyBad / steadyRequests : 0;
  let damage = 0;
  let windows = 0;
  let unmeasuredWindows = 0;
  for (const m of measurements) {
    if (m.phase !== 'fault') continue;
    const r = badRatio(m, options);
    if (!r) {
      unmeasuredWindows += 1;
      continue;
    }
    windows += 1;
    damage += Math.max(0, (r.ratio - baselineRatio) * r.requests);
  }
  return { damage, baselineRatio, windows, unmeasuredWindows };
}

/** A `CountReader` over the run's metric sources: the count is one instant read over the SLO window. */
export function countReaderFromSources(sources: Partial<Record<SourceKind, MetricSource>>): CountReader {
  return {
    async count(name, spec, windowMs, at, signal) {
      const kind = sourceKindOf(spec);
      const source = sources[kind];
      if (!source) return { value: null, query: name, error: `no ${kind} source is configured` };
      const [reading] = await source.read([{ name, spec }], at, windowMs, signal);
      if (!reading) return { value: null, query: name, error: `the ${kind} source returned no reading` };
      return {
        value: reading.status === 'ok' ? reading.value : null,
        query: reading.query,
        ...(reading.status !== 'ok' ? { error: reading.error ?? reading.status } : {}),
      };
    },
  };
}

export interface BudgetGateOptions {
  counts: CountReader;
  ledger: LedgerReader;
  /** The SLO store `budget.from` reads (the run's Prometheus); absent, such a plan is `not-run`. */
  store?: BudgetStore | undefined;
}

/**
 * The budget as a gate: exhausted → `refused` with all four numbers; a count, the SLO store or the ledger
 * that cannot be read → `not-run` (the budget cannot be shown to allow the run), unless the reader's
 * set-up is broken (a `SetupError`), which ends the run `failed`. Passing records the figures.
 *
 * With `budget.from` the objective, the window and the share of the budget left come from the store
 * (budget-store.ts); `budget.total` still counts the window's events, so that the store's share becomes
 * bad events — the unit the chaos ledger debits — and the chaos allowance works on top as before:
 * service consumed = (1 − share left) × allowed.
 */
export function budgetGate(options: BudgetGateOptions): Gate {
  return {
    name: 'budget',
    stage: 'before-targets',
    async check(ctx) {
      const budget = ctx.plan.budget;
      if (!budget) return { pass: true, note: 'no error budget in the plan' };
      let fromStore: StoreBudget | undefined;
      if (budget.from) {
        if (!options.store)
          return {
            pass: false,
            verdict: 'not-run',
            reason:
              'budget.from reads Prometheus, but no Prometheus is configured, so the budget cannot be read',
            field: 'budget.from',
          };
        try {
          fromStore = await readStoreBudget(budget.from, options.store, ctx.now, ctx.signal);
        } catch (error) {
          rethrowSetupError(error, 'cannot read budget.from');
          return {
            pass: false,
            verdict: 'not-run',
            reason: `cannot read the error budget from ${'sloth' in budget.from ? 'Sloth' : 'Pyrra'}'s series: ${errorMessage(error)}`,
            field: 'budget.from',
          };
        }
      }
      const objective = fromStore?.objective ?? (budget.objective as number);
      const windowMs = fromStore?.windowMs ?? budgetWindowMs(budget);
      const read = async (which: 'errors' | 'total'): Promise<number | string> => {
        const spec = budget[which];
        if (!spec) return 0;
        let r: CountReading;
        try {
          r = await options.counts.count(`budget.${which}`, spec, windowMs, ctx.now, ctx.signal);
        } catch (error) {
          rethrowSetupError(error, `cannot read budget.${which}`);
          return errorMessage(error);
        }
        if (r.value === null || !Number.isFinite(r.value) || r.value < 0) {
          return `${r.query}: ${r.error ?? `not a count (${String(r.value)})`}`;
        }
        return r.value;
      };
      const [errors, total] = await Promise.all([fromStore ? 0 : read('errors'), read('total')]);
      let ledgerSpent: number | string;
      try {
        ledgerSpent = await options.ledger.spent(ctx.plan.service, windowMs, ctx.now);
      } catch (error) {
        rethrowSetupError(error, 'cannot read the chaos ledger');
        ledgerSpent = errorMessage(error);
      }
      const failures = [
        typeof errors === 'string' ? `budget.errors (${errors})` : undefined,
        typeof total === 'string' ? `budget.total (${total})` : undefined,
        typeof ledgerSpent === 'string' ? `the chaos ledger (${ledgerSpent})` : undefined,
      ].filter((f): f is string => f !== undefined);
      if (typeof errors === 'string' || typeof total === 'string' || typeof ledgerSpent === 'string') {
        return {
          pass: false,
          verdict: 'not-run',
          reason: `cannot read the error budget: ${failures.join('; ')}`,
          field:
            typeof errors === 'string'
              ? 'budget.errors'
              : typeof total === 'string'
                ? 'budget.total'
                : 'budget',
        };
      }
      // The store's share left, as bad events of the window (never below none: fail closed on > 1).
      const serviceBadEvents = fromStore
        ? Math.max(0, 1 - fromStore.remaining) * (1 - objective) * total
        : errors;
      const decision = budgetDecision({
        objective,
        windowMs,
        totalEvents: total,
        serviceBadEvents,
        chaosShare: budget.chaosShare,
        ledgerSpent,
      });
      const store = fromStore
        ? ` (from ${fromStore.store}: ${fromStore.evidence}; ${fromStore.sources})`
        : '';
      ctx.record({
        type: 'budget',
        message: `budget: ${describeFigures(decision.figures)}${store}`,
        data: {
          ...decision.figures,
          ...(fromStore ? { store: fromStore.store, remaining: fromStore.remaining } : {}),
        },
      });
      if (fromStore && fromStore.remaining <= 0)
        return {
          pass: false,
          verdict: 'refused',
          reason: `the service has exhausted its error budget: ${fromStore.store} reports ${fromStore.evidence} (${describeFigures(decision.figures)})`,
          field: 'budget.from',
        };
      if (!decision.ok)
        return {
          pass: false,
          verdict: 'refused',
          reason: `${decision.reason}${store}`,
          field: fromStore && decision.field === 'budget.objective' ? 'budget.from' : decision.field,
        };
      return { pass: true, budget: decision.figures, note: `${describeFigures(decision.figures)}${store}` };
    },
  };
}
