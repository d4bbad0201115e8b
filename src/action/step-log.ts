/**
 * The step log: the run told in GitHub's log as it happens. One collapsible group per phase (preflight,
 * provision, steady state, fault, recovery); inside, the events and one line per measurement — the
 * console printer of `report/progress.ts`, so the log reads like `chaos-gate run` — compacted in a long
 * fault to a line every few seconds with each SLI's worst value so far (a measurement that is not `ok`
 * always gets its own line). The verdict and its reason close the log (see `announceVerdict`).
 */
import type { JournalEvent, Measurement } from '../journal/types.js';
import { progressPrinter, STORY_EVENTS } from '../report/progress.js';

/** The phases a run goes through, in order; each is one group in the step log. */
export const STEP_PHASES = ['preflight', 'provision', 'steady state', 'fault', 'recovery'] as const;
export type StepPhase = (typeof STEP_PHASES)[number];

/**
 * Fault lines stay one per measurement for this long after the injection; after it, one compact line
 * every {@link STEP_LOG_COMPACT_EVERY_MS}. A 60 s fault at 1 s reads in full; a 15-minute one in ~200 lines.
 */
export const STEP_LOG_FULL_FAULT_MS = 60_000;
/** Spacing of the compact fault lines. */
export const STEP_LOG_COMPACT_EVERY_MS = 5_000;
/** Steady-state lines at most this often: the steady state is context, the fault is the story. */
export const STEP_LOG_STEADY_EVERY_MS = 5_000;

/** Where the step log goes: `@actions/core`'s info and groups. */
export interface StepLogOut {
  info(line: string): void;
  startGroup(name: string): void;
  endGroup(): void;
}

/** The printer the engine feeds (`onTick`/`onEvent`); `close` ends the open group. */
export interface StepLog {
  onTick(m: Measurement): void;
  onEvent(e: JournalEvent): void;
  close(): void;
  /** The phase whose group is open, if any. */
  phase(): StepPhase | undefined;
}

/** The phase an event opens, if it opens one. */
function phaseOfEvent(e: JournalEvent): StepPhase | undefined {
  switch (e.type) {
    case 'run-started':
      return 'preflight';
    case 'provision':
      return 'provision';
    case 'inject':
      return 'fault';
    case 'fault-ended':
      return 'recovery';
    default:
      return undefined;
  }
}

/** The phase a measurement belongs to. */
function phaseOfTick(m: Measurement): StepPhase {
  switch (m.phase) {
    case 'steady':
      return 'steady state';
    case 'fault':
      return 'fault';
    case 'recovery':
      return 'recovery';
    case 'preflight':
      return 'preflight';
  }
}

/** Builds the step-log printer. Phases only move forward; a late event stays in the current group. */
export function stepLog(out: StepLogOut): StepLog {
  let current: StepPhase | undefined;
  let closed = false;
  const enter = (phase: StepPhase): void => {
    if (closed) return;
    if (current !== undefined && STEP_PHASES.indexOf(phase) <= STEP_PHASES.indexOf(current)) return;
    if (current !== undefined) out.endGroup();
    current = phase;
    out.startGroup(`chaos-gate: ${phase}`);
  };
  const lines = progressPrinter((line) => out.info(line), {
    steadyEveryMs: STEP_LOG_STEADY_EVERY_MS,
    compactAfterMs: STEP_LOG_FULL_FAULT_MS,
    compactEveryMs: STEP_LOG_COMPACT_EVERY_MS,
    events: STORY_EVENTS,
  });
  return {
    onTick(m) {
      enter(phaseOfTick(m));
      lines.onTick(m);
    },
    onEvent(e) {
      const phase = phaseOfEvent(e);
      enter(phase ?? current ?? 'preflight');
      lines.onEvent(e);
    },
    close() {
      if (current !== undefined) out.endGroup();
      current = undefined;
      closed = true;
    },
    phase: () => current,
  };
}
