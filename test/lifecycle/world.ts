/**
 * What the lifecycle files share (issue 7 part 8, docs/design/run.md#the-post-step and docs/design/evidence.md#reports): the bundled action's main and post
 * steps run as separate processes against a sandbox (FIS, CloudWatch, the canary and the
 * OpenAPI-validating GitHub stand-in), with `INPUT_*` variables, file-command files, push and pull_request
 * payloads, the runner's cancel escalation, and the post step always run after.
 *
 * Each file has a sandbox of its own ({@link useLifecycleSandbox}) and runs its cases one at a time: the
 * runs of one file share the canary and the FIS stand-in, and a concurrent run would queue behind the
 * other's experiment (the concurrency gate). Files run side by side.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, expect } from 'vitest';
import { ActionsJob, ensureBundle, type StepResult } from '../helpers/actions-runner.js';
import { startSandboxProcess, type RunningSandbox } from '../helpers/sandbox.js';
import type { StoredCheckRun, StoredComment, StoredPull } from '../../src/sandbox/github/index.js';

const FIXTURES = new URL('../../fixtures/events/', import.meta.url);
const read = (rel: string): string => readFileSync(new URL(rel, FIXTURES), 'utf8');
export const PLAN = read('plans/lifecycle-partition.yaml');
export const FORBIDDEN_PLAN = read('plans/lifecycle-forbidden-tag.yaml');
export const NARROW_POLICY = read('policy/narrow.yaml');
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
export const NODE24 =
  process.env.CHAOS_GATE_NODE24 ??
  (process.versions.node.startsWith('24.') ? process.execPath : '/nonexistent/node24');
/** A held run: 4 s steady state, the dry run, a 20 s fault and recovery; the rest is headroom. */
export const CASE_TIMEOUT_MS = 150_000;

export type Event = 'push' | 'pull_request';

let running: RunningSandbox | undefined;

/** This file's sandbox (started by {@link useLifecycleSandbox}). */
export function sandbox(): RunningSandbox {
  if (!running)
    throw new Error('the sandbox is not started yet: call useLifecycleSandbox() at the top of the file');
  return running;
}
const jobs: ActionsJob[] = [];
/** Cold start of each main step (spawn → first AWS request), printed for the bench. */
const coldStarts: { label: string; ms: number }[] = [];

/** Starts this file's sandbox before its cases and disposes of its jobs and the sandbox after them. */
export function useLifecycleSandbox(): void {
  beforeAll(async () => {
    ensureBundle();
    // The plans' PT1M20S partitions (FIS's minimum is PT1M) last 20 s at 4× speed.
    running = await startSandboxProcess({ config: { fis: { durationScale: 0.25 } } });
  }, 240_000);

  afterAll(async () => {
    for (const job of jobs) await job.dispose();
    await running?.stop();
    if (coldStarts.length)
      console.info(
        `chaos-gate action cold start (process start → first AWS request): ${coldStarts
          .map((c) => `${c.label} ${c.ms} ms`)
          .join(', ')}`,
      );
  });
}

interface AwsRequest {
  seq: number;
  time: number;
  service: string;
  operation: string | null;
  method: string;
  path: string;
  status: number;
  /** The request's parameters as the stand-in logged them. */
  body?: unknown;
}

export async function awsRequests(since: number): Promise<AwsRequest[]> {
  return (await sandbox().admin.get<{ requests: AwsRequest[] }>(`/requests?since=${since}`)).requests;
}

export async function lastSeq(): Promise<number> {
  return (await awsRequests(0)).at(-1)?.seq ?? 0;
}

async function gh<T>(route: string, body?: unknown): Promise<T> {
  const res = await fetch(`${sandbox().urls.github}/_sandbox/${route}`, {
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

export async function rejectedRequests(): Promise<unknown[]> {
  const r = await gh<{ rejected: unknown[]; invalidResponses: unknown[] }>('rejected');
  return [...r.rejected, ...r.invalidResponses];
}

export async function liveExperiments(): Promise<{ id: string; state: { status: string } }[]> {
  return (
    await sandbox().admin.get<{ experiments: { id: string; state: { status: string } }[] }>('/experiments')
  ).experiments;
}

export interface Case {
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
export async function newCase(
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
      GITHUB_API_URL: sandbox().urls.github ?? '',
      AWS_ENDPOINT_URL: sandbox().urls.aws,
      AWS_ACCESS_KEY_ID: 'sandbox',
      AWS_SECRET_ACCESS_KEY: 'sandbox',
      AWS_REGION: 'us-east-1',
      CANARY_URL: sandbox().urls.canary,
    },
    ...(opts.node ? { node: opts.node } : {}),
  });
  jobs.push(job);
  return { job, repo, checkSha, sha, pr, planPath, since: await lastSeq() };
}

export async function checkRunsOf(c: Case): Promise<StoredCheckRun[]> {
  const s = await gh<GhState>('state');
  return s.checkRuns.filter((r) => `${r.owner}/${r.repo}` === c.repo);
}

export async function commentsOf(c: Case): Promise<StoredComment[]> {
  const s = await gh<GhState>('state');
  return s.comments.filter((m) => `${m.owner}/${m.repo}` === c.repo);
}

/** Spawn → first request the AWS stand-in logged for this case. */
export async function recordColdStart(label: string, c: Case, main: StepResult): Promise<void> {
  const first = (await awsRequests(c.since))[0];
  if (first) coldStarts.push({ label, ms: Math.round(first.time - main.startedAt) });
}

/** The 1-based lines of the plan text that contain `needle` (comment lines skipped). */
export function linesOf(text: string, needle: string): number[] {
  return text.split('\n').flatMap((l, i) => (l.includes(needle) && !l.trim().startsWith('#') ? [i + 1] : []));
}

/** The experiment's state as FIS reports it (GetExperiment; the stand-in does not check signatures). */
export async function fisStatus(id: string): Promise<string | undefined> {
  const res = await fetch(`${sandbox().urls.aws}/experiments/${id}`);
  const body = (await res.json()) as { experiment?: { state?: { status?: string } } };
  return body.experiment?.state?.status;
}

interface ActionRecord {
  endedAs: string | null;
}

export async function fisActions(id: string): Promise<ActionRecord[]> {
  return (await sandbox().admin.get<{ actions: ActionRecord[] }>(`/actions?experimentId=${id}`)).actions;
}

export const OUTPUT_NAMES = [
  'verdict',
  'reason',
  'experiment-id',
  // The unsigned verdict statement, written on every finished run (signed only with a subject).
  'attestation',
  'journal',
  'report',
  'abort-latency-ms',
  'budget-remaining',
] as const;

export function logOf(r: StepResult): string {
  return `exit ${r.code ?? r.signal}\n--- stdout\n${r.stdout}\n--- stderr\n${r.stderr}`;
}
