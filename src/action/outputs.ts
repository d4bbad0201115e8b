/** The action's outputs (docs/design/evidence.md#reports), derived from the journal. */
import type { Journal } from '../journal/types.js';
import { judgementOf } from '../journal/judgement.js';

/** Output name → value, as `core.setOutput` takes them. Empty string when a figure does not apply. */
export interface ActionOutputs {
  verdict: string;
  reason: string;
  'experiment-id': string;
  journal: string;
  report: string;
  'abort-latency-ms': string;
  'budget-remaining': string;
}

/**
 * Milliseconds from the measurement that completed an abort rule to the StopExperiment request (the
 * tripwire reaction): the judgement's `tripToStopRequestMs`; undefined when no rule tripped.
 */
export function abortLatencyMs(journal: Journal): number | undefined {
  return judgementOf(journal).latency.tripToStopRequestMs;
}

/** Chaos allowance left after this run, in bad events; undefined without a budget. */
export function budgetRemaining(journal: Journal): number | undefined {
  const b = journal.budget;
  if (!b) return undefined;
  return b.remainingAfter ?? b.chaosAllowance - b.ledgerSpent - (b.debit ?? 0);
}

/** The outputs of a finished (or recovered) run. */
export function outputsFromJournal(
  journal: Journal,
  paths: { journal: string; report: string },
): ActionOutputs {
  const latency = abortLatencyMs(journal);
  const budget = budgetRemaining(journal);
  return {
    verdict: journal.verdict ?? '',
    reason: journal.reason ?? '',
    'experiment-id': journal.experimentId ?? '',
    journal: paths.journal,
    report: paths.report,
    'abort-latency-ms': latency === undefined ? '' : String(Math.round(latency)),
    'budget-remaining': budget === undefined ? '' : String(budget),
  };
}

/** Outputs for a run that ended before a journal existed (bad input, fork refusal). */
export function outputsWithoutJournal(verdict: string, reason: string): ActionOutputs {
  return {
    verdict,
    reason,
    'experiment-id': '',
    journal: '',
    report: '',
    'abort-latency-ms': '',
    'budget-remaining': '',
  };
}
