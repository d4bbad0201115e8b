/**
 * Fork code never drives a fault (issue 14.3, docs/design/principles.md#security), end to end: the bundled action (built from
 * `src/` into a temp dir by test/helpers/action-bundle.ts) runs as the GitHub runner runs it, against the
 * sandbox (FIS, CloudWatch, the canary, the OpenAPI-validating GitHub stand-in), once per event of the
 * fork matrix. A refused event exits non-zero, sends no AWS request at all (so no FIS template and no
 * experiment), posts no check run, and says why; a trusted event runs the plan (a FIS template is created).
 *
 * The plan's steady state can never hold (`steady: { max: -1 }`), so a run that is let through ends
 * `not-run` seconds after provisioning, before any fault.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ActionsJob, type StepResult } from '../helpers/actions-runner.js';
import { buildActionBundle, type ActionBundle } from '../helpers/action-bundle.js';
import { startSandboxProcess, type RunningSandbox } from '../helpers/sandbox.js';

const FIXTURES = new URL('../../fixtures/events/', import.meta.url);
const read = (rel: string): string => readFileSync(new URL(rel, FIXTURES), 'utf8');
const PLAN = read('plans/lifecycle-partition.yaml')
  .replace('steady: { max: 0.0005 }', 'steady: { max: -1 } # never holds: a trusted run ends not-run')
  .replace('duration: PT20S', 'duration: PT1M')
  .replace('maxActionDuration: 30s', 'maxActionDuration: 60s');
const PULL = JSON.parse(read('pull_request.json')) as Record<string, unknown>;
const PUSH = JSON.parse(read('push.json')) as Record<string, unknown>;

const TOKEN = 'sandbox-token';
const OWNER = 'octo-org';
/** A trusted run: preflight, the template, the dry run and one steady-state measurement. */
const CASE_TIMEOUT_MS = 120_000;

let sandbox: RunningSandbox;
let bundle: ActionBundle;
const jobs: ActionsJob[] = [];

beforeAll(async () => {
  [bundle, sandbox] = await Promise.all([buildActionBundle(), startSandboxProcess()]);
}, 240_000);

afterAll(async () => {
  for (const job of jobs) await job.dispose();
  await sandbox?.stop();
  bundle?.dispose();
});

interface AwsRequest {
  seq: number;
  operation: string | null;
  service: string;
}

async function awsRequests(since: number): Promise<AwsRequest[]> {
  return (await sandbox.admin.get<{ requests: AwsRequest[] }>(`/requests?since=${since}`)).requests;
}

async function gh<T>(route: string, body?: unknown): Promise<T> {
  const res = await fetch(`${sandbox.urls.github}/_sandbox/${route}`, {
    method: body === undefined ? 'GET' : 'POST',
    ...(body === undefined
      ? {}
      : { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } }),
  });
  if (!res.ok) throw new Error(`GitHub stand-in ${route} → ${res.status}: ${await res.text()}`);
  return (await res.json()) as T;
}

const repository = (name: string, owner = OWNER): Record<string, unknown> => ({
  ...(PUSH.repository as object),
  id: owner === OWNER ? 742_001 : 913_377,
  name,
  full_name: `${owner}/${name}`,
  fork: owner !== OWNER,
  owner: { login: owner, id: owner === OWNER ? 9919 : 6666, type: 'Organization' },
});

/** A pull_request payload for `repo`, its head in `headOwner`'s copy (a fork when not the owner). */
function pullPayload(repo: string, number: number, headOwner = OWNER): Record<string, unknown> {
  const p = structuredClone(PULL) as {
    number: number;
    pull_request: Record<string, unknown> & { head: Record<string, unknown>; base: Record<string, unknown> };
    repository: unknown;
  };
  p.number = number;
  p.pull_request.number = number;
  p.pull_request.head.repo = repository(repo, headOwner);
  p.pull_request.base.repo = repository(repo);
  p.repository = repository(repo);
  return p as unknown as Record<string, unknown>;
}

interface Outcome {
  main: StepResult;
  outputs: Record<string, string>;
  summary: string;
  aws: AwsRequest[];
  checkRuns: { owner: string; repo: string; conclusion: string | null }[];
}

/** Runs the main step for one event and collects what it did. */
async function runEvent(
  name: string,
  event: string,
  payload: Record<string, unknown>,
  opts: { rawPayload?: string; command?: string; files?: Record<string, string> } = {},
): Promise<Outcome> {
  const repo = `fm-${name}`;
  const job = new ActionsJob({
    event,
    payload,
    sha: 'e8a0c2e4b6d8f0a2c4e6b8d0f2a4c6e8b0d2f4a6',
    repository: `${OWNER}/${repo}`,
    runId: String(8_100_000 + jobs.length),
    inputs: {
      plan: 'chaos/plan.yaml',
      'github-token': TOKEN,
      ...(opts.command ? { command: opts.command } : {}),
    },
    token: TOKEN,
    files: { 'chaos/plan.yaml': PLAN, ...opts.files },
    env: {
      GITHUB_API_URL: sandbox.urls.github ?? '',
      AWS_ENDPOINT_URL: sandbox.urls.aws,
      AWS_ACCESS_KEY_ID: 'sandbox',
      AWS_SECRET_ACCESS_KEY: 'sandbox',
      AWS_REGION: 'us-east-1',
      CANARY_URL: sandbox.urls.canary,
    },
    bundles: bundle,
  });
  jobs.push(job);
  if (opts.rawPayload !== undefined) writeFileSync(job.files.event, opts.rawPayload);
  const since = (await awsRequests(0)).at(-1)?.seq ?? 0;
  const main = await job.runMain();
  const state = await gh<{ checkRuns: Outcome['checkRuns'] }>('state');
  return {
    main,
    outputs: job.outputs(),
    summary: job.summary(),
    aws: await awsRequests(since),
    checkRuns: state.checkRuns.filter((c) => c.owner === OWNER && c.repo === repo),
  };
}

function expectRefused(o: Outcome, why: string): void {
  const log = `${o.main.stdout}\n${o.main.stderr}`;
  expect(o.main.code, log).toBe(2);
  expect(o.outputs.verdict).toBe('refused');
  expect(o.outputs.reason).toContain(`run refuses: ${why}`);
  expect(o.summary).toContain('run refuses');
  // Nothing reached AWS: no CreateExperimentTemplate, no StartExperiment, not even a read.
  expect(o.aws.map((r) => r.operation)).toEqual([]);
  expect(o.checkRuns).toEqual([]);
}

function expectRan(o: Outcome): void {
  const log = `${o.main.stdout}\n${o.main.stderr}`;
  expect(o.outputs.reason ?? '', log).not.toContain('run refuses');
  const ops = o.aws.map((r) => r.operation);
  // The plan's template was provisioned (created by the first case, found by the later ones) and its
  // targets resolved by the dry run: the run went past the trust check into FIS.
  expect(ops, log).toEqual(
    expect.arrayContaining(['ListExperimentTemplates', 'StartExperiment', 'ListExperimentResolvedTargets']),
  );
  expect(ops.includes('CreateExperimentTemplate') || ops.includes('GetExperimentTemplate'), log).toBe(true);
  expect(o.outputs.verdict, log).toBe('not-run');
  expect(o.checkRuns.map((c) => c.conclusion)).toEqual(['failure']);
}

describe('the fork matrix through the bundled action', () => {
  it(
    'runs a pull_request from a branch of the repository itself',
    async () => {
      const pull = await gh<{ number: number }>('pulls', {
        owner: OWNER,
        repo: 'fm-pr-same',
        headSha: 'c'.repeat(40),
      });
      expectRan(await runEvent('pr-same', 'pull_request', pullPayload('fm-pr-same', pull.number)));
    },
    CASE_TIMEOUT_MS,
  );

  it('refuses a pull_request from a fork', async () => {
    const o = await runEvent('pr-fork', 'pull_request', pullPayload('fm-pr-fork', 1, 'mallory'));
    expectRefused(o, 'pull_request: the head repository mallory/fm-pr-fork is not the base repository');
  });

  it('refuses a pull_request whose payload is not a JSON object', async () => {
    const o = await runEvent('pr-unreadable', 'pull_request', {}, { rawPayload: '[]' });
    expectRefused(o, 'the pull_request event payload cannot be read');
  });

  it('starts nothing for a pull_request whose payload is truncated JSON', async () => {
    const o = await runEvent('pr-truncated', 'pull_request', {}, { rawPayload: '{"pull_request": {"head":' });
    // Refused at the entry, before the GitHub toolkit (which parses the payload unguarded) is loaded.
    expect(o.main.code).toBe(2);
    expect(o.main.stdout).toMatch(/::error title=chaos-gate%3A refused::the event payload cannot be read/);
    expect(`${o.main.stdout}${o.main.stderr}`).not.toMatch(/SyntaxError|\n\s+at /);
    expect(o.aws).toEqual([]);
    expect(o.checkRuns).toEqual([]);
  });

  it('refuses a pull_request whose payload lacks head.repo (a deleted fork)', async () => {
    const payload = pullPayload('fm-pr-nohead', 1);
    (payload.pull_request as { head: Record<string, unknown> }).head.repo = null;
    expectRefused(
      await runEvent('pr-nohead', 'pull_request', payload),
      'pull_request: the payload names no head repository',
    );
  });

  it('refuses a pull_request_target from a fork', async () => {
    const o = await runEvent('prt-fork', 'pull_request_target', pullPayload('fm-prt-fork', 1, 'mallory'));
    expectRefused(
      o,
      'pull_request_target: the head repository mallory/fm-prt-fork is not the base repository',
    );
  });

  it('refuses a workflow_run started by a fork’s pull request', async () => {
    const payload = {
      action: 'completed',
      workflow_run: {
        id: 1,
        event: 'pull_request',
        head_branch: 'tighten-plan',
        head_sha: 'c'.repeat(40),
        pull_requests: [],
        head_repository: repository('fm-wr-fork', 'mallory'),
        repository: repository('fm-wr-fork'),
      },
      repository: repository('fm-wr-fork'),
    };
    expectRefused(
      await runEvent('wr-fork', 'workflow_run', payload),
      'workflow_run (started by pull_request): the head repository mallory/fm-wr-fork is not the base repository',
    );
  });

  it('refuses an issue_comment on a fork’s pull request (head looked up through the GitHub API)', async () => {
    const pull = await gh<{ number: number }>('pulls', {
      owner: OWNER,
      repo: 'fm-ic-fork',
      headSha: 'd'.repeat(40),
      headOwner: 'mallory',
    });
    const payload = {
      action: 'created',
      issue: { number: pull.number, pull_request: { url: 'x' } },
      comment: { body: '/chaos run' },
      repository: repository('fm-ic-fork'),
    };
    expectRefused(
      await runEvent('ic-fork', 'issue_comment', payload),
      `issue_comment on pull request #${pull.number}: the head repository mallory/fm-ic-fork is not the base repository`,
    );
  });

  for (const event of ['push', 'schedule', 'workflow_dispatch']) {
    it(
      `runs on ${event}`,
      async () => {
        const payload = event === 'push' ? { ...PUSH, repository: repository(`fm-${event}`) } : {};
        expectRan(await runEvent(event, event, payload));
      },
      CASE_TIMEOUT_MS,
    );
  }

  it('reviews a fork’s plan read-only (command: plan), refusing a catalog outside the workspace unopened', async () => {
    const escaping = PLAN.replace(
      'blastRadius:\n',
      'blastRadius:\n  catalog: { path: ../../../../../../../../etc/passwd, components: [redis] }\n',
    );
    expect(escaping).not.toBe(PLAN);
    const o = await runEvent('plan-fork', 'pull_request', pullPayload('fm-plan-fork', 1, 'mallory'), {
      command: 'plan',
      files: { 'chaos/plan.yaml': escaping },
    });
    expect(o.main.code).toBe(2);
    expect(o.aws).toEqual([]);
    expect(o.outputs.reason).toContain('cannot read the catalog: it is outside the workspace');
    expect(o.summary).toContain('blastRadius.catalog.path');
    expect(o.summary).not.toContain('root:x:0:0');
  });
});

describe('where the refusal is explained', () => {
  it('names the event and the fix in the job summary', async () => {
    const o = await runEvent('explain', 'pull_request', pullPayload('fm-explain', 1, 'mallory'));
    expect(o.summary).toContain('use command: plan to review a plan from a fork (docs/security.md)');
    expect(`${o.main.stdout}${o.main.stderr}`).not.toMatch(/\n\s+at /);
  });
});
