/**
 * The post step (SPEC §6.6). When the main step ended without a finished run (cancelled, timed out,
 * crashed), it stops the saved experiment, verifies the stop, and completes the check run as
 * `cancelled`. It reads only what the main step saved (`STATE_*`) and the environment.
 */
import { GitHubReporter } from '../report/github.js';
import { githubContextFromEnv } from './context.js';
import { STATE } from './state.js';

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
}

/** The commands that stop an experiment by hand, printed when the stop cannot be verified. */
export function manualStopCommands(id: string, region: string | undefined): string {
  const r = region ? ` --region ${region}` : '';
  return [
    `aws fis stop-experiment --id ${id}${r}`,
    `aws fis get-experiment --id ${id}${r} --query experiment.state`,
  ].join('\n');
}

/** Runs the post step; returns what it did, for logs and tests. */
export async function runPostStep(
  deps: PostDeps,
): Promise<'nothing-to-do' | 'cleaned-up' | 'stop-unverified'> {
  if (deps.getState(STATE.finished) === 'true') {
    deps.log.info('chaos-gate post: the run finished; nothing to clean up.');
    return 'nothing-to-do';
  }
  const experimentId = deps.getState(STATE.experimentId) || undefined;
  const region =
    deps.getState(STATE.region) || deps.env.AWS_REGION || deps.env.AWS_DEFAULT_REGION || undefined;
  const checkRunId = Number(deps.getState(STATE.checkRunId)) || undefined;
  const lines = ['The main step did not finish (cancelled, timed out or crashed); the post step cleaned up.'];
  let verified = true;
  if (experimentId) {
    let outcome: StopOutcome;
    try {
      outcome = await deps.stopExperiment(experimentId, region);
    } catch (err) {
      outcome = { verified: false, detail: err instanceof Error ? err.message : String(err) };
    }
    verified = outcome.verified;
    if (verified) lines.push(`Experiment \`${experimentId}\`: stop verified (${outcome.detail}).`);
    else {
      lines.push(
        `Experiment \`${experimentId}\`: the stop could NOT be verified (${outcome.detail}). Stop it by hand:`,
        '```',
        manualStopCommands(experimentId, region),
        '```',
      );
    }
  } else {
    lines.push('No experiment had been started.');
  }
  const summary = lines.join('\n\n');
  deps.log.info(summary);

  const gh = githubContextFromEnv(deps.env, deps.githubToken);
  if (gh && checkRunId !== undefined) {
    const reporter = new GitHubReporter(gh, { log: deps.log, ...(deps.fetch ? { fetch: deps.fetch } : {}) });
    reporter.adoptCheckRun(checkRunId);
    await reporter.finishCheck('cancelled', 'cancelled: the run did not finish', summary);
  }
  if (!verified) {
    deps.setFailed(
      `chaos-gate post: the stop of experiment ${experimentId} could not be verified; run:\n${manualStopCommands(experimentId as string, region)}`,
    );
    return 'stop-unverified';
  }
  return 'cleaned-up';
}
