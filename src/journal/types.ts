/**
 * The journal is the single record of a run: every measurement and event behind the verdict.
 * Renderers are pure functions of it.
 */
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

/** Exit codes of docs/design/verdicts.md: 0 only for held, 2 for refused (and unreadable input). */
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

/** What offset 0 of a run's figures is: the injection, the last steady measurement, or the start. */
export type TimeOriginKind = 'injection' | 'last-steady' | 'start';

// The judgement's shape (src/journal/judgement.ts computes it): the journal carries it.

export interface Tolerance {
  /** At most this many judged readings outside the bound. */
  outside?: number;
  /** At most this share (0..1) of the judged readings outside the bound, rounded down. */
  share?: number;
  /** Never more than this many outside readings in a row. */
  consecutive?: number;
}

/** An SLI as the judgement needs it; the header's `slis` entries are this shape. */
export interface JudgedSli {
  name: string;
  during: boolean;
  bound?: string;
  steadyBound?: string;
  /** Readings less than this long after the injection are settling (default 0). */
  settleMs?: number;
  tolerance?: Tolerance;
}

/** `M`: how the measurements come — an array, or any sequence read once per pass (a long run's columns). */
export interface JudgeInput<M extends Iterable<Measurement> = readonly Measurement[]> {
  slis: readonly JudgedSli[];
  expectations: readonly { name: string; withinMs: number; bound?: string }[];
  /** Every measurement, in order. */
  measurements: M;
  events: readonly JournalEvent[];
  timings: Timings;
  /** The run's start, the time origin when nothing was injected or measured. */
  startedAt?: number;
}

/** A reading on the run's clock: its time, offset from the time origin (ms) and value. */
export interface ReadingPoint {
  at: number;
  offsetMs: number;
  value: number | null;
}

/** One SLI's readings in one phase. `outside` is against `bound`, the bound of that phase. */
export interface PhaseCounts {
  bound: string;
  /** Measurements taken in this phase (every one of them should carry a reading of the SLI). */
  measured: number;
  within: number;
  outside: number;
  /** No data, error, or no reading at all. */
  noData: number;
  /** Longest run of consecutive outside readings (a no-data reading neither extends nor ends one). */
  longestRun: number;
  /** The first and the worst (furthest on the wrong side) reading outside the bound. */
  first?: ReadingPoint;
  worst?: ReadingPoint;
  /** The reading furthest toward the wrong side of the bound, in or out of it. */
  extreme?: ReadingPoint;
  /** The first reading without data, and why. */
  firstNoData?: ReadingPoint & { error: string };
}

export interface SliJudgement {
  name: string;
  during: boolean;
  settleMs: number;
  /** The tolerance as declared (empty: strict). */
  tolerance: Tolerance;
  /** Outside readings the tolerance allows in the judged fault readings. */
  allowed: number;
  /** Outside readings forgiven: all of them when within the tolerance, none when beyond it. */
  tolerated: number;
  /** true: within bound and tolerance; false: beyond; null: not judged during the fault. */
  held: boolean | null;
  /** What broke the tolerance, when `held` is false: too many, or too long a run. */
  exceeded?: 'count' | 'consecutive';
  steady?: PhaseCounts;
  /** Fault readings before `settleMs`, shown against the fault bound but not judged. */
  settling?: PhaseCounts;
  /** Fault readings from `settleMs` on: the hypothesis. */
  fault?: PhaseCounts;
  recovery?: PhaseCounts;
}

export type ExpectationStatus = 'met' | 'late' | 'unmet' | 'blind' | 'cut-short';

export interface ExpectationJudgement {
  name: string;
  bound?: string;
  withinMs: number;
  status: ExpectationStatus;
  /** When it was first seen (met or late). */
  seen?: ReadingPoint;
  /** Fault measurements in which it was read. */
  measured: number;
  /** Lowest and highest value read, when not seen. */
  range?: [number, number];
  /** When the gate stopped the fault before `within` was over (cut-short). */
  stoppedAt?: ReadingPoint;
}

/**
 * Named latency figures, milliseconds, one definition each (docs/plan-format.md, "Latency figures"):
 * - `tripToStopRequestMs`: the measurement that completed an abort rule → StopExperiment sent;
 * - `breachToStopRequestMs`: the first fault reading outside its fault bound (settling included) →
 *   StopExperiment sent;
 * - `stopRequestToStoppedMs`: StopExperiment sent → FIS reported the experiment ended;
 * - `breachToStoppedMs`: the first fault reading outside its fault bound → FIS reported it ended.
 */
export interface LatencyFigures {
  tripToStopRequestMs?: number;
  breachToStopRequestMs?: number;
  stopRequestToStoppedMs?: number;
  breachToStoppedMs?: number;
}

export interface ActionJudgement {
  name: string;
  /** FIS's last reported state of the action. */
  status: string;
  /** FIS reported it running (or completed, stopping, stopped) at some point. */
  ran: boolean;
}

export interface Judgement {
  version: 1;
  verdict: Verdict;
  reason: string;
  /** Offset 0 of every figure here (see timeOrigin). */
  origin: { at: number; kind: TimeOriginKind };
  slis: SliJudgement[];
  expectations: ExpectationJudgement[];
  recovery: { measured: boolean; recovered: boolean | null; recoveryMs?: number };
  latency: LatencyFigures;
  /** FIS actions by their last reported state; empty when FIS reported none. */
  actions: ActionJudgement[];
  /** Whether the fault ran: an action was seen running; null when nothing was started. */
  faultRan: boolean | null;
  /** The first fault reading outside its fault bound, any SLI (settling included). */
  firstBreach?: ReadingPoint & { sli: string };
}

/**
 * One bucket of a summary series: `[from, count, min, max, outside, noData]`. `from` is the bucket's
 * start (epoch ms; it covers `[from, from + bucketMs)`), `count` the readings in it, `min`/`max` over the
 * finite values (null when none), `outside` the readings recorded as a breach, `noData` the readings
 * with no data or an error (a measurement without the series counts there too).
 */
export type SummaryBucket = [
  from: number,
  count: number,
  min: number | null,
  max: number | null,
  outside: number,
  noData: number,
];

export interface SummarySeries {
  name: string;
  kind: 'sli' | 'expectation' | 'requests';
  /** Buckets in time order; buckets without a reading are left out. */
  buckets: SummaryBucket[];
}

/** The bounded account of every measurement of a run (see the module comment). */
export interface MeasurementSummary {
  /** Every measurement taken. */
  measurements: number;
  /** Of them, how many `measurements` of the journal holds (equal: none was left out). */
  kept: number;
  phases: Record<Phase, number>;
  firstAt?: number;
  lastAt?: number;
  /** The last steady-state measurement's time (the time origin of a run that never injected). */
  lastSteadyAt?: number;
  /** Width of every bucket, ms: the resolution of the series. */
  bucketMs: number;
  /** Where the buckets are counted from (the first measurement's time). */
  originAt?: number;
  series: SummarySeries[];
}
