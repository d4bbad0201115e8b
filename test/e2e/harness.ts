/**
 * End-to-end harness: one sandbox child process per test file (`test/helpers/sandbox.ts`), and
 * `chaos-gate run|kill` as child processes exactly as a user starts them, reaching the sandbox only
 * through the standard `AWS_ENDPOINT_URL*` variables. Tests read the run's journal, its `--json` line,
 * and the sandbox's own record (admin endpoint: experiments, actions run, requests received).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { FisClient, GetExperimentCommand, type Experiment } from '@aws-sdk/client-fis';
import { CloudWatchClient } from '@aws-sdk/client-cloudwatch';
import { afterAll, beforeAll } from 'vitest';
import { startSandboxProcess, type RunningSandbox } from '../helpers/sandbox.js';
import type { Journal } from '../../src/journal/types.js';
import { readJournal } from '../../src/journal/read.js';
import { nodeArgs, type Entry } from '../helpers/cli.js';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const PLANS = path.join(ROOT, 'fixtures/plans');
export const REGION = 'us-east-1';
const CREDENTIALS = { accessKeyId: 'e2e', secretAccessKey: 'e2e' };

/** A `chaos-gate` child ends by itself well within this (the longest e2e plan runs ~40 s). */
export const CLI_TIMEOUT_MS = 120_000;
/** How long a stopping experiment may take to reach a terminal state in the sweep (sandbox stoppingMs is 500). */
const SWEEP_SETTLE_MS = 10_000;
const POLL_MS = 100;

/** A request the AWS stand-in logged (admin `GET /requests`). */
export interface LoggedRequest {
  seq: number;
  time: number;
  service: string;
  operation: string | null;
  method: string;
  path: string;
  status: number;
  body?: unknown;
}

/** An FIS action the stand-in ran (admin `GET /actions`). */
export interface ActionRun {
  experimentId: string;
  actionName: string;
  actionId: string;
  targets: string[];
  startTime?: string;
  endTime?: string;
  endedAs?: string;
}

/** What `chaos-gate run --json` prints last. */
export interface RunJson {
  verdict: string;
  reason: string;
  exitCode: number;
  experimentId: string | null;
  journal: string;
}

/** A finished child process. */
export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** A running `chaos-gate` child. */
export interface CliChild {
  pid: number;
  stderr(): string;
  /** Resolves with the first match of `re` on stderr; rejects when the child exits or the time is up. */
  waitForStderr(re: RegExp, timeoutMs?: number): Promise<RegExpMatchArray>;
  kill(signal: NodeJS.Signals): void;
  done: Promise<CliResult>;
}

/** Everything a test needs: the sandbox, the environment for CLI children and SDK clients for checks. */
export interface E2E {
  sandbox: RunningSandbox;
  env: NodeJS.ProcessEnv;
  fis: FisClient;
  cloudwatch: CloudWatchClient;
  /** A temp directory for journals and plan copies, removed by `close`. */
  dir: string;
  /** Runs `chaos-gate <args>` as a child; see {@link CliChild}. */
  cli(args: string[], extraEnv?: NodeJS.ProcessEnv): CliChild;
  /** Runs the action's main (`action`) or post (`post`) step the same way, with the same environment. */
  node(entry: Exclude<Entry, 'cli'>, extraEnv?: NodeJS.ProcessEnv): CliChild;
  /** Runs a plan to the end: `chaos-gate run <plan> --journal <tmp> --json [...args]`, env added to the child's. */
  run(plan: string, args?: string[], extraEnv?: NodeJS.ProcessEnv): Promise<PlanRun>;
  requests(filter?: { service?: string; operation?: string; since?: number }): Promise<LoggedRequest[]>;
  actions(experimentId?: string): Promise<ActionRun[]>;
  liveExperiments(): Promise<Experiment[]>;
  experiment(id: string): Promise<Experiment>;
  /** The highest request sequence number so far (a mark for "requests after this point"). */
  mark(): Promise<number>;
  /** Waits for stopping experiments to settle, then fails if the stand-in still has a live one. */
  sweep(): Promise<void>;
  /** Sweeps, then stops the sandbox (by PID) and removes the temp directory. */
  close(): Promise<void>;
}

/** A finished `run` with its parsed `--json` line and journal. */
export interface PlanRun extends CliResult {
  json: RunJson;
  journal: Journal;
  journalPath: string;
}

/** Polls `fn` until it returns a value other than undefined, or throws naming `what`. */
export async function waitFor<T>(
  what: string,
  fn: () => Promise<T | undefined>,
  timeoutMs: number,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await fn();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
}

/** Reads a journal file: the final JSON, or (after a crash) the NDJSON prefix's records. */
export { readJournal };

/** Copies a fixture plan into `dir`, optionally rewriting its text (e.g. a changed duration). */
export function copyPlan(dir: string, name: string, edit?: (text: string) => string): string {
  const to = path.join(dir, name);
  if (edit) writeFileSync(to, edit(readFileSync(path.join(PLANS, name), 'utf8')));
  else copyFileSync(path.join(PLANS, name), to);
  return to;
}

/**
 * Runs one of chaos-gate's entries from the repository root: the suite's bundle of it, as the runner
 * would (test/helpers/cli.ts).
 */
function spawnNode(entry: Entry, args: string[], env: NodeJS.ProcessEnv): CliChild {
  const argv = nodeArgs(entry, args);
  const child: ChildProcess = spawn(process.execPath, argv, {
    cwd: ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  const listeners = new Set<() => void>();
  child.stdout?.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr?.on('data', (c: Buffer) => {
    stderr += c.toString();
    for (const l of listeners) l();
  });
  const timer = setTimeout(() => {
    if (child.pid !== undefined && child.exitCode === null) process.kill(child.pid, 'SIGKILL');
  }, CLI_TIMEOUT_MS);
  const done = new Promise<CliResult>((resolve) => {
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      for (const l of listeners) l();
      resolve({ code, signal, stdout, stderr });
    });
  });
  let exited = false;
  void done.then(() => (exited = true));
  return {
    pid: child.pid ?? -1,
    stderr: () => stderr,
    done,
    kill(signal) {
      if (child.pid !== undefined && child.exitCode === null && child.signalCode === null)
        process.kill(child.pid, signal);
    },
    waitForStderr(re, timeoutMs = 60_000) {
      return new Promise((resolve, reject) => {
        const check = (): void => {
          const m = re.exec(stderr);
          if (m) {
            finish();
            resolve(m);
          } else if (exited) {
            finish();
            reject(new Error(`chaos-gate exited before printing ${re}:\n${stderr}\n${stdout}`));
          }
        };
        const t = setTimeout(() => {
          finish();
          reject(new Error(`chaos-gate printed no ${re} within ${timeoutMs} ms:\n${stderr}`));
        }, timeoutMs);
        const finish = (): void => {
          clearTimeout(t);
          listeners.delete(check);
        };
        listeners.add(check);
        void done.then(check);
        check();
      });
    },
  };
}

/**
 * FIS runs no action shorter than a minute and the sandbox enforces that, so the e2e plans name real
 * durations (PT1M, PT2M) and the e2e sandbox runs them at 4× speed: PT1M lasts 15 s.
 */
export const E2E_DURATION_SCALE = 0.25;

/** Starts a sandbox child for one test file. */
/**
 * One sandbox for the calling test file: started before its tests, swept and stopped after them. Returns
 * a getter, valid once the file's tests run.
 */
export function useE2E(config: Record<string, unknown> = {}): () => E2E {
  let e2e: E2E | undefined;
  beforeAll(async () => {
    e2e = await startE2E(config);
  }, 60_000);
  afterAll(async () => {
    await e2e?.close();
  }, 30_000);
  return () => {
    if (!e2e) throw new Error('the e2e sandbox is not started: call useE2E() at the top of the file');
    return e2e;
  };
}

export async function startE2E(config: Record<string, unknown> = {}): Promise<E2E> {
  const timings = {
    durationScale: E2E_DURATION_SCALE,
    ...(config.fis as Record<string, unknown> | undefined),
  };
  const sandbox = await startSandboxProcess({ config: { ...config, fis: timings } });
  const dir = mkdtempSync(path.join(tmpdir(), 'chaos-gate-e2e-'));
  const { aws, canary } = sandbox.urls;
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    AWS_ENDPOINT_URL: aws,
    AWS_ACCESS_KEY_ID: CREDENTIALS.accessKeyId,
    AWS_SECRET_ACCESS_KEY: CREDENTIALS.secretAccessKey,
    AWS_REGION: REGION,
    // Keep the child away from any real AWS profile or IMDS on the machine.
    AWS_EC2_METADATA_DISABLED: 'true',
    AWS_CONFIG_FILE: path.join(dir, 'no-aws-config'),
    AWS_SHARED_CREDENTIALS_FILE: path.join(dir, 'no-aws-credentials'),
    CANARY_URL: canary,
  };
  const fis = new FisClient({ endpoint: aws, region: REGION, credentials: CREDENTIALS });
  const cloudwatch = new CloudWatchClient({ endpoint: aws, region: REGION, credentials: CREDENTIALS });
  const admin = sandbox.admin;
  let runs = 0;

  const liveExperiments = async (): Promise<Experiment[]> =>
    (await admin.get<{ experiments: Experiment[] }>('/experiments')).experiments;

  const e2e: E2E = {
    sandbox,
    env,
    fis,
    cloudwatch,
    dir,
    cli: (args, extraEnv) => spawnNode('cli', args, { ...env, ...extraEnv }),
    node: (entry, extraEnv) => spawnNode(entry, [], { ...env, ...extraEnv }),
    async run(plan, args = [], extraEnv = {}) {
      const journalPath = path.join(dir, `run-${++runs}.journal.json`);
      const planPath = path.isAbsolute(plan) ? plan : path.join(PLANS, plan);
      const result = await spawnNode('cli', ['run', planPath, '--journal', journalPath, '--json', ...args], {
        ...env,
        ...extraEnv,
      }).done;
      const last = result.stdout.trim().split('\n').at(-1) ?? '';
      let json: RunJson;
      try {
        json = JSON.parse(last) as RunJson;
      } catch {
        throw new Error(
          `chaos-gate run printed no JSON verdict (exit ${result.code}):\n${result.stdout}\n${result.stderr}`,
        );
      }
      if (!existsSync(journalPath)) throw new Error(`no journal at ${journalPath}:\n${result.stderr}`);
      return { ...result, json, journal: readJournal(journalPath), journalPath };
    },
    async requests(filter = {}) {
      const q = new URLSearchParams();
      if (filter.service) q.set('service', filter.service);
      if (filter.operation) q.set('operation', filter.operation);
      if (filter.since !== undefined) q.set('since', String(filter.since));
      return (await admin.get<{ requests: LoggedRequest[] }>(`/requests?${q.toString()}`)).requests;
    },
    async actions(experimentId) {
      const q = experimentId ? `?experimentId=${encodeURIComponent(experimentId)}` : '';
      return (await admin.get<{ actions: ActionRun[] }>(`/actions${q}`)).actions;
    },
    liveExperiments,
    async experiment(id) {
      const out = await fis.send(new GetExperimentCommand({ id }));
      if (!out.experiment) throw new Error(`GetExperiment ${id} returned nothing`);
      return out.experiment;
    },
    async mark() {
      const all = await e2e.requests();
      return all.reduce((max, r) => Math.max(max, r.seq), 0);
    },
    async sweep() {
      const deadline = Date.now() + SWEEP_SETTLE_MS;
      let live = await liveExperiments();
      while (live.length > 0 && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, POLL_MS));
        live = await liveExperiments();
      }
      if (live.length > 0) {
        throw new Error(
          `the sweep found live experiments: ${live.map((e) => `${e.id} ${e.state?.status}`).join(', ')}`,
        );
      }
    },
    async close() {
      try {
        // Whatever the tests did, no experiment may be left running in the stand-in.
        await e2e.sweep();
      } finally {
        fis.destroy();
        cloudwatch.destroy();
        await sandbox.stop();
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
  return e2e;
}

/** Whether the canary has any fault switched on (admin `GET /canary`). */
export async function canaryFaults(e2e: E2E): Promise<Record<string, unknown>> {
  return (await e2e.sandbox.admin.get<{ faults: Record<string, unknown> }>('/canary')).faults;
}

/** The journal's first event of a type. */
export function eventOf(journal: Journal, type: string): Journal['events'][number] | undefined {
  return journal.events.find((e) => e.type === type);
}
