/**
 * The post step against the sandbox's FIS stand-in (real SDK client over HTTP) and the GitHub stand-in:
 * every AWS call has a deadline and the whole stop a budget; the experiment is found even when the main
 * step died before saving its id; and the check run is never left `in_progress`. The sandbox's own
 * records (its request log and the experiment's state) say which call ended the fault.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  CreateExperimentTemplateCommand,
  GetExperimentCommand,
  StartExperimentCommand,
  StopExperimentCommand,
  type FisClient,
} from '@aws-sdk/client-fis';
import { createAwsClients } from '../../src/injector/aws/clients.js';
import { TAG_ATTEMPT, TAG_PLAN, TAG_RUN } from '../../src/injector/fis/tags.js';
import { findRunExperiments, stopWithFis } from '../../src/action/post-wiring.js';
import { runPostStep, type PostDeps } from '../../src/action/post-step.js';
import { STATE } from '../../src/action/state.js';
import { startSandboxProcess, type RunningSandbox } from '../helpers/sandbox.js';
import { serveStandIn, TOKENS, type Served } from '../github/serve.js';

const credentials = { accessKeyId: 'sandbox', secretAccessKey: 'sandbox' };
let sandbox: RunningSandbox;
let gh: Served;
let fis: FisClient;
let templateId: string;

interface LoggedRequest {
  seq: number;
  operation: string;
  path: string;
  status: number;
}

async function lastSeq(): Promise<number> {
  const { requests } = await sandbox.admin.get<{ requests: LoggedRequest[] }>('/requests');
  return requests.at(-1)?.seq ?? 0;
}

async function requestsSince(seq: number, operation: string): Promise<LoggedRequest[]> {
  const { requests } = await sandbox.admin.get<{ requests: LoggedRequest[] }>(
    `/requests?operation=${operation}&since=${seq}`,
  );
  return requests;
}

/** Starts an experiment tagged as run `runId` attempt 1 would tag it; resolves once it is running. */
async function startTagged(runId: string): Promise<string> {
  const started = await fis.send(
    new StartExperimentCommand({
      experimentTemplateId: templateId,
      tags: { [TAG_PLAN]: 'post-tests', [TAG_RUN]: runId, [TAG_ATTEMPT]: '1' },
    }),
  );
  const id = started.experiment?.id ?? '';
  await expect
    .poll(async () => (await fis.send(new GetExperimentCommand({ id }))).experiment?.state?.status, {
      timeout: 10_000,
    })
    .toBe('running');
  return id;
}

async function statusOf(id: string): Promise<{ status: string | undefined; reason: string | undefined }> {
  const r = await fis.send(new GetExperimentCommand({ id }));
  return { status: r.experiment?.state?.status, reason: r.experiment?.state?.reason };
}

async function openCheckRun(repo: string): Promise<number> {
  const r = await fetch(`${gh.url}/repos/acme/${repo}/check-runs`, {
    method: 'POST',
    headers: { authorization: 'token ghs-write', 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'chaos-gate: post-tests', head_sha: 'c'.repeat(40), status: 'in_progress' }),
  });
  return ((await r.json()) as { id: number }).id;
}

function checkRun(id: number) {
  return gh.gh.state.checkRuns.get(id);
}

function postDeps(
  repo: string,
  runId: string,
  state: Record<string, string>,
  extra: Partial<PostDeps> = {},
): PostDeps & { failures: string[]; lines: string[] } {
  const failures: string[] = [];
  const lines: string[] = [];
  return {
    failures,
    lines,
    getState: (n) => state[n] ?? '',
    githubToken: 'ghs-write',
    env: {
      GITHUB_API_URL: gh.url,
      GITHUB_REPOSITORY: `acme/${repo}`,
      GITHUB_EVENT_NAME: 'push',
      GITHUB_SHA: 'c'.repeat(40),
      GITHUB_SERVER_URL: 'https://github.com',
      GITHUB_RUN_ID: runId,
      GITHUB_RUN_ATTEMPT: '1',
    },
    log: { info: (m) => void lines.push(m), warning: (m) => void lines.push(m) },
    setFailed: (m) => void failures.push(m),
    stopExperiment: (id, _region, signal) => stopWithFis(fis, id, { signal, budgetMs: 20_000 }),
    findExperiments: (lookup, _region, signal) => findRunExperiments(fis, lookup, { signal }),
    githubRetry: { checkRunPauseMs: 1 },
    ...extra,
  };
}

beforeAll(async () => {
  [sandbox, gh] = await Promise.all([
    startSandboxProcess({ args: ['--no-load'], config: { fis: { initiatingMs: 50, durationScale: 0.01 } } }),
    serveStandIn({ tokens: TOKENS }),
  ]);
  fis = createAwsClients({ region: 'us-east-1', endpoint: sandbox.urls.aws, credentials }).fis;
  const template = await fis.send(
    new CreateExperimentTemplateCommand({
      description: 'post step tests',
      roleArn: 'arn:aws:iam::123456789012:role/fis',
      stopConditions: [{ source: 'none' }],
      targets: {},
      actions: { wait: { actionId: 'aws:fis:wait', parameters: { duration: 'PT2H' } } },
      tags: { [TAG_PLAN]: 'post-tests' },
    }),
  );
  templateId = template.experimentTemplate?.id ?? '';
}, 30_000);

afterEach(async () => {
  await sandbox.admin.send('DELETE', '/faults');
});

afterAll(async () => {
  await Promise.all([sandbox?.stop(), gh?.close()]);
});

describe('the post step on the sandbox', () => {
  it('finds by its run tags an experiment whose id was never saved, and stops it itself through a StopExperiment that hung once', async () => {
    const id = await startTagged('run-crashed');
    const checkRunId = await openCheckRun('post-crash');
    // The first StopExperiment hangs for 10 minutes: its 5 s deadline ends it, and the next one lands.
    await sandbox.admin.send('POST', '/faults', {
      service: 'fis',
      operation: 'StopExperiment',
      kind: 'latency',
      latencyMs: 600_000,
      count: 1,
    });
    const mark = await lastSeq();
    // The main step crashed right after the start: no experiment id, no journal.
    const deps = postDeps('post-crash', 'run-crashed', { [STATE.checkRunId]: String(checkRunId) });
    const result = await runPostStep(deps);
    expect(result).toBe('cleaned-up');
    expect(deps.failures).toEqual([]);
    const stops = await requestsSince(mark, 'StopExperiment');
    expect(stops.map((r) => r.path)).toEqual([`/experiments/${id}`, `/experiments/${id}`]);
    expect(stops.at(-1)?.status).toBe(200);
    const state = await statusOf(id);
    expect(state.status).toBe('stopped');
    expect(state.reason ?? '').not.toMatch(/stop condition|safety lever/i);
    expect(checkRun(checkRunId)).toMatchObject({ status: 'completed', conclusion: 'cancelled' });
    expect(checkRun(checkRunId)?.output.summary).toContain(
      `FIS lists \`${id}\` live, tagged with run run-crashed attempt 1`,
    );
    expect(checkRun(checkRunId)?.output.summary).toContain(`Experiment \`${id}\`: stop verified (stopped)`);
  }, 30_000);

  it('cancelled during a stop that hangs: ends within the grace, completes the check run as failure and names the manual stop', async () => {
    const id = await startTagged('run-hung');
    const checkRunId = await openCheckRun('post-hung');
    await sandbox.admin.send('POST', '/faults', {
      service: 'fis',
      operation: 'StopExperiment',
      kind: 'latency',
      latencyMs: 600_000,
    });
    const controller = new AbortController();
    const deps = postDeps(
      'post-hung',
      'run-hung',
      { [STATE.experimentId]: id, [STATE.checkRunId]: String(checkRunId), [STATE.region]: 'us-east-1' },
      { signal: controller.signal },
    );
    const t0 = Date.now();
    setTimeout(() => controller.abort('SIGINT'), 1_000);
    const result = await runPostStep(deps);
    const tookMs = Date.now() - t0;
    expect(result).toBe('stop-unverified');
    // A cancelled post step has 7.5 s before SIGTERM; it stops waiting on the signal, not at its budget.
    expect(tookMs).toBeLessThan(7_500);
    expect(checkRun(checkRunId)).toMatchObject({ status: 'completed', conclusion: 'failure' });
    expect(checkRun(checkRunId)?.output.title).toBe('failed: the stop of the experiment is not verified');
    expect(checkRun(checkRunId)?.output.summary).toContain('the post step was cancelled');
    expect(deps.failures[0]).toContain(`aws fis stop-experiment --id ${id} --region us-east-1`);
    // The fault is still on (nothing the runner can do while FIS hangs): the test ends it.
    await sandbox.admin.send('DELETE', '/faults');
    await fis.send(new StopExperimentCommand({ id }));
  }, 30_000);

  it('gives up at its budget when every StopExperiment hangs, saying it was never accepted', async () => {
    const id = await startTagged('run-budget');
    await sandbox.admin.send('POST', '/faults', {
      service: 'fis',
      operation: 'StopExperiment',
      kind: 'latency',
      latencyMs: 600_000,
    });
    const outcome = await stopWithFis(fis, id, { budgetMs: 2_000 });
    expect(outcome.verified).toBe(false);
    expect(outcome.detail).toContain('still running when 2 s passed, StopExperiment never accepted');
    expect(outcome.detail).toContain('did not answer within');
    await sandbox.admin.send('DELETE', '/faults');
    await fis.send(new StopExperimentCommand({ id }));
  }, 30_000);
});
