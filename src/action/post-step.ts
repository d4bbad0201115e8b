/**
 * The post step. When the main step ended without a finished run (cancelled, timed out, crashed), it
 * stops the run's experiment and verifies the stop. Independently, a required check is never left
 * `in_progress`: a check run the main step created but did not get completed (cancelled, crashed, or
 * GitHub refused the completion) is completed here, saying only what is known — the journal's verdict
 * when the journal has one, else `cancelled` (the run did not finish) or `failure` (the stop is not
 * verified, or the run finished without a verdict), with the reason.
 *
 * Which experiment: the id the main step saved the moment FIS returned it; else the id in the journal it
 * left; else the live experiments tagged with this run's id and attempt (a main step that died between
 * the start and saving the id). Everything has a deadline: the stop its budget, the check run
 * {@link POST_REPORT_BUDGET_MS}, and after a cancel of the post step itself the check run gets
 * {@link POST_CANCEL_REPORT_MS} — inside the 7.5 s GitHub waits before it escalates to SIGTERM.
 */
import { existsSync } from 'node:fs';
import type { Journal } from '../journal/types.js';
import { readJournal } from '../journal/read.js';
import { conclusionFor, type ConclusionPolicy } from '../report/common.js';
import type { GitHubReporter, GitHubReporterOptions } from '../report/github.js';
import { githubContextFromEnv } from './context.js';
import { STATE } from './state.js';
import { errorMessage } from '../errors/message.js';
import { mdCode, mdCodeBlock, mdText } from '../security/markdown-text.js';
import { withDeadline } from '../net/deadline.js';

/** How long the post step may spend completing the check run (GitHub calls, retries included). */
export const POST_REPORT_BUDGET_MS = 30_000;
/** The same once the post step itself was cancelled (SIGINT; GitHub sends SIGTERM 7.5 s later). */
export const POST_CANCEL_REPORT_MS = 5_000;

/** The outcome of stopping an experiment: `verified` only once FIS reports a terminal state. */
export interface StopOutcome {
  verified: boolean;
  /** The last status FIS reported, or the error. */
  detail: string;
}

/** What identifies this run's experiments by their tags. */
export interface ExperimentLookup {
  runId: string;
  attempt: number;
}

export interface PostDeps {
  getState(name: string): string;
  /** The `github-token` input (the post step sees the same inputs). */
  githubToken: string | undefined;
  env: Record<string, string | undefined>;
  log: { info(m: string): void; warning(m: string): void };
  setFailed(message: string): void;
  /** Stops an experiment and waits (within its budget, or until `signal`) until FIS confirms it. */
  stopExperiment(id: string, region: string | undefined, signal?: AbortSignal): Promise<StopOutcome>;
  /** The live experiments tagged with this run (when no id was saved); absent: not looked up. */
  findExperiments?(
    lookup: ExperimentLookup,
    region: string | undefined,
    signal?: AbortSignal,
  ): Promise<string[]>;
  /** The post step's own cancellation (SIGINT/SIGTERM). */
  signal?: AbortSignal | undefined;
  fetch?: typeof fetch | undefined;
  /** Overrides of the GitHub reporter's retry policy (tests shrink the waits). */
  githubRetry?: GitHubReporterOptions['retry'];
  /** Overrides of the check-run budget (tests). */
  reportBudgetMs?: number | undefined;
}

/** The commands that stop an experiment by hand, printed when the stop cannot be verified. */
export function manualStopCommands(id: string, region: string | undefined): string {
  const r = region ? ` --region ${region}` : '';
  return [
    `aws fis stop-experiment --id ${id}${r}`,
    `aws fis get-experiment --id ${id}${r} --query experiment.state`,
  ].join('\n');
}

/** The journal the main step left: read, unreadable (with why), or absent. */
type JournalFound =
  | { kind: 'read'; journal: Journal; path: string }
  | { kind: 'unreadable'; path: string; why: string }
  | { kind: 'absent'; path: string | undefined };

function journalOf(deps: PostDeps): JournalFound {
  const path = deps.getState(STATE.journal) || undefined;
  if (!path || !existsSync(path)) return { kind: 'absent', path };
  try {
    return { kind: 'read', journal: readJournal(path), path };
  } catch (err) {
    deps.log.warning(`chaos-gate post: could not read the journal ${path}: ${errorMessage(err)}`);
    return { kind: 'unreadable', path, why: errorMessage(err) };
  }
}

/** The conclusion inputs the main step saved (`inconclusive`/`not-run` as configured). */
function conclusionsOf(deps: PostDeps): ConclusionPolicy | undefined {
  try {
    const saved = JSON.parse(deps.getState(STATE.conclusions) || 'null') as ConclusionPolicy | null;
    return saved ?? undefined;
  } catch {
    return undefined;
  }
}

interface Cleanup {
  lines: string[];
  /** Every experiment that may have run is verified stopped (true also when none ran). */
  verified: boolean;
  /** The experiments whose stop is not verified (for the manual commands). */
  unverified: string[];
}

/** The experiments to stop: saved, from the journal, or found by the run's tags. */
async function experimentsToStop(
  deps: PostDeps,
  journal: JournalFound,
  region: string | undefined,
  out: Cleanup,
): Promise<string[]> {
  const saved = deps.getState(STATE.experimentId);
  if (saved) return [saved];
  const fromJournal = journal.kind === 'read' ? journal.journal.experimentId : undefined;
  if (fromJournal) {
    out.lines.push(`No experiment id was saved; the journal names experiment ${mdCode(fromJournal)}.`);
    return [fromJournal];
  }
  const runId = deps.env.GITHUB_RUN_ID;
  if (!deps.findExperiments || !runId) {
    out.lines.push('No experiment id was saved and none is in the journal: no start is known.');
    return [];
  }
  const lookup = { runId, attempt: Number(deps.env.GITHUB_RUN_ATTEMPT ?? '1') || 1 };
  try {
    const found = await deps.findExperiments(lookup, region, deps.signal);
    out.lines.push(
      found.length === 0
        ? `No experiment id was saved; FIS lists no live experiment tagged with run ${lookup.runId} attempt ${lookup.attempt}.`
        : `No experiment id was saved; FIS lists ${found.map((id) => mdCode(id)).join(', ')} live, tagged with run ${lookup.runId} attempt ${lookup.attempt}.`,
    );
    return found;
  } catch (err) {
    out.verified = false;
    out.lines.push(
      `No experiment id was saved, and looking up this run's experiments failed (${mdText(errorMessage(err))}): whether one is still running is unknown. List them by hand: \`aws fis list-experiments\`, tags chaos-gate:run=${lookup.runId}, chaos-gate:attempt=${lookup.attempt}.`,
    );
    return [];
  }
}

async function cleanUp(deps: PostDeps, journal: JournalFound, region: string | undefined): Promise<Cleanup> {
  const out: Cleanup = {
    lines: ['The main step did not finish (cancelled, timed out or crashed); the post step cleaned up.'],
    verified: true,
    unverified: [],
  };
  for (const id of await experimentsToStop(deps, journal, region, out)) {
    let outcome: StopOutcome;
    try {
      outcome = await deps.stopExperiment(id, region, deps.signal);
    } catch (err) {
      outcome = { verified: false, detail: errorMessage(err) };
    }
    if (outcome.verified) {
      out.lines.push(`Experiment ${mdCode(id)}: stop verified (${mdText(outcome.detail)}).`);
      continue;
    }
    out.verified = false;
    out.unverified.push(id);
    out.lines.push(
      `Experiment ${mdCode(id)}: the stop could NOT be verified (${mdText(outcome.detail)}). Stop it by hand:`,
      mdCodeBlock(manualStopCommands(id, region)),
    );
  }
  return out;
}

/** Runs the post step; returns what it did, for logs and tests. */
export async function runPostStep(
  deps: PostDeps,
): Promise<'nothing-to-do' | 'cleaned-up' | 'stop-unverified'> {
  const finished = deps.getState(STATE.finished) === 'true';
  const checkRunId = Number(deps.getState(STATE.checkRunId)) || undefined;
  const checkRunOpen = checkRunId !== undefined && deps.getState(STATE.checkRunCompleted) !== 'true';
  if (finished && !checkRunOpen) {
    deps.log.info('chaos-gate post: the run finished; nothing to clean up.');
    return 'nothing-to-do';
  }
  const region =
    deps.getState(STATE.region) || deps.env.AWS_REGION || deps.env.AWS_DEFAULT_REGION || undefined;
  const journal = journalOf(deps);
  const cleanup: Cleanup = finished
    ? {
        lines: ['The run finished, but its check run was left open; the post step completed it.'],
        verified: true,
        unverified: [],
      }
    : await cleanUp(deps, journal, region);
  const summary = cleanup.lines.join('\n\n');
  deps.log.info(summary);

  const gh = githubContextFromEnv(deps.env, deps.githubToken);
  if (gh && checkRunOpen) {
    const budget = deps.signal?.aborted
      ? POST_CANCEL_REPORT_MS
      : (deps.reportBudgetMs ?? POST_REPORT_BUDGET_MS);
    try {
      await withDeadline(
        () => completeLeftOpen(deps, gh, checkRunId, cleanup.verified, finished, summary, journal),
        budget,
        'completing the check run',
      );
    } catch (err) {
      deps.log.warning(
        `chaos-gate post: check run ${checkRunId} could not be completed (${errorMessage(err)}); GitHub shows it in progress until it times it out.`,
      );
    }
  }
  if (!cleanup.verified) {
    const commands = cleanup.unverified.map((id) => manualStopCommands(id, region)).join('\n');
    deps.setFailed(
      cleanup.unverified.length > 0
        ? `chaos-gate post: the stop of experiment ${cleanup.unverified.join(', ')} could not be verified; run:\n${commands}`
        : `chaos-gate post: ${cleanup.lines.at(-1) ?? 'the clean-up could not be verified'}`,
    );
    return 'stop-unverified';
  }
  return 'cleaned-up';
}

/** `held: every SLI …`, shortened for a check-run title. */
function verdictTitle(journal: Journal): string {
  const t = `${journal.verdict}: ${journal.reason ?? 'no reason recorded'}`;
  return t.length > 160 ? `${t.slice(0, 159)}…` : t;
}

/**
 * Completes a check run the main step left open: with the journal's verdict when there is one (and the
 * fault is known to be gone), else `failure` when the stop is unverified, else `cancelled` for a run that
 * did not finish; `failure` "without a verdict" only when the journal was read and has none.
 */
async function completeLeftOpen(
  deps: PostDeps,
  gh: NonNullable<ReturnType<typeof githubContextFromEnv>>,
  checkRunId: number,
  verified: boolean,
  finished: boolean,
  summary: string,
  found: JournalFound,
): Promise<void> {
  const { GitHubReporter } = await import('../report/github.js');
  const reporter: GitHubReporter = new GitHubReporter(gh, {
    log: deps.log,
    conclusions: conclusionsOf(deps),
    ...(deps.fetch ? { fetch: deps.fetch } : {}),
    ...(deps.githubRetry ? { retry: deps.githubRetry } : {}),
  });
  reporter.adoptCheckRun(checkRunId);
  const journal = found.kind === 'read' ? found.journal : undefined;
  // A run the workflow cancelled (SIGINT/SIGTERM) was ended by the cancel, not by what it measured: the
  // check says `cancelled`, as GitHub shows cancelled jobs, whatever verdict the journal records for it.
  const cancelledBySignal = journal?.events.some((e) => e.type === 'abort' && e.data?.cause === 'cancelled');
  if (!verified) {
    await reporter.finishCheck('failure', 'failed: the stop of the experiment is not verified', summary);
    return;
  }
  if (journal?.verdict && !cancelledBySignal) {
    const done = await reporter.completeCheck(journal, [`Completed by the post step. ${summary}`]);
    if (done === 'completed') {
      deps.log.info(
        `chaos-gate post: completed the check run with the journal's verdict (${journal.verdict}).`,
      );
      return;
    }
    // GitHub refused the full report again: the verdict still stands, said in the fewest words.
    await reporter.finishCheck(
      conclusionFor(journal.verdict, conclusionsOf(deps)),
      verdictTitle(journal),
      `${summary}\n\nThe verdict is \`${journal.verdict}\` (from the journal ${found.kind === 'read' ? found.path : ''}); GitHub refused the full report, which is in the job summary and the journal artifact.`,
    );
    return;
  }
  if (!finished) {
    await reporter.finishCheck('cancelled', 'cancelled: the run did not finish', summary);
    return;
  }
  const why =
    found.kind === 'read'
      ? `No verdict was recorded in the journal (${found.path}).`
      : found.kind === 'unreadable'
        ? `The journal ${found.path} could not be read (${found.why}): the verdict is unknown.`
        : `No journal was found${found.path ? ` at ${found.path}` : ''}: the verdict is unknown.`;
  const title =
    found.kind === 'read' ? 'failed: the run ended without a verdict' : 'failed: the verdict is unknown';
  await reporter.finishCheck('failure', title, `${summary}\n\n${why}`);
}
