/** Names of the values the main step saves for the post step (`core.saveState` → `STATE_*`). */
export const STATE = {
  finished: 'finished',
  experimentId: 'experiment-id',
  checkRunId: 'check-run-id',
  region: 'region',
  planId: 'plan-id',
  /** `true` once GitHub accepted the check run's completion; until then the post step completes it. */
  checkRunCompleted: 'check-run-completed',
  /** Absolute path of the journal: the post step completes a check run left open with its verdict. */
  journal: 'journal',
  /** The conclusion inputs as JSON (`{inconclusive, notRun}`), for a completion by the post step. */
  conclusions: 'conclusions',
} as const;
