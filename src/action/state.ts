/** Names of the values the main step saves for the post step (`core.saveState` → `STATE_*`). */
export const STATE = {
  finished: 'finished',
  experimentId: 'experiment-id',
  checkRunId: 'check-run-id',
  region: 'region',
  planId: 'plan-id',
} as const;
