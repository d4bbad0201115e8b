/**
 * The engine behind `command: run` in the action: the same assembly as `chaos-gate run`
 * (`compose/run.ts`) fed from the action's typed inputs and GitHub's environment. Nothing is sent before
 * the plan and policy are loaded, the set-up checked and the static stage passed: a plan refused
 * statically, or a set-up missing a setting, ends without a single AWS request (compose/run.ts starts
 * the kill-switch read once they pass).
 */
import { dirname, isAbsolute, resolve } from 'node:path';
import { redact } from '../security/redact.js';
import { logLines } from '../security/log-text.js';
import type { Journal } from '../journal/types.js';
import type { GateRequest } from './run.js';
import { notifySettings, runLinks, type DeploymentSettings } from '../notify/index.js';
import { BadInputError } from '../errors/bad-input.js';
import { githubContextFromEnv } from './context.js';
import { headSha } from '../report/github-context.js';
import type { ActionInputs } from './inputs.js';

/**
 * Where the deployment statuses go, when `deployment-id` or `environment` asks for them: the
 * repository and the commit under test (the PR head on pull_request events) from GitHub's environment,
 * with the action's token. Without a token or a repository there is nowhere to post: an input error.
 */
export function deploymentSettings(
  inputs: Pick<ActionInputs, 'deploymentId' | 'environment' | 'githubToken'>,
  env: Record<string, string | undefined>,
): DeploymentSettings | undefined {
  if (inputs.deploymentId === undefined && inputs.environment === undefined) return undefined;
  const gh = githubContextFromEnv(env, inputs.githubToken);
  const which = inputs.deploymentId !== undefined ? 'deployment-id' : 'environment';
  if (!gh)
    throw new BadInputError(
      `Input "${which}" needs github-token (with deployments: write) and GITHUB_REPOSITORY to post deployment statuses; ${inputs.githubToken ? 'GITHUB_REPOSITORY is not set' : 'github-token is empty'}`,
    );
  const sha = headSha(gh);
  if (inputs.deploymentId === undefined && !sha)
    throw new BadInputError(
      'Input "environment" needs the commit to deploy (GITHUB_SHA) to create the deployment; it is not set',
    );
  return {
    apiUrl: gh.apiUrl,
    token: gh.token,
    owner: gh.owner,
    repo: gh.repo,
    sha,
    deploymentId: inputs.deploymentId,
    environment: inputs.environment,
  };
}

/** Runs the gate for the action and resolves with the final journal. Plan errors throw (exit 2 upstream). */
export async function runEngine(req: GateRequest): Promise<Journal> {
  const { inputs } = req;
  const workspace = process.env.GITHUB_WORKSPACE || process.cwd();
  const within = (p: string): string => (isAbsolute(p) ? p : resolve(workspace, p));
  const notify = notifySettings(inputs.notify, process.env, deploymentSettings(inputs, process.env));
  const { executeRun } = await import('../compose/run.js');
  const result = await executeRun({
    planPath: req.planFile,
    displayPath: inputs.plan,
    policyPath: inputs.policy ? within(inputs.policy) : undefined,
    historyPaths: inputs.history ? [within(inputs.history)] : undefined,
    prometheus: {
      url: inputs.prometheusUrl,
      headers: Object.entries(inputs.prometheusHeaders).map(([k, v]) => `${k}: ${v}`),
    },
    alertmanagerUrl: inputs.alertmanagerUrl,
    awsRegion: inputs.awsRegion,
    journalPath: req.journalPath,
    outputRoots: req.outputRoots,
    runId: req.runId,
    attempt: req.attempt,
    repo: req.repo,
    sha: req.sha,
    queueTimeoutMs: inputs.queueTimeoutMs,
    abortFile: resolve(dirname(req.journalPath), 'ABORT'),
    signal: req.signal,
    env: process.env,
    notify,
    notifyLinks: () => runLinks(process.env, req.checkRunId),
    workspace,
    onPlanLoaded: (loaded) => req.onPlanLoaded({ planId: loaded.plan.id, locate: loaded.locate }),
    onExperimentId: (id) => req.onExperimentId(id),
    onTick: req.onTick,
    onEvent: req.onEvent,
    log: (line) => process.stdout.write(`chaos-gate: ${logLines(redact(line))}\n`),
  });
  return result.journal;
}
