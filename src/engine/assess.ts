/**
 * The verdict, as a pure function of what the journal recorded: `judge` (src/journal/judgement.ts)
 * computes it once together with every number behind it, so the engine's verdict and every report's
 * figures come from one computation. The engine records its decisions as events (abort, stop-failed,
 * FIS state, recovery); the measurements say whether bounds held within the plan's settle time and
 * tolerance and whether expectations were seen. The worst verdict wins, and blindness never passes.
 */
import { judge, type JudgeInput, type Judgement, type StreamInput } from '../journal/judgement.js';
import type { Verdict } from '../journal/types.js';

export { VERDICT_ORDER, violationText } from '../journal/judgement.js';

export type AssessInput = JudgeInput;

export interface Assessment {
  verdict: Verdict;
  reason: string;
}

/** The full judgement of a run (verdict, reason and evidence), as the journal stores it. */
export function judgeRun(input: StreamInput): Judgement {
  return judge(input);
}

/** Assesses a run into one of the seven verdicts with a reason that quotes the numbers. */
export function assess(input: AssessInput): Assessment {
  const { verdict, reason } = judge(input);
  return { verdict, reason };
}
