/**
 * The action's one call: `runFromInputs(inputs, deps)`. It wires the reporters around the engine
 * (passed in as `deps.runGate`), sets the outputs, writes the job summary and the artifacts, and
 * returns the exit code of docs/design/verdicts.md. It holds no gate logic of its own.
 */
import { existsSync } from 'node:fs';
import { isAbsolute, relative, resolve } from 'node:path';
import { confineOutput, FileWriteError, outputRoots, writeOutput } from '../files/write.js';
import {
  EXIT_CODES,
  type Journal,
  type JournalEvent,
  type Measurement,
  type Verdict,
} from '../journal/types.js';
import { formatIssue } from '../files/issue.js';
import { PlanError } from '../plan/errors.js';
import type { PlanReview } from '../report/comment.js';
import type { Locate } from '../report/check-run.js';
import type { GitHubReporter, GitHubReporterOptions, SummaryFallback } from '../report/github.js';
import { JOB_SUMMARY_LIMIT_BYTES, trimToLimit } from '../report/limits.js';
import { decideTrust, githubContextFromEnv, pullLookup, readEvent, runUrl } from './context.js';
import { EXIT_BAD_INPUT, exitOf } from '../errors/exit.js';
import { redact, redactDeep } from '../security/redact.js';
import { forLog, logLines } from '../security/log-text.js';
import { mdCode, mdCodeBlock, mdText } from '../security/markdown-text.js';
import type { ActionInputs } from './inputs.js';
import { STATE } from './state.js';
import { outputsFromJournal, outputsWithoutJournal, type ActionOutputs } from './outputs.js';
import { stepLog, type StepLog } from './step-log.js';
import { errorMessage } from '../errors/message.js';
import { attestVerdict, type Attester } from './attest.js';

export { STATE };

/** Logged when the main step is cancelled: what is left, and who does it. */
const CANCELLED_NOTICE =
  'the step was cancelled; the post step verifies that the experiment stopped and completes the check run as cancelled';

/** Exit code for input that cannot be used: errors/exit.ts's, re-exported for the action's main step. */
export { EXIT_BAD_INPUT };

/** The slice of `@actions/core` the action uses (a fake in tests, the real module in main.ts). */
export interface ActionCore {
  info(message: string): void;
  warning(message: string): void;
  /** A notice annotation; `title` heads it in the run's summary. */
  notice(message: string, title?: string): void;
  /** An error annotation (`::error title=…::message`); without it the action falls back to a warning. */
  error?(message: string, title?: string): void;
  /** Opens a collapsible group in the step log (`::group::`); `endGroup` closes it. */
  startGroup?(name: string): void;
  endGroup?(): void;
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
  /** The journal path, checked against {@link GateRequest.outputRoots} (no symlink on the way). */
  journalPath: string;
  /** Directories every file the run writes must lie inside: the workspace and the runner's temp. */
  outputRoots: readonly string[];
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
  /** The check run's id once created, for the links notifications carry (docs/notifications.md). */
  checkRunId?: number | undefined;
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
  /**
   * The step log (a group per phase, progress lines, see step-log.ts); default on. The demo turns it off:
   * it prints its own progress through `onTick`/`onEvent`.
   */
  stepLog?: boolean | undefined;
  /** Overrides of the GitHub reporter's retry policy (tests shrink the waits). */
  githubRetry?: GitHubReporterOptions['retry'];
  /**
   * Signs and stores the verdict attestation (`@actions/attest` in production, a stand-in of that
   * service in tests); without it, only the unsigned Statement is written.
   */
  attest?: Attester | undefined;
  /** The signing's deadline (default `DEADLINES.attestation`; tests shrink it). */
  attestDeadlineMs?: number | undefined;
}

function setOutputs(core: ActionCore, outputs: ActionOutputs): void {
  for (const [name, value] of Object.entries(outputs)) core.setOutput(name, value);
}

function message(err: unknown): string {
  return redact(errorMessage(err));
}

/**
 * The action's writer with every registered secret masked (docs/design/principles.md#security): log lines, outputs and the job
 * summary all pass through the one redactor, whoever built the text. A plain log line also loses its
 * workflow-command markers (`logLines`): `core.info` writes it to stdout as it is, where the runner
 * would read `::add-mask::` or `##[error]` in it as a command. Annotations and groups need no such
 * step: `@actions/core` escapes their message and properties into the command it writes.
 */
export function redactingCore(core: ActionCore): ActionCore {
  return {
    info: (m) => core.info(logLines(redact(m))),
    warning: (m) => core.warning(redact(m)),
    notice: (m, title) => core.notice(redact(m), title === undefined ? undefined : redact(title)),
    ...(core.error
      ? {
          error: (m: string, title?: string) =>
            core.error?.(redact(m), title === undefined ? undefined : redact(title)),
        }
      : {}),
    // Without the core's own groups, the group commands are written as lines here, past `logLines`.
    startGroup: (name: string) =>
      core.startGroup ? core.startGroup(redact(name)) : core.info(`::group::${forLog(redact(name))}`),
    endGroup: () => (core.endGroup ? core.endGroup() : core.info('::endgroup::')),
    setOutput: (n, v) => core.setOutput(n, redact(v)),
    saveState: (n, v) => core.saveState(n, v),
    writeSummary: (markdown) => core.writeSummary(redact(markdown)),
  };
}

/**
 * Closes the step log: the verdict and its reason as the last plain line, and an annotation carrying them
 * (`::error title=chaos-gate: aborted::<reason>`; a notice for held) so the run's summary page shows why.
 */
export function announceVerdict(core: ActionCore, verdict: Verdict, reason: string): void {
  core.info(`chaos-gate: ${verdict} — ${forLog(reason)}`);
  const title = `chaos-gate: ${verdict}`;
  if (verdict === 'held') core.notice(reason, title);
  else if (core.error) core.error(reason, title);
  else core.warning(`${title}: ${reason}`);
}

/** The step log over `core` (a `redactingCore`, which always has groups: see there). */
function openStepLog(core: ActionCore): StepLog {
  return stepLog({
    info: (line) => core.info(line),
    startGroup: (name) => core.startGroup?.(name),
    endGroup: () => core.endGroup?.(),
  });
}

/** Runs the chosen command and returns the process exit code. */
export async function runFromInputs(inputs: ActionInputs, deps: ActionDeps): Promise<number> {
  const { env } = deps;
  const core = redactingCore(deps.core);
  const workspace = env.GITHUB_WORKSPACE || process.cwd();
  const planFile = isAbsolute(inputs.plan) ? inputs.plan : resolve(workspace, inputs.plan);
  const planPath = relative(workspace, planFile).split('\\').join('/');

  if (inputs.command === 'validate') {
    const r = await deps.validatePlan(inputs, planFile);
    core.info(r.text);
    await core.writeSummary(`### chaos-gate validate ${mdCode(planPath)}\n\n${mdCodeBlock(r.text)}\n`);
    if (r.exitCode !== 0) announceVerdict(core, 'refused', r.text);
    return r.exitCode;
  }

  const gh = githubContextFromEnv(env, inputs.githubToken);
  const conclusions = { inconclusive: inputs.inconclusiveConclusion, notRun: inputs.notRunConclusion };
  const runId = env.GITHUB_RUN_ID ?? `local-${Date.now()}`;
  const attempt = Number(env.GITHUB_RUN_ATTEMPT ?? '1') || 1;
  // The GitHub toolkit (Octokit, undici) and the report renderers load when they are used, not at start:
  // a run without a token reaches its first AWS call without parsing them (cold start, bench/run.ts).
  const reporter = gh
    ? new (await import('../report/github.js')).GitHubReporter(gh, {
        log: core,
        planPath,
        conclusions,
        runKey: `${runId}-${attempt}`,
        ...(deps.fetch ? { fetch: deps.fetch } : {}),
        ...(deps.githubRetry ? { retry: deps.githubRetry } : {}),
      })
    : undefined;
  if (!reporter)
    core.info('chaos-gate: no github-token or repository; check run, comment and findings are skipped.');

  if (inputs.command === 'plan') return reviewCommand(inputs, { ...deps, core }, planFile, reporter);

  // docs/design/principles.md#security: only an event that proves the code is trusted may drive a fault (fails closed).
  const trust = await decideTrust({
    eventName: env.GITHUB_EVENT_NAME,
    repository: env.GITHUB_REPOSITORY,
    event: readEvent(env),
    lookupPull: gh ? pullLookup(gh, deps.fetch) : undefined,
  });
  if (!trust.trusted) {
    const reason = `run refuses: ${trust.why}. Only code from this repository may start a fault injection; use command: plan to review a plan from a fork (docs/security.md)`;
    setOutputs(core, outputsWithoutJournal('refused', reason));
    await core.writeSummary(`## ⛔ refused\n\n> ${mdText(reason)}\n`);
    announceVerdict(core, 'refused', reason);
    return EXIT_CODES.refused;
  }

  let locate: Locate | undefined;
  const controller = new AbortController();
  deps.signal?.addEventListener('abort', () => controller.abort(deps.signal?.reason), { once: true });
  if (deps.signal?.aborted) controller.abort(deps.signal.reason);
  // Outputs are confined like inputs: inside the workspace or the runner's temp, no symlink followed.
  // Refused before anything is touched (exit 2), naming the input and its value.
  const roots = outputRoots(workspace, env);
  let journalPath: string;
  let reportPath: string;
  let attestationPath: string;
  try {
    journalPath = confineOutput(resolve(workspace, inputs.journalPath), {
      what: 'journal (input journal-path)',
      roots,
      display: inputs.journalPath,
    });
    reportPath = confineOutput(resolve(workspace, inputs.reportPath), {
      what: 'report (input report-path)',
      roots,
      display: inputs.reportPath,
    });
    attestationPath = confineOutput(resolve(workspace, inputs.attestationPath), {
      what: 'attestation (input attestation-path)',
      roots,
      display: inputs.attestationPath,
    });
  } catch (err) {
    if (!(err instanceof FileWriteError)) throw err;
    const reason = redact(err.message);
    core.saveState(STATE.finished, 'true');
    setOutputs(core, outputsWithoutJournal('refused', reason));
    await core.writeSummary(`## ⛔ refused\n\n> ${reason}\n`);
    announceVerdict(core, 'refused', reason);
    return EXIT_BAD_INPUT;
  }
  const log = deps.stepLog === false ? undefined : openStepLog(core);
  const request: GateRequest = {
    inputs,
    planFile,
    journalPath,
    outputRoots: roots,
    runId,
    attempt,
    repo: env.GITHUB_REPOSITORY,
    sha: env.GITHUB_SHA,
    signal: controller.signal,
    onPlanLoaded: async (info) => {
      locate = info.locate;
      core.saveState(STATE.planId, info.planId);
      core.saveState(STATE.journal, journalPath);
      core.saveState(STATE.conclusions, JSON.stringify(conclusions));
      if (inputs.awsRegion) core.saveState(STATE.region, inputs.awsRegion);
      // Before anything is touched: a required check must exist while the fault is on.
      if (reporter && inputs.checkRun) {
        const id = await reporter.startCheck(info.planId, Date.now());
        if (id !== undefined) core.saveState(STATE.checkRunId, String(id));
        request.checkRunId = id;
      }
    },
    onExperimentId: (id) => core.saveState(STATE.experimentId, id),
    onTick: (m) => {
      log?.onTick(m);
      deps.onTick?.(m);
    },
    onEvent: (e) => {
      log?.onEvent(e);
      deps.onEvent?.(e);
    },
  };

  let journal: Journal;
  try {
    journal = await deps.runGate(request);
  } catch (err) {
    log?.close();
    // How the error ends the step is the error's to say (errors/exit.ts): bad input `failed`, an
    // unusable file `refused`, both exit 2; anything else is unexpected.
    const exit = exitOf(err);
    if (exit?.verdict === 'failed') {
      // A setting the run needs is missing or unusable (compose/setup.ts): `failed` with exit 2, found
      // before anything was sent. Never `not-run`, which a workflow may map to skipped or neutral.
      const reason = redact(errorMessage(err));
      core.saveState(STATE.finished, 'true');
      setOutputs(core, outputsWithoutJournal('failed', reason));
      if (await reporter?.finishCheck('failure', 'failed: a setting is missing or unusable', reason))
        core.saveState(STATE.checkRunCompleted, 'true');
      await core.writeSummary(jobSummary(`## 💥 failed\n\n> ${reason}\n`, reporter?.fallbacks ?? []));
      announceVerdict(core, 'failed', reason);
      return exit.code;
    }
    if (exit?.verdict === 'refused') {
      // docs/design/verdicts.md: an unreadable or invalid plan or policy is refused with exit 2, nothing touched.
      const reason = redact(
        err instanceof PlanError ? err.issues.map(formatIssue).join('\n') : errorMessage(err),
      );
      core.saveState(STATE.finished, 'true');
      setOutputs(core, outputsWithoutJournal('refused', reason));
      if (await reporter?.finishCheck('failure', 'refused: the plan is invalid', reason))
        core.saveState(STATE.checkRunCompleted, 'true');
      await core.writeSummary(
        jobSummary(`## ⛔ refused\n\n${mdCodeBlock(reason)}\n`, reporter?.fallbacks ?? []),
      );
      announceVerdict(core, 'refused', reason);
      return exit.code;
    }
    // The engine turns every failure it understands into the `failed` verdict; this is the rest.
    const reason = `the run failed before a verdict was recorded: ${message(err)}`;
    if (controller.signal.aborted) {
      // Cancelled: the post step stops and verifies the saved experiment and completes the check run.
      setOutputs(core, outputsWithoutJournal('failed', reason));
      core.warning(`chaos-gate: ${CANCELLED_NOTICE}`);
      announceVerdict(core, 'failed', reason);
      return EXIT_CODES.failed;
    }
    core.saveState(STATE.finished, 'true');
    setOutputs(core, outputsWithoutJournal('failed', reason));
    if (await reporter?.finishCheck('failure', 'failed: no verdict', reason))
      core.saveState(STATE.checkRunCompleted, 'true');
    await core.writeSummary(jobSummary(`## 💥 failed\n\n> ${mdText(reason)}\n`, reporter?.fallbacks ?? []));
    announceVerdict(core, 'failed', reason);
    return EXIT_CODES.failed;
  }
  log?.close();
  // docs/design/run.md#the-post-step: a cancelled run is not a finished one. The engine has already asked FIS to stop; the
  // post step (which GitHub runs after a cancelled main step) verifies the stop and completes the check
  // run as `cancelled`, so the check run, comment and findings are left alone here.
  const cancelled = controller.signal.aborted;
  if (!cancelled) core.saveState(STATE.finished, 'true');
  const verdict = journal.verdict ?? 'failed';
  const exitCode = journal.exitCode ?? EXIT_CODES[verdict];

  await writeFiles(journal, journalPath, reportPath, roots, core);
  setOutputs(core, outputsFromJournal(journal, { journal: journalPath, report: reportPath }));
  // The verdict is decided and on disk: the attestation says it about the artifact, and never changes it.
  if (!cancelled)
    await attestVerdict(journal, {
      inputs,
      env,
      workspace,
      planFile,
      policyFile: inputs.policy ? resolve(workspace, inputs.policy) : undefined,
      journalPath,
      attestationPath,
      roots,
      runUrl: runUrl(env),
      attester: deps.attest,
      deadlineMs: deps.attestDeadlineMs,
      log: core,
      setOutput: (n, v) => core.setOutput(n, v),
    });

  const artifactName = `chaos-gate-${journal.planId}`;
  if (cancelled) core.warning(`chaos-gate: ${CANCELLED_NOTICE}`);
  else if (reporter) {
    if (locate) reporter.useLocator(locate);
    // Saved only once GitHub accepted the completion: otherwise the post step completes the check run.
    if (inputs.checkRun && (await reporter.completeCheck(journal)) !== 'failed')
      core.saveState(STATE.checkRunCompleted, 'true');
    if (inputs.prComment) {
      const { prComment } = await import('../report/comment.js');
      await reporter.upsertComment(journal.planId, prComment(journal, { runUrl: runUrl(env) }));
    }
    if (inputs.findings === 'issue')
      await reporter.reportFindings(journal, { runUrl: runUrl(env), artifactName });
  }
  const { renderSummary } = await import('../report/markdown.js');
  await core.writeSummary(jobSummary(renderSummary(journal), reporter?.fallbacks ?? []));
  await uploadArtifacts(deps, artifactName, [journalPath, reportPath, attestationPath], workspace);
  const { judgementLines } = await import('../report/progress.js');
  for (const line of judgementLines(journal)) core.info(line);
  const { fisConsoleUrl } = await import('../report/common.js');
  for (const line of recordLinks(
    env,
    inputs.checkRun ? reporter?.checkRun : undefined,
    journal,
    fisConsoleUrl,
  ))
    core.info(line);
  announceVerdict(core, verdict, journal.reason ?? 'the run ended without a reason');
  return exitCode;
}

/**
 * Where the run's record can be read, as the step log's last lines before the verdict: the check run,
 * the job summary (on the workflow run's page) and the experiment in the FIS console. A link is left
 * out when what it needs is unknown (no check run was created, no experiment started).
 */
export function recordLinks(
  env: Record<string, string | undefined>,
  checkRunId: number | undefined,
  journal: { experimentId?: string | undefined; region?: string | undefined },
  fisConsoleUrl: (region: string, experimentId: string) => string,
): string[] {
  const server = env.GITHUB_SERVER_URL;
  const repo = env.GITHUB_REPOSITORY;
  const lines: string[] = [];
  if (server && repo && checkRunId !== undefined)
    lines.push(`chaos-gate: check run ${server}/${repo}/runs/${checkRunId}`);
  const summary = runUrl(env);
  if (summary) lines.push(`chaos-gate: summary ${summary}`);
  if (journal.experimentId && journal.region)
    lines.push(`chaos-gate: FIS console ${fisConsoleUrl(journal.region, forLog(journal.experimentId))}`);
  return lines;
}

async function reviewCommand(
  inputs: ActionInputs,
  deps: ActionDeps,
  planFile: string,
  reporter: GitHubReporter | undefined,
): Promise<number> {
  const review = await deps.reviewPlan(inputs, planFile);
  // The step log shows the review as `chaos-gate plan` prints it; plan text is untrusted, so each line
  // goes through forLog.
  const { reviewLines, refusalLines } = await import('../report/review.js');
  for (const line of [...reviewLines(review, inputs.plan), '', ...refusalLines(review, inputs.plan)])
    deps.core.info(forLog(line));
  const { prComment } = await import('../report/comment.js');
  const body = prComment(review, { runUrl: runUrl(deps.env) });
  if (reporter && inputs.prComment) await reporter.upsertComment(review.planId, body);
  // The summary always carries the review; a fallback notice explains a missing comment.
  const fallbacks = (reporter?.fallbacks ?? []).map((f) => ({ what: f.what, notice: f.notice }));
  await deps.core.writeSummary(jobSummary(body, fallbacks));
  deps.core.setOutput('verdict', review.refusals.length ? 'refused' : '');
  deps.core.setOutput('reason', review.refusals.map((r) => r.message).join('; '));
  if (review.refusals.length)
    announceVerdict(deps.core, 'refused', review.refusals.map((r) => r.message).join('; '));
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

/**
 * The journal (when the engine could not write it as it went) and the HTML report, both confined. What
 * could not be written is said plainly, with where and why: the verdict itself is in the outputs, the
 * summary and the check run either way.
 */
async function writeFiles(
  journal: Journal,
  journalPath: string,
  reportPath: string,
  roots: readonly string[],
  core: ActionCore,
): Promise<void> {
  const journalFailure = journal.events.find((e) => e.type === 'error' && e.data?.cause === 'journal');
  if (journalFailure || !existsSync(journalPath)) {
    try {
      writeOutput(journalPath, JSON.stringify(redactDeep(journal), null, 2) + '\n', {
        what: 'journal',
        roots,
      });
    } catch (err) {
      core.warning(
        `chaos-gate: the journal could not be written to ${journalPath} (${message(err)}); it exists only in this step's summary and outputs.`,
      );
    }
  }
  try {
    const { renderReplayHtml } = await import('../report/html.js');
    writeOutput(reportPath, renderReplayHtml(redactDeep(journal)), { what: 'report', roots });
  } catch (err) {
    core.warning(`chaos-gate: the report could not be written to ${reportPath}: ${message(err)}`);
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
