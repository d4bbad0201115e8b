/**
 * Tripwire reaction and breach onset → FIS `stopped`, both from the same real runs: a `chaos-gate run`
 * child process against a sandbox child process whose canary has its fallback off, so the Redis
 * partition shows as 503s and the error-ratio rule aborts.
 *
 * - Reaction: the journal's `abort` event (written the moment the measurement completing the rule is
 *   evaluated) → the first `StopExperiment` the stand-in logged for that experiment.
 * - Onset → stopped: the FIS action's start in the stand-in (the canary's fault switched on) → the
 *   experiment's `endTime` as the stand-in reports it (its `stopped` transition).
 * Both processes stamp with the same machine clock (`Date.now()`).
 */
import { rmSync } from 'node:fs';
import path from 'node:path';
import { parseDuration } from '../../src/plan/duration.js';
import type { RunningSandbox } from '../../test/helpers/sandbox.js';
import { measured, notMeasured, type FigureResult } from '../lib/stats.js';
import {
  actionsOf,
  errorRule,
  experimentRecord,
  fisClient,
  pollFor,
  requestLog,
  runToEnd,
  setCanary,
  tempDir,
  writePlan,
} from '../lib/world.js';

/** docs/design/targets.md: measurement completing an abort rule → StopExperiment sent, ≤ 250 ms. */
export const REACTION_TARGET_MS = 250;
/** docs/design/targets.md slack on top of the rule's `for` and the interval for breach onset → stopped. */
export const ONSET_SLACK_MS = 1000;
/** The abort rule of these runs (error ratio above 1 % for 3 s at a 1 s interval). */
const RULE_FOR = '3s';
const INTERVAL = '1s';
/** One run lasts ~20 s (start, 5 s steady state, ~4 s fault, recovery); give it four times that. */
const RUN_TIMEOUT_MS = 90_000;

/** Both figures from `repetitions` aborted runs. */
export async function benchReaction(
  sandbox: RunningSandbox,
  repetitions: number,
  log: (line: string) => void,
): Promise<FigureResult[]> {
  const reactionBase = {
    id: 'tripwire-reaction',
    figure: 'tripwire reaction: measurement completing an abort rule → StopExperiment received',
    unit: 'ms',
    method:
      'chaos-gate run child vs sandbox child (fallback off): journal abort event → first StopExperiment in the stand-in request log',
  };
  const onsetBase = {
    id: 'breach-onset-to-stopped',
    figure: 'breach onset → FIS stopped in the sandbox',
    unit: 'ms',
    method:
      'same runs: FIS action start in the stand-in (canary fault on) → experiment endTime (stopped) from GetExperiment',
  };
  const forMs = parseDuration(RULE_FOR) ?? 0;
  const intervalMs = parseDuration(INTERVAL) ?? 0;
  const onsetMaxMs = forMs + intervalMs + ONSET_SLACK_MS;
  const onsetTarget = { max: onsetMaxMs, text: `≤ for + interval + 1 s = ${onsetMaxMs} ms` };

  const reactions: number[] = [];
  const onsets: number[] = [];
  const fromFirstBreach: number[] = [];
  const verdicts: string[] = [];
  const problems: string[] = [];
  const fis = fisClient(sandbox.urls);
  const dir = tempDir();
  try {
    await setCanary(sandbox.admin, { fallback: false });
    for (let i = 0; i < repetitions; i++) {
      const id = `bench-tripwire-${Date.now().toString(36)}-${i}`;
      const plan = writePlan(dir, {
        id,
        interval: INTERVAL,
        steady: '5s',
        actionDuration: 'PT1M', // FIS's minimum for disrupt-connectivity; the abort ends it early
        rules: [errorRule(RULE_FOR)],
      });
      const journalPath = path.join(dir, `${id}.journal.json`);
      const out = await runToEnd(plan, sandbox.urls, { journalPath, timeoutMs: RUN_TIMEOUT_MS });
      const j = out.journal;
      verdicts.push(out.summary?.verdict ?? `exit ${out.code}`);
      const abort = j?.events.find((e) => e.type === 'abort' && e.data?.cause === 'rule');
      const experimentId = j?.experimentId;
      if (!j || !abort || !experimentId) {
        problems.push(
          `run ${i + 1}: no rule abort (verdict ${out.summary?.verdict ?? 'none'}: ${out.summary?.reason ?? out.stderr.slice(-300)})`,
        );
        continue;
      }
      const stops = await requestLog(sandbox.admin, { service: 'fis', operation: 'StopExperiment' });
      const stop = stops.filter((r) => r.path.includes(experimentId)).sort((a, b) => a.time - b.time)[0];
      if (stop) reactions.push(stop.time - abort.at);
      else problems.push(`run ${i + 1}: the stand-in logged no StopExperiment for ${experimentId}`);

      const record = await pollFor(async () => {
        const r = await experimentRecord(fis, experimentId);
        return r.endTime !== undefined ? r : undefined;
      }, 10_000);
      const action = (await actionsOf(sandbox.admin, experimentId))[0];
      if (record?.endTime !== undefined && action) {
        onsets.push(record.endTime - Date.parse(action.startTime));
        if (j.timings.firstBreachAt !== undefined)
          fromFirstBreach.push(record.endTime - j.timings.firstBreachAt);
      } else {
        problems.push(`run ${i + 1}: no action start or end time in the sandbox for ${experimentId}`);
      }
      log(
        `  run ${i + 1}/${repetitions}: verdict ${verdicts[i]}, reaction ${reactions.at(-1)?.toFixed(0) ?? '?'} ms, ` +
          `onset → stopped ${onsets.at(-1)?.toFixed(0) ?? '?'} ms`,
      );
    }
  } finally {
    await setCanary(sandbox.admin, { fallback: true }).catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  }
  const details = {
    verdicts,
    problems,
    ruleFor: RULE_FOR,
    interval: INTERVAL,
    firstBreachToStoppedMs: fromFirstBreach,
  };
  return [
    reactions.length > 0
      ? measured({ ...reactionBase, details }, reactions, {
          max: REACTION_TARGET_MS,
          text: `≤ ${REACTION_TARGET_MS} ms`,
        })
      : notMeasured(reactionBase, `≤ ${REACTION_TARGET_MS} ms`, problems.join('; ') || 'no run aborted'),
    onsets.length > 0
      ? measured({ ...onsetBase, details }, onsets, onsetTarget)
      : notMeasured(onsetBase, onsetTarget.text, problems.join('; ') || 'no run aborted'),
  ];
}
