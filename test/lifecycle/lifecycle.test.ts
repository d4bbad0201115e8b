/**
 * The action's lifecycle as the GitHub runner drives it (issue 7 part 8, SPEC §6.6 and §8): the bundled
 * `dist/action.js` and `dist/post.js` run as separate processes against the sandbox (FIS, CloudWatch,
 * the canary and the OpenAPI-validating GitHub stand-in), with `INPUT_*` variables, file-command files,
 * push and pull_request payloads, the runner's cancel escalation, and the post step always run after.
 *
 * One sandbox serves every case, one case at a time: the runs share the canary and the FIS stand-in,
 * and a concurrent run would queue behind the other's experiment (the concurrency gate).
 */
import { existsSync, readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ActionsJob, ensureBundle, type StepResult } from '../helpers/actions-runner.js';
import { startSandboxProcess, type RunningSandbox } from '../helpers/sandbox.js';
import { commentMarker } from '../../src/report/common.js';
import type { StoredCheckRun, StoredComment, StoredPull } from '../../src/sandbox/github/index.js';

const FIXTURES = new URL('../../fixtures/events/', import.meta.url);
const read = (rel: string): string => readFileSync(new URL(rel, FIXTURES), 'utf8');
const PLAN = read('plans/lifecycle-partition.yaml');
const FORBIDDEN_PLAN = read('plans/lifecycle-forbidden-tag.yaml');
const NARROW_POLICY = read('policy/narrow.yaml');
const PUSH = JSON.parse(read('push.json')) as Record<string, unknown> & { after: string };
const PULL = JSON.parse(read('pull_request.json')) as {
  pull_request: { number: number; head: { sha: string }; merge_commit_sha: string };
};

const TOKEN = 'sandbox-token';
const OWNER = 'octo-org';
/**
 * A Node 24 binary (`runs.using: node24`): `.ci/run` installs one and names it in CHAOS_GATE_NODE24; when
 * the tests themselves run on Node 24 that is the binary; otherwise the case is skipped, saying why.
 */
const NODE24 =
  process.env.CHAOS_GATE_NODE24 ??
  (process.versions.node.startsWith('24.') ? process.execPath : '/nonexistent/node24');
/** A held run: 4 s steady state, the dry run, a 20 s fault and recovery; the rest is headroom. */
const CASE_TIMEOUT_MS = 150_000;

type Event = 'push' | 'pull_request';

let sandbox: RunningSandbox;
const jobs: ActionsJob[] = [];
/** Cold start of each main step (spawn → first AWS request), printed for the bench. */
const coldStarts: { label: string; ms: number }[] = [];

beforeAll(async () => {
  ensureBundle();
  // The plans' PT1M20S partitions (FIS's minimum is PT1M) last 20 s at 4× speed.
  sandbox = await startSandboxProcess({ config: { fis: { durationScale: 0.25 } } });
}, 240_000);

afterAll(async () => {
  for (const job of jobs) await job.dispose();
  await sandbox?.stop();
  if (coldStarts.length)
    console.info(
      `chaos-gate action cold start (process start → first AWS request): ${coldStarts
        .map((c) => `${c.label} ${c.ms} ms`)
        .join(', ')}`,
    );
});

interface AwsRequest {
  seq: number;
  time: number;
  service: string;
  operation: string | null;
  method: string;
  path: string;
  status: number;
}

async function awsRequests(since: number): Promise<AwsRequest[]> {
  return (await sandbox.admin.get<{ requests: AwsRequest[] }>(`/requests?since=${since}`)).requests;
}

async function lastSeq(): Promise<number> {
  return (await awsRequests(0)).at(-1)?.seq ?? 0;
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

interface GhState {
  checkRuns: StoredCheckRun[];
  comments: StoredComment[];
  pulls: StoredPull[];
}

async function rejectedRequests(): Promise<unknown[]> {
  const r = await gh<{ rejected: unknown[]; invalidResponses: unknown[] }>('rejected');
  return [...r.rejected, ...r.invalidResponses];
}

async function liveExperiments(): Promise<{ id: string; state: { status: string } }[]> {
  return (
    await sandbox.admin.get<{ experiments: { id: string; state: { status: string } }[] }>('/experiments')
  ).experiments;
}

interface Case {
  job: ActionsJob;
  repo: string;
  /** The commit the check run belongs on: GITHUB_SHA on push, the PR head on pull_request. */
  checkSha: string;
  /** `GITHUB_SHA`. */
  sha: string;
  pr: number | undefined;
  planPath: string;
  /** The AWS request log position before the case. */
  since: number;
}

/**
 * Sets up one job: its own repository in the stand-in (a seeded PR on pull_request), the payload
 * rewritten to that repository and PR, the plan (and policy) in the workspace.
 */
async function newCase(
  name: string,
  event: Event,
  opts: { plan?: string; policy?: string; node?: string } = {},
): Promise<Case> {
  const repoName = `lc-${name}-${event === 'push' ? 'push' : 'pr'}`;
  const repo = `${OWNER}/${repoName}`;
  const repository = { ...(PUSH.repository as object), name: repoName, full_name: repo };
  let payload: Record<string, unknown>;
  let sha: string;
  let checkSha: string;
  let pr: number | undefined;
  if (event === 'push') {
    payload = { ...PUSH, repository };
    sha = checkSha = PUSH.after;
  } else {
    const head = PULL.pull_request.head.sha;
    const pull = await gh<StoredPull>('pulls', {
      owner: OWNER,
      repo: repoName,
      headSha: head,
      headRef: 'tighten-plan',
    });
    pr = pull.number;
    const p = structuredClone(PULL) as unknown as {
      number: number;
      pull_request: Record<string, unknown> & {
        head: Record<string, unknown>;
        base: Record<string, unknown>;
      };
      repository: unknown;
    };
    p.number = pr;
    p.pull_request.number = pr;
    p.pull_request.head.repo = repository;
    p.pull_request.base.repo = repository;
    p.repository = repository;
    payload = p as unknown as Record<string, unknown>;
    sha = PULL.pull_request.merge_commit_sha;
    checkSha = head;
  }
  // The point of the pull_request payload: the check run must not land on GITHUB_SHA.
  if (event === 'pull_request') expect(sha).not.toBe(checkSha);
  const planPath = 'chaos/lifecycle.yaml';
  const files: Record<string, string> = { [planPath]: opts.plan ?? PLAN };
  const inputs: Record<string, string> = { plan: planPath, 'github-token': TOKEN };
  if (opts.policy !== undefined) {
    files['policies/chaos.yaml'] = opts.policy;
    inputs.policy = 'policies/chaos.yaml';
  }
  const job = new ActionsJob({
    event,
    payload,
    sha,
    repository: repo,
    runId: String(7_000_000 + jobs.length),
    inputs,
    token: TOKEN,
    files,
    env: {
      GITHUB_API_URL: sandbox.urls.github ?? '',
      AWS_ENDPOINT_URL: sandbox.urls.aws,
      AWS_ACCESS_KEY_ID: 'sandbox',
      AWS_SECRET_ACCESS_KEY: 'sandbox',
      AWS_REGION: 'us-east-1',
      CANARY_URL: sandbox.urls.canary,
    },
    ...(opts.node ? { node: opts.node } : {}),
  });
  jobs.push(job);
  return { job, repo, checkSha, sha, pr, planPath, since: await lastSeq() };
}

async function checkRunsOf(c: Case): Promise<StoredCheckRun[]> {
  const s = await gh<GhState>('state');
  return s.checkRuns.filter((r) => `${r.owner}/${r.repo}` === c.repo);
}

async function commentsOf(c: Case): Promise<StoredComment[]> {
  const s = await gh<GhState>('state');
  return s.comments.filter((m) => `${m.owner}/${m.repo}` === c.repo);
}

/** Spawn → first request the AWS stand-in logged for this case. */
async function recordColdStart(label: string, c: Case, main: StepResult): Promise<void> {
  const first = (await awsRequests(c.since))[0];
  if (first) coldStarts.push({ label, ms: Math.round(first.time - main.startedAt) });
}

/** The 1-based lines of the plan text that contain `needle` (comment lines skipped). */
function linesOf(text: string, needle: string): number[] {
  return text.split('\n').flatMap((l, i) => (l.includes(needle) && !l.trim().startsWith('#') ? [i + 1] : []));
}

/** The experiment's state as FIS reports it (GetExperiment; the stand-in does not check signatures). */
async function fisStatus(id: string): Promise<string | undefined> {
  const res = await fetch(`${sandbox.urls.aws}/experiments/${id}`);
  const body = (await res.json()) as { experiment?: { state?: { status?: string } } };
  return body.experiment?.state?.status;
}

interface ActionRecord {
  endedAs: string | null;
}

async function fisActions(id: string): Promise<ActionRecord[]> {
  return (await sandbox.admin.get<{ actions: ActionRecord[] }>(`/actions?experimentId=${id}`)).actions;
}

const OUTPUT_NAMES = [
  'verdict',
  'reason',
  'experiment-id',
  'journal',
  'report',
  'abort-latency-ms',
  'budget-remaining',
] as const;

function logOf(r: StepResult): string {
  return `exit ${r.code ?? r.signal}\n--- stdout\n${r.stdout}\n--- stderr\n${r.stderr}`;
}

describe.sequential('the bundled action under the runner lifecycle (sandbox)', () => {
  const held = (event: Event, node?: string) => async () => {
    const label = `held/${event}${node ? '/node24' : ''}`;
    const c = await newCase(node ? 'held24' : 'held', event, node ? { node } : {});
    const main = await c.job.runMain();
    expect(main.code, logOf(main)).toBe(0);
    await recordColdStart(label, c, main);

    const out = c.job.outputs();
    expect(Object.keys(out).sort()).toEqual([...OUTPUT_NAMES].sort());
    expect(out.verdict).toBe('held');
    expect(out.reason).toMatch(/within its bound/);
    expect(out['experiment-id']).toMatch(/^EXP\w+$/);
    // No abort rule tripped and the plan has no budget: both documented as empty.
    expect(out['abort-latency-ms']).toBe('');
    expect(out['budget-remaining']).toBe('');
    const journal = JSON.parse(readFileSync(out.journal ?? '', 'utf8')) as {
      verdict: string;
      experimentId: string;
    };
    expect(journal).toMatchObject({ verdict: 'held', experimentId: out['experiment-id'] });
    expect(readFileSync(out.report ?? '', 'utf8')).toMatch(/^<!doctype html>/i);

    const summary = c.job.summary();
    expect(summary).toMatch(/held/);
    expect(summary).toContain('```mermaid');
    expect(summary).toContain(out['experiment-id']);

    const runs = await checkRunsOf(c);
    expect(runs).toHaveLength(1);
    expect(runs[0]).toMatchObject({
      name: 'chaos-gate / lifecycle-partition',
      head_sha: c.checkSha,
      status: 'completed',
      conclusion: 'success',
    });

    const comments = await commentsOf(c);
    if (event === 'pull_request') {
      expect(comments).toHaveLength(1);
      expect(comments[0]).toMatchObject({ issue: c.pr, user: { login: 'github-actions[bot]' } });
      expect(comments[0]?.body).toContain(commentMarker('lifecycle-partition'));
      expect(comments[0]?.body).toMatch(/held/);
    } else {
      expect(comments).toEqual([]);
    }

    const post = await c.job.runPost();
    expect(post.code, logOf(post)).toBe(0);
    expect(post.stdout).toContain('nothing to clean up');
    expect((await checkRunsOf(c))[0]).toMatchObject({ conclusion: 'success' });
    expect(await liveExperiments()).toEqual([]);
    expect(await rejectedRequests()).toEqual([]);
  };

  it(
    'held on push: exit 0, every output, job summary, success check run on GITHUB_SHA, post has nothing to do',
    held('push'),
    CASE_TIMEOUT_MS,
  );

  it(
    'held on pull_request: success check run on the PR head (not the merge commit) and one marked PR comment',
    held('pull_request'),
    CASE_TIMEOUT_MS,
  );

  it.skipIf(!existsSync(NODE24))(
    `held on push under Node 24, as runs.using: node24 runs it${existsSync(NODE24) ? '' : ' (skipped: no Node 24 binary; set CHAOS_GATE_NODE24)'}`,
    held('push', NODE24),
    CASE_TIMEOUT_MS,
  );

  const aborted = (event: Event) => async () => {
    // Fallback off: the partition shows as 503s, which trip the error-ratio abort rule.
    await sandbox.admin.send('PUT', '/canary', { fallback: false });
    try {
      const c = await newCase('aborted', event);
      const main = await c.job.runMain();
      expect(main.code, logOf(main)).toBe(1);
      await recordColdStart(`aborted/${event}`, c, main);

      const out = c.job.outputs();
      expect(out.verdict).toBe('aborted');
      expect(out.reason).toMatch(/error_ratio/);
      expect(out['abort-latency-ms']).toMatch(/^\d+$/);
      const id = out['experiment-id'] ?? '';
      expect(id).toMatch(/^EXP\w+$/);

      // FIS really stopped: the stand-in received StopExperiment and the action ended `stopped`.
      const stops = (await awsRequests(c.since)).filter((r) => r.operation === 'StopExperiment');
      expect(stops.map((r) => r.path)).toContain(`/experiments/${id}`);
      expect((await fisActions(id)).map((a) => a.endedAs)).toEqual(['stopped']);
      expect(await fisStatus(id)).toBe('stopped');

      const runs = await checkRunsOf(c);
      expect(runs).toHaveLength(1);
      expect(runs[0]).toMatchObject({ head_sha: c.checkSha, status: 'completed', conclusion: 'failure' });
      const annotations = runs[0]?.annotations ?? [];
      expect(annotations.every((a) => a.path === c.planPath)).toBe(true);
      const rule = annotations.find((a) => a.title === 'abort rule tripped: error_ratio');
      expect(rule?.start_line).toBe(linesOf(PLAN, '- sli: error_ratio')[0]);
      const breach = annotations.find((a) => a.title?.startsWith('error_ratio outside'));
      expect(linesOf(PLAN, 'max: 0.002')).toContain(breach?.start_line);

      if (event === 'pull_request') {
        const comments = await commentsOf(c);
        expect(comments).toHaveLength(1);
        expect(comments[0]?.body).toContain(commentMarker('lifecycle-partition'));
        expect(comments[0]?.body).toMatch(/aborted/);
      }

      const post = await c.job.runPost();
      expect(post.code, logOf(post)).toBe(0);
      expect(post.stdout).toContain('nothing to clean up');
      expect((await checkRunsOf(c))[0]).toMatchObject({ conclusion: 'failure' });
      expect(await liveExperiments()).toEqual([]);
      expect(await rejectedRequests()).toEqual([]);
    } finally {
      await sandbox.admin.send('PUT', '/canary', { fallback: true });
    }
  };

  it(
    'aborted on push: exit 1, failure check run annotated on the plan lines, FIS stopped',
    aborted('push'),
    CASE_TIMEOUT_MS,
  );

  it(
    'aborted on pull_request: the failure lands on the PR head and the PR comment says aborted',
    aborted('pull_request'),
    CASE_TIMEOUT_MS,
  );

  /** Operations that change something in AWS: a refused run must send none of them. */
  const MUTATING = /^(Create|Update|Delete|Start|Stop|Tag|Untag|Put|Set)/;

  const refused = (event: Event, why: 'forbidden-tag' | 'policy') => async () => {
    const c = await newCase(
      `refused-${why}`,
      event,
      why === 'forbidden-tag' ? { plan: FORBIDDEN_PLAN } : { policy: NARROW_POLICY },
    );
    const main = await c.job.runMain();
    expect(main.code, logOf(main)).toBe(2);

    const out = c.job.outputs();
    expect(out.verdict).toBe('refused');
    expect(out['experiment-id']).toBe('');
    expect(out.reason).toMatch(why === 'forbidden-tag' ? /Environment=production/ : /maxActionDuration/);

    const sent = await awsRequests(c.since);
    expect(sent.filter((r) => MUTATING.test(r.operation ?? ''))).toEqual([]);
    expect(c.job.savedState()['experiment-id']).toBeUndefined();

    const runs = await checkRunsOf(c);
    expect(runs).toHaveLength(1);
    expect(runs[0]).toMatchObject({ head_sha: c.checkSha, status: 'completed', conclusion: 'failure' });
    const plan = why === 'forbidden-tag' ? FORBIDDEN_PLAN : PLAN;
    const expectedLine =
      why === 'forbidden-tag'
        ? linesOf(plan, 'Environment: production')[0]
        : linesOf(plan, 'maxActionDuration: 2m')[0];
    expect(runs[0]?.annotations.map((a) => [a.path, a.start_line])).toContainEqual([
      c.planPath,
      expectedLine,
    ]);

    const post = await c.job.runPost();
    expect(post.code, logOf(post)).toBe(0);
    expect(post.stdout).toContain('nothing to clean up');
    expect(await rejectedRequests()).toEqual([]);
  };

  it(
    'refused on push (forbidden tag): exit 2, annotated failure, no AWS change',
    refused('push', 'forbidden-tag'),
    CASE_TIMEOUT_MS,
  );
  it(
    'refused on pull_request (forbidden tag): the refusal lands on the PR head',
    refused('pull_request', 'forbidden-tag'),
    CASE_TIMEOUT_MS,
  );
  it(
    'refused on push (policy input narrower than the plan): exit 2, nothing started',
    refused('push', 'policy'),
    CASE_TIMEOUT_MS,
  );
  it(
    'refused on pull_request (policy input narrower than the plan)',
    refused('pull_request', 'policy'),
    CASE_TIMEOUT_MS,
  );

  /**
   * `graceful`: the main step handles SIGINT (the engine asks FIS to stop) and exits within 7.5 s.
   * `hung`: StopExperiment hangs in the stand-in, so the main step cannot stop FIS; the post step must.
   */
  const cancelled = (event: Event, mode: 'graceful' | 'hung') => async () => {
    const c = await newCase(`cancel-${mode}`, event);
    if (mode === 'hung')
      await sandbox.admin.send('POST', '/faults', {
        service: 'fis',
        operation: 'StopExperiment',
        kind: 'latency',
        latencyMs: 30_000,
        count: 1,
      });
    try {
      // Cancel mid-fault: the experiment id is saved and FIS is running the partition.
      const main = await c.job.runMainCancelled(async (s) => {
        const saved = s['experiment-id'];
        return saved !== undefined && (await fisActions(saved)).some((a) => a.endedAs === null);
      });
      const id = c.job.savedState()['experiment-id'] ?? '';
      expect(id).toMatch(/^EXP\w+$/);
      // A cancelled run is not a finished one: the post step must act.
      expect(c.job.savedState().finished).toBeUndefined();
      if (mode === 'graceful') {
        // The main step handled SIGINT itself: the engine stopped FIS and recorded why.
        expect(main.signalsSent, logOf(main)).toEqual(['SIGINT']);
        expect(main.signal).toBeNull();
        expect(c.job.outputs()).toMatchObject({ verdict: 'aborted', 'experiment-id': id });
        expect(c.job.outputs().reason).toMatch(/cancelled by SIGINT/);
      } else {
        // StopExperiment hangs, so the main step lives through SIGINT and SIGTERM and is killed. Within its
        // cancel budget it escalates (heartbeats withheld, the lease alarm forced), so FIS may already be
        // stopping the experiment by its stop condition; either way the post step must verify the stop.
        expect(main.signalsSent, logOf(main)).toEqual(['SIGINT', 'SIGTERM', 'SIGKILL']);
        expect(main.signal).toBe('SIGKILL');
      }
      // The main step created the check run before preflight and left its completion to the post step.
      expect(await checkRunsOf(c)).toEqual([
        expect.objectContaining({ head_sha: c.checkSha, status: 'in_progress', conclusion: null }),
      ]);
      const stopsBefore = (await awsRequests(c.since)).filter((r) => r.operation === 'StopExperiment').length;

      const post = await c.job.runPost();
      expect(post.code, logOf(post)).toBe(0);
      expect(post.stdout).toContain(`Experiment \`${id}\`: stop verified`);
      // The post step sent its own StopExperiment for the saved id.
      const stops = (await awsRequests(c.since)).filter((r) => r.operation === 'StopExperiment');
      expect(stops.length).toBeGreaterThan(stopsBefore);
      expect(stops.at(-1)?.path).toBe(`/experiments/${id}`);

      expect(await liveExperiments()).toEqual([]);
      expect(await fisStatus(id)).toBe('stopped');
      expect((await fisActions(id)).map((a) => a.endedAs)).toEqual(['stopped']);

      const runs = await checkRunsOf(c);
      expect(runs).toHaveLength(1);
      expect(runs[0]).toMatchObject({ head_sha: c.checkSha, status: 'completed', conclusion: 'cancelled' });
      expect(runs[0]?.output.summary).toContain('stop verified');
      expect(await rejectedRequests()).toEqual([]);
    } finally {
      await sandbox.admin.send('DELETE', '/faults');
    }
  };

  it(
    'cancelled on push: SIGINT mid-run, the post step verifies the stop and completes the check run as cancelled',
    cancelled('push', 'graceful'),
    CASE_TIMEOUT_MS,
  );
  it(
    'cancelled on pull_request: the cancelled check run is on the PR head',
    cancelled('pull_request', 'graceful'),
    CASE_TIMEOUT_MS,
  );
  it(
    'cancelled while StopExperiment hangs (push): the runner escalates and the post step stops the live experiment',
    cancelled('push', 'hung'),
    CASE_TIMEOUT_MS,
  );
  it(
    'cancelled while StopExperiment hangs (pull_request): same, check run cancelled on the PR head',
    cancelled('pull_request', 'hung'),
    CASE_TIMEOUT_MS,
  );
});
