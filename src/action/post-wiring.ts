/**
 * Production dependencies of the post step: `@actions/core` state and a FIS
 * client to find and stop with. Every AWS call carries a deadline (src/net/deadline.ts) on a client with
 * bounded attempts and HTTP timeouts, and the whole stop has a budget: GitHub gives a job 5 minutes after
 * a cancel before it terminates it, and the post step must have completed the check run well before then.
 */
import * as core from '@actions/core';
import {
  FisClient,
  GetExperimentCommand,
  ListExperimentsCommand,
  StopExperimentCommand,
} from '@aws-sdk/client-fis';
import { awsClientConfig, resolveRegion } from '../injector/aws/config.js';
import { TAG_ATTEMPT, TAG_RUN } from '../injector/fis/tags.js';
import { DEADLINES, sendWithin } from '../net/deadline.js';
import { errorMessage } from '../errors/message.js';
import type { ExperimentLookup, PostDeps, StopOutcome } from './post-step.js';
import { logLines } from '../security/log-text.js';

/**
 * How long the post step tries to see the experiment stopped. FIS stops network actions in seconds; 45 s
 * leaves the check-run completion (POST_REPORT_BUDGET_MS) and a margin inside GitHub's limits.
 */
export const POST_STOP_BUDGET_MS = 45_000;
/** Pause between state reads while verifying, growing to {@link POLL_MAX_MS}. */
const POLL_INITIAL_MS = 500;
const POLL_MAX_MS = 4_000;
const TERMINAL = new Set(['stopped', 'completed', 'failed', 'cancelled']);
/** Experiments that may still inject. */
const LIVE = new Set(['pending', 'initiating', 'running', 'stopping']);

export interface StopOptions {
  budgetMs?: number | undefined;
  signal?: AbortSignal | undefined;
  sleep?: ((ms: number, signal?: AbortSignal) => Promise<void>) | undefined;
  now?: (() => number) | undefined;
}

function pause(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done(): void {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });
}

/**
 * Stops an experiment and polls until FIS reports a terminal state, the budget passes or `signal` aborts.
 * StopExperiment is asked again while FIS still shows the experiment running (the first may have been
 * lost); an experiment already ended answers with an error that is not a failure, and the poll decides.
 */
export async function stopWithFis(
  client: Pick<FisClient, 'send'>,
  id: string,
  o: StopOptions = {},
): Promise<StopOutcome> {
  const now = o.now ?? Date.now;
  const sleep = o.sleep ?? pause;
  const budget = o.budgetMs ?? POST_STOP_BUDGET_MS;
  const deadline = now() + budget;
  const left = (cap: number): number => Math.max(1, Math.min(cap, deadline - now()));
  let accepted = false;
  let lastError: string | undefined;
  let status = 'unknown';
  const ask = async (): Promise<void> => {
    try {
      await sendWithin(
        client,
        new StopExperimentCommand({ id }),
        // Never the whole budget: a hanging StopExperiment must leave time to read the state.
        left(Math.min(DEADLINES.fisStopExperiment, budget / 2)),
        'FIS StopExperiment',
        o.signal,
      );
      accepted = true;
    } catch (err) {
      const name = (err as { name?: string }).name;
      if (name === 'ValidationException' || name === 'ConflictException') accepted = true;
      else lastError = `StopExperiment: ${errorMessage(err)}`;
    }
  };
  await ask();
  let delay = POLL_INITIAL_MS;
  while (now() < deadline && !o.signal?.aborted) {
    try {
      const r = await sendWithin(
        client,
        new GetExperimentCommand({ id }),
        left(DEADLINES.fisGetExperiment),
        'FIS GetExperiment',
        o.signal,
      );
      status = r.experiment?.state?.status ?? 'unknown';
      if (TERMINAL.has(status)) return { verified: true, detail: status };
      if (status !== 'stopping') await ask();
    } catch (err) {
      lastError = `GetExperiment: ${errorMessage(err)}`;
      if (!accepted) await ask();
    }
    if (now() >= deadline || o.signal?.aborted) break;
    await sleep(Math.min(delay, Math.max(1, deadline - now())), o.signal);
    delay = Math.min(delay * 2, POLL_MAX_MS);
  }
  const why = o.signal?.aborted ? 'the post step was cancelled' : `${Math.round(budget / 1000)} s passed`;
  return {
    verified: false,
    detail: `still ${status} when ${why}${accepted ? '' : ', StopExperiment never accepted'}${lastError ? ` (last error: ${lastError})` : ''}`,
  };
}

/**
 * The live experiments this run started, found by the tags every chaos-gate experiment carries (run id and
 * attempt): for a main step that died before it could save the experiment id.
 */
export async function findRunExperiments(
  client: Pick<FisClient, 'send'>,
  lookup: ExperimentLookup,
  o: { signal?: AbortSignal | undefined; budgetMs?: number | undefined; now?: () => number } = {},
): Promise<string[]> {
  const now = o.now ?? Date.now;
  const deadline = now() + (o.budgetMs ?? DEADLINES.fisOther);
  const found: string[] = [];
  let nextToken: string | undefined;
  do {
    const page = await sendWithin(
      client,
      new ListExperimentsCommand({ maxResults: 100, ...(nextToken ? { nextToken } : {}) }),
      Math.max(1, Math.min(DEADLINES.fisOther, deadline - now())),
      'FIS ListExperiments',
      o.signal,
    );
    for (const e of page.experiments ?? []) {
      const ours = e.tags?.[TAG_RUN] === lookup.runId && e.tags?.[TAG_ATTEMPT] === String(lookup.attempt);
      if (e.id && ours && LIVE.has(String(e.state?.status))) found.push(e.id);
    }
    nextToken = page.nextToken;
  } while (nextToken);
  return found;
}

/** A FIS client with chaos-gate's bounded attempts and timeouts. */
function fisClient(region: string | undefined): FisClient {
  return new FisClient(awsClientConfig(resolveRegion({ region, env: process.env })));
}

export function defaultPostDeps(signal?: AbortSignal): PostDeps {
  return {
    getState: (name) => core.getState(name),
    githubToken: core.getInput('github-token') || undefined,
    env: process.env,
    log: { info: (m) => core.info(logLines(m)), warning: (m) => core.warning(m) },
    setFailed: (m) => core.setFailed(m),
    signal,
    stopExperiment: (id, region, s) => stopWithFis(fisClient(region), id, { signal: s }),
    findExperiments: (lookup, region, s) => findRunExperiments(fisClient(region), lookup, { signal: s }),
  };
}
