/**
 * Gate overhead (issue 12): how much wall time a `chaos-gate run` adds beyond what its plan asks for.
 * A held plan (canary fallback on, a one-minute partition) runs as a child process against a sandbox child
 * process started with `publishIntervalMs: 10000`: its alarm evaluation runs every 10 s at a phase of
 * its own, so the lease alarm's state lags its 10 s periods by up to 10 s and its warm-up is not hidden
 * by the near-instant evaluation of a 1 s sandbox.
 *
 *   overhead = wall − steadyState.duration − fault − recovery
 *
 * - wall: the child's spawn → its exit, on this process's clock.
 * - fault: the FIS action's start → end in the stand-in's own record (`GET /actions`).
 * - recovery: the journal's `timings.recoveredAt − timings.stoppedAt` (0 when it never recovered).
 *
 * What is left is provisioning, the dry run, the first heartbeat and the wait for the lease alarm to
 * turn OK, the StartExperiment round trip and FIS's `initiating`, noticing the fault's end and
 * verifying it, the verdict and the reports, and the process's own start (from source through tsx, as
 * every bench child runs). `details.breakdowns` splits it along those lines from the journal's events,
 * run by run, and `details.breakdownMedianMs` gives the median of each part.
 *
 * The same runs give `details.injectGap`, issue 12's other bound: the gap between the last steady-state
 * measurement and the StartExperiment request (`inject` event data `sentAt − lastSteadyAt`), ≤ 1.5
 * intervals.
 */
import { rmSync } from 'node:fs';
import path from 'node:path';
import { parseDuration } from '../../src/plan/duration.js';
import type { Journal } from '../../src/journal/types.js';
import type { RunningSandbox } from '../../test/helpers/sandbox.js';
import { median, measured, notMeasured, type FigureResult } from '../lib/stats.js';
import {
  actionsOf,
  liveFaults,
  pollFor,
  readJournal,
  setCanary,
  startRun,
  tempDir,
  writePlan,
} from '../lib/world.js';

/** Issue 12: the gate adds at most 5 s to what the plan itself takes. */
export const OVERHEAD_TARGET_MS = 5_000;
/** Issue 12: StartExperiment follows the last steady-state measurement within 1.5 intervals. */
export const INJECT_GAP_INTERVALS = 1.5;
/** Alarm evaluation (and canary publishing) period of this group's sandbox: 10 s, as for a 10 s-period alarm in AWS. */
export const OVERHEAD_PUBLISH_INTERVAL_MS = 10_000;

const INTERVAL = '1s';
const STEADY = '5s';
/**
 * The shortest fault a plan may ask for. FIS documents one minute as the minimum duration of
 * aws:network:disrupt-connectivity; the sandbox stand-in accepts shorter ones, but chaos-gate's own
 * plan validation refuses anything below PT1M, so a shorter fault would measure a refusal.
 */
const ACTION_DURATION = 'PT1M';
/**
 * Steady state, up to ~20 s of lease warm-up at a 10 s evaluation, 60 s of fault, up to 15 s of
 * recovery and the overhead itself: four minutes is far beyond a normal run, and bounds a stuck one.
 */
const RUN_TIMEOUT_MS = 240_000;
/** How long the stand-in may take to end the experiment after the run exited (a held run ends it itself). */
const SETTLE_MS = 20_000;

/** Milliseconds between two journal times, or undefined when either is missing. */
function span(from: number | undefined, to: number | undefined): number | undefined {
  return from === undefined || to === undefined ? undefined : to - from;
}

/** The time of the first journal event of `type`. */
function eventAt(j: Journal, type: string): number | undefined {
  return j.events.find((e) => e.type === type)?.at;
}

/** One run's overhead, split along the steps of a run (ms); every part is read from the journal. */
interface Breakdown {
  /** spawn → the journal's start: Node, tsx compiling the source, loading the plan. */
  processStart: number | undefined;
  /** run start → targets resolved: preflight gates, provisioning, the first heartbeat, the dry run. */
  toSteadyState: number | undefined;
  /** the steady state beyond its planned duration: measuring on while the lease alarm turns OK. */
  steadyStateBeyondPlan: number | undefined;
  /** last steady measurement → StartExperiment sent. */
  injectGap: number | undefined;
  /** StartExperiment sent → the FIS action started (the round trip and FIS's `initiating`). */
  startToAction: number | undefined;
  /** the FIS action ended → the engine saw the experiment terminal (`timings.stoppedAt`). */
  actionEndToSeen: number | undefined;
  /** recovered (or the fault seen ended, without recovery) → process exit: verdict, reports, exit. */
  tail: number | undefined;
}

/** `repetitions` held runs on a sandbox with 10 s alarm evaluation (the caller starts that sandbox). */
export async function benchOverhead(
  sandbox: RunningSandbox,
  repetitions: number,
  log: (line: string) => void,
): Promise<FigureResult> {
  const intervalMs = parseDuration(INTERVAL) ?? 1000;
  const steadyMs = parseDuration(STEADY) ?? 0;
  const gapMaxMs = INJECT_GAP_INTERVALS * intervalMs;
  const overheadBase = {
    id: 'gate-overhead',
    figure: 'gate overhead: run wall time − (steady state + fault + recovery), alarms evaluated every 10 s',
    unit: 'ms',
    method:
      'held chaos-gate run child (fallback on, PT1M partition) vs a sandbox child with publishIntervalMs 10000: spawn → exit minus steadyState.duration, the FIS action start → end from the stand-in, and journal recoveredAt − stoppedAt',
  };
  const overheadTarget = { max: OVERHEAD_TARGET_MS, text: `≤ ${OVERHEAD_TARGET_MS / 1000} s` };

  const overheads: number[] = [];
  const gaps: number[] = [];
  const runs: Record<string, unknown>[] = [];
  const breakdowns: Breakdown[] = [];
  const problems: string[] = [];
  const dir = tempDir('chaos-gate-bench-overhead-');
  // FIS's own `initiating` time is part of startToAction; kept so a reader can tell it from the gate's.
  let fisTimings: unknown = null;
  try {
    fisTimings = (await sandbox.admin.get<{ timings: unknown }>('/fis/timings')).timings;
    // A held run: the breaker opens and the canary answers from its fallback, so nothing trips.
    await setCanary(sandbox.admin, { fallback: true });
    for (let i = 0; i < repetitions; i++) {
      // A fresh plan id each run: its lease alarm is new, as on a plan's first run in an account.
      const id = `bench-overhead-${Date.now().toString(36)}-${i}`;
      const planPath = writePlan(dir, {
        id,
        interval: INTERVAL,
        steady: STEADY,
        actionDuration: ACTION_DURATION,
      });
      const journalPath = path.join(dir, `${id}.journal.json`);
      const run = startRun(planPath, sandbox.urls, { journalPath });
      // Stamped in the exit handler's continuation, before anything else is read.
      const ended = run.done.then((o) => ({ ...o, exitedAt: Date.now() }));
      const timer = setTimeout(() => run.kill('SIGKILL'), RUN_TIMEOUT_MS);
      const out = await ended;
      clearTimeout(timer);
      const j = readJournal(journalPath);
      const wall = out.exitedAt - run.spawnedAt;
      if (out.signal !== null) {
        problems.push(`run ${i + 1}: killed (${out.signal}) after ${(wall / 1000).toFixed(0)} s`);
        continue;
      }
      if (!j?.experimentId) {
        problems.push(
          `run ${i + 1}: no experiment (verdict ${j?.verdict ?? 'none'}: ${j?.reason ?? out.stderr.slice(-300)})`,
        );
        continue;
      }
      const experimentId = j.experimentId;
      // The stand-in ends a completed action by itself; wait for its record to carry an end.
      const action = await pollFor(async () => {
        const a = (await actionsOf(sandbox.admin, experimentId))[0];
        return a?.endTime ? a : undefined;
      }, SETTLE_MS);
      if (!action?.endTime) {
        problems.push(`run ${i + 1}: the stand-in has no ended action for ${experimentId}`);
        continue;
      }
      const actionStart = Date.parse(action.startTime);
      const actionEnd = Date.parse(action.endTime);
      const faultMs = actionEnd - actionStart;
      const recoveryMs = span(j.timings.stoppedAt, j.timings.recoveredAt) ?? 0;
      const overhead = wall - steadyMs - faultMs - recoveryMs;

      const inject = j.events.find((e) => e.type === 'inject');
      const sentAt = typeof inject?.data?.sentAt === 'number' ? inject.data.sentAt : undefined;
      const lastSteadyAt =
        typeof inject?.data?.lastSteadyAt === 'number' ? inject.data.lastSteadyAt : undefined;
      const gap = span(lastSteadyAt, sentAt);
      const resolvedAt = eventAt(j, 'targets-resolved');
      const steadyActual = span(resolvedAt, lastSteadyAt);
      breakdowns.push({
        processStart: span(run.spawnedAt, j.startedAt),
        toSteadyState: span(j.startedAt, resolvedAt),
        steadyStateBeyondPlan: steadyActual === undefined ? undefined : steadyActual - steadyMs,
        injectGap: gap,
        startToAction: span(sentAt, actionStart),
        actionEndToSeen: span(actionEnd, j.timings.stoppedAt),
        tail: span(j.timings.recoveredAt ?? j.timings.stoppedAt, out.exitedAt),
      });
      runs.push({
        verdict: j.verdict,
        reason: j.reason,
        wallMs: wall,
        faultMs,
        recoveryMs,
        overheadMs: overhead,
      });
      // A run whose fault ran its course took the path the figure is about (the fault's end noticed,
      // recovery measured, reports written), whether it held or deviated on one measurement; an aborted
      // one (stopped early, by a rule or anything else) has other costs and does not count.
      const abort = j.events.find((e) => e.type === 'abort');
      if (abort || (j.verdict !== 'held' && j.verdict !== 'deviated')) {
        problems.push(
          `run ${i + 1}: verdict ${j.verdict} (${j.reason}), the fault did not run its course; not counted`,
        );
      } else {
        overheads.push(overhead);
      }
      if (gap === undefined) problems.push(`run ${i + 1}: the inject event has no sentAt/lastSteadyAt`);
      else gaps.push(gap);
      log(
        `  run ${i + 1}/${repetitions}: verdict ${j.verdict}, wall ${(wall / 1000).toFixed(1)} s, ` +
          `fault ${(faultMs / 1000).toFixed(1)} s, recovery ${(recoveryMs / 1000).toFixed(1)} s, ` +
          `overhead ${(overhead / 1000).toFixed(1)} s, inject gap ${gap ?? '?'} ms`,
      );
      const left = await pollFor(async () => {
        const l = await liveFaults(sandbox.admin);
        return l.experiments.length === 0 && Object.keys(l.canaryFaults).length === 0 ? l : undefined;
      }, SETTLE_MS);
      if (!left)
        problems.push(
          `run ${i + 1}: an experiment or canary fault was still live ${SETTLE_MS / 1000} s after the run`,
        );
    }
  } finally {
    await sandbox.admin.send('DELETE', '/faults').catch(() => undefined);
    await setCanary(sandbox.admin, { fallback: true }).catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  }

  // The median of each part across runs, so the README can say where the time goes.
  const parts = Object.fromEntries(
    (Object.keys(breakdowns[0] ?? {}) as (keyof Breakdown)[]).map((k) => [
      `${k}Ms`,
      median(breakdowns.map((b) => b[k]).filter((v): v is number => v !== undefined)),
    ]),
  );
  const details = {
    injectGap: {
      what: 'journal inject event: data.sentAt − data.lastSteadyAt (ms)',
      samplesMs: gaps,
      medianMs: gaps.length > 0 ? median(gaps) : null,
      maxMs: gaps.length > 0 ? Math.max(...gaps) : null,
      target: `≤ ${INJECT_GAP_INTERVALS} intervals = ${gapMaxMs} ms`,
      meets: gaps.length > 0 ? gaps.every((g) => g <= gapMaxMs) : null,
    },
    publishIntervalMs: OVERHEAD_PUBLISH_INTERVAL_MS,
    fisTimings,
    interval: INTERVAL,
    steadyState: STEADY,
    actionDuration: ACTION_DURATION,
    runs,
    breakdownMedianMs: parts,
    breakdowns,
    problems,
  };
  return overheads.length > 0
    ? measured({ ...overheadBase, details }, overheads, overheadTarget)
    : notMeasured({ ...overheadBase, details }, overheadTarget.text, problems.join('; ') || 'no run held');
}
