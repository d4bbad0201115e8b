/**
 * The narrow interface between the engine and whatever injects faults: AWS FIS in production, the
 * simulated world in tests. The engine owns the decisions (when to stop, how to verify); an injector
 * only performs and reports.
 */
import type { Plan } from '../plan/schema.js';

/** FIS experiment states, plus `cancelled` (newer than the pinned SDK's enum). */
export type ExperimentStatus =
  'pending' | 'initiating' | 'running' | 'completed' | 'stopping' | 'stopped' | 'failed' | 'cancelled';

export const TERMINAL_STATUSES: ReadonlySet<string> = new Set([
  'completed',
  'stopped',
  'failed',
  'cancelled',
]);

/** One action of an experiment as FIS reports it (GetExperiment's `actions.<name>`). */
export interface ActionState {
  /** FIS's per-action status: pending, initiating, running, completed, cancelled, stopping, stopped, failed, skipped. */
  status: string;
  /** FIS's reason for that status, e.g. why the action failed. Text from AWS: data, never markup. */
  reason?: string;
  /** When FIS started and ended the action (ms since the epoch), once it did. */
  startTime?: number;
  endTime?: number;
}

export interface ExperimentState {
  status: ExperimentStatus | (string & {});
  reason?: string;
  /** FIS's error code when failed/stopped (e.g. `StopConditionTriggered`, `InternalFailure`). */
  errorCode?: string;
  /** Where FIS says the failure is (`state.error.location`: an action or target name). */
  errorLocation?: string;
  /** Per-action status, e.g. `{ partition: 'running' }`. */
  actions?: Record<string, string>;
  /** Per-action status with FIS's reason and times, the same actions as `actions`. */
  actionStates?: Record<string, ActionState>;
  /** True when FIS reports at least one action actually started (the fault was really injected). */
  injected?: boolean;
  /** When the first action started, as FIS reports it (ms since the epoch), once one has. */
  actionStartedAt?: number;
}

export interface ResolvedTarget {
  /** Target name in the template. */
  target: string;
  arn: string;
  tags?: Record<string, string>;
}

/**
 * What a dry run resolved. `complete` is true only when FIS reported the dry run `completed` and every
 * page of its resolved targets answered: then the list is whole, and an empty list is proven empty. A
 * list that is not complete is never evidence that nothing would be touched.
 */
export interface TargetResolution {
  targets: ResolvedTarget[];
  complete: boolean;
  /** The dry run's experiment id, when there was one. */
  dryRunId?: string;
}

/** An experiment of this run found by its tags (after its StartExperiment answer was lost). */
export interface FoundExperiment {
  experimentId: string;
  state: ExperimentState;
}

export interface RunContext {
  runId: string;
  attempt: number;
  repo?: string;
  sha?: string;
}

/**
 * Every method may be given an abort signal: the engine calls each one under a deadline and aborts the
 * signal when it passes. An implementation passes it on to its transport so an abandoned call ends.
 */
export interface Injector {
  /** Creates or updates the experiment template for this plan; returns its id. */
  provision(
    plan: Plan,
    ctx: RunContext,
  ): Promise<{ templateId: string; action: 'created' | 'reused' | 'updated' | 'repaired' }>;
  /**
   * Resolves the targets without injecting (FIS dry run). A dry run FIS does not finish in time, or that
   * ends other than `completed`, is stopped and throws `InjectorRefusal`: it never reads as "no targets".
   */
  resolveTargets(
    plan: Plan,
    templateId: string,
    ctx: RunContext,
    signal?: AbortSignal,
  ): Promise<TargetResolution>;
  /**
   * Whether the experiment may start now: null when every precondition holds (every stop-condition
   * alarm OK), else what is still awaited (the lease alarm turning OK). Throws `InjectorRefusal` for a
   * precondition that waiting cannot fix (kill switch engaged, another stop condition in ALARM). The
   * engine keeps measuring the steady state while it waits, so the start follows a fresh measurement.
   */
  readiness?(signal?: AbortSignal): Promise<string | null>;
  /** Starts the experiment; idempotent for the same context. */
  start(
    plan: Plan,
    templateId: string,
    ctx: RunContext,
    signal?: AbortSignal,
  ): Promise<{ experimentId: string }>;
  /**
   * Looks up this run's experiment (not its dry run) by the tags `start` puts on it — for when a
   * StartExperiment's answer was lost and asking again did not bring it back. Undefined: FIS lists none.
   */
  find?(
    plan: Plan,
    templateId: string,
    ctx: RunContext,
    signal?: AbortSignal,
  ): Promise<FoundExperiment | undefined>;
  /** Reads the experiment's current state. */
  state(experimentId: string, signal?: AbortSignal): Promise<ExperimentState>;
  /** Requests a stop. Resolves when the request was accepted; the engine verifies. */
  stop(experimentId: string, reason: string, signal?: AbortSignal): Promise<void>;
}

/** The lease: a heartbeat that keeps the experiment alive only while the runner is alive. */
export interface Lease {
  beat(signal?: AbortSignal): Promise<void>;
  /**
   * Forces the lease's stop condition to fire now (the lease alarm to ALARM), for when the engine has
   * decided to stop and StopExperiment does not get through. Optional: without it, withheld heartbeats
   * trip the alarm when a period passes empty.
   */
  trip?(reason: string, signal?: AbortSignal): Promise<void>;
  /** Interval between beats, ms. */
  readonly intervalMs: number;
}

/**
 * Thrown by an injector when it will not proceed for a reason that is the plan's or the account's, not a
 * fault of the tool (kill switch engaged, a dry run the endpoint did not honour, a template drifted under
 * drift=refuse, too many stop conditions). Nothing was injected; the engine's verdict is `refused`, or
 * `not-run` when the reason is the world's state of the moment rather than the plan (FIS did not finish
 * the dry run in time: the same plan may run once FIS answers).
 */
/**
 * FIS answered a start (a dry run or the experiment) with its account quota on active experiments
 * (`ServiceQuotaExceededException`, HTTP 402): nothing was started. It says "not now", never that the
 * plan or the set-up is wrong, so the engine queues on it and never ends the run `failed` for it.
 */
export class QuotaExceeded extends Error {
  override name = 'QuotaExceeded';
}

/** The QuotaExceeded in `error`'s cause chain, if any. */
export function quotaOf(error: unknown): QuotaExceeded | undefined {
  for (let e: unknown = error, depth = 0; e && depth < 8; e = (e as { cause?: unknown }).cause, depth++) {
    if (e instanceof QuotaExceeded) return e;
  }
  return undefined;
}

export class InjectorRefusal extends Error {
  override name = 'InjectorRefusal';
  constructor(
    message: string,
    readonly field?: string,
    readonly verdict: 'refused' | 'not-run' = 'refused',
  ) {
    super(message);
  }
}
