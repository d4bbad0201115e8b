/**
 * Concurrency (docs/design/gates.md#concurrency): two chaos-gate experiments on intersecting targets would confound each other's
 * measurements and add their blast radii. The second one queues: it polls for up to the queue timeout,
 * showing progress, and gives up with `not-run` naming the experiment in its way.
 */
import type { Gate, GateContext } from '../engine/gates.js';
import type { Clock } from '../clock/clock.js';
import { formatDuration } from '../plan/duration.js';
import type { ExperimentLister, RunningExperiment } from '../injector/ports.js';
import { rethrowSetupError } from './setup-error.js';
import { errorMessage } from '../errors/message.js';
import type { RunQueue } from '../engine/queue.js';

export type { ExperimentLister, RunningExperiment } from '../injector/ports.js';

/**
 * Default wait between polls. FIS experiments change state on the order of seconds; polling every 10 s
 * keeps ListExperiments far below FIS's API rate limits while a queue waits minutes.
 */
export const DEFAULT_QUEUE_POLL_MS = 10_000;

/**
 * How long a run waits for another chaos-gate experiment on intersecting targets before it ends
 * `not-run`, unless told otherwise: the same for the action's `queue-timeout` input and the CLI's
 * `--queue-timeout`, long enough for one experiment of the default 15-minute ceiling to finish most of it.
 */
export const DEFAULT_QUEUE_TIMEOUT = '10m';

/** A running experiment in the way, and the targets both touch. */
export interface Conflict {
  experiment: RunningExperiment;
  /** Shared ARNs; empty when the other experiment's targets are unknown (treated as overlapping). */
  shared: string[];
}

/**
 * The running experiments whose targets intersect `mine`. An experiment that reports no targets might
 * touch anything, so it conflicts (fail closed). `ownIds` excludes this run's own experiments (its dry run).
 */
export function conflicts(
  mine: readonly string[],
  running: readonly RunningExperiment[],
  ownIds: readonly string[] = [],
): Conflict[] {
  const set = new Set(mine);
  const out: Conflict[] = [];
  for (const e of running) {
    if (ownIds.includes(e.id)) continue;
    if (e.targets.length === 0) {
      out.push({ experiment: e, shared: [] });
      continue;
    }
    const shared = e.targets.filter((t) => set.has(t));
    if (shared.length > 0) out.push({ experiment: e, shared });
  }
  return out;
}

function describe(c: Conflict): string {
  const what =
    c.shared.length === 0
      ? 'unknown targets'
      : `${c.shared.length} shared target${c.shared.length === 1 ? '' : 's'} (${c.shared.join(', ')})`;
  return `experiment ${c.experiment.id} (plan ${c.experiment.planId}) on ${what}`;
}

export interface ConcurrencyGateOptions {
  lister: ExperimentLister;
  clock: Clock;
  /** How long to wait for the other experiments to finish (the `queue-timeout` input); 0 = do not wait. */
  queueTimeoutMs: number;
  pollMs?: number | undefined;
  /** Experiment ids of this run itself (e.g. its dry run), never a conflict. */
  ownIds?: (() => readonly string[]) | undefined;
  /**
   * The run's queue (engine/queue.ts): this gate's wait and the waits for FIS's active-experiment quota
   * share its budget, and its polls are jittered so runners started together do not poll together.
   */
  queue?: RunQueue | undefined;
}

/** The concurrency gate (stage `after-targets`: it compares resolved target ARNs). */
export function concurrencyGate(options: ConcurrencyGateOptions): Gate {
  const pollMs = options.pollMs ?? DEFAULT_QUEUE_POLL_MS;
  return {
    name: 'concurrency',
    stage: 'after-targets',
    async check(ctx: GateContext) {
      const mine = (ctx.targets ?? []).map((t) => t.arn);
      // An empty set intersects nothing, so it would pass by construction: only FIS's whole answer
      // (a completed dry run) proves that this run touches nothing another one does.
      if (mine.length === 0 && ctx.targetsComplete !== true) {
        return {
          pass: false,
          verdict: 'not-run',
          reason:
            'no resolved targets, and the dry run did not prove the set empty: cannot show that no running experiment shares one',
          field: 'fis.targets',
        };
      }
      const queue = options.queue;
      let started = options.clock.now();
      let deadline = started + options.queueTimeoutMs;
      let polls = 0;
      while (true) {
        let running: RunningExperiment[];
        try {
          running = await options.lister.running(ctx.signal);
        } catch (error) {
          // A broken set-up ends the run `failed`; a lister that is briefly unavailable is `not-run`.
          rethrowSetupError(error, 'cannot list running experiments');
          return {
            pass: false,
            verdict: 'not-run',
            reason: `cannot list running experiments (${errorMessage(error)}); refusing to start beside an unknown one`,
          };
        }
        polls += 1;
        const found = conflicts(mine, running, options.ownIds?.() ?? []);
        const waited = queue ? queue.waited() : options.clock.now() - started;
        if (found.length === 0) {
          return {
            pass: true,
            note:
              polls > 1
                ? `queued ${formatDuration(waited)} behind other experiments`
                : 'no intersecting experiment running',
          };
        }
        const names = found.map(describe).join('; ');
        if (queue) {
          // The run's one queue: counted from its first wait, whichever it was.
          started = queue.begin();
          deadline = queue.deadline();
        }
        if (ctx.signal?.aborted) {
          return { pass: false, verdict: 'not-run', reason: `cancelled while queued behind ${names}` };
        }
        const now = options.clock.now();
        if (now >= deadline) {
          return {
            pass: false,
            verdict: 'not-run',
            reason: `${names} still running after waiting ${formatDuration(waited)} (queue timeout ${formatDuration(options.queueTimeoutMs)})`,
          };
        }
        ctx.record({
          type: 'preflight',
          message: `queued behind ${names}: waited ${formatDuration(waited)} of ${formatDuration(options.queueTimeoutMs)}`,
          data: {
            gate: 'concurrency',
            waitedMs: waited,
            queueTimeoutMs: options.queueTimeoutMs,
            poll: polls,
            experiments: found.map((c) => c.experiment.id),
          },
        });
        const poll = queue ? queue.jitter(pollMs) : pollMs;
        await options.clock.sleep(Math.min(poll, deadline - now), ctx.signal);
      }
    },
  };
}
