/**
 * The questions preflight asks of the outside world, beside the injector they are answered from: the
 * AWS side (`injector/aws/`, `injector/fis/probes.ts`) implements them, preflight's gates ask them, and
 * the front doors wire the one to the other. Each is one or two methods, so a test fake is a few lines.
 */
import type { FisTarget } from '../plan/schema.js';

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
