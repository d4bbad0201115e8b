/** The action's outputs (SPEC §8), derived from the journal. */
import type { Journal } from '../journal/types.js';

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
 * tripwire reaction of SPEC §12); undefined when no rule tripped.
 */
export function abortLatencyMs(journal: Journal): number | undefined {
  const stopAt = journal.timings.stopRequestedAt;
  const abort = journal.events.find((e) => e.type === 'abort' && e.data?.cause === 'rule');
  if (stopAt === undefined || !abort) return undefined;
  let completing: number | undefined;
  for (const m of journal.measurements) if (m.at <= abort.at) completing = m.at;
  return completing === undefined ? undefined : Math.max(0, stopAt - completing);
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
