/**
 * The concrete parts behind the action: `@actions/core`, `@actions/artifact`, `@actions/attest`, the plan loader for
 * `plan`/`validate`, and the engine for `run` (from `./engine.js`). Only this file and main/post
 * know them; `runFromInputs` sees the `ActionDeps` interface. What one command alone needs (review,
 * validate, the artifact client) is imported when that command runs.
 */
import * as core from '@actions/core';
import { resolve } from 'node:path';
import { runEngine } from './engine.js';
import type { ActionCore, ActionDeps } from './run.js';

/** `@actions/core` as the action's `ActionCore`. */
export const actionsCore: ActionCore = {
  info: (m) => core.info(m),
  warning: (m) => core.warning(m),
  notice: (m, title) => core.notice(m, title === undefined ? {} : { title }),
  error: (m, title) => core.error(m, title === undefined ? {} : { title }),
  startGroup: (name) => core.startGroup(name),
  endGroup: () => core.endGroup(),
  setOutput: (n, v) => core.setOutput(n, v),
  saveState: (n, v) => core.saveState(n, v),
  writeSummary: async (markdown) => {
    if (!process.env.GITHUB_STEP_SUMMARY) return;
    await core.summary.addRaw(markdown, true).write();
  },
};

/** The production dependencies. */
export function defaultDeps(signal: AbortSignal): ActionDeps {
  return {
    core: actionsCore,
    env: process.env,
    signal,
    runGate: runEngine,
    async reviewPlan(inputs, planFile) {
      // Static review on pull requests: no AWS call (fork PRs have no credentials, and none are needed).
      const workspace = process.env.GITHUB_WORKSPACE || process.cwd();
      const { reviewPlan } = await import('../compose/review.js');
      const r = await reviewPlan({
        planPath: planFile,
        displayPath: inputs.plan,
        policyPath: inputs.policy ? resolve(workspace, inputs.policy) : undefined,
        env: process.env,
        workspace,
      });
      return r.review;
    },
    async validatePlan(inputs) {
      // The same checks as `chaos-gate validate`: every check a run applies before touching anything.
      const workspace = process.env.GITHUB_WORKSPACE || process.cwd();
      const { formatValidate, validatePlanFile } = await import('../compose/validate.js');
      const result = await validatePlanFile(inputs.plan, {
        cwd: workspace,
        policy: inputs.policy || undefined,
        workspace,
      });
      return { text: formatValidate(result).join('\n'), exitCode: result.valid ? 0 : 2 };
    },
    async attest(request) {
      // Loaded on use: Sigstore's signer and its TUF client are needed only by a run that signs.
      const { attest } = await import('@actions/attest');
      const a = await attest({
        subjects: request.subjects,
        predicateType: request.predicateType,
        predicate: request.predicate,
        token: request.token,
      });
      return { attestationID: a.attestationID, tlogID: a.tlogID };
    },
    async uploadArtifact(name, files, root) {
      // Loaded on use: the artifact client (with Azure storage and undici) is a third of the bundle,
      // and evaluating it at start-up delayed the first AWS call (docs/design/targets.md cold start, bench/run.ts).
      const { DefaultArtifactClient } = await import('@actions/artifact');
      await new DefaultArtifactClient().uploadArtifact(name, files, root);
    },
  };
}
