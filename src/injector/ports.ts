/**
 * The questions preflight asks of the outside world, beside the injector they are answered from: the
 * AWS side (`injector/aws/`, `injector/fis/probes.ts`) implements them, preflight's gates ask them, and
 * the front doors wire the one to the other. Each is one or two methods, so a test fake is a few lines.
 */
import type { FisTarget } from '../plan/schema.js';
import type { ResolvedTarget } from './injector.js';

/** How many candidates a target has before FIS's selection (e.g. a tagging-API count of its tag filter). */
export interface CandidateCounter {
  /** `undefined`: this target's candidates cannot be counted (e.g. EKS pods); the no-count rules apply. */
  candidates(targetName: string, target: FisTarget, signal?: AbortSignal): Promise<number | undefined>;
}

/** A chaos-gate experiment currently running, with the resources it targets (ARNs). */
export interface RunningExperiment {
  id: string;
  planId: string;
  targets: string[];
}

/** Lists the chaos-gate-tagged experiments running now (account and Region of the run). */
export interface ExperimentLister {
  running(signal?: AbortSignal): Promise<RunningExperiment[]>;
}

/** Whether the kill switch is engaged, and why. */
export interface KillSwitchProbe {
  engaged(signal?: AbortSignal): Promise<{ engaged: boolean; reason?: string }>;
}

/** What earlier chaos runs debited for `service` within the window ending at `now` (the chaos ledger). */
export interface LedgerReader {
  spent(service: string, windowMs: number, now: number): Promise<number>;
}

/** Whether an incident is open at `at`. `error` set means the probe could not tell. */
export interface IncidentProbe {
  open(at: number, signal?: AbortSignal): Promise<{ open: boolean; detail: string; error?: string }>;
}

/** What a run's claim answered: it holds its targets now, or why it may not start. */
export type ClaimOutcome =
  | { ok: true; waitedMs: number; note: string }
  | { ok: false; verdict: 'not-run' | 'refused'; reason: string; field?: string };

/**
 * The run's claim on what it is about to touch, taken immediately before StartExperiment (one claim per
 * resolved target, the error budget it may spend, its own lease bound into the template) and released
 * at the end. See src/injector/aws/ssm-run.ts.
 */
export interface RunClaim {
  /** Takes every claim or none; queues behind another run's claims up to its own bound. */
  acquire(targets: readonly ResolvedTarget[], signal?: AbortSignal): Promise<ClaimOutcome>;
  /** Checks the started experiment belongs to this run's lease; throws (the engine stops it) if not. */
  started?(experimentId: string, signal?: AbortSignal): Promise<void>;
  /**
   * Releases what this run holds. `faultEnded` false (a start was sent and its fault was not seen to end)
   * keeps the claims and the lease until they expire: fail closed. Returns what it did, for the journal.
   */
  release(faultEnded: boolean): Promise<string | undefined>;
}

/** The AWS API calls a run made so far, counted at its clients (src/injector/aws/meter.ts). */
export interface ApiMeter {
  /** Calls by `service:Operation` (e.g. `cloudwatch:GetMetricData`), one per command sent. */
  calls(): Record<string, number>;
  /** Metrics requested through GetMetricData (CloudWatch bills per metric requested, not per call). */
  metricsRequested(): number;
}
