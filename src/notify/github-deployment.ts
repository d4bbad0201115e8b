/**
 * The GitHub deployment sink: the gate on the environment's page. When the run names a deployment
 * (`deployment-id`) or an environment (`environment`), it posts a deployment status `in_progress` at the
 * injection and `success` (held) or `failure` (every other verdict) with the judgement's reason at the
 * end, each with `log_url` to the CI run. With only an environment it creates the deployment first, for
 * the commit under test (`ref` = the head SHA, `auto_merge: false`, `required_contexts: []` — the gate's
 * own check run is in progress then, and GitHub would otherwise refuse the deployment with a 409 until
 * it succeeds).
 *
 * Like every sink, it never makes a call itself: the dispatcher makes them beside the run loop, within
 * a deadline, and a call that fails is a `notify` event that changes nothing. The token is the action's
 * `github-token` (registered with the redactor), sent to the configured API origin only.
 */
import type { Journal, JournalEvent, JournalHeader } from '../journal/types.js';
import { redact } from '../security/redact.js';
import { runTitle, verdictOf } from './summary.js';
import type { Sink, SinkCall, SinkContext, SinkRequest } from './sink.js';

/** GitHub's limit on a deployment status's `description` (REST docs: "maximum … 140 characters"). */
export const DEPLOYMENT_DESCRIPTION_MAX = 140;

/** The `task` of the deployments this sink creates, so they can be told from real deploys. */
export const DEPLOYMENT_TASK = 'chaos-gate';

/** GitHub's REST API version the requests are written against. */
const API_VERSION = '2022-11-28';

/** Where the statuses go: the repository, the commit, and the deployment or the environment. */
export interface DeploymentSettings {
  /** `GITHUB_API_URL` (`https://api.github.com`, or a GHES `/api/v3`). */
  apiUrl: string;
  token: string;
  owner: string;
  repo: string;
  /** The commit under test: the PR head on pull_request events, else `GITHUB_SHA`. */
  sha: string;
  /** An existing deployment to post the statuses to. */
  deploymentId?: number | undefined;
  /** The environment: the deployment is created in it when no id is given; else its statuses name it. */
  environment?: string | undefined;
}

/**
 * One line of plain text for GitHub's UI: control, format and bidirectional-override characters become
 * spaces, runs of white space one space, registered secrets are masked *before* the cut (a secret cut
 * in half would no longer be recognised), and the result is cut to `max` characters with an ellipsis.
 */
export function plainLine(text: string, max: number): string {
  const line = redact(text)
    // Cc: C0/C1 controls; Cf: format characters (bidi overrides and isolates, zero-width ones).
    .replace(/[\p{Cc}\p{Cf}\u2028\u2029]/gu, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  return line.length <= max ? line : `${line.slice(0, max - 1)}…`;
}

export class GitHubDeploymentSink implements Sink {
  readonly kind = 'github-deployment' as const;
  readonly display: string;
  private id: number | undefined;
  private creating = false;
  private injected = false;

  constructor(
    private readonly settings: DeploymentSettings,
    private readonly ctx: SinkContext,
  ) {
    this.id = settings.deploymentId;
    const where =
      settings.deploymentId !== undefined
        ? `deployment ${settings.deploymentId}`
        : `environment ${settings.environment ?? ''}`;
    this.display = `github-deployment ${settings.owner}/${settings.repo} ${where}`;
  }

  started(): SinkCall[] {
    return [];
  }

  measurement(): SinkCall[] {
    return [];
  }

  event(e: JournalEvent, h: JournalHeader): SinkCall[] {
    if (e.type !== 'inject' || this.injected) return [];
    this.injected = true;
    return [
      ...this.create(h),
      this.status('in_progress', `chaos-gate: fault injected — ${runTitle(h)}`, 'status in_progress'),
    ];
  }

  /** The verdict: held is `success`, every other verdict `failure`, with the judgement's reason. */
  finished(j: Journal): SinkCall[] {
    const { verdict, reason } = verdictOf(j);
    const state = verdict === 'held' ? 'success' : 'failure';
    return [...this.create(j), this.status(state, `chaos-gate ${verdict}: ${reason}`, `status ${state}`)];
  }

  /** The deployment, when only an environment was given and it was not created yet. */
  private create(h: JournalHeader): SinkCall[] {
    if (this.id !== undefined || this.creating || this.settings.environment === undefined) return [];
    this.creating = true;
    const environment = this.settings.environment;
    const body = {
      ref: this.settings.sha,
      task: DEPLOYMENT_TASK,
      auto_merge: false,
      required_contexts: [],
      environment,
      description: plainLine(`chaos-gate: ${runTitle(h)}`, DEPLOYMENT_DESCRIPTION_MAX),
      payload: { planId: h.planId, runId: h.runId, attempt: h.attempt ?? 1 },
      transient_environment: false,
      production_environment: environment === 'production',
    };
    return [
      {
        label: 'deployment create',
        request: () => this.request(this.url('/deployments'), body),
        accept: (_status, text) => {
          const id = (JSON.parse(text) as { id?: unknown }).id;
          if (typeof id === 'number' && Number.isInteger(id)) this.id = id;
        },
      },
    ];
  }

  private status(state: string, description: string, label: string): SinkCall {
    return {
      label,
      request: () => {
        if (this.id === undefined)
          throw new Error('no deployment to post the status to: its creation did not get through');
        const run = this.ctx.links().run;
        return this.request(this.url(`/deployments/${this.id}/statuses`), {
          state,
          description: plainLine(description, DEPLOYMENT_DESCRIPTION_MAX),
          ...(run ? { log_url: run } : {}),
          ...(this.settings.environment !== undefined ? { environment: this.settings.environment } : {}),
        });
      },
    };
  }

  private url(path: string): string {
    const base = this.settings.apiUrl.replace(/\/+$/, '');
    const { owner, repo } = this.settings;
    return `${base}/repos/${encodeURIComponent(owner)}/${encodeURIComponent(repo)}${path}`;
  }

  private request(url: string, body: unknown): SinkRequest {
    return {
      method: 'POST',
      url,
      headers: {
        authorization: `Bearer ${this.settings.token}`,
        accept: 'application/vnd.github+json',
        'x-github-api-version': API_VERSION,
      },
      body,
    };
  }
}
