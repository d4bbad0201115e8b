/**
 * A cancelled step cleaned up by the post step (docs/design/run.md#the-post-step): the action's main step runs a plan against the
 * sandbox and is SIGKILLed while the fault is on (GitHub's last resort after SIGINT and SIGTERM), so it
 * cleans up nothing. The post step then runs with the `STATE_*` variables GitHub passes it — parsed from
 * the `GITHUB_STATE` file the main step wrote — stops the saved experiment and verifies the stop, before
 * the lease would have.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Experiment } from '@aws-sdk/client-fis';
import {
  canaryFaults,
  PLANS,
  startE2E,
  waitFor,
  type CliResult,
  type E2E,
  type LoggedRequest,
} from './harness.js';

let e2e: E2E;
let saved: Record<string, string> = {};
let main: CliResult;
let post: CliResult;
let experiment: Experiment;
let stopsByPost: LoggedRequest[] = [];

/** Parses a `GITHUB_STATE` / `GITHUB_OUTPUT` file (`name<<delimiter`, value lines, `delimiter`). */
function parseGithubFile(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const m = /^([^<=]+)<<(.+)$/.exec(lines[i] ?? '');
    if (!m) continue;
    const [, name = '', delimiter] = m;
    const value: string[] = [];
    for (i++; i < lines.length && lines[i] !== delimiter; i++) value.push(lines[i] ?? '');
    out[name] = value.join('\n');
  }
  return out;
}

beforeAll(async () => {
  e2e = await startE2E();
  const files = { state: 'github_state', output: 'github_output', summary: 'github_summary' };
  for (const f of Object.values(files)) writeFileSync(path.join(e2e.dir, f), '');
  // A push: an event that proves the workspace holds the repository's own code, so the run may inject.
  const eventPath = path.join(e2e.dir, 'event.json');
  writeFileSync(eventPath, JSON.stringify({ ref: 'refs/heads/main' }));
  const github = {
    GITHUB_ACTIONS: 'true',
    GITHUB_EVENT_NAME: 'push',
    GITHUB_EVENT_PATH: eventPath,
    GITHUB_WORKSPACE: e2e.dir,
    GITHUB_RUN_ID: '9001',
    GITHUB_RUN_ATTEMPT: '1',
    GITHUB_STATE: path.join(e2e.dir, files.state),
    GITHUB_OUTPUT: path.join(e2e.dir, files.output),
    GITHUB_STEP_SUMMARY: path.join(e2e.dir, files.summary),
  };
  const mainStep = e2e.node('action', {
    ...github,
    INPUT_PLAN: path.join(PLANS, 'e2e-kill.yaml'),
  });
  const experimentId = await waitFor(
    'the main step to save the experiment id',
    async () => parseGithubFile(readFileSync(github.GITHUB_STATE, 'utf8'))['experiment-id'] || undefined,
    90_000,
  );
  await waitFor(
    'the action to run',
    async () => ((await e2e.actions(experimentId)).some((a) => a.startTime && !a.endTime) ? true : undefined),
    15_000,
  );
  mainStep.kill('SIGKILL');
  main = await mainStep.done;
  const mark = await e2e.mark();
  saved = parseGithubFile(readFileSync(github.GITHUB_STATE, 'utf8'));
  const stateEnv = Object.fromEntries(Object.entries(saved).map(([k, v]) => [`STATE_${k}`, v]));
  post = await e2e.node('post', { ...github, ...stateEnv }).done;
  stopsByPost = await e2e.requests({ service: 'fis', operation: 'StopExperiment', since: mark });
  experiment = await e2e.experiment(experimentId);
}, 150_000);

afterAll(async () => {
  await e2e?.close();
}, 30_000);

describe('the post step after a main step killed mid-run', () => {
  it('the main step had saved the experiment id, and not that it finished', () => {
    expect(main.signal).toBe('SIGKILL');
    expect(saved['experiment-id']).toMatch(/^EXP/);
    expect(saved['plan-id']).toBe('e2e-kill');
    expect(saved.finished).toBeUndefined();
  });

  it('stopped the saved experiment itself and verified the stop', () => {
    expect(post.code, post.stdout + post.stderr).toBe(0);
    expect(stopsByPost.map((r) => [r.path, r.status])).toEqual([
      [`/experiments/${saved['experiment-id']}`, 200],
    ]);
    expect(post.stdout).toContain(`Experiment \`${saved['experiment-id']}\`: stop verified (stopped)`);
    expect(experiment.state?.status).toBe('stopped');
    // The post step's StopExperiment stopped it, not the lease alarm.
    expect(experiment.state?.reason ?? '').not.toMatch(/stop condition/i);
  });

  it('leaves the canary without a fault', async () => {
    expect(await canaryFaults(e2e)).toEqual({});
  });

  it('leaves no experiment running in the stand-in', async () => {
    await e2e.sweep();
    expect(await e2e.liveExperiments()).toEqual([]);
  });
});
