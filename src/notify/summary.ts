/**
 * What every sink says about a finished run, read from the run's one judgement (`journal.judgement`,
 * src/journal/judgement.ts): the verdict, its reason, and per SLI and expectation what the judgement
 * decided, with its counts. Nothing here counts readings or judges again; the fault window is the
 * journal's timings.
 */
import type { Journal, JournalHeader, Verdict } from '../journal/types.js';
import { formatValue } from '../journal/format.js';
import {
  judgementOf,
  outsideText,
  type ExpectationJudgement,
  type ExpectationStatus,
  type SliJudgement,
} from '../journal/judgement.js';

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

/** One SLI or expectation of the hypothesis, as the run's one judgement decided it. */
export interface HypothesisCase {
  kind: 'sli' | 'expectation';
  name: string;
  bound: string;
  outcome: Outcome;
  /** Judged readings taken while the fault was on, and how many of them were outside the bound. */
  readings: number;
  breaches: number;
  /** The worst value read (furthest on the bound's wrong side), or null when nothing was read. */
  worst: number | null;
  /** Outside readings the plan's tolerance forgave (the SLI held with them). */
  tolerated: number;
  reason: string;
}

/**
 * An SLI's outcome: held with every judged reading present is a success, beyond its bound or tolerance
 * a failure; held with readings that had no data cannot be called a pass (error), and one not judged
 * during the fault says nothing (cancel).
 */
function sliOutcome(s: SliJudgement): Outcome {
  if (s.held === false) return 'failure';
  if (s.held === null || !s.fault || s.fault.measured === 0) return 'cancel';
  return s.fault.noData > 0 ? 'error' : 'success';
}

function sliCase(s: SliJudgement): HypothesisCase {
  const f = s.fault;
  const worst = f?.worst?.value ?? f?.extreme?.value ?? null;
  const blind = f && f.noData > 0 ? `; ${f.noData} without data` : '';
  return {
    kind: 'sli',
    name: s.name,
    bound: f?.bound ?? '',
    outcome: sliOutcome(s),
    readings: f?.measured ?? 0,
    breaches: f?.outside ?? 0,
    worst: typeof worst === 'number' && Number.isFinite(worst) ? worst : null,
    tolerated: s.tolerated,
    reason: outsideText(s) + (worst === null || !f ? '' : `; worst ${formatValue(worst)}`) + blind,
  };
}

const EXPECTATION_OUTCOME: Record<ExpectationStatus, Outcome> = {
  met: 'success',
  late: 'failure',
  unmet: 'failure',
  blind: 'error',
  'cut-short': 'cancel',
};

function expectationCase(e: ExpectationJudgement): HypothesisCase {
  const bound = e.bound ?? '';
  const within = `${formatValue(e.withinMs / 1000)} s`;
  const reason: Record<ExpectationStatus, string> = {
    met: `observed ${bound} within ${within} of the injection`,
    late: `observed ${bound} only after the ${within} it was given`,
    unmet: `not observed ${bound} within ${within} of the injection`,
    blind: `not observed ${bound}, and its readings had no data within ${within} of the injection`,
    'cut-short': `not observed ${bound} before the gate stopped the fault, inside its ${within}`,
  };
  const worst = e.seen?.value ?? e.range?.[1] ?? null;
  return {
    kind: 'expectation',
    name: e.name,
    bound,
    outcome: EXPECTATION_OUTCOME[e.status],
    readings: e.measured,
    breaches: e.status === 'met' ? 0 : e.measured,
    worst,
    tolerated: 0,
    reason: reason[e.status],
  };
}

/**
 * Every SLI judged during the fault and every expectation, as the run's one judgement
 * (`journal.judgement`) decided them; nothing is counted again here. An SLI held only to its steady
 * bound is not a case of the hypothesis.
 */
export function hypothesisCases(j: Journal): HypothesisCase[] {
  const judgement = judgementOf(j);
  return [
    ...judgement.slis.filter((s) => s.during).map(sliCase),
    ...judgement.expectations.map(expectationCase),
  ];
}

/** The verdict and its reason: the judgement's, the same words every report shows. */
export function verdictOf(j: Journal): { verdict: Verdict; reason: string } {
  const judgement = judgementOf(j);
  return { verdict: judgement.verdict, reason: judgement.reason };
}

/** The SLI with the most outside readings during the fault, if any was outside its bound. */
export function worstSli(j: Journal): HypothesisCase | undefined {
  const breached = hypothesisCases(j).filter((c) => c.kind === 'sli' && c.breaches > 0);
  return breached.sort((a, b) => b.breaches - a.breaches)[0];
}

/** `error_ratio 0.31 (bound <= 0.01), 12 of 20 readings outside`, or that none was outside. */
export function worstSliText(j: Journal): string {
  const w = worstSli(j);
  if (!w) return 'no SLI was outside its bound during the fault';
  return `${w.name} ${w.worst === null ? 'n/a' : formatValue(w.worst)} (bound ${w.bound}), ${w.breaches} of ${w.readings} readings outside`;
}

/** `payments-api`/`staging` and the plan id, for headlines. */
export function runTitle(h: JournalHeader): string {
  return `${h.planId} on ${h.service} (${h.environment})`;
}
