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
import { notifySettings, runLinks } from '../notify/index.js';

/** Runs the gate for the action and resolves with the final journal. Plan errors throw (exit 2 upstream). */
export async function runEngine(req: GateRequest): Promise<Journal> {
  const { inputs } = req;
  const workspace = process.env.GITHUB_WORKSPACE || process.cwd();
  const within = (p: string): string => (isAbsolute(p) ? p : resolve(workspace, p));
  const notify = notifySettings(inputs.notify, process.env);
  const { executeRun } = await import('../compose/run.js');
  const result = await executeRun({
    planPath: req.planFile,
    displayPath: inputs.plan,
    policyPath: inputs.policy ? within(inputs.policy) : undefined,
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
