/** Production dependencies of the post step: `@actions/core` state and a FIS client to stop with. */
import * as core from '@actions/core';
import { FisClient, GetExperimentCommand, StopExperimentCommand } from '@aws-sdk/client-fis';
import type { PostDeps, StopOutcome } from './post-step.js';
import { logLines } from '../security/log-text.js';

/** How long the post step waits for FIS to confirm a stop; GitHub allows a post step minutes, not hours. */
const STOP_VERIFY_TIMEOUT_MS = 60_000;
/** Polling interval while waiting for the stop. */
const STOP_POLL_MS = 2_000;
const TERMINAL = new Set(['stopped', 'completed', 'failed', 'cancelled']);

/** Stops an experiment and polls until FIS reports a terminal state or the timeout passes. */
export async function stopWithFis(
  client: Pick<FisClient, 'send'>,
  id: string,
  sleep: (ms: number) => Promise<void> = (ms) => new Promise((r) => setTimeout(r, ms)),
  now: () => number = Date.now,
): Promise<StopOutcome> {
  try {
    await client.send(new StopExperimentCommand({ id }));
  } catch (err) {
    // Already terminal is fine: FIS refuses to stop a stopped experiment; the poll below decides.
    const name = (err as { name?: string }).name;
    if (name !== 'ValidationException' && name !== 'ConflictException') throw err;
  }
  const deadline = now() + STOP_VERIFY_TIMEOUT_MS;
  let status = 'unknown';
  while (now() <= deadline) {
    const r = await client.send(new GetExperimentCommand({ id }));
    status = r.experiment?.state?.status ?? 'unknown';
    if (TERMINAL.has(status)) return { verified: true, detail: status };
    await sleep(STOP_POLL_MS);
  }
  return { verified: false, detail: `still ${status} after ${STOP_VERIFY_TIMEOUT_MS / 1000} s` };
}

export function defaultPostDeps(): PostDeps {
  return {
    getState: (name) => core.getState(name),
    githubToken: core.getInput('github-token') || undefined,
    env: process.env,
    log: { info: (m) => core.info(logLines(m)), warning: (m) => core.warning(m) },
    setFailed: (m) => core.setFailed(m),
    stopExperiment: (id, region) => stopWithFis(new FisClient(region ? { region } : {}), id),
  };
}
