/**
 * The journal is the single record of a run: every measurement and event behind the verdict.
 * Renderers are pure functions of it.
 */
import type { Judgement, Tolerance } from './judgement.js';
export const VERDICTS = [
  'held',
  'deviated',
  'aborted',
  'inconclusive',
  'not-run',
  'refused',
  'failed',
] as const;
export type Verdict = (typeof VERDICTS)[number];

/** Exit codes of SPEC §4: 0 only for held, 2 for refused (and unreadable input). */
export const EXIT_CODES: Record<Verdict, number> = {
  held: 0,
  deviated: 1,
  aborted: 1,
  inconclusive: 1,
  'not-run': 1,
  refused: 2,
  failed: 1,
};

export type Phase = 'preflight' | 'steady' | 'fault' | 'recovery';

export type SliStatus = 'ok' | 'breach' | 'no-data' | 'error';

export interface SliValue {
  value: number | null;
  status: SliStatus;
  /** The bound that applied: e.g. `<= 0.18`, `>= 0.998`, `in [40, 60]`. */
  bound?: string;
  query: string;
  error?: string;
}

/** One tick: every SLI and expectation measured at one time. */
export interface Measurement {
  at: number;
  /** Length of the window the readings cover, ending at `at` (ms). */
  windowMs?: number;
  /**
   * Written by older engines (seconds from a *planned* injection) and ignored: every report derives
   * offsets from `at` through `timeOrigin` (src/journal/format.ts).
   */
  t?: number;
  phase: Phase;
  requests: number | null;
  slis: Record<string, SliValue>;
  expect?: Record<string, SliValue>;
}

export type EventType =
  | 'run-started'
  | 'preflight'
  | 'refused'
  | 'not-run'
  | 'provision'
  | 'targets-resolved'
  | 'steady-state'
  | 'inject'
  | 'experiment-state'
  | 'first-breach'
  | 'expectation-observed'
  | 'abort'
  | 'stop-requested'
  | 'stop-verified'
  | 'stop-failed'
  | 'fault-ended'
  | 'recovery'
  | 'gap'
  | 'lease'
  | 'signal'
  | 'error'
  | 'budget'
  /** Notifications (src/notify/): where they go, and any call that did not get through. */
  | 'notify'
  | 'verdict';

export interface JournalEvent {
  at: number;
  type: EventType;
  message: string;
  data?: Record<string, unknown>;
}

export interface Timings {
  startedAt?: number;
  /** When StartExperiment returned the experiment id. */
  experimentStartedAt?: number;
  /**
   * The origin of every report's time axis: when FIS reports the first action started (clamped to the
   * span of our own StartExperiment call and first state read), else when StartExperiment returned.
   */
  injectedAt?: number;
  firstBreachAt?: number;
  stopRequestedAt?: number;
  stoppedAt?: number;
  recoveredAt?: number;
  finishedAt?: number;
}

export interface BudgetFigures {
  objective: number;
  windowMs: number;
  allowedBadEvents: number;
  serviceBadEvents: number;
  chaosAllowance: number;
  ledgerSpent: number;
  /** Bad events this run added (measured damage). */
  debit?: number;
  remainingAfter?: number;
}

/** One priced line of a run's cost estimate. */
export interface CostLine {
  item: string;
  quantity: number;
  unit: string;
  /** US dollars per unit. */
  unitUsd: number;
  usd: number;
}

/**
 * What the run cost in AWS, estimated by the engine from what it counted (src/engine/cost.ts) and the
 * public prices it names (docs/cost.md); renderers show it and never recount.
 */
export interface RunCost {
  /** AWS API calls the run made, by `service:Operation`. */
  calls: Record<string, number>;
  /** Metrics requested through GetMetricData. */
  metricsRequested: number;
  /** FIS action-minutes: each action's run time as FIS reports it, rounded to the nearest minute. */
  fisActionMinutes: number;
  lines: CostLine[];
  /** The sum of the lines, US dollars. */
  totalUsd: number;
  /** Where the prices come from and when they were read. */
  prices: { source: string; asOf: string; region: string };
}

export interface JournalHeader {
  kind: 'chaos-gate-journal';
  version: 1;
  runId: string;
  planId: string;
  planDigest: string;
  planPath?: string;
  title: string;
  service: string;
  environment: string;
  /**
   * The SLI bounds and abort rules as written, for renderers. `settleMs` and `tolerance` are the
   * hypothesis as applied to each SLI (absent in older journals: strict).
   */
  slis: {
    name: string;
    bound: string;
    steadyBound: string;
    during: boolean;
    settleMs?: number;
    tolerance?: Tolerance;
  }[];
  abortRules: { sli: string; op: 'above' | 'below'; threshold: number; forMs: number; count: number }[];
  intervalMs: number;
  startedAt: number;
  /** AWS Region of the experiment, for the FIS console link. */
  region?: string;
  /** Attempt number of the CI step (a retried step keeps the run id). */
  attempt?: number;
  /** The expectations as written, so a journal can be re-assessed and rendered on its own. */
  expectations?: { name: string; bound: string; withinMs: number }[];
  /** `hypothesis.minRequests` and `abort.blindAfter` as applied. */
  minRequests?: number;
  blindAfter?: number;
  /** `steadyState.duration` and `recovery.within`, ms. */
  steadyMs?: number;
  recoveryMs?: number;
}

export interface Journal extends JournalHeader {
  verdict: Verdict | null;
  reason: string | null;
  exitCode: number | null;
  experimentId?: string;
  templateId?: string;
  resolvedTargets?: { target: string; arn: string; tags?: Record<string, string> }[];
  measurements: Measurement[];
  events: JournalEvent[];
  timings: Timings;
  budget?: BudgetFigures;
  /** The run's AWS calls, FIS action-minutes and estimated cost (absent in older journals). */
  cost?: RunCost;
  /**
   * The verdict's evidence, computed once by the engine and written with the final record. Absent in
   * journals written before it existed and in crashed prefixes: read them through `judgementOf`.
   */
  judgement?: Judgement;
  /** True when the final record was written; false for a prefix recovered after a crash. */
  complete: boolean;
}
