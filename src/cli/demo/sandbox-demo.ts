/**
 * `chaos-gate demo`: the sandbox in its own process, a real Prometheus when one is installed, and the
 * two demo plans run one after the other through the GitHub Action's code path. It prints a line per
 * tick, where every file went, the check run the GitHub stand-in recorded, and a recap; it succeeds
 * when both verdicts are the ones the demo expects.
 */
import { LATENCY_LABELS } from '../../journal/judgement.js';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { JournalEvent, Measurement } from '../../journal/types.js';
import { demoPush, runThroughAction, type ActionRunResult, type RecordedCheckRun } from './action-run.js';
import { DEMO_PLANS, planIdOf, PROMETHEUS_READY_QUERY, prometheusVariantOf, type DemoPlan } from './plans.js';
import { findPrometheus, startPrometheus, type PrometheusProcess } from './prometheus.js';
import { startSandboxProcess, type SandboxProcess } from './sandbox-process.js';
import { errorMessage } from '../../errors/message.js';

/** Where the demo writes by default, relative to the working directory. */
export const DEFAULT_OUT_DIR = join('out', 'demo');
/** The machine-readable record of the last demo (what ran, where, and what came out). */
export const RESULT_FILE = 'demo.json';

/** How the demo reads its SLIs. */
export type MetricsMode =
  | { kind: 'prometheus'; url: string; pid: number; bin: string; version: string | undefined }
  | { kind: 'scrape'; why: string };

/** One plan's outcome, as printed and as written to `demo.json`. */
export interface PlanOutcome {
  planId: string;
  fixture: string;
  planRun: string;
  fallback: boolean;
  expected: string;
  verdict: string;
  reason: string;
  exitCode: number;
  abortLatencyMs: string;
  experimentId: string;
  check: RecordedCheckRun | { error: string };
  /** The fault as the sandbox's FIS stand-in ran it (admin `GET /actions`). */
  fault: FaultRecord[] | { error: string };
  files: ActionRunResult['files'];
  wallMs: number;
  asExpected: boolean;
}

/** One FIS action as the stand-in ran it. */
export interface FaultRecord {
  actionName: string;
  actionId: string;
  targets: string[];
  /** `completed`, `stopped`, … (null while it runs). */
  endedAs: string | null;
  /** How long the fault was on. */
  seconds: number | null;
}

/** The whole demo, as written to `demo.json`. */
export interface DemoRecord {
  ok: boolean;
  wallMs: number;
  metrics: MetricsMode;
  sandboxPid: number | undefined;
  repository: string;
  sha: string;
  plans: PlanOutcome[];
}

export interface SandboxDemoOptions {
  cwd: string;
  /** Default {@link DEFAULT_OUT_DIR}, relative to `cwd`. */
  outDir?: string | undefined;
  /** Never start Prometheus, even when installed (shows the scrape source). */
  noPrometheus: boolean;
  env: NodeJS.ProcessEnv;
  out(line: string): void;
  signal: AbortSignal;
  /** Per-run live progress (the CLI passes its progress printer). */
  progress(): { onTick(m: Measurement): void; onEvent(e: JournalEvent): void };
}

/** A demo file: under the working directory (a checkout), else under the installed package. */
export function findDemoFile(cwd: string, file: string): string {
  const here = resolve(cwd, file);
  if (existsSync(here)) return here;
  const moduleDir = dirname(fileURLToPath(import.meta.url));
  for (const up of ['..', '../..', '../../..']) {
    const candidate = resolve(moduleDir, up, file);
    if (existsSync(candidate)) return candidate;
  }
  return here;
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}

function shown(cwd: string, file: string): string {
  const rel = relative(cwd, file);
  return rel.startsWith('..') ? file : rel;
}

/** What the FIS stand-in says it ran for `experimentId`: its own record, independent of the journal. */
async function faultRecord(sandbox: SandboxProcess, experimentId: string): Promise<PlanOutcome['fault']> {
  if (!experimentId) return { error: 'no experiment was started' };
  try {
    const body = await sandbox.admin<{
      actions: {
        actionName: string;
        actionId: string;
        targets: string[];
        startTime: string;
        endTime: string | null;
        endedAs: string | null;
      }[];
    }>('GET', `/actions?${new URLSearchParams({ experimentId }).toString()}`);
    return body.actions.map((a) => ({
      actionName: a.actionName,
      actionId: a.actionId,
      targets: a.targets,
      endedAs: a.endedAs,
      seconds: a.endTime === null ? null : (Date.parse(a.endTime) - Date.parse(a.startTime)) / 1000,
    }));
  } catch (err) {
    return { error: errorMessage(err) };
  }
}

function faultText(fault: PlanOutcome['fault']): string {
  if ('error' in fault) return `unknown: ${fault.error}`;
  if (fault.length === 0) return 'no action ran';
  return fault
    .map(
      (a) =>
        `${a.actionId} on ${a.targets.map((t) => t.split(':').at(-1)).join(', ')}: ${a.endedAs ?? 'still running'}${a.seconds === null ? '' : ` after ${a.seconds.toFixed(1)} s`}`,
    )
    .join('; ');
}

function checkText(check: PlanOutcome['check']): string {
  if ('error' in check) return `not recorded: ${check.error}`;
  return `"${check.name}" ${check.status}, conclusion ${check.conclusion ?? 'none'} (check run ${check.id})`;
}

/** A fixed-width text table. */
function table(rows: string[][]): string[] {
  const widths = rows[0]?.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length))) ?? [];
  return rows.map((r) =>
    r
      .map((cell, i) => cell.padEnd(widths[i] ?? 0))
      .join('  ')
      .trimEnd(),
  );
}

async function chooseMetrics(
  o: SandboxDemoOptions,
  sandbox: SandboxProcess,
): Promise<{ mode: MetricsMode; server?: PrometheusProcess }> {
  if (o.noPrometheus) return { mode: { kind: 'scrape', why: '--no-prometheus' } };
  const bin = findPrometheus(o.env);
  if (!bin) return { mode: { kind: 'scrape', why: 'no `prometheus` on PATH' } };
  try {
    const server = await startPrometheus({
      bin,
      target: new URL(sandbox.urls.canary).host,
      readyQuery: PROMETHEUS_READY_QUERY,
      signal: o.signal,
    });
    return {
      mode: { kind: 'prometheus', url: server.url, pid: server.pid, bin, version: server.version },
      server,
    };
  } catch (err) {
    if (o.signal.aborted) throw err;
    const why = errorMessage(err).split('\n')[0] ?? '';
    return { mode: { kind: 'scrape', why: `${bin} did not start: ${why}` } };
  }
}

/**
 * FIS takes no action shorter than a minute (`PT1M`), and the sandbox enforces that like FIS; the demo's
 * sandbox runs actions at 4× speed so its one-minute partition lasts 15 s of wall time.
 */
export const DEMO_DURATION_SCALE = 0.25;

/** Runs the demo; resolves with the record (also written to `<outDir>/demo.json`). */
export async function runSandboxDemo(o: SandboxDemoOptions): Promise<DemoRecord> {
  const started = Date.now();
  const { out, cwd } = o;
  const outDir = resolve(cwd, o.outDir ?? DEFAULT_OUT_DIR);
  mkdirSync(outDir, { recursive: true });
  const push = demoPush(started);
  const plans: PlanOutcome[] = [];
  let metrics: MetricsMode = { kind: 'scrape', why: 'not started' };
  let sandbox: SandboxProcess | undefined;
  let prometheus: PrometheusProcess | undefined;

  out(
    'chaos-gate demo: two Redis partitions on the local sandbox, through the GitHub Action’s own code path',
  );
  out('(no AWS, no GitHub, no Docker: every endpoint below is on 127.0.0.1)\n');
  try {
    sandbox = await startSandboxProcess({
      env: o.env,
      signal: o.signal,
      config: { fis: { durationScale: DEMO_DURATION_SCALE } },
    });
    out(`sandbox    pid ${sandbox.pid}, started in ${seconds(Date.now() - started)}`);
    out(`           aws ${sandbox.urls.aws}  canary ${sandbox.urls.canary}`);
    out(`           github ${sandbox.urls.github}  admin ${sandbox.urls.admin}`);
    out(
      `           FIS actions at ${1 / DEMO_DURATION_SCALE}× speed: FIS runs none shorter than PT1M, which lasts ${60 * DEMO_DURATION_SCALE} s here`,
    );
    const chosen = await chooseMetrics(o, sandbox);
    metrics = chosen.mode;
    prometheus = chosen.server;
    out(
      metrics.kind === 'prometheus'
        ? `metrics    Prometheus${metrics.version ? ` ${metrics.version}` : ''} (${metrics.bin}, pid ${metrics.pid}) at ${metrics.url}, scraping the canary every 1 s`
        : `metrics    scrape source: the canary's /metrics read directly each tick (${metrics.why})`,
    );
    out(
      `action     runFromInputs + defaultDeps, as on a push to ${push.repository}@${push.sha.slice(0, 7)}; check runs go to the GitHub stand-in`,
    );
    out('           (lines starting "chaos-gate:", "::notice" or "::error" are the action\'s own log)\n');

    for (const [i, plan] of DEMO_PLANS.entries()) {
      if (o.signal.aborted) break;
      plans.push(await runOne(o, plan, i, sandbox, prometheus, push, outDir));
    }
  } finally {
    // Prometheus first: it scrapes the canary, which goes away with the sandbox.
    await prometheus?.stop();
    await sandbox?.stop();
  }

  const ok = plans.length === DEMO_PLANS.length && plans.every((p) => p.asExpected);
  const record: DemoRecord = {
    ok,
    wallMs: Date.now() - started,
    metrics,
    sandboxPid: sandbox?.pid,
    repository: push.repository,
    sha: push.sha,
    plans,
  };
  writeFileSync(join(outDir, RESULT_FILE), JSON.stringify(record, null, 2) + '\n');
  recap(o, record);
  return record;
}

async function runOne(
  o: SandboxDemoOptions,
  plan: DemoPlan,
  index: number,
  sandbox: SandboxProcess,
  prometheus: PrometheusProcess | undefined,
  push: ReturnType<typeof demoPush>,
  outDir: string,
): Promise<PlanOutcome> {
  const { out, cwd } = o;
  const fixture = findDemoFile(cwd, plan.file);
  const planId = planIdOf(fixture);
  let planFile = fixture;
  if (prometheus) {
    planFile = join(outDir, `${planId}.prometheus.yaml`);
    writeFileSync(planFile, prometheusVariantOf(fixture));
  }
  await sandbox.admin('PUT', '/canary', { fallback: plan.fallback });
  out(`── ${index + 1}/${DEMO_PLANS.length}  ${planId}: ${plan.story}; expecting ${plan.expected}`);
  out(`   plan ${shown(cwd, planFile)}${prometheus ? ` (from ${shown(cwd, fixture)}, SLIs in PromQL)` : ''}`);
  const progress = o.progress();
  const result = await runThroughAction({
    sandbox: sandbox.urls,
    workspace: cwd,
    outDir,
    planFile,
    planId,
    prometheusUrl: prometheus?.url,
    push,
    signal: o.signal,
    onTick: progress.onTick,
    onEvent: progress.onEvent,
  });
  const verdict = result.outputs.verdict ?? '';
  const experimentId = result.outputs['experiment-id'] ?? '';
  const outcome: PlanOutcome = {
    planId,
    fixture: shown(cwd, fixture),
    planRun: shown(cwd, planFile),
    fallback: plan.fallback,
    expected: plan.expected,
    verdict,
    reason: result.outputs.reason ?? '',
    exitCode: result.exitCode,
    abortLatencyMs: result.outputs['abort-latency-ms'] ?? '',
    experimentId,
    check: result.check,
    fault: await faultRecord(sandbox, experimentId),
    files: result.files,
    wallMs: result.wallMs,
    asExpected: verdict === plan.expected,
  };
  out('');
  out(
    `   verdict  ${verdict || '(none)'} (exit ${result.exitCode}) — ${outcome.asExpected ? 'as expected' : `EXPECTED ${plan.expected}`}`,
  );
  out(`   reason   ${outcome.reason}`);
  out(
    `   fault    ${faultText(outcome.fault)} (the FIS stand-in's record of ${experimentId || 'no experiment'})`,
  );
  out(`   check    ${checkText(result.check)}, as the GitHub stand-in recorded it`);
  out(`   journal  ${shown(cwd, result.files.journal)}`);
  out(`   summary  ${shown(cwd, result.files.summary)}`);
  out(`   report   ${shown(cwd, result.files.report)}  (HTML replay: open it in a browser)`);
  out(`   outputs  ${shown(cwd, result.files.outputs)}  (the action's GITHUB_OUTPUT)\n`);
  return outcome;
}

function recap(o: SandboxDemoOptions, r: DemoRecord): void {
  const rows = [
    // The action's `abort-latency-ms`: the judgement's tripToStopRequestMs, labelled as every report labels it.
    ['plan', 'fallback', 'expected', 'verdict', 'check run', LATENCY_LABELS.tripToStopRequestMs, 'run time'],
    ...r.plans.map((p) => [
      p.planId,
      p.fallback ? 'on' : 'off',
      p.expected,
      p.verdict || '(none)',
      'error' in p.check ? 'not recorded' : (p.check.conclusion ?? p.check.status),
      p.abortLatencyMs ? `${p.abortLatencyMs} ms` : '–',
      seconds(p.wallMs),
    ]),
  ];
  o.out('recap');
  for (const line of table(rows)) o.out(`  ${line}`);
  const source = r.metrics.kind === 'prometheus' ? `Prometheus at ${r.metrics.url}` : 'the scrape source';
  o.out(
    `\n${r.ok ? 'both verdicts as expected' : o.signal.aborted ? 'cancelled' : 'NOT as expected'}; SLIs from ${source}; ${seconds(r.wallMs)} in all.`,
  );
  o.out(
    `sandbox and Prometheus stopped; record in ${shown(o.cwd, join(resolve(o.cwd, o.outDir ?? DEFAULT_OUT_DIR), RESULT_FILE))}`,
  );
}
