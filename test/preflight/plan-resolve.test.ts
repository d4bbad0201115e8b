/**
 * Issue 8: against the sandbox, `chaos-gate plan --resolve` on every fixture plan prints the resolved targets
 * and starts no fault — the stand-in's own record (actions run, live experiments) proves it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { startSandboxProcess, type RunningSandbox } from '../helpers/sandbox.js';
import { cliArgs } from '../helpers/cli.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const PLANS = readdirSync(path.join(ROOT, 'fixtures/plans'))
  .filter((f) => /\.ya?ml$/.test(f))
  .map((f) => `fixtures/plans/${f}`);

let sandbox: RunningSandbox;

beforeAll(async () => {
  sandbox = await startSandboxProcess({ args: ['--no-load'] });
}, 30_000);

afterAll(async () => {
  await sandbox?.stop();
});

/**
 * Runs `chaos-gate plan --resolve` as a child. Asynchronously: a synchronous spawn would block this
 * process's event loop for the whole run, so the admin client could not retire its idle keep-alive
 * socket before the sandbox closes it, and the next admin call would meet a closed socket.
 */
async function planResolve(
  plan: string,
): Promise<{ status: number | null; json: Record<string, unknown>; stderr: string }> {
  const r = await new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = spawn(process.execPath, cliArgs(['plan', plan, '--resolve', '--json']), {
      cwd: ROOT,
      timeout: 60_000,
      env: {
        ...process.env,
        AWS_ENDPOINT_URL: sandbox.urls.aws,
        AWS_ACCESS_KEY_ID: 'sandbox',
        AWS_SECRET_ACCESS_KEY: 'sandbox',
        AWS_REGION: 'us-east-1',
        // Budgets read Prometheus. With no URL at all `plan --resolve` is a missing setting (exit 2, as
        // `run`); a URL nobody answers on lets budget plans show the gate's own "cannot read" decision.
        CHAOS_GATE_PROMETHEUS_URL: 'http://127.0.0.1:9',
      },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('close', (status) => resolve({ status, stdout, stderr }));
  });
  let json: Record<string, unknown> = {};
  try {
    json = JSON.parse(r.stdout) as Record<string, unknown>;
  } catch {
    json = {};
  }
  return { status: r.status, json, stderr: r.stderr };
}

type LiveExperiment = { id?: string; experimentOptions?: { actionsMode?: string } };

/** Experiments the stand-in still runs (pending, initiating, running, stopping). */
async function liveExperiments(): Promise<LiveExperiment[]> {
  return (await sandbox.admin.get<{ experiments?: LiveExperiment[] }>('/experiments')).experiments ?? [];
}

// The resolves run side by side (vitest's maxConcurrency, 5): each is a CLI child waiting on its dry run,
// and one after another they took two minutes. So while one runs, another's dry run may be live; what
// each must never leave is an action run or an experiment that is not a dry run.
describe.concurrent('chaos-gate plan --resolve against the sandbox', () => {
  it.each(PLANS)('%s: resolves its targets by a dry run and injects nothing', async (plan) => {
    const before = await sandbox.admin.get<{ actions?: unknown[] }>('/actions');
    const r = await planResolve(plan);
    expect(r.stderr).not.toMatch(/Error:/);
    expect([0, 1, 2]).toContain(r.status);
    const targets = r.json.targets as { target: string; arn: string; tags?: Record<string, string> }[] | null;
    expect(Array.isArray(targets), `no targets in ${JSON.stringify(r.json).slice(0, 400)}`).toBe(true);
    expect(targets?.length).toBeGreaterThan(0);
    for (const t of targets ?? []) expect(t.arn).toMatch(/^arn:aws:/);
    // Nothing injected: no action ran (no resolve runs one, so the count holds with others running
    // beside it), and every live experiment is a dry run.
    const after = await sandbox.admin.get<{ actions?: unknown[] }>('/actions');
    expect(after.actions?.length ?? 0).toBe(before.actions?.length ?? 0);
    const injecting = (await liveExperiments()).filter(
      (e) => e.experimentOptions?.actionsMode !== 'skip-all',
    );
    expect(injecting).toEqual([]);
  });
});

describe('after every resolve', () => {
  it('leaves no experiment live, dry run or not', async () => {
    expect(await liveExperiments()).toEqual([]);
  });
});
