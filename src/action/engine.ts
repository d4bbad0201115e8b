/**
 * The engine behind `command: run` in the action: the same assembly as `chaos-gate run`
 * (`compose/run.ts`) fed from the action's typed inputs and GitHub's environment. The kill-switch read
 * goes out before that assembly is even loaded (compose/early.ts): loading it — the plan's schema and
 * parsers, the gates, the engine — is most of the action's start, and the read's network time runs beside it.
 */
import { dirname, isAbsolute, resolve } from 'node:path';
import { startEarlyReads } from '../compose/early.js';
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
  const early = startEarlyReads({ region: inputs.awsRegion, env: process.env });
  await early.sent();
  const { executeRun } = await import('../compose/run.js');
  const result = await executeRun({
    early,
    planPath: req.planFile,
    displayPath: inputs.plan,
    policyPath: inputs.policy ? within(inputs.policy) : undefined,
    prometheus: {
      url: inputs.prometheusUrl,
      headers: Object.entries(inputs.prometheusHeaders).map(([k, v]) => `${k}: ${v}`),
    },
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
