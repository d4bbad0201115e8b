/**
 * Runs the bundled action (`dist/action.js`, then `dist/post.js`) the way the GitHub Actions runner does:
 * a fresh process per step with `INPUT_*` variables (action.yml defaults filled in), the file-command
 * files `GITHUB_OUTPUT` / `GITHUB_STATE` / `GITHUB_STEP_SUMMARY`, an event payload at `GITHUB_EVENT_PATH`
 * and the usual `GITHUB_*` context. A cancelled step gets the runner's escalation (SIGINT, 7.5 s,
 * SIGTERM, 2.5 s, SIGKILL), and the post step always runs afterwards with the main step's saved state
 * as `STATE_*` whatever the main step's exit — what `@github/local-action` cannot do.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse as parseYaml } from 'yaml';
import { bundledEntry } from './cli.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** The runner's grace after SIGINT before SIGTERM (GitHub docs, "cancelling a workflow": 7500 ms). */
export const SIGINT_GRACE_MS = 7_500;
/** The runner's grace after SIGTERM before SIGKILL (same source: 2500 ms). */
export const SIGTERM_GRACE_MS = 2_500;
/** A bundle build takes ~10 s on a quiet 2-core machine; several engineers share this one. */
const BUILD_TIMEOUT_MS = 180_000;
/** Bounds a step that is never cancelled: the lifecycle plans run for well under a minute. */
export const STEP_TIMEOUT_MS = 120_000;
const POLL_MS = 50;

/**
 * The bundles a step runs: the suite's bundle of the current sources (test/setup/bundle.ts), else the
 * committed dist/ (kept fresh by {@link ensureBundle}).
 */
export const BUNDLES = {
  main: bundledEntry('action') ?? path.join(ROOT, 'dist/action.js'),
  post: bundledEntry('post') ?? path.join(ROOT, 'dist/post.js'),
} as const;

function newestMtime(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(p) : statSync(p).mtimeMs);
  }
  return newest;
}

function bundleIsFresh(): boolean {
  const sources = Math.max(
    newestMtime(path.join(ROOT, 'src')),
    statSync(path.join(ROOT, 'scripts/build.mjs')).mtimeMs,
    statSync(path.join(ROOT, 'package-lock.json')).mtimeMs,
  );
  return Object.values(BUNDLES).every((b) => existsSync(b) && statSync(b).mtimeMs >= sources);
}

/**
 * Rebuilds `dist/` with `npm run build` when a bundle is older than `src/`. The build runs under
 * `flock` so concurrent test files (or engineers) never write `dist/` at the same time; freshness is
 * re-checked inside the lock.
 */
export function ensureBundle(): void {
  if (bundledEntry('action') !== undefined || bundleIsFresh()) return;
  const stale = (bundle: string): string =>
    `[ ! -f ${bundle} ] || [ -n "$(find src scripts/build.mjs package-lock.json -newer ${bundle} -print -quit)" ]`;
  const script = `cd ${JSON.stringify(ROOT)} && if ${stale('dist/action.js')} || ${stale('dist/post.js')}; then npm run build --silent; fi`;
  const r = spawnSync('flock', [path.join(tmpdir(), 'chaos-gate-dist-build.lock'), 'sh', '-c', script], {
    encoding: 'utf8',
    timeout: BUILD_TIMEOUT_MS,
  });
  if (r.error) throw new Error(`building dist/ failed: ${r.error.message}`);
  if (!bundleIsFresh()) throw new Error(`building dist/ left a stale bundle:\n${r.stdout}\n${r.stderr}`);
}

/**
 * Parses a file-command file (`GITHUB_OUTPUT`, `GITHUB_STATE`): `name<<delimiter\nvalue\ndelimiter`
 * blocks as `@actions/core` writes them, and the older one-line `name=value` form. A later value of the
 * same name wins, as on the runner.
 */
export function parseFileCommands(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? '';
    if (line === '') continue;
    const heredoc = /^([^=<]+)<<(.+)$/.exec(line);
    if (heredoc) {
      const [, name, delimiter] = heredoc as unknown as [string, string, string];
      const value: string[] = [];
      let closed = false;
      for (i++; i < lines.length; i++) {
        if (lines[i] === delimiter) {
          closed = true;
          break;
        }
        value.push(lines[i] ?? '');
      }
      if (!closed) throw new Error(`file command ${name}: no closing delimiter ${delimiter}`);
      out[name] = value.join('\n');
      continue;
    }
    const eq = line.indexOf('=');
    if (eq <= 0) throw new Error(`file command line is neither name=value nor name<<delimiter: ${line}`);
    out[line.slice(0, eq)] = line.slice(eq + 1);
  }
  return out;
}

/** The runner's env name for an input: `INPUT_` + upper-cased name, spaces → underscores (dashes stay). */
export function inputEnvName(name: string): string {
  return `INPUT_${name.replace(/ /g, '_').toUpperCase()}`;
}

/** action.yml's input defaults; `${{ github.token }}` becomes the given token. */
export function actionDefaults(token: string): Record<string, string> {
  const spec = parseYaml(readFileSync(path.join(ROOT, 'action.yml'), 'utf8')) as {
    inputs: Record<string, { default?: string }>;
  };
  const out: Record<string, string> = {};
  for (const [name, def] of Object.entries(spec.inputs)) {
    if (def.default === undefined) continue;
    out[name] = def.default.replace(/\$\{\{\s*github\.token\s*\}\}/g, token);
  }
  return out;
}

/** How a step ended, what it wrote, and which cancel signals it was sent. */
export interface StepResult {
  /** Exit code; null when a signal ended it. */
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  /** `Date.now()` right before spawn, and at exit. */
  startedAt: number;
  endedAt: number;
  /** Signals the harness sent, in order. */
  signalsSent: NodeJS.Signals[];
}

/** A job's context: one per case, its own temp dir, workspace and file-command files. */
export interface JobOptions {
  /** `GITHUB_EVENT_NAME`: any event the runner knows (`push`, `pull_request_target`, `workflow_run`, …). */
  event: string;
  /** The webhook payload written to `GITHUB_EVENT_PATH`. */
  payload: Record<string, unknown>;
  /** `GITHUB_SHA` (on pull_request the merge commit, not the head). */
  sha: string;
  repository: string;
  runId: string;
  runAttempt?: number;
  /** `with:` inputs; action.yml defaults fill the rest. */
  inputs: Record<string, string>;
  token: string;
  /** Extra environment (AWS endpoint and credentials, CANARY_URL, …). */
  env: Record<string, string>;
  /** Files to place in the workspace (relative path → content). */
  files?: Record<string, string>;
  /** The node binary (`runs.using: node20|node24`); default: this process's. */
  node?: string;
  /** Other bundles to run than `dist/` (e.g. a fresh build of the sources in a temp dir). */
  bundles?: { main: string; post: string };
}

/** One job's main + post steps, with the runner's files. */
export class ActionsJob {
  readonly dir: string;
  readonly workspace: string;
  readonly files: { output: string; state: string; summary: string; event: string; postState: string };
  private readonly children = new Set<ChildProcess>();

  constructor(private readonly opts: JobOptions) {
    this.dir = mkdtempSync(path.join(tmpdir(), 'chaos-gate-lifecycle-'));
    this.workspace = path.join(this.dir, 'workspace');
    mkdirSync(this.workspace);
    mkdirSync(path.join(this.dir, 'temp'));
    this.files = {
      output: path.join(this.dir, 'output'),
      state: path.join(this.dir, 'state'),
      summary: path.join(this.dir, 'step_summary'),
      event: path.join(this.dir, 'event.json'),
      postState: path.join(this.dir, 'post_state'),
    };
    // The runner creates the file-command files empty before each step; @actions/core refuses missing ones.
    for (const f of [this.files.output, this.files.state, this.files.summary, this.files.postState])
      writeFileSync(f, '');
    writeFileSync(this.files.event, JSON.stringify(opts.payload, null, 2));
    for (const [rel, content] of Object.entries(opts.files ?? {})) {
      const p = path.join(this.workspace, rel);
      mkdirSync(path.dirname(p), { recursive: true });
      writeFileSync(p, content);
    }
  }

  /** The environment both steps share (the runner's context plus the inputs). */
  private baseEnv(): Record<string, string> {
    const o = this.opts;
    const inputs = { ...actionDefaults(o.token), ...o.inputs };
    const env: Record<string, string> = {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: process.env.HOME ?? this.dir,
      CI: 'true',
      GITHUB_ACTIONS: 'true',
      GITHUB_EVENT_NAME: o.event,
      GITHUB_EVENT_PATH: this.files.event,
      GITHUB_SHA: o.sha,
      GITHUB_REF: o.event === 'pull_request' ? 'refs/pull/1/merge' : 'refs/heads/main',
      GITHUB_REPOSITORY: o.repository,
      GITHUB_REPOSITORY_OWNER: o.repository.split('/')[0] ?? '',
      GITHUB_RUN_ID: o.runId,
      GITHUB_RUN_ATTEMPT: String(o.runAttempt ?? 1),
      GITHUB_RUN_NUMBER: '1',
      GITHUB_JOB: 'gate',
      GITHUB_ACTION: 'chaos-gate',
      GITHUB_ACTOR: 'octocat',
      GITHUB_WORKFLOW: 'lifecycle',
      GITHUB_WORKSPACE: this.workspace,
      GITHUB_SERVER_URL: 'https://github.com',
      RUNNER_OS: 'Linux',
      RUNNER_TEMP: path.join(this.dir, 'temp'),
      ...o.env,
    };
    for (const [name, value] of Object.entries(inputs)) env[inputEnvName(name)] = value;
    return env;
  }

  private spawnStep(
    bundle: string,
    env: Record<string, string>,
  ): { child: ChildProcess; result: Promise<StepResult> } {
    const startedAt = Date.now();
    const child = spawn(this.opts.node ?? process.execPath, [bundle], {
      cwd: this.workspace,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.children.add(child);
    let stdout = '';
    let stderr = '';
    child.stdout?.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr?.on('data', (c: Buffer) => (stderr += c.toString()));
    const signalsSent: NodeJS.Signals[] = [];
    const result = new Promise<StepResult>((resolve, reject) => {
      child.once('error', reject);
      child.once('close', (code, signal) => {
        this.children.delete(child);
        resolve({ code, signal, stdout, stderr, startedAt, endedAt: Date.now(), signalsSent });
      });
    });
    (child as ChildProcess & { signalsSent?: NodeJS.Signals[] }).signalsSent = signalsSent;
    return { child, result };
  }

  /** Runs the main step to its end (bounded by `STEP_TIMEOUT_MS`, then killed and reported). */
  async runMain(): Promise<StepResult> {
    const { child, result } = this.spawnStep(this.opts.bundles?.main ?? BUNDLES.main, {
      ...this.baseEnv(),
      GITHUB_OUTPUT: this.files.output,
      GITHUB_STATE: this.files.state,
      GITHUB_STEP_SUMMARY: this.files.summary,
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), STEP_TIMEOUT_MS);
    try {
      const r = await result;
      if (r.signal === 'SIGKILL' && r.signalsSent.length === 0)
        throw new Error(`the main step ran over ${STEP_TIMEOUT_MS} ms:\n${r.stdout}\n${r.stderr}`);
      return r;
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * Runs the main step and cancels it as the runner does once `when(state)` holds for the saved state:
   * SIGINT; after 7.5 s, if still alive, SIGTERM; after 2.5 s more, SIGKILL.
   */
  async runMainCancelled(
    when: (state: Record<string, string>) => boolean | Promise<boolean>,
  ): Promise<StepResult> {
    const { child, result } = this.spawnStep(BUNDLES.main, {
      ...this.baseEnv(),
      GITHUB_OUTPUT: this.files.output,
      GITHUB_STATE: this.files.state,
      GITHUB_STEP_SUMMARY: this.files.summary,
    });
    const sent = (child as ChildProcess & { signalsSent: NodeJS.Signals[] }).signalsSent;
    let exited = false;
    void result.then(() => (exited = true));
    const deadline = Date.now() + STEP_TIMEOUT_MS;
    while (!exited && !(await when(this.savedState()))) {
      if (Date.now() > deadline) {
        child.kill('SIGKILL');
        await result;
        throw new Error(`the cancel condition never held within ${STEP_TIMEOUT_MS} ms`);
      }
      await sleep(POLL_MS);
    }
    if (exited) {
      const r = await result;
      throw new Error(
        `the main step exited (${r.code ?? r.signal}) before it could be cancelled:\n${r.stdout}\n${r.stderr}`,
      );
    }
    const escalate = async (sig: NodeJS.Signals, graceMs: number): Promise<boolean> => {
      sent.push(sig);
      child.kill(sig);
      return Promise.race([result.then(() => true), sleep(graceMs).then(() => exited)]);
    };
    if (!(await escalate('SIGINT', SIGINT_GRACE_MS)) && !(await escalate('SIGTERM', SIGTERM_GRACE_MS))) {
      sent.push('SIGKILL');
      child.kill('SIGKILL');
    }
    return result;
  }

  /** What the main step saved with `core.saveState`. */
  savedState(): Record<string, string> {
    return parseFileCommands(readFileSync(this.files.state, 'utf8'));
  }

  /** What the main step set with `core.setOutput`. */
  outputs(): Record<string, string> {
    return parseFileCommands(readFileSync(this.files.output, 'utf8'));
  }

  /** The job summary as written. */
  summary(): string {
    return readFileSync(this.files.summary, 'utf8');
  }

  /**
   * Runs the post step with the main step's state as `STATE_<name>` variables, as the runner does
   * whatever the main step's exit code (`post-if: always()` is the default).
   */
  async runPost(): Promise<StepResult> {
    const state: Record<string, string> = {};
    for (const [name, value] of Object.entries(this.savedState())) state[`STATE_${name}`] = value;
    const { child, result } = this.spawnStep(this.opts.bundles?.post ?? BUNDLES.post, {
      ...this.baseEnv(),
      ...state,
      GITHUB_OUTPUT: this.files.output,
      GITHUB_STATE: this.files.postState,
      GITHUB_STEP_SUMMARY: this.files.summary,
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), STEP_TIMEOUT_MS);
    try {
      return await result;
    } finally {
      clearTimeout(timer);
    }
  }

  /** Kills any step still running (by PID) and removes the job's files. */
  async dispose(): Promise<void> {
    for (const child of this.children) {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    }
    while (this.children.size) await sleep(POLL_MS);
    rmSync(this.dir, { recursive: true, force: true });
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
