/**
 * A required check is never left behind (issue 15): the action against the OpenAPI-validating GitHub
 * stand-in while it answers rate limits and 5xx on demand. The check run ends completed with the
 * verdict's conclusion, the verdict and exit code are unchanged, and the post step completes whatever
 * the main step could not.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Journal } from '../../src/journal/types.js';
import { parseInputs } from '../../src/action/inputs.js';
import { runFromInputs, STATE, type ActionCore, type ActionDeps } from '../../src/action/run.js';
import { runPostStep } from '../../src/action/post-step.js';
import { GitHubReporter, type GitHubContext } from '../../src/report/github.js';
import { checkName } from '../../src/report/common.js';
import { serveStandIn, TOKENS, type Served } from './serve.js';

const FIX = new URL('../../fixtures/github/', import.meta.url);
const journal = (name: string): Journal =>
  JSON.parse(readFileSync(new URL(`journals/${name}.json`, FIX), 'utf8')) as Journal;
const SHA = 'e'.repeat(40);

let s: Served;
let dir: string;
beforeAll(async () => {
  s = await serveStandIn({ tokens: TOKENS });
  dir = mkdtempSync(join(tmpdir(), 'cg-check-reliability-'));
});
afterAll(async () => {
  await s.close();
  rmSync(dir, { recursive: true, force: true });
});
beforeEach(() => s.gh.faults.clear());

interface Recorded extends ActionCore {
  outputs: Record<string, string>;
  state: Record<string, string>;
  lines: string[];
  warnings: string[];
  errors: string[];
}

function recordingCore(): Recorded {
  const c: Recorded = {
    outputs: {},
    state: {},
    lines: [],
    warnings: [],
    errors: [],
    info: (m) => void c.lines.push(m),
    error: (m, title) => void c.errors.push(`${title}: ${m}`),
    warning: (m) => void c.warnings.push(m),
    notice: () => undefined,
    setOutput: (n, v) => void (c.outputs[n] = v),
    saveState: (n, v) => void (c.state[n] = v),
    writeSummary: async () => undefined,
  };
  return c;
}

let seq = 0;
function actionSetup(repo: string): { env: Record<string, string>; deps: (c: Recorded) => ActionDeps } {
  const ws = join(dir, `ws-${++seq}`);
  const eventPath = join(dir, `event-${seq}.json`);
  writeFileSync(eventPath, JSON.stringify({ ref: 'refs/heads/main' }));
  const env = {
    GITHUB_API_URL: s.url,
    GITHUB_REPOSITORY: `acme/${repo}`,
    GITHUB_EVENT_NAME: 'push',
    GITHUB_EVENT_PATH: eventPath,
    GITHUB_SHA: SHA,
    GITHUB_RUN_ID: '777',
    GITHUB_RUN_ATTEMPT: '1',
    GITHUB_WORKSPACE: ws,
  };
  return {
    env,
    deps: (core) => ({
      core,
      env,
      runGate: async (req) => {
        await req.onPlanLoaded({ planId: 'redis-partition' });
        return journal('aborted');
      },
      reviewPlan: async () => {
        throw new Error('not used');
      },
      validatePlan: async () => ({ text: 'ok', exitCode: 0 }),
      uploadArtifact: async () => undefined,
      stepLog: false,
    }),
  };
}

const inputs = parseInputs(
  (n) => ({ plan: 'chaos/redis-partition.yaml', 'github-token': 'ghs-write' })[n] ?? '',
);

/** The stand-in's answers to one operation on one repository, in order: status and injected fault. */
function answers(repo: string, operationId: string): string[] {
  return s.gh.requests
    .filter((r) => r.operationId === operationId && r.path.startsWith(`/repos/acme/${repo}/`))
    .map((r) => (r.fault ? `${r.status} ${r.fault.replace(/#\d+$/, '')}` : String(r.status)));
}

describe('a required check is never left behind', () => {
  it('completes the check run with the right conclusion through a 403 secondary rate limit on create and 502s on the first two updates, verdict unchanged', async () => {
    s.gh.faults.add({ operation: 'checks/create', kind: 'secondary-rate-limit', retryAfter: 1, count: 1 });
    s.gh.faults.add({ operation: 'checks/update', kind: 'error', status: 502, count: 2 });
    const core = recordingCore();
    const { deps } = actionSetup('flaky');

    const code = await runFromInputs(inputs, deps(core));

    // The verdict and exit code are the journal's, whatever GitHub did.
    expect(code).toBe(1);
    expect(core.outputs.verdict).toBe('aborted');
    const runs = [...s.gh.state.checkRuns.values()].filter((c) => c.repo === 'flaky');
    expect(runs).toHaveLength(1);
    expect(runs[0]).toMatchObject({
      name: checkName('redis-partition'),
      status: 'completed',
      conclusion: 'failure',
      head_sha: SHA,
      external_id: 'chaos-gate/redis-partition/777-1',
    });
    expect(runs[0]?.output.title).toContain('aborted: error_ratio 0.024 above 0.01');
    expect(answers('flaky', 'checks/create')).toEqual(['403 secondary-rate-limit', '201']);
    expect(answers('flaky', 'checks/update')).toEqual(['502 error', '502 error', '200']);
    // Saved for the post step only after GitHub accepted the completion, so the post step has nothing to do.
    expect(core.state).toMatchObject({
      [STATE.checkRunId]: String(runs[0]?.id),
      [STATE.checkRunCompleted]: 'true',
    });
    expect(core.warnings).toEqual([]);
    expect(core.errors).toEqual([
      'chaos-gate: aborted: error_ratio 0.024 above 0.01 for 5 measurements in a row (+34.0 s)',
    ]);
    expect(s.gh.rejected.filter((r) => r.path.includes('/flaky/'))).toEqual([]);
  }, 60_000);

  it('does not save the completion when GitHub keeps failing, and the post step completes the check run with the journal verdict', async () => {
    s.gh.faults.add({ operation: 'checks/update', kind: 'error', status: 503 });
    const core = recordingCore();
    const { env, deps } = actionSetup('down');
    const code = await runFromInputs(inputs, {
      ...deps(core),
      githubRetry: { backoffUnitMs: 10, checkRunPauseMs: 10 },
    });
    expect(code).toBe(1);
    expect(core.outputs.verdict).toBe('aborted');
    const run = [...s.gh.state.checkRuns.values()].find((c) => c.repo === 'down');
    expect(run?.status).toBe('in_progress');
    expect(core.state[STATE.finished]).toBe('true');
    expect(core.state[STATE.checkRunCompleted]).toBeUndefined();
    expect(core.warnings.join('\n')).toContain('could not complete the check run');

    // GitHub is back by the time the post step runs.
    s.gh.faults.clear();
    let stops = 0;
    const result = await runPostStep({
      getState: (n) => core.state[n] ?? '',
      githubToken: 'ghs-write',
      env,
      log: { info: () => undefined, warning: () => undefined },
      setFailed: () => undefined,
      stopExperiment: async () => {
        stops++;
        return { verified: true, detail: 'stopped' };
      },
    });
    expect(result).toBe('cleaned-up');
    expect(stops).toBe(0); // the run finished: its experiment was already stopped and verified
    expect(run).toMatchObject({ status: 'completed', conclusion: 'failure' });
    expect(run?.output.title).toContain('aborted: error_ratio 0.024 above 0.01');
    expect(run?.output.summary).toContain('Completed by the post step');
  }, 60_000);

  it('post step: a check run left open with its journal missing is completed as failure saying the verdict is unknown', async () => {
    const pre = new GitHubReporter(ctx('noverdict'), { log: quiet });
    const id = await pre.startCheck('redis-partition', Date.now());
    const state: Record<string, string> = {
      [STATE.finished]: 'true',
      [STATE.checkRunId]: String(id),
      [STATE.journal]: join(dir, 'missing.journal.json'),
    };
    const result = await runPostStep({
      getState: (n) => state[n] ?? '',
      githubToken: 'ghs-write',
      env: { GITHUB_API_URL: s.url, GITHUB_REPOSITORY: 'acme/noverdict', GITHUB_SHA: SHA },
      log: quiet,
      setFailed: () => undefined,
      stopExperiment: async () => ({ verified: true, detail: 'stopped' }),
    });
    expect(result).toBe('cleaned-up');
    const run = s.gh.state.checkRuns.get(id as number);
    expect(run).toMatchObject({ status: 'completed', conclusion: 'failure' });
    // No journal was read, so nothing says there was no verdict: only that it is unknown.
    expect(run?.output.title).toBe('failed: the verdict is unknown');
    expect(run?.output.summary).toContain('missing.journal.json');
  });
});

const quiet = { info: () => undefined, warning: () => undefined };

function ctx(repo: string): GitHubContext {
  return {
    apiUrl: s.url,
    token: 'ghs-write',
    owner: 'acme',
    repo,
    eventName: 'push',
    sha: SHA,
    payload: {},
  };
}

describe('the GitHub reporter under faults', () => {
  it('adopts a check run whose create landed but answered too late, instead of creating a second one', async () => {
    s.gh.faults.add({ operation: 'checks/create', kind: 'delay', delayMs: 1_500, count: 1 });
    const r = new GitHubReporter(ctx('late'), {
      log: quiet,
      timeoutMs: 500,
      runKey: '99-1',
      sleep: async () => undefined,
    });
    const id = await r.startCheck('redis-partition', Date.now());
    const runs = [...s.gh.state.checkRuns.values()].filter((c) => c.repo === 'late');
    expect(runs).toHaveLength(1);
    expect(id).toBe(runs[0]?.id);
    expect(answers('late', 'checks/list-for-ref')).toEqual(['200']);
  });

  it('waits out a 429 secondary rate limit for its Retry-After before retrying', async () => {
    s.gh.faults.add({
      operation: 'issues/create',
      kind: 'secondary-rate-limit',
      status: 429,
      retryAfter: 2,
      count: 1,
    });
    const r = new GitHubReporter(ctx('limited'), { log: quiet });
    const t0 = Date.now();
    expect(await r.reportFindings(journal('deviated'))).toBe('opened');
    expect(Date.now() - t0).toBeGreaterThanOrEqual(2_000);
    expect(answers('limited', 'issues/create')).toEqual(['429 secondary-rate-limit', '201']);
  });

  it('gives up on a Retry-After longer than it will wait, with a warning, never a stall', async () => {
    s.gh.faults.add({ operation: 'checks/create', kind: 'secondary-rate-limit', retryAfter: 3600 });
    const warnings: string[] = [];
    const r = new GitHubReporter(ctx('hour'), {
      log: { info: () => undefined, warning: (m) => void warnings.push(m) },
      retry: { checkRunAttempts: 1 },
    });
    const t0 = Date.now();
    expect(await r.startCheck('redis-partition', Date.now())).toBeUndefined();
    expect(Date.now() - t0).toBeLessThan(5_000);
    expect(warnings).toEqual([
      expect.stringContaining(
        'could not create the check run: POST /repos/acme/hour/check-runs: 403 You have exceeded a secondary rate limit',
      ),
    ]);
  });
});

describe('stand-in faults over its admin routes', () => {
  it('adds, lists and clears faults under /_sandbox/faults, and names a bad field', async () => {
    const post = (body: unknown) =>
      fetch(`${s.url}/_sandbox/faults`, { method: 'POST', body: JSON.stringify(body) });
    const added = await post({ operation: 'checks/create', kind: 'error', status: 500, count: 2 });
    expect(added.status).toBe(201);
    const list = (await (await fetch(`${s.url}/_sandbox/faults`)).json()) as { faults: unknown[] };
    expect(list.faults).toEqual([expect.objectContaining({ operation: 'checks/create', kind: 'error' })]);
    const bad = await post({ kind: 'error', status: 404 });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: string }).error).toContain('an error status must be 5xx');
    await fetch(`${s.url}/_sandbox/faults`, { method: 'DELETE' });
    expect(s.gh.faults.list()).toEqual([]);
  });
});
