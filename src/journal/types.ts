/**
 * The journal is the single record of a run: every measurement and event behind the verdict.
 * Renderers are pure functions of it.
 */
import type { Judgement, Tolerance } from './judgement.js';
import type { MeasurementSummary } from './columns.js';
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
  /**
   * The measurements: every one of a short run; of a long one (more than `MAX_KEPT_MEASUREMENTS`), a
   * thinned sample, with `summary` accounting for all of them (src/journal/columns.ts). Count over the
   * whole run through `allMeasurements`, never through this array.
   */
  measurements: Measurement[];
  /** The bounded account of every measurement (counts, per-series buckets with min/max): docs/journal.md. */
  summary?: MeasurementSummary;
  events: JournalEvent[];
  timings: Timings;
  budget?: BudgetFigures;
  /**
   * The verdict's evidence, computed once by the engine and written with the final record. Absent in
   * journals written before it existed and in crashed prefixes: read them through `judgementOf`.
   */
  judgement?: Judgement;
  /** True when the final record was written; false for a prefix recovered after a crash. */
  complete: boolean;
}
