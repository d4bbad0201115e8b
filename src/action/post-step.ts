/**
 * The post step (SPEC §6.6). When the main step ended without a finished run (cancelled, timed out,
 * crashed), it stops the saved experiment and verifies the stop. Independently, a required check is
 * never left behind: a check run the main step created but did not get completed (cancelled, crashed,
 * or GitHub refused the completion) is completed here — with the journal's verdict when the journal has
 * one, else `cancelled` (the run did not finish) or `failure` (it finished without a verdict), with the
 * reason. It reads only what the main step saved (`STATE_*`), the journal and the environment.
 */
import { existsSync } from 'node:fs';
import type { Journal } from '../journal/types.js';
import { readJournal } from '../journal/read.js';
import type { ConclusionPolicy } from '../report/common.js';
import { GitHubReporter, type GitHubReporterOptions } from '../report/github.js';
import { githubContextFromEnv } from './context.js';
import { STATE } from './state.js';
import { errorMessage } from '../errors/message.js';
import { mdCode, mdCodeBlock, mdText } from '../security/markdown-text.js';

/** The outcome of stopping an experiment: `verified` only once FIS reports a terminal state. */
export interface StopOutcome {
  verified: boolean;
  /** The last status FIS reported, or the error. */
  detail: string;
}

export interface PostDeps {
  getState(name: string): string;
  /** The `github-token` input (the post step sees the same inputs). */
  githubToken: string | undefined;
  env: Record<string, string | undefined>;
  log: { info(m: string): void; warning(m: string): void };
  setFailed(message: string): void;
  /** Stops an experiment and waits until FIS confirms it. */
  stopExperiment(id: string, region: string | undefined): Promise<StopOutcome>;
  fetch?: typeof fetch | undefined;
  /** Overrides of the GitHub reporter's retry policy (tests shrink the waits). */
  githubRetry?: GitHubReporterOptions['retry'];
}

/** The commands that stop an experiment by hand, printed when the stop cannot be verified. */
export function manualStopCommands(id: string, region: string | undefined): string {
  const r = region ? ` --region ${region}` : '';
  return [
    `aws fis stop-experiment --id ${id}${r}`,
    `aws fis get-experiment --id ${id}${r} --query experiment.state`,
  ].join('\n');
}

/** The journal the main step left, when it can be read (a crash may have left none). */
function journalOf(deps: PostDeps): Journal | undefined {
  const path = deps.getState(STATE.journal);
  if (!path || !existsSync(path)) return undefined;
  try {
    return readJournal(path);
  } catch (err) {
    deps.log.warning(`chaos-gate post: could not read the journal ${path}: ${errorMessage(err)}`);
    return undefined;
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
  const experimentId = deps.getState(STATE.experimentId) || undefined;
  const region =
    deps.getState(STATE.region) || deps.env.AWS_REGION || deps.env.AWS_DEFAULT_REGION || undefined;
  const lines: string[] = [];
  let verified = true;
  if (!finished) {
    lines.push('The main step did not finish (cancelled, timed out or crashed); the post step cleaned up.');
    if (experimentId) {
      let outcome: StopOutcome;
      try {
        outcome = await deps.stopExperiment(experimentId, region);
      } catch (err) {
        outcome = { verified: false, detail: errorMessage(err) };
      }
      verified = outcome.verified;
      if (verified)
        lines.push(`Experiment ${mdCode(experimentId)}: stop verified (${mdText(outcome.detail)}).`);
      else {
        lines.push(
          `Experiment ${mdCode(experimentId)}: the stop could NOT be verified (${mdText(outcome.detail)}). Stop it by hand:`,
          mdCodeBlock(manualStopCommands(experimentId, region)),
        );
      }
    } else {
      lines.push('No experiment had been started.');
    }
  } else {
    lines.push('The run finished, but its check run was left open; the post step completed it.');
  }
  const summary = lines.join('\n\n');
  deps.log.info(summary);

  const gh = githubContextFromEnv(deps.env, deps.githubToken);
  if (gh && checkRunOpen) await completeLeftOpen(deps, gh, checkRunId, verified, finished, summary);
  if (!verified) {
    deps.setFailed(
      `chaos-gate post: the stop of experiment ${experimentId} could not be verified; run:\n${manualStopCommands(experimentId as string, region)}`,
    );
    return 'stop-unverified';
  }
  return 'cleaned-up';
}

/**
 * Completes a check run the main step left open: with the journal's verdict when there is one (and the
 * fault is known to be gone), else `failure` when the stop is unverified or the run finished without a
 * verdict, else `cancelled`.
 */
async function completeLeftOpen(
  deps: PostDeps,
  gh: NonNullable<ReturnType<typeof githubContextFromEnv>>,
  checkRunId: number,
  verified: boolean,
  finished: boolean,
  summary: string,
): Promise<void> {
  const reporter = new GitHubReporter(gh, {
    log: deps.log,
    conclusions: conclusionsOf(deps),
    ...(deps.fetch ? { fetch: deps.fetch } : {}),
    ...(deps.githubRetry ? { retry: deps.githubRetry } : {}),
  });
  reporter.adoptCheckRun(checkRunId);
  const journal = journalOf(deps);
  // A run the workflow cancelled (SIGINT/SIGTERM) was ended by the cancel, not by what it measured: the
  // check says `cancelled`, as GitHub shows cancelled jobs, whatever verdict the journal records for it.
  const cancelledBySignal = journal?.events.some((e) => e.type === 'abort' && e.data?.cause === 'cancelled');
  if (verified && journal?.verdict && !cancelledBySignal) {
    const done = await reporter.completeCheck(journal, [`Completed by the post step. ${summary}`]);
    if (done === 'completed') {
      deps.log.info(
        `chaos-gate post: completed the check run with the journal's verdict (${journal.verdict}).`,
      );
      return;
    }
  }
  if (!verified)
    await reporter.finishCheck('failure', 'failed: the stop of the experiment is not verified', summary);
  else if (finished)
    await reporter.finishCheck(
      'failure',
      'failed: the run ended without a verdict',
      `${summary}\n\nNo verdict was recorded in the journal${deps.getState(STATE.journal) ? ` (${deps.getState(STATE.journal)})` : ''}.`,
    );
  else await reporter.finishCheck('cancelled', 'cancelled: the run did not finish', summary);
}
