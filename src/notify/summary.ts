/**
 * What every sink says about a finished run, read from the journal: the verdict and reason the engine
 * recorded, the fault window from its timings, and per SLI and expectation what the measurements show.
 * Nothing here judges the run again: the verdict is the journal's, and the per-hypothesis facts
 * (breached readings, worst value, observed or not) are counts of what was recorded.
 */
import type { Journal, JournalHeader, SliValue, Verdict } from '../journal/types.js';
import { formatValue } from '../journal/format.js';
import { allMeasurements } from '../journal/columns.js';

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

/** One series' fault readings, tallied in one pass: counts, and min/max/last of finite values. */
interface Tally {
  readings: number;
  breached: number;
  blind: number;
  all: { min: number; max: number; last: number | null };
  bad: { min: number; max: number; last: number | null };
  /** The last numeric value (NaN and infinities included), for expectations. */
  lastNumber: number | null;
}

function tally(): Tally {
  return {
    readings: 0,
    breached: 0,
    blind: 0,
    all: { min: Infinity, max: -Infinity, last: null },
    bad: { min: Infinity, max: -Infinity, last: null },
    lastNumber: null,
  };
}

function addValue(t: Tally['all'], v: number): void {
  t.min = Math.min(t.min, v);
  t.max = Math.max(t.max, v);
  t.last = v;
}

/** Every SLI's and expectation's fault readings, in one pass over every measurement of the run. */
function faultTallies(j: Journal): { slis: Map<string, Tally>; expect: Map<string, Tally> } {
  const slis = new Map(j.slis.map((s) => [s.name, tally()] as const));
  const expect = new Map((j.expectations ?? []).map((e) => [e.name, tally()] as const));
  const count = (map: Map<string, Tally>, readings: Record<string, SliValue> | undefined): void => {
    if (!readings) return;
    for (const [name, t] of map) {
      const r = readings[name];
      if (!r) continue;
      t.readings++;
      if (r.status === 'breach') t.breached++;
      if (r.status === 'no-data' || r.status === 'error') t.blind++;
      if (typeof r.value === 'number') t.lastNumber = r.value;
      if (typeof r.value === 'number' && Number.isFinite(r.value)) {
        addValue(t.all, r.value);
        if (r.status === 'breach') addValue(t.bad, r.value);
      }
    }
  };
  for (const m of allMeasurements(j)) {
    if (m.phase !== 'fault') continue;
    count(slis, m.slis);
    count(expect, m.expect);
  }
  return { slis, expect };
}

/** The value furthest on the bad side of a bound written as `<= x`, `>= x` or `in [a, b]`. */
function worstOf(values: Tally['all'], bound: string): number | null {
  if (values.last === null) return null;
  if (/^\s*</.test(bound)) return values.max;
  if (/^\s*>/.test(bound)) return values.min;
  return values.last;
}

function sliCase(t: Tally, name: string, bound: string): HypothesisCase {
  const worst = worstOf(t.breached > 0 ? t.bad : t.all, bound);
  const outcome: Outcome =
    t.readings === 0 ? 'cancel' : t.breached > 0 ? 'failure' : t.blind > 0 ? 'error' : 'success';
  const reason =
    t.readings === 0
      ? 'not measured while the fault was on'
      : `${t.breached} of ${t.readings} readings during the fault breached ${bound}` +
        (worst === null ? '' : `; worst ${formatValue(worst)}`) +
        (t.blind > 0 ? `; ${t.blind} without data` : '');
  return {
    kind: 'sli',
    name,
    bound,
    outcome,
    readings: t.readings,
    breaches: t.breached,
    worst,
    reason,
  };
}

function expectationCase(
  j: Journal,
  t: Tally,
  name: string,
  bound: string,
  withinMs: number,
): HypothesisCase {
  const observed = j.events.some((e) => e.type === 'expectation-observed' && e.data?.expectation === name);
  const outcome: Outcome = observed ? 'success' : t.readings === 0 ? 'cancel' : 'failure';
  const reason = observed
    ? `observed ${bound} within ${formatValue(withinMs / 1000)} s of the injection`
    : t.readings === 0
      ? 'not measured while the fault was on'
      : `not observed ${bound} within ${formatValue(withinMs / 1000)} s of the injection`;
  return {
    kind: 'expectation',
    name,
    bound,
    outcome,
    readings: t.readings,
    breaches: observed ? 0 : t.readings,
    worst: t.lastNumber,
    reason,
  };
}

/** Every SLI and expectation of the hypothesis as the journal recorded them. */
export function hypothesisCases(j: Journal): HypothesisCase[] {
  const tallies = faultTallies(j);
  return [
    ...j.slis.map((s) => sliCase(tallies.slis.get(s.name) ?? tally(), s.name, s.bound)),
    ...(j.expectations ?? []).map((e) =>
      expectationCase(j, tallies.expect.get(e.name) ?? tally(), e.name, e.bound, e.withinMs),
    ),
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
