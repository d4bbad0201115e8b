/**
 * The action's ways out tell the truth (issue 26 items 7 and 8), against the GitHub stand-in:
 * - output paths outside the workspace and the runner's temp, or through a symlink, are refused with
 *   exit 2 before anything is touched;
 * - a completion GitHub refuses as unprocessable (422) still carries the verdict — in the main step by a
 *   second, minimal completion, in the post step from the journal — and "ended without a verdict" is said
 *   only when the journal was read and holds none.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Journal } from '../../src/journal/types.js';
import { parseInputs } from '../../src/action/inputs.js';
import {
  runFromInputs,
  STATE,
  type ActionCore,
  type ActionDeps,
  type GateRequest,
} from '../../src/action/run.js';
import { runPostStep } from '../../src/action/post-step.js';
import { serveStandIn, TOKENS, type Served } from '../github/serve.js';

const FIX = new URL('../../fixtures/github/', import.meta.url);
const journal = (name: string): Journal =>
  JSON.parse(readFileSync(new URL(`journals/${name}.json`, FIX), 'utf8')) as Journal;

let s: Served;
let dir: string;
beforeAll(async () => {
  s = await serveStandIn({ tokens: TOKENS });
  dir = mkdtempSync(join(tmpdir(), 'chaos-gate-exit-'));
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
  lines: string[];
}

function fakeCore(): FakeCore {
  const c: FakeCore = {
    outputs: {},
    state: {},
    summary: '',
    warnings: [],
    lines: [],
    info: (m) => void c.lines.push(m),
    warning: (m) => void c.warnings.push(m),
    notice: () => undefined,
    setOutput: (n, v) => void (c.outputs[n] = v),
    saveState: (n, v) => void (c.state[n] = v),
    writeSummary: async (md) => void (c.summary += md),
  };
  return c;
}

let seq = 0;
function setup(repo: string, withInputs: Record<string, string> = {}) {
  const ws = join(dir, `ws-${++seq}`);
  mkdirSync(ws, { recursive: true });
  const eventPath = join(dir, `event-${seq}.json`);
  writeFileSync(eventPath, JSON.stringify({ ref: 'refs/heads/main' }));
  const env = {
    GITHUB_API_URL: s.url,
    GITHUB_REPOSITORY: `acme/${repo}`,
    GITHUB_EVENT_NAME: 'push',
    GITHUB_EVENT_PATH: eventPath,
    GITHUB_SHA: 'c'.repeat(40),
    GITHUB_SERVER_URL: 'https://github.com',
    GITHUB_RUN_ID: '4343',
    GITHUB_RUN_ATTEMPT: '1',
    GITHUB_WORKSPACE: ws,
    RUNNER_TEMP: join(dir, 'runner-temp'),
  };
  const inputs = parseInputs(
    (n) => ({ plan: 'chaos/redis-partition.yaml', 'github-token': 'ghs-write', ...withInputs })[n] ?? '',
  );
  return { env, inputs, ws };
}

function deps(
  core: FakeCore,
  env: Record<string, string>,
  runGate: (req: GateRequest) => Promise<Journal>,
  fetchImpl?: typeof fetch,
): ActionDeps {
  return {
    core,
    env,
    runGate,
    reviewPlan: async () => {
      throw new Error('not used');
    },
    validatePlan: async () => ({ text: 'ok', exitCode: 0 }),
    uploadArtifact: async () => undefined,
    ...(fetchImpl ? { fetch: fetchImpl } : {}),
    githubRetry: { checkRunPauseMs: 1 },
  };
}

/** GitHub's 422 for a check-run update it will not take. */
function validationFailed(): Response {
  return new Response(
    JSON.stringify({
      message: 'Validation Failed',
      errors: [{ resource: 'CheckRun', code: 'invalid', field: 'output' }],
      documentation_url: 'https://docs.github.com/rest/checks/runs#update-a-check-run',
      status: '422',
    }),
    { status: 422, headers: { 'content-type': 'application/json; charset=utf-8' } },
  );
}

/** A fetch that answers 422 to check-run updates `refuse` picks, and passes the rest to the stand-in. */
function refusing(refuse: (body: Record<string, unknown>) => boolean): {
  fetch: typeof fetch;
  refused: number;
} {
  const out = { refused: 0, fetch: undefined as unknown as typeof fetch };
  out.fetch = async (input, init) => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    if ((init?.method ?? 'GET') === 'PATCH' && /\/check-runs\/\d+$/.test(url)) {
      const body = JSON.parse(String(init?.body ?? '{}')) as Record<string, unknown>;
      if (refuse(body)) {
        out.refused++;
        return validationFailed();
      }
    }
    return fetch(input, init);
  };
  return out;
}

function checkRunOf(repo: string) {
  return [...s.gh.state.checkRuns.values()].find((c) => c.repo === repo);
}

describe('output paths are confined', () => {
  it('refuses a journal-path outside the workspace with exit 2, before the engine or GitHub', async () => {
    const core = fakeCore();
    const { env, inputs, ws } = setup('confine-out', { 'journal-path': '/usr/chaos-gate/journal.json' });
    let engineCalled = false;
    const code = await runFromInputs(
      inputs,
      deps(core, env, async () => {
        engineCalled = true;
        return journal('held');
      }),
    );
    expect(code).toBe(2);
    expect(engineCalled).toBe(false);
    expect(core.outputs.verdict).toBe('refused');
    expect(core.outputs.reason).toContain(
      'cannot write the journal (input journal-path) /usr/chaos-gate/journal.json: /usr/chaos-gate/journal.json is outside the allowed directories',
    );
    expect(core.outputs.reason).toContain(`inside ${ws}`);
    expect(checkRunOf('confine-out')).toBeUndefined();
  });

  it('refuses a report-path through a committed symlink, leaving the file it points at untouched', async () => {
    const core = fakeCore();
    const { env, inputs, ws } = setup('confine-link', { 'report-path': 'out/report.html' });
    const victimDir = join(dir, 'victim');
    mkdirSync(victimDir, { recursive: true });
    writeFileSync(join(victimDir, 'report.html'), 'precious');
    symlinkSync(victimDir, join(ws, 'out'));
    const code = await runFromInputs(
      inputs,
      deps(core, env, async () => journal('held')),
    );
    expect(code).toBe(2);
    expect(core.outputs.reason).toContain(`${join(ws, 'out')} is a symlink`);
    expect(readFileSync(join(victimDir, 'report.html'), 'utf8')).toBe('precious');
  });

  it('writes the journal and report under RUNNER_TEMP when told to', async () => {
    const core = fakeCore();
    const { env, inputs } = setup('confine-temp');
    const inTemp = parseInputs(
      (n) =>
        ({
          plan: 'chaos/redis-partition.yaml',
          'journal-path': join(env.RUNNER_TEMP, 'j/journal.json'),
          'report-path': join(env.RUNNER_TEMP, 'j/report.html'),
        })[n] ?? '',
    );
    void inputs;
    const code = await runFromInputs(
      inTemp,
      deps(core, { ...env, GITHUB_API_URL: '' }, async () => journal('held')),
    );
    expect(code).toBe(0);
    expect(JSON.parse(readFileSync(core.outputs.journal as string, 'utf8')).verdict).toBe('held');
    expect(readFileSync(core.outputs.report as string, 'utf8')).toContain('<html');
  });
});

describe('a 422 on the final check-run update', () => {
  it('main step: the check run is completed with the verdict alone, saying GitHub refused the full report', async () => {
    const core = fakeCore();
    const { env, inputs } = setup('gh-422-main');
    // GitHub refuses any completion that carries the long text (the full report), accepts the rest.
    const gh = refusing((b) => typeof (b.output as { text?: unknown } | undefined)?.text === 'string');
    const code = await runFromInputs(
      inputs,
      deps(
        core,
        env,
        async (req) => {
          await req.onPlanLoaded({ planId: 'redis-partition' });
          return journal('held');
        },
        gh.fetch,
      ),
    );
    expect(code).toBe(0);
    expect(gh.refused).toBe(1);
    const run = checkRunOf('gh-422-main');
    expect(run).toMatchObject({ status: 'completed', conclusion: 'success' });
    expect(run?.output.title).toMatch(/^held: /);
    expect(run?.output.summary).toContain('GitHub refused the full report');
    expect(run?.output.summary).not.toMatch(/without a verdict/);
    expect(core.state[STATE.checkRunCompleted]).toBe('true');
    expect(core.warnings.join('\n')).toContain('the check run carries the verdict alone');
  });

  it('post step: a check run the main step could not complete gets the journal verdict, not "without a verdict"', async () => {
    const core = fakeCore();
    const { env, inputs } = setup('gh-422-post');
    const gh = refusing(() => true);
    const code = await runFromInputs(
      inputs,
      deps(
        core,
        env,
        async (req) => {
          await req.onPlanLoaded({ planId: 'redis-partition' });
          return journal('held');
        },
        gh.fetch,
      ),
    );
    expect(code).toBe(0);
    expect(checkRunOf('gh-422-post')?.status).toBe('in_progress');
    expect(core.state[STATE.checkRunCompleted]).toBeUndefined();
    // The post step meets the same refusal of the full report (the payload is as large as before).
    const again = refusing((b) => typeof (b.output as { text?: unknown } | undefined)?.text === 'string');
    const result = await runPostStep({
      getState: (n) => core.state[n] ?? '',
      githubToken: 'ghs-write',
      env,
      log: { info: () => undefined, warning: () => undefined },
      setFailed: () => undefined,
      stopExperiment: async () => {
        throw new Error('a finished run is not stopped again');
      },
      fetch: again.fetch,
      githubRetry: { checkRunPauseMs: 1 },
    });
    expect(again.refused).toBe(1);
    expect(result).toBe('cleaned-up');
    const run = checkRunOf('gh-422-post');
    expect(run).toMatchObject({ status: 'completed', conclusion: 'success' });
    expect(run?.output.title).toMatch(/^held: /);
    expect(run?.output.summary ?? '').not.toMatch(/without a verdict/);
  });

  it('post step: with the journal gone, the check run says the verdict is unknown, not that there was none', async () => {
    const core = fakeCore();
    const { env } = setup('gh-no-journal');
    const created = await fetch(`${s.url}/repos/acme/gh-no-journal/check-runs`, {
      method: 'POST',
      headers: { authorization: 'token ghs-write', 'content-type': 'application/json' },
      body: JSON.stringify({
        name: 'chaos-gate: redis-partition',
        head_sha: 'c'.repeat(40),
        status: 'in_progress',
      }),
    });
    const { id } = (await created.json()) as { id: number };
    core.state = {
      [STATE.finished]: 'true',
      [STATE.checkRunId]: String(id),
      [STATE.journal]: join(dir, 'no-such-journal.json'),
    };
    await runPostStep({
      getState: (n) => core.state[n] ?? '',
      githubToken: 'ghs-write',
      env,
      log: { info: () => undefined, warning: () => undefined },
      setFailed: () => undefined,
      stopExperiment: async () => ({ verified: true, detail: 'stopped' }),
    });
    const run = checkRunOf('gh-no-journal');
    expect(run).toMatchObject({ status: 'completed', conclusion: 'failure' });
    expect(run?.output.title).toBe('failed: the verdict is unknown');
    expect(run?.output.summary).toContain('No journal was found');
  });
});
