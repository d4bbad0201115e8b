import { mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Journal } from '../../src/journal/types.js';
import { parseInputs, type ActionInputs } from '../../src/action/inputs.js';
import {
  runFromInputs,
  STATE,
  type ActionCore,
  type ActionDeps,
  type GateRequest,
} from '../../src/action/run.js';
import { runPostStep } from '../../src/action/post-step.js';
import { commentMarker } from '../../src/report/common.js';
import { serveStandIn, TOKENS, type Served } from '../github/serve.js';

const FIX = new URL('../../fixtures/github/', import.meta.url);
const journal = (name: string): Journal =>
  JSON.parse(readFileSync(new URL(`journals/${name}.json`, FIX), 'utf8')) as Journal;
const MERGE = 'c'.repeat(40);
const HEAD = 'd'.repeat(40);

let s: Served;
let dir: string;
beforeAll(async () => {
  s = await serveStandIn({ tokens: TOKENS });
  dir = mkdtempSync(join(tmpdir(), 'chaos-gate-action-'));
});
afterAll(async () => {
  await s.close();
  rmSync(dir, { recursive: true, force: true });
});

interface FakeCore extends ActionCore {
  outputs: Record<string, string>;
  state: Record<string, string>;
  summary: string;
  warnings: string[];
  notices: string[];
}

function fakeCore(): FakeCore {
  const c: FakeCore = {
    outputs: {},
    state: {},
    summary: '',
    warnings: [],
    notices: [],
    info: () => undefined,
    warning: (m) => void c.warnings.push(m),
    notice: (m) => void c.notices.push(m),
    setOutput: (n, v) => void (c.outputs[n] = v),
    saveState: (n, v) => void (c.state[n] = v),
    writeSummary: async (md) => void (c.summary += md),
  };
  return c;
}

let seq = 0;
function setup(opts: {
  repo: string;
  event: 'push' | 'pull_request';
  pr?: number;
  fork?: boolean;
  with?: Record<string, string>;
  token?: string;
}) {
  const ws = join(dir, `ws-${++seq}`);
  const eventPath = join(dir, `event-${seq}.json`);
  const payload =
    opts.event === 'pull_request'
      ? {
          pull_request: {
            number: opts.pr,
            head: {
              sha: HEAD,
              repo: { full_name: opts.fork ? `forker/${opts.repo}` : `acme/${opts.repo}`, fork: !!opts.fork },
            },
            base: { repo: { full_name: `acme/${opts.repo}` } },
          },
        }
      : { ref: 'refs/heads/main' };
  writeFileSync(eventPath, JSON.stringify(payload));
  const env = {
    GITHUB_API_URL: s.url,
    GITHUB_REPOSITORY: `acme/${opts.repo}`,
    GITHUB_EVENT_NAME: opts.event,
    GITHUB_EVENT_PATH: eventPath,
    GITHUB_SHA: MERGE,
    GITHUB_SERVER_URL: 'https://github.com',
    GITHUB_RUN_ID: '4242',
    GITHUB_RUN_ATTEMPT: '1',
    GITHUB_WORKSPACE: ws,
  };
  const inputs: ActionInputs = parseInputs(
    (n) =>
      ({ plan: 'chaos/redis-partition.yaml', 'github-token': opts.token ?? 'ghs-write', ...opts.with })[n] ??
      '',
  );
  return { env, inputs };
}

function deps(
  core: FakeCore,
  env: Record<string, string>,
  runGate: (req: GateRequest) => Promise<Journal>,
): ActionDeps {
  return {
    core,
    env,
    runGate,
    reviewPlan: async () => {
      throw new Error('not used');
    },
    validatePlan: async () => ({ text: 'ok', exitCode: 0 }),
    uploadArtifact: async () => {
      throw new Error('no artifact service in tests');
    },
  };
}

describe('runFromInputs with the stand-in', () => {
  it('creates the check run in_progress before the engine runs, then completes it, sets outputs and state', async () => {
    const before = s.gh.rejected.length;
    const core = fakeCore();
    const { env, inputs } = setup({ repo: 'gate', event: 'push' });
    let seenDuringRun: unknown;
    const code = await runFromInputs(
      inputs,
      deps(core, env, async (req) => {
        await req.onPlanLoaded({ planId: 'redis-partition' });
        seenDuringRun = [...s.gh.state.checkRuns.values()].find((c) => c.repo === 'gate')?.status;
        req.onExperimentId('EXPa9Zk3LmQ7rT2');
        return journal('aborted');
      }),
    );
    expect(code).toBe(1);
    expect(seenDuringRun).toBe('in_progress');
    const run = [...s.gh.state.checkRuns.values()].find((c) => c.repo === 'gate');
    expect(run).toMatchObject({ status: 'completed', conclusion: 'failure', head_sha: MERGE });
    expect(core.state).toMatchObject({
      [STATE.checkRunId]: String(run?.id),
      [STATE.experimentId]: 'EXPa9Zk3LmQ7rT2',
      [STATE.finished]: 'true',
      [STATE.planId]: 'redis-partition',
    });
    expect(core.outputs).toMatchObject({
      verdict: 'aborted',
      'experiment-id': 'EXPa9Zk3LmQ7rT2',
      'abort-latency-ms': '95',
      'budget-remaining': '381',
    });
    expect(core.outputs.reason).toContain('error_ratio 0.024 above 0.01');
    expect(existsSync(core.outputs.report as string)).toBe(true);
    expect(JSON.parse(readFileSync(core.outputs.journal as string, 'utf8')).verdict).toBe('aborted');
    expect(core.summary).toContain('aborted');
    expect(core.notices.join()).toContain('not uploaded as an artifact');
    expect(s.gh.rejected.slice(before)).toEqual([]);
  });

  it('on pull_request: check run on the PR head and the verdict comment on the PR', async () => {
    const before = s.gh.rejected.length;
    const pr = s.gh.state.addPullRequest({ owner: 'acme', repo: 'prgate', headSha: HEAD });
    const core = fakeCore();
    const { env, inputs } = setup({ repo: 'prgate', event: 'pull_request', pr: pr.number });
    const code = await runFromInputs(
      inputs,
      deps(core, env, async (req) => {
        await req.onPlanLoaded({ planId: 'redis-partition' });
        return journal('held');
      }),
    );
    expect(code).toBe(0);
    const run = [...s.gh.state.checkRuns.values()].find((c) => c.repo === 'prgate');
    expect(run).toMatchObject({ head_sha: HEAD, conclusion: 'success' });
    const comments = s.gh.state.commentsOn('acme', 'prgate', pr.number);
    expect(comments).toHaveLength(1);
    expect(comments[0]?.body.startsWith(commentMarker('redis-partition'))).toBe(true);
    expect(s.gh.rejected.slice(before)).toEqual([]);
  });

  it('refuses to run on a pull_request from a fork without calling the engine', async () => {
    const core = fakeCore();
    const { env, inputs } = setup({
      repo: 'forkgate',
      event: 'pull_request',
      pr: 1,
      fork: true,
      token: 'ghs-readonly',
    });
    let called = false;
    const code = await runFromInputs(
      inputs,
      deps(core, env, async () => {
        called = true;
        return journal('held');
      }),
    );
    expect(code).toBe(2);
    expect(called).toBe(false);
    expect(core.outputs.verdict).toBe('refused');
    expect(core.outputs.reason).toContain(
      'run refuses: pull_request: the head repository forker/forkgate is not the base repository acme/forkgate (a fork)',
    );
  });

  it('opens a findings issue when findings: issue and the run deviated', async () => {
    const core = fakeCore();
    const { env, inputs } = setup({ repo: 'nightly2', event: 'push', with: { findings: 'issue' } });
    await runFromInputs(
      inputs,
      deps(core, env, async () => journal('deviated')),
    );
    const issues = s.gh.state.issues.filter((i) => i.repo === 'nightly2');
    expect(issues).toHaveLength(1);
    expect(issues[0]?.body).toContain('https://github.com/acme/nightly2/actions/runs/4242');
  });

  it('maps an engine crash to failed, completing the check run as failure', async () => {
    const core = fakeCore();
    const { env, inputs } = setup({ repo: 'crash', event: 'push' });
    const code = await runFromInputs(
      inputs,
      deps(core, env, async (req) => {
        await req.onPlanLoaded({ planId: 'redis-partition' });
        throw new Error('AccessDenied: not authorized to perform fis:CreateExperimentTemplate');
      }),
    );
    expect(code).toBe(1);
    expect(core.outputs.verdict).toBe('failed');
    expect([...s.gh.state.checkRuns.values()].find((c) => c.repo === 'crash')).toMatchObject({
      conclusion: 'failure',
    });
    expect(core.summary).toContain('AccessDenied');
  });

  it('post step after a cancelled main step: stops the experiment and completes the check run as cancelled', async () => {
    const core = fakeCore();
    const { env, inputs } = setup({ repo: 'cancel', event: 'push' });
    const main = runFromInputs(
      inputs,
      deps(core, env, async (req) => {
        await req.onPlanLoaded({ planId: 'redis-partition' });
        req.onExperimentId('EXPcancel1');
        return new Promise<Journal>(() => undefined);
      }),
    );
    void main;
    // The main step is "killed" once it saved the experiment id (the check run is created before that).
    await expect.poll(() => core.state[STATE.experimentId], { timeout: 10_000 }).toBe('EXPcancel1');
    const stopped: string[] = [];
    const failures: string[] = [];
    const result = await runPostStep({
      getState: (n) => core.state[n] ?? '',
      githubToken: 'ghs-write',
      env,
      log: { info: () => undefined, warning: () => undefined },
      setFailed: (m) => void failures.push(m),
      stopExperiment: async (id) => {
        stopped.push(id);
        return { verified: true, detail: 'stopped' };
      },
    });
    expect(result).toBe('cleaned-up');
    expect(stopped).toEqual(['EXPcancel1']);
    expect(failures).toEqual([]);
    const run = [...s.gh.state.checkRuns.values()].find((c) => c.repo === 'cancel');
    expect(run).toMatchObject({ status: 'completed', conclusion: 'cancelled' });
    expect(run?.output.summary).toContain('stop verified');
  });

  it('post step fails loudly with the manual commands when the stop cannot be verified', async () => {
    const failures: string[] = [];
    const result = await runPostStep({
      getState: (n) => ({ [STATE.experimentId]: 'EXPstuck', [STATE.region]: 'eu-west-1' })[n] ?? '',
      githubToken: undefined,
      env: {},
      log: { info: () => undefined, warning: () => undefined },
      setFailed: (m) => void failures.push(m),
      stopExperiment: async () => ({ verified: false, detail: 'still stopping after 60 s' }),
    });
    expect(result).toBe('stop-unverified');
    expect(failures[0]).toContain('aws fis stop-experiment --id EXPstuck --region eu-west-1');
  });

  it('post step does nothing after a finished run', async () => {
    let stops = 0;
    const result = await runPostStep({
      getState: (n) => (n === STATE.finished ? 'true' : 'EXPdone'),
      githubToken: undefined,
      env: {},
      log: { info: () => undefined, warning: () => undefined },
      setFailed: () => undefined,
      stopExperiment: async () => {
        stops++;
        return { verified: true, detail: 'stopped' };
      },
    });
    expect(result).toBe('nothing-to-do');
    expect(stops).toBe(0);
  });
});
