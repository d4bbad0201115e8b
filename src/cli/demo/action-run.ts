/**
 * One demo run through the GitHub Action's own code path: `runFromInputs` with the production
 * `defaultDeps`, typed inputs parsed by the action's own `parseInputs`, and the process environment a
 * runner gives a step on a push — except that `GITHUB_API_URL` is the sandbox's GitHub stand-in and
 * `AWS_ENDPOINT_URL` its AWS stand-in. Nothing here decides a verdict; it only sets the stage and
 * reads back what the action left: outputs, files and the check run the stand-in recorded.
 */
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { parseInputs } from '../../action/inputs.js';
import { runFromInputs } from '../../action/run.js';
import { defaultDeps } from '../../action/wiring.js';
import type { JournalEvent, Measurement } from '../../journal/types.js';
import { checkName } from '../../report/common.js';
import type { SandboxUrls } from './sandbox-process.js';
import { errorMessage } from '../../errors/message.js';

/** The token the sandbox's GitHub stand-in accepts (docs/sandbox.md). */
export const SANDBOX_GITHUB_TOKEN = 'sandbox-token';
/** The repository the demo pretends to push to; the stand-in accepts any owner/name. */
export const DEMO_REPOSITORY = 'chaos-gate-demo/payments';
/** How long a run may wait for another experiment on the same targets (none exists in the demo). */
const QUEUE_TIMEOUT = '30s';
/** Bound on the stand-in lookup after a run. */
const GITHUB_LOOKUP_TIMEOUT_MS = 5_000;

/** The push the demo pretends to be: one per demo, shared by both runs (two check runs on one commit). */
export interface DemoPush {
  repository: string;
  sha: string;
  runId: string;
  ref: string;
}

/** A push with a fresh commit SHA, so the stand-in's check runs for it are this demo's only. */
export function demoPush(now: number = Date.now()): DemoPush {
  return {
    repository: DEMO_REPOSITORY,
    sha: createHash('sha1').update(`chaos-gate demo ${now}`).digest('hex'),
    runId: String(now),
    ref: 'refs/heads/main',
  };
}

/** The check run as the GitHub stand-in holds it. */
export interface RecordedCheckRun {
  id: number;
  name: string;
  status: string;
  conclusion: string | null;
  title: string | null;
}

/** Where one run left its files. */
export interface RunFiles {
  journal: string;
  summary: string;
  report: string;
  /** The step's `GITHUB_OUTPUT` file (the action's outputs). */
  outputs: string;
  plan: string;
}

/** What one run produced. */
export interface ActionRunResult {
  exitCode: number;
  /** The action's outputs, read back from `GITHUB_OUTPUT`. */
  outputs: Record<string, string>;
  files: RunFiles;
  /** The check run the stand-in recorded, or why it could not be read. */
  check: RecordedCheckRun | { error: string };
  wallMs: number;
}

/** One run's setup. */
export interface ActionRunOptions {
  sandbox: SandboxUrls;
  /** `GITHUB_WORKSPACE`: the plan and output paths are shown relative to it. */
  workspace: string;
  outDir: string;
  planFile: string;
  planId: string;
  prometheusUrl?: string | undefined;
  push: DemoPush;
  signal: AbortSignal;
  onTick?: ((m: Measurement) => void) | undefined;
  onEvent?: ((e: JournalEvent) => void) | undefined;
}

/** Parses a `GITHUB_OUTPUT` file (`name<<DELIM\nvalue\nDELIM` blocks, as `@actions/core` writes them). */
export function parseOutputFile(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  const lines = text.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const m = /^([^<=]+)<<(.+)$/.exec(lines[i] ?? '');
    if (m) {
      const [, name, delim] = m;
      const value: string[] = [];
      for (i++; i < lines.length && lines[i] !== delim; i++) value.push(lines[i] ?? '');
      out[name ?? ''] = value.join('\n');
      continue;
    }
    const eq = (lines[i] ?? '').indexOf('=');
    if (eq > 0) out[(lines[i] ?? '').slice(0, eq)] = (lines[i] ?? '').slice(eq + 1);
  }
  return out;
}

/** Sets `vars` in `process.env` for the duration of `fn`, then puts every one back as it was. */
async function withEnv<T>(vars: Record<string, string>, fn: () => Promise<T>): Promise<T> {
  const saved = new Map<string, string | undefined>();
  for (const [k, v] of Object.entries(vars)) {
    saved.set(k, process.env[k]);
    process.env[k] = v;
  }
  try {
    return await fn();
  } finally {
    for (const [k, v] of saved) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  }
}

/** The path as the user should read it: relative to the workspace when inside it. */
function shown(workspace: string, file: string): string {
  const rel = relative(workspace, file);
  return rel.startsWith('..') ? file : rel;
}

/** Reads the check run named for `planId` on the push's commit from the GitHub stand-in. */
export async function recordedCheckRun(
  githubUrl: string,
  push: DemoPush,
  planId: string,
): Promise<RecordedCheckRun | { error: string }> {
  const name = checkName(planId);
  const url = `${githubUrl}/repos/${push.repository}/commits/${push.sha}/check-runs?${new URLSearchParams({ check_name: name }).toString()}`;
  try {
    const res = await fetch(url, {
      headers: { authorization: `Bearer ${SANDBOX_GITHUB_TOKEN}`, accept: 'application/vnd.github+json' },
      signal: AbortSignal.timeout(GITHUB_LOOKUP_TIMEOUT_MS),
    });
    if (!res.ok) return { error: `the stand-in answered ${res.status}: ${await res.text()}` };
    const body = (await res.json()) as {
      check_runs?: {
        id: number;
        name: string;
        status: string;
        conclusion: string | null;
        output?: { title?: string | null };
      }[];
    };
    const run = body.check_runs?.at(-1);
    if (!run) return { error: `the stand-in has no check run named "${name}" on ${push.sha.slice(0, 7)}` };
    return {
      id: run.id,
      name: run.name,
      status: run.status,
      conclusion: run.conclusion,
      title: run.output?.title ?? null,
    };
  } catch (err) {
    return { error: `could not read the check run: ${errorMessage(err)}` };
  }
}

/** Runs one plan as the action would on a push, and reads back what it left. */
export async function runThroughAction(o: ActionRunOptions): Promise<ActionRunResult> {
  mkdirSync(o.outDir, { recursive: true });
  const files: RunFiles = {
    journal: join(o.outDir, `${o.planId}.journal.json`),
    summary: join(o.outDir, `${o.planId}.summary.md`),
    report: join(o.outDir, `${o.planId}.report.html`),
    outputs: join(o.outDir, `${o.planId}.outputs.txt`),
    plan: o.planFile,
  };
  const stateFile = join(o.outDir, `${o.planId}.state.txt`);
  // `@actions/core` keeps the first summary path it sees for the life of the process, so every run
  // writes one shared step-summary file, which is copied to the run's own file and emptied afterwards.
  const stepSummary = join(o.outDir, 'step-summary.md');
  const eventFile = join(o.outDir, 'push-event.json');
  for (const f of [files.journal, files.summary, files.report]) rmSync(f, { force: true });
  // The runner creates these files empty before a step; `@actions/core` refuses to write otherwise.
  for (const f of [files.outputs, stateFile, stepSummary]) writeFileSync(f, '');
  const [owner = '', repo = ''] = o.push.repository.split('/');
  writeFileSync(
    eventFile,
    JSON.stringify(
      {
        ref: o.push.ref,
        after: o.push.sha,
        repository: { full_name: o.push.repository, name: repo, owner: { login: owner } },
        head_commit: { id: o.push.sha, message: 'chaos-gate demo' },
        pusher: { name: 'chaos-gate-demo' },
      },
      null,
      2,
    ),
  );

  const inputs = parseInputs(
    (name) =>
      ({
        plan: shown(o.workspace, o.planFile),
        'github-token': SANDBOX_GITHUB_TOKEN,
        'prometheus-url': o.prometheusUrl ?? '',
        'aws-region': 'us-east-1',
        'journal-path': files.journal,
        'report-path': files.report,
        // In the demo's own folder, not the action's default under the workspace (the user's checkout).
        'attestation-path': join(o.outDir, `${o.planId}.attestation.intoto.json`),
        'queue-timeout': QUEUE_TIMEOUT,
      })[name] ?? '',
  );
  const env: Record<string, string> = {
    GITHUB_ACTIONS: 'true',
    GITHUB_EVENT_NAME: 'push',
    GITHUB_EVENT_PATH: eventFile,
    GITHUB_REPOSITORY: o.push.repository,
    GITHUB_REPOSITORY_OWNER: owner,
    GITHUB_SHA: o.push.sha,
    GITHUB_REF: o.push.ref,
    GITHUB_REF_NAME: o.push.ref.replace(/^refs\/heads\//, ''),
    GITHUB_RUN_ID: o.push.runId,
    GITHUB_RUN_ATTEMPT: '1',
    GITHUB_WORKFLOW: 'chaos-gate demo',
    GITHUB_JOB: 'chaos-gate',
    GITHUB_ACTOR: 'chaos-gate-demo',
    GITHUB_WORKSPACE: o.workspace,
    GITHUB_API_URL: o.sandbox.github,
    GITHUB_SERVER_URL: o.sandbox.github,
    GITHUB_OUTPUT: files.outputs,
    GITHUB_STATE: stateFile,
    GITHUB_STEP_SUMMARY: stepSummary,
    AWS_ENDPOINT_URL: o.sandbox.aws,
    AWS_ACCESS_KEY_ID: 'sandbox',
    AWS_SECRET_ACCESS_KEY: 'sandbox',
    AWS_REGION: 'us-east-1',
    CANARY_URL: o.sandbox.canary,
  };

  const started = Date.now();
  const exitCode = await withEnv(env, () =>
    // The demo prints its own progress lines; the action's step log (groups, same lines) would repeat them.
    runFromInputs(inputs, { ...defaultDeps(o.signal), onTick: o.onTick, onEvent: o.onEvent, stepLog: false }),
  );
  const wallMs = Date.now() - started;

  copyFileSync(stepSummary, files.summary);
  rmSync(stepSummary, { force: true });
  const outputs = existsSync(files.outputs) ? parseOutputFile(readFileSync(files.outputs, 'utf8')) : {};
  const check = await recordedCheckRun(o.sandbox.github, o.push, o.planId);
  return { exitCode, outputs, files, check, wallMs };
}
