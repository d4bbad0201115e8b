/**
 * What every sink says about a finished run, read from the journal: the verdict and reason the engine
 * recorded, the fault window from its timings, and per SLI and expectation what the measurements show.
 * Nothing here judges the run again: the verdict is the journal's, and the per-hypothesis facts
 * (breached readings, worst value, observed or not) are counts of what was recorded.
 */
import type { Journal, JournalHeader, SliValue, Verdict } from '../journal/types.js';
import { formatValue } from '../journal/format.js';

/** The CDEvents outcome vocabulary, shared by the other sinks' wording. */
export type Outcome = 'success' | 'failure' | 'cancel' | 'error';

/**
 * A verdict as an outcome: held passes; a hypothesis that deviated or a run that had to abort fails;
 * a run that never injected (refused, not-run) was cancelled; one that cannot say (inconclusive, failed)
 * is an error. Never `success` for anything but held.
 */
export function verdictOutcome(verdict: Verdict | null): Outcome {
  switch (verdict) {
    case 'held':
      return 'success';
    case 'deviated':
    case 'aborted':
      return 'failure';
    case 'refused':
    case 'not-run':
      return 'cancel';
    default:
      return 'error';
  }
}

/** The fault window: injection to the end of the fault (else the stop request, else the run's end). */
export function faultWindow(j: Journal): { from: number; to: number } | undefined {
  const t = j.timings;
  if (t.injectedAt === undefined) return undefined;
  const to = t.stoppedAt ?? t.stopRequestedAt ?? t.finishedAt ?? t.injectedAt;
  return { from: t.injectedAt, to: Math.max(to, t.injectedAt) };
}

/** One SLI or expectation of the hypothesis, as the fault-phase measurements recorded it. */
export interface HypothesisCase {
  kind: 'sli' | 'expectation';
  name: string;
  bound: string;
  outcome: Outcome;
  /** Readings taken while the fault was on, and how many of them breached the bound. */
  readings: number;
  breaches: number;
  /** The worst value read (furthest past the bound's side), or null when nothing was read. */
  worst: number | null;
  reason: string;
}

/** The value furthest on the bad side of a bound written as `<= x`, `>= x` or `in [a, b]`. */
function worstOf(values: number[], bound: string): number | null {
  if (values.length === 0) return null;
  if (/^\s*</.test(bound)) return Math.max(...values);
  if (/^\s*>/.test(bound)) return Math.min(...values);
  return values[values.length - 1] ?? null;
}

function sliCase(j: Journal, name: string, bound: string): HypothesisCase {
  const readings: SliValue[] = j.measurements
    .filter((m) => m.phase === 'fault')
    .flatMap((m) => (m.slis[name] ? [m.slis[name]] : []));
  const breached = readings.filter((r) => r.status === 'breach');
  const finite = (rs: SliValue[]): number[] =>
    rs.flatMap((r) => (typeof r.value === 'number' && Number.isFinite(r.value) ? [r.value] : []));
  const worst = worstOf(finite(breached.length > 0 ? breached : readings), bound);
  const blind = readings.filter((r) => r.status === 'no-data' || r.status === 'error').length;
  const outcome: Outcome =
    readings.length === 0 ? 'cancel' : breached.length > 0 ? 'failure' : blind > 0 ? 'error' : 'success';
  const reason =
    readings.length === 0
      ? 'not measured while the fault was on'
      : `${breached.length} of ${readings.length} readings during the fault breached ${bound}` +
        (worst === null ? '' : `; worst ${formatValue(worst)}`) +
        (blind > 0 ? `; ${blind} without data` : '');
  return {
    kind: 'sli',
    name,
    bound,
    outcome,
    readings: readings.length,
    breaches: breached.length,
    worst,
    reason,
  };
}

function expectationCase(j: Journal, name: string, bound: string, withinMs: number): HypothesisCase {
  const readings = j.measurements.filter((m) => m.phase === 'fault').flatMap((m) => m.expect?.[name] ?? []);
  const observed = j.events.some((e) => e.type === 'expectation-observed' && e.data?.expectation === name);
  const outcome: Outcome = observed ? 'success' : readings.length === 0 ? 'cancel' : 'failure';
  const reason = observed
    ? `observed ${bound} within ${formatValue(withinMs / 1000)} s of the injection`
    : readings.length === 0
      ? 'not measured while the fault was on'
      : `not observed ${bound} within ${formatValue(withinMs / 1000)} s of the injection`;
  const values = readings.flatMap((r) => (typeof r.value === 'number' ? [r.value] : []));
  return {
    kind: 'expectation',
    name,
    bound,
    outcome,
    readings: readings.length,
    breaches: observed ? 0 : readings.length,
    worst: values.length > 0 ? (values[values.length - 1] ?? null) : null,
    reason,
  };
}

/** Every SLI and expectation of the hypothesis as the journal recorded them. */
export function hypothesisCases(j: Journal): HypothesisCase[] {
  return [
    ...j.slis.map((s) => sliCase(j, s.name, s.bound)),
    ...(j.expectations ?? []).map((e) => expectationCase(j, e.name, e.bound, e.withinMs)),
  ];
}

/** The SLI with the most breached readings during the fault, if any breached. */
export function worstSli(j: Journal): HypothesisCase | undefined {
  const breached = hypothesisCases(j).filter((c) => c.kind === 'sli' && c.breaches > 0);
  return breached.sort((a, b) => b.breaches - a.breaches)[0];
}

/** `worst SLI: error_ratio 0.31 (<= 0.01), 12 of 20 readings breached`, or that none breached. */
export function worstSliText(j: Journal): string {
  const w = worstSli(j);
  if (!w) return 'no SLI breached its bound during the fault';
  return `${w.name} ${w.worst === null ? 'n/a' : formatValue(w.worst)} (bound ${w.bound}), ${w.breaches} of ${w.readings} readings breached`;
}

/** `payments-api`/`staging` and the plan id, for headlines. */
export function runTitle(h: JournalHeader): string {
  return `${h.planId} on ${h.service} (${h.environment})`;
}
