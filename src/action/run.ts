/**
 * The action's one call: `runFromInputs(inputs, deps)`. It wires the reporters around the engine
 * (passed in as `deps.runGate`), sets the outputs, writes the job summary and the artifacts, and
 * returns the exit code of SPEC §4. It holds no gate logic of its own.
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, isAbsolute, relative, resolve } from 'node:path';
import { EXIT_CODES, type Journal, type JournalEvent, type Measurement } from '../journal/types.js';
import { formatIssue, PlanError } from '../plan/load.js';
import { PolicyError } from '../preflight/policy.js';
import { renderSummary } from '../report/markdown.js';
import { renderReplayHtml } from '../report/html.js';
import { prComment, type PlanReview } from '../report/comment.js';
import type { Locate } from '../report/check-run.js';
import { GitHubReporter, type SummaryFallback } from '../report/github.js';
import { JOB_SUMMARY_LIMIT_BYTES, trimToLimit } from '../report/limits.js';
import { githubContextFromEnv, isForkEvent, runUrl } from './context.js';
import type { ActionInputs } from './inputs.js';
import { STATE } from './state.js';
import { outputsFromJournal, outputsWithoutJournal, type ActionOutputs } from './outputs.js';

export { STATE };

/** Logged when the main step is cancelled: what is left, and who does it. */
const CANCELLED_NOTICE =
  'the step was cancelled; the post step verifies that the experiment stopped and completes the check run as cancelled';

/** Exit code for input that cannot be used (SPEC §4: 2 also covers unreadable input). */
export const EXIT_BAD_INPUT = 2;

/** The slice of `@actions/core` the action uses (a fake in tests, the real module in main.ts). */
export interface ActionCore {
  info(message: string): void;
  warning(message: string): void;
  notice(message: string): void;
  setOutput(name: string, value: string): void;
  saveState(name: string, value: string): void;
  /** Appends Markdown to the job summary. */
  writeSummary(markdown: string): Promise<void>;
}

/** What the engine is asked to do, with the hooks the reporters need while it runs. */
export interface GateRequest {
  inputs: ActionInputs;
  /** Absolute path of the plan file. */
  planFile: string;
  runId: string;
  attempt: number;
  /** The repository and commit, for the experiment's tags. */
  repo?: string | undefined;
  sha?: string | undefined;
  signal: AbortSignal;
  /** Call once the plan is loaded, before preflight: the check run is created `in_progress` here. */
  onPlanLoaded(info: { planId: string; locate?: Locate | undefined }): Promise<void>;
  /** Call the moment the experiment id is known: it is saved for the post step. */
  onExperimentId(id: string): void;
  /** Every measurement as it is taken (live progress, e.g. `chaos-gate demo`). */
  onTick?: ((m: Measurement) => void) | undefined;
  /** Every journal event as it is recorded. */
  onEvent?: ((e: JournalEvent) => void) | undefined;
}

export interface ActionDeps {
  core: ActionCore;
  env: Record<string, string | undefined>;
  /** The engine: load, preflight, run; resolves with the final journal. */
  runGate(req: GateRequest): Promise<Journal>;
  /** `command: plan`: the plan review. */
  reviewPlan(inputs: ActionInputs, planFile: string): Promise<PlanReview>;
  /** `command: validate`: the text to print and the exit code. */
  validatePlan(inputs: ActionInputs, planFile: string): Promise<{ text: string; exitCode: number }>;
  /** Uploads files as one artifact (only called when ACTIONS_RUNTIME_TOKEN is set). */
  uploadArtifact(name: string, files: string[], rootDirectory: string): Promise<void>;
  signal?: AbortSignal | undefined;
  fetch?: typeof fetch | undefined;
  /** Passed on to the engine as `GateRequest.onTick` (the action itself prints no per-tick lines). */
  onTick?: ((m: Measurement) => void) | undefined;
  /** Passed on to the engine as `GateRequest.onEvent`. */
  onEvent?: ((e: JournalEvent) => void) | undefined;
}

function setOutputs(core: ActionCore, outputs: ActionOutputs): void {
  for (const [name, value] of Object.entries(outputs)) core.setOutput(name, value);
}

function message(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** Runs the chosen command and returns the process exit code. */
export async function runFromInputs(inputs: ActionInputs, deps: ActionDeps): Promise<number> {
  const { core, env } = deps;
  const workspace = env.GITHUB_WORKSPACE || process.cwd();
  const planFile = isAbsolute(inputs.plan) ? inputs.plan : resolve(workspace, inputs.plan);
  const planPath = relative(workspace, planFile).split('\\').join('/');

  if (inputs.command === 'validate') {
    const r = await deps.validatePlan(inputs, planFile);
    core.info(r.text);
    await core.writeSummary(`### chaos-gate validate \`${planPath}\`\n\n\`\`\`\n${r.text}\n\`\`\`\n`);
    return r.exitCode;
  }

  const gh = githubContextFromEnv(env, inputs.githubToken);
  const reporter = gh
    ? new GitHubReporter(gh, {
        log: core,
        planPath,
        conclusions: { inconclusive: inputs.inconclusiveConclusion, notRun: inputs.notRunConclusion },
        ...(deps.fetch ? { fetch: deps.fetch } : {}),
      })
    : undefined;
  if (!reporter)
    core.info('chaos-gate: no github-token or repository; check run, comment and findings are skipped.');

  if (inputs.command === 'plan') return reviewCommand(inputs, deps, planFile, reporter);

  // SPEC §11: a fork's pull request must never drive a fault into our accounts.
  if (env.GITHUB_EVENT_NAME?.startsWith('pull_request') && isForkEvent(env)) {
    const reason =
      'run refuses on pull_request events from forks: a fork must not start a fault injection (use command: plan for review)';
    setOutputs(core, outputsWithoutJournal('refused', reason));
    await core.writeSummary(`## ⛔ refused\n\n> ${reason}\n`);
    core.warning(`chaos-gate: ${reason}`);
    return EXIT_CODES.refused;
  }

  let locate: Locate | undefined;
  const controller = new AbortController();
  deps.signal?.addEventListener('abort', () => controller.abort(deps.signal?.reason), { once: true });
  if (deps.signal?.aborted) controller.abort(deps.signal.reason);
  const request: GateRequest = {
    inputs,
    planFile,
    runId: env.GITHUB_RUN_ID ?? `local-${Date.now()}`,
    attempt: Number(env.GITHUB_RUN_ATTEMPT ?? '1') || 1,
    repo: env.GITHUB_REPOSITORY,
    sha: env.GITHUB_SHA,
    signal: controller.signal,
    onPlanLoaded: async (info) => {
      locate = info.locate;
      core.saveState(STATE.planId, info.planId);
      if (inputs.awsRegion) core.saveState(STATE.region, inputs.awsRegion);
      if (reporter && inputs.checkRun) {
        const id = await reporter.startCheck(info.planId, Date.now());
        if (id !== undefined) core.saveState(STATE.checkRunId, String(id));
      }
    },
    onExperimentId: (id) => core.saveState(STATE.experimentId, id),
    onTick: deps.onTick,
    onEvent: deps.onEvent,
  };

  let journal: Journal;
  try {
    journal = await deps.runGate(request);
  } catch (err) {
    if (err instanceof PlanError || err instanceof PolicyError) {
      // SPEC §4: an unreadable or invalid plan (or policy) is refused with exit 2, nothing touched.
      const reason = err instanceof PlanError ? err.issues.map(formatIssue).join('\n') : err.message;
      core.saveState(STATE.finished, 'true');
      setOutputs(core, outputsWithoutJournal('refused', reason));
      await reporter?.finishCheck('failure', 'refused: the plan is invalid', reason);
      await core.writeSummary(
        jobSummary(`## ⛔ refused\n\n\`\`\`\n${reason}\n\`\`\`\n`, reporter?.fallbacks ?? []),
      );
      core.warning(`chaos-gate: ${reason}`);
      return EXIT_CODES.refused;
    }
    // The engine turns every failure it understands into the `failed` verdict; this is the rest.
    const reason = `the run failed before a verdict was recorded: ${message(err)}`;
    if (controller.signal.aborted) {
      // Cancelled: the post step stops and verifies the saved experiment and completes the check run.
      setOutputs(core, outputsWithoutJournal('failed', reason));
      core.warning(`chaos-gate: ${reason}; ${CANCELLED_NOTICE}`);
      return EXIT_CODES.failed;
    }
    core.saveState(STATE.finished, 'true');
    setOutputs(core, outputsWithoutJournal('failed', reason));
    await reporter?.finishCheck('failure', 'failed: no verdict', reason);
    await core.writeSummary(jobSummary(`## 💥 failed\n\n> ${reason}\n`, reporter?.fallbacks ?? []));
    core.warning(`chaos-gate: ${reason}`);
    return EXIT_CODES.failed;
  }
  // SPEC §6.6: a cancelled run is not a finished one. The engine has already asked FIS to stop; the
  // post step (which GitHub runs after a cancelled main step) verifies the stop and completes the check
  // run as `cancelled`, so the check run, comment and findings are left alone here.
  const cancelled = controller.signal.aborted;
  if (!cancelled) core.saveState(STATE.finished, 'true');
  const verdict = journal.verdict ?? 'failed';
  const exitCode = journal.exitCode ?? EXIT_CODES[verdict];

  const journalPath = resolve(workspace, inputs.journalPath);
  const reportPath = resolve(workspace, inputs.reportPath);
  writeFiles(journal, journalPath, reportPath, core);
  setOutputs(core, outputsFromJournal(journal, { journal: journalPath, report: reportPath }));

  const artifactName = `chaos-gate-${journal.planId}`;
  if (cancelled) core.warning(`chaos-gate: ${journal.reason ?? 'cancelled'}; ${CANCELLED_NOTICE}`);
  else if (reporter) {
    if (locate) reporter.useLocator(locate);
    if (inputs.checkRun) await reporter.completeCheck(journal);
    if (inputs.prComment)
      await reporter.upsertComment(journal.planId, prComment(journal, { runUrl: runUrl(env) }));
    if (inputs.findings === 'issue')
      await reporter.reportFindings(journal, { runUrl: runUrl(env), artifactName });
  }
  await core.writeSummary(jobSummary(renderSummary(journal), reporter?.fallbacks ?? []));
  await uploadArtifacts(deps, artifactName, [journalPath, reportPath], workspace);
  return exitCode;
}

async function reviewCommand(
  inputs: ActionInputs,
  deps: ActionDeps,
  planFile: string,
  reporter: GitHubReporter | undefined,
): Promise<number> {
  const review = await deps.reviewPlan(inputs, planFile);
  const body = prComment(review, { runUrl: runUrl(deps.env) });
  if (reporter && inputs.prComment) await reporter.upsertComment(review.planId, body);
  // The summary always carries the review; a fallback notice explains a missing comment.
  const fallbacks = (reporter?.fallbacks ?? []).map((f) => ({ what: f.what, notice: f.notice }));
  await deps.core.writeSummary(jobSummary(body, fallbacks));
  deps.core.setOutput('verdict', review.refusals.length ? 'refused' : '');
  deps.core.setOutput('reason', review.refusals.map((r) => r.message).join('; '));
  return review.refusals.length ? EXIT_CODES.refused : 0;
}

/** The job summary: notices first (why something is here instead of on the PR), then the report. */
export function jobSummary(report: string, fallbacks: SummaryFallback[]): string {
  const parts = [
    ...fallbacks.map((f) => f.notice),
    report,
    ...fallbacks.flatMap((f) => (f.body ? [`### The ${f.what}\n\n${f.body}`] : [])),
  ];
  return trimToLimit(parts.join('\n\n'), JOB_SUMMARY_LIMIT_BYTES, 'job summary', 'bytes');
}

function writeFiles(journal: Journal, journalPath: string, reportPath: string, core: ActionCore): void {
  try {
    // The engine writes the journal as it goes; write it here only when it did not.
    if (!existsSync(journalPath)) {
      mkdirSync(dirname(journalPath), { recursive: true });
      writeFileSync(journalPath, JSON.stringify(journal, null, 2) + '\n');
    }
    mkdirSync(dirname(reportPath), { recursive: true });
    writeFileSync(reportPath, renderReplayHtml(journal));
  } catch (err) {
    core.warning(`chaos-gate: could not write the journal or report: ${message(err)}`);
  }
}

async function uploadArtifacts(deps: ActionDeps, name: string, files: string[], root: string): Promise<void> {
  if (!deps.env.ACTIONS_RUNTIME_TOKEN) {
    deps.core.notice(
      'chaos-gate: not running in GitHub Actions (no ACTIONS_RUNTIME_TOKEN); the journal and report are not uploaded as an artifact.',
    );
    return;
  }
  try {
    await deps.uploadArtifact(
      name,
      files.filter((f) => existsSync(f)),
      root,
    );
  } catch (err) {
    deps.core.warning(`chaos-gate: could not upload the ${name} artifact: ${message(err)}`);
  }
}
