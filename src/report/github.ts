/**
 * The GitHub reporter: the only part of report/ that does I/O. It talks to the REST API through the
 * official toolkit — `@actions/github`'s `getOctokit` — with `@octokit/plugin-retry` (5xx and network
 * errors retried with backoff) and `@octokit/plugin-throttling` (GitHub's request pacing; secondary rate
 * limits wait out their `Retry-After`): the check run (created `in_progress` before preflight, completed
 * with the verdict, annotations 50 per request), the PR comment (found by marker and author across every
 * page, updated in place) and findings issues. GitHub errors never change the verdict: they are logged
 * as warnings, and what could not be written is handed back for the job summary.
 *
 * Every attempt has a deadline (`timeoutMs`, default {@link DEFAULT_GITHUB_TIMEOUT_MS}) covering the
 * answer and its body: a GitHub that does not answer costs a warning ("GitHub POST /repos/…/check-runs
 * did not answer within 10 s"), never a stalled job. A missed deadline is not retried by the plugins (a
 * GitHub that hangs would cost four deadlines per call); the check run, which a required status check
 * waits for, is retried as a whole ({@link GitHubRetryPolicy.checkRunAttempts}).
 *
 * Request bodies are built by the pure renderers (check-run.ts, comment.ts, findings.ts); this file only
 * decides what to send and where. The Octokit client (plugins, deadlines, errors) is github-client.ts; the
 * event context (commit, pull request, fork) is github-context.ts.
 */
import { sleepFor } from '../net/timer.js';
import type { Journal } from '../journal/types.js';
import {
  annotationBatches,
  checkRunPayload,
  checkRunStartPayload,
  type CheckRunOptions,
  type CheckRunPayload,
} from './check-run.js';
import {
  checkName,
  commentMarker,
  findingsMarker,
  type Conclusion,
  type ConclusionPolicy,
} from './common.js';
import { fallbackNotice } from './comment.js';
import {
  FINDINGS_LABEL,
  FINDING_VERDICTS,
  findingsComment,
  findingsIssue,
  heldComment,
  type FindingsOptions,
} from './findings.js';
import {
  GitHubApiError,
  GitHubClient,
  isTransient,
  PAGE_SIZE,
  type GitHubClientOptions,
  type GitHubRetryPolicy,
} from './github-client.js';
import { headSha, isForkPullRequest, pullNumber, type GitHubContext } from './github-context.js';

import { errorMessage } from '../errors/message.js';

export {
  DEFAULT_GITHUB_RETRY,
  DEFAULT_GITHUB_TIMEOUT_MS,
  GitHubApiError,
  isTransient,
  WRITE_SPACING_MS,
  type GitHubRetryPolicy,
  type ReporterLog,
} from './github-client.js';
export { headSha, isForkPullRequest, pullNumber, type GitHubContext } from './github-context.js';

/** The login GitHub gives comments written with an Actions `GITHUB_TOKEN`. */
/** GitHub's answer to a body it would not take ("Validation Failed"). */
function isUnprocessable(err: unknown): boolean {
  return err instanceof GitHubApiError && err.status === 422;
}

export const ACTIONS_BOT_LOGIN = 'github-actions[bot]';

/** What the reporter writes and where, plus how its client reaches GitHub. */
export interface GitHubReporterOptions extends GitHubClientOptions {
  conclusions?: ConclusionPolicy | undefined;
  /** The plan file (repository-relative) and a locator for annotations. */
  planPath?: string | undefined;
  locate?: CheckRunOptions['locate'];
  /** The comment author to match; default: `GET /user`, or `github-actions[bot]` when that is refused. */
  commentAuthor?: string | undefined;
  /**
   * Identifies this run's check run (`external_id`), e.g. `<GITHUB_RUN_ID>-<attempt>`: a create that timed
   * out may still have landed, and the retry adopts that check run instead of opening a second one.
   */
  runKey?: string | undefined;
  /** Waits between check-run attempts (tests pass a fake). */
  sleep?: ((ms: number) => Promise<void>) | undefined;
}

/** What could not be posted and therefore belongs in the job summary, with the reason. */
export interface SummaryFallback {
  what: string;
  notice: string;
  body?: string;
}

/** One reporter per run. Every public method swallows GitHub errors into warnings. */
export class GitHubReporter {
  private checkRunId: number | undefined;
  private identity: string | undefined;
  private readonly client: GitHubClient;
  private readonly policy: GitHubRetryPolicy;
  private readonly sleep: (ms: number) => Promise<void>;
  /** Things the job summary should carry because GitHub refused them. */
  readonly fallbacks: SummaryFallback[] = [];

  constructor(
    readonly ctx: GitHubContext,
    private readonly opts: GitHubReporterOptions,
  ) {
    this.client = new GitHubClient(ctx, opts);
    this.policy = this.client.policy;
    this.sleep = opts.sleep ?? ((ms) => sleepFor(ms));
  }

  /** The check run id once created (saved for the post step). */
  get checkRun(): number | undefined {
    return this.checkRunId;
  }

  /** Sets the plan locator once the engine has loaded the plan (annotations need it). */
  useLocator(locate: CheckRunOptions['locate']): void {
    this.opts.locate = locate;
  }

  /** Adopts a check run created by an earlier step (the post step reads its id from state). */
  adoptCheckRun(id: number): void {
    this.checkRunId = id;
  }

  /** One REST call in this repository (see {@link GitHubClient.call}). */
  private call<T>(route: string, params: Record<string, unknown> = {}): Promise<T> {
    return this.client.call<T>(route, params);
  }

  /** Every item of a paginated list in this repository (see {@link GitHubClient.pages}). */
  private pages<T>(route: string, params: Record<string, unknown>): AsyncGenerator<T> {
    return this.client.pages<T>(route, params);
  }

  /**
   * A check-run write, tried up to `checkRunAttempts` times while the failure is transient (no answer, 5xx,
   * rate limit); a definite refusal (401, 403, 404, 422) is not retried.
   */
  private async persist<T>(what: string, write: (attempt: number) => Promise<T>): Promise<T> {
    const attempts = Math.max(1, this.policy.checkRunAttempts);
    for (let attempt = 1; ; attempt++) {
      try {
        return await write(attempt);
      } catch (err) {
        if (attempt >= attempts || !isTransient(err)) throw err;
        this.opts.log.info(
          `chaos-gate: could not ${what} (attempt ${attempt} of ${attempts}: ${errorMessage(err)}); trying again in ${this.policy.checkRunPauseMs / 1000} s.`,
        );
        await this.sleep(this.policy.checkRunPauseMs);
      }
    }
  }

  /** `external_id` of this run's check run for `planId`, when the run has a key. */
  private externalId(planId: string): string | undefined {
    return this.opts.runKey === undefined ? undefined : `chaos-gate/${planId}/${this.opts.runKey}`;
  }

  /**
   * Creates a check run; on a second or later attempt first looks for one an earlier attempt created
   * (same name and `external_id` on the commit) — a create that timed out may have landed.
   */
  private async createCheckRun(
    planId: string,
    payload: { head_sha: string },
    attempt: number,
  ): Promise<number> {
    const externalId = this.externalId(planId);
    if (attempt > 1 && externalId !== undefined) {
      const found = await this.findCheckRun(planId, payload.head_sha, externalId);
      if (found !== undefined) return found;
    }
    const body = externalId === undefined ? payload : { ...payload, external_id: externalId };
    const created = await this.call<{ id: number }>('POST /repos/{owner}/{repo}/check-runs', body);
    return created.id;
  }

  /** This run's check run on the commit, or undefined (a failed lookup is not an error: create anew). */
  private async findCheckRun(planId: string, sha: string, externalId: string): Promise<number | undefined> {
    try {
      const r = await this.call<{ check_runs: { id: number; external_id: string | null }[] }>(
        'GET /repos/{owner}/{repo}/commits/{ref}/check-runs',
        { ref: sha, check_name: checkName(planId), filter: 'all', per_page: PAGE_SIZE },
      );
      return r.check_runs.filter((c) => c.external_id === externalId).at(-1)?.id;
    } catch {
      return undefined;
    }
  }

  private warn(what: string, err: unknown): void {
    this.opts.log.warning(`chaos-gate: could not ${what}: ${errorMessage(err)}. The verdict is unchanged.`);
  }

  private forbidden(err: unknown): boolean {
    return err instanceof GitHubApiError && err.status === 403 && !isTransient(err);
  }

  /**
   * Creates the check run `in_progress` before preflight, retried while GitHub fails transiently (rate
   * limit, 5xx, no answer); returns its id, or undefined when it could not be created.
   */
  async startCheck(planId: string, startedAt: number): Promise<number | undefined> {
    if (isForkPullRequest(this.ctx)) {
      this.fallbacks.push({ what: 'check run', notice: fallbackNotice('fork', 'check run') });
      return undefined;
    }
    const payload = checkRunStartPayload(planId, headSha(this.ctx), startedAt, this.ctx.runUrl);
    try {
      this.checkRunId = await this.persist('create the check run', (attempt) =>
        this.createCheckRun(planId, payload, attempt),
      );
      return this.checkRunId;
    } catch (err) {
      if (this.forbidden(err))
        this.fallbacks.push({ what: 'check run', notice: fallbackNotice('forbidden', 'check run') });
      this.warn('create the check run', err);
      return undefined;
    }
  }

  /**
   * Completes the check run with the verdict (creating it if the start failed), retried while GitHub
   * fails transiently, then sends the remaining annotations. `completed` only once GitHub accepted the
   * completion: the caller saves that for the post step, which otherwise completes the check run itself.
   */
  async completeCheck(journal: Journal, notes: string[] = []): Promise<'completed' | 'skipped' | 'failed'> {
    if (isForkPullRequest(this.ctx)) return 'skipped';
    if (this.fallbacks.some((f) => f.what === 'check run')) return 'skipped';
    const opts: CheckRunOptions = {
      headSha: headSha(this.ctx),
      planPath: this.opts.planPath,
      locate: this.opts.locate,
      conclusions: this.opts.conclusions,
      runUrl: this.ctx.runUrl,
      notes,
    };
    const payload = checkRunPayload(journal, opts);
    try {
      await this.persist('complete the check run', async (attempt) => {
        if (this.checkRunId === undefined)
          this.checkRunId = await this.createCheckRun(journal.planId, payload, attempt);
        await this.call('PATCH /repos/{owner}/{repo}/check-runs/{check_run_id}', {
          check_run_id: this.checkRunId,
          ...payload,
        });
      });
    } catch (err) {
      if (this.forbidden(err))
        this.fallbacks.push({ what: 'check run', notice: fallbackNotice('forbidden', 'check run') });
      if (this.checkRunId !== undefined && isUnprocessable(err)) return this.completeMinimal(payload, err);
      this.warn('complete the check run', err);
      return 'failed';
    }
    // The check run is completed; later annotations are a bonus, their failure only a warning.
    try {
      for (const annotations of annotationBatches(journal, opts)) {
        await this.persist('add annotations to the check run', () =>
          this.call('PATCH /repos/{owner}/{repo}/check-runs/{check_run_id}', {
            check_run_id: this.checkRunId,
            output: { title: payload.output.title, summary: payload.output.summary, annotations },
          }),
        );
      }
    } catch (err) {
      this.warn('add every annotation to the check run', err);
    }
    return 'completed';
  }

  /**
   * GitHub refused the full completion as unprocessable (422: a field it would not take). The verdict is
   * not the part it refused: the check run is completed again with only what GitHub's schema requires —
   * the conclusion, the title and a short summary saying that the full report was refused and why — so a
   * `held` run never reads "ended without a verdict" because its report was too much.
   */
  private async completeMinimal(payload: CheckRunPayload, refusal: unknown): Promise<'completed' | 'failed'> {
    const why = errorMessage(refusal).slice(0, 500);
    try {
      await this.persist('complete the check run with its verdict alone', () =>
        this.call('PATCH /repos/{owner}/{repo}/check-runs/{check_run_id}', {
          check_run_id: this.checkRunId,
          status: 'completed',
          conclusion: payload.conclusion,
          completed_at: payload.completed_at,
          output: {
            title: payload.output.title,
            summary:
              `${payload.output.title}\n\nGitHub refused the full report (${why}); the verdict above is the ` +
              "journal's. The full report is in the job summary and the journal artifact.",
          },
        }),
      );
      this.opts.log.warning(
        `chaos-gate: GitHub refused the full check-run report (${why}); the check run carries the verdict alone.`,
      );
      return 'completed';
    } catch (err) {
      this.warn('complete the check run', err);
      return 'failed';
    }
  }

  /**
   * Completes the check run without a journal: `cancelled` from the post step after an unfinished
   * run, `failure` when the engine crashed before it could write a verdict. True once GitHub accepted it.
   */
  async finishCheck(conclusion: Conclusion, title: string, summary: string): Promise<boolean> {
    if (this.checkRunId === undefined) return false;
    try {
      await this.persist(`complete the check run as ${conclusion}`, () =>
        this.call('PATCH /repos/{owner}/{repo}/check-runs/{check_run_id}', {
          check_run_id: this.checkRunId,
          status: 'completed',
          conclusion,
          output: { title, summary },
        }),
      );
      return true;
    } catch (err) {
      this.warn(`complete the check run as ${conclusion}`, err);
      return false;
    }
  }

  /** The login whose comments are ours: the token's user, or the Actions bot for an installation token. */
  async author(): Promise<string> {
    if (this.opts.commentAuthor) return this.opts.commentAuthor;
    if (this.identity) return this.identity;
    try {
      const me = await this.call<{ login: unknown }>('GET /user');
      this.identity = String(me.login);
    } catch (err) {
      // GITHUB_TOKEN is an installation token: GitHub refuses GET /user with 403 for it.
      if (!(err instanceof GitHubApiError) || (err.status !== 403 && err.status !== 401)) throw err;
      this.identity = ACTIONS_BOT_LOGIN;
    }
    return this.identity;
  }

  /**
   * Creates or updates the plan's PR comment. On a fork PR or a 403 the body goes to the job summary
   * instead (returned in `fallbacks`) with a notice saying why.
   */
  async upsertComment(
    planId: string,
    body: string,
  ): Promise<'created' | 'updated' | 'fallback' | 'skipped' | 'failed'> {
    const n = pullNumber(this.ctx);
    if (n === undefined) return 'skipped';
    if (isForkPullRequest(this.ctx)) {
      this.fallbacks.push({
        what: 'PR comment',
        notice: fallbackNotice('fork', 'pull-request comment'),
        body,
      });
      return 'fallback';
    }
    try {
      const marker = commentMarker(planId);
      const me = await this.author();
      let existing: number | undefined;
      for await (const c of this.pages<{ id: number; body?: string; user?: { login?: string } | null }>(
        'GET /repos/{owner}/{repo}/issues/{issue_number}/comments',
        { issue_number: n },
      )) {
        // The marker alone is not enough: anyone can paste it into their own comment.
        if (c.user?.login === me && c.body?.includes(marker)) existing = c.id;
      }
      if (existing !== undefined) {
        await this.call('PATCH /repos/{owner}/{repo}/issues/comments/{comment_id}', {
          comment_id: existing,
          body,
        });
        return 'updated';
      }
      await this.call('POST /repos/{owner}/{repo}/issues/{issue_number}/comments', {
        issue_number: n,
        body,
      });
      return 'created';
    } catch (err) {
      if (this.forbidden(err)) {
        this.fallbacks.push({
          what: 'PR comment',
          notice: fallbackNotice('forbidden', 'pull-request comment'),
          body,
        });
        this.warn('write the pull-request comment (shown in the job summary instead)', err);
        return 'fallback';
      }
      this.warn('write the pull-request comment', err);
      return 'failed';
    }
  }

  /**
   * Findings: a deviated/aborted run opens the plan's issue or updates it (new body, plus a comment);
   * a held run comments on the open issue and closes it. Other verdicts leave issues alone.
   */
  async reportFindings(
    journal: Journal,
    opts: FindingsOptions = {},
  ): Promise<'opened' | 'updated' | 'closed' | 'none' | 'failed'> {
    const verdict = journal.verdict;
    if (verdict === null || (verdict !== 'held' && !FINDING_VERDICTS.has(verdict))) return 'none';
    try {
      const marker = findingsMarker(journal.planId);
      const me = await this.author();
      let open: number | undefined;
      for await (const i of this.pages<{
        number: number;
        body?: string | null;
        user?: { login?: string } | null;
        pull_request?: unknown;
      }>('GET /repos/{owner}/{repo}/issues', { state: 'open', labels: FINDINGS_LABEL })) {
        if (!i.pull_request && i.user?.login === me && i.body?.includes(marker)) open = i.number;
      }
      if (verdict === 'held') {
        if (open === undefined) return 'none';
        await this.call('POST /repos/{owner}/{repo}/issues/{issue_number}/comments', {
          issue_number: open,
          body: heldComment(journal, opts),
        });
        await this.call('PATCH /repos/{owner}/{repo}/issues/{issue_number}', {
          issue_number: open,
          state: 'closed',
          state_reason: 'completed',
        });
        return 'closed';
      }
      const issue = findingsIssue(journal, opts);
      if (open === undefined) {
        await this.call('POST /repos/{owner}/{repo}/issues', { ...issue });
        return 'opened';
      }
      await this.call('PATCH /repos/{owner}/{repo}/issues/{issue_number}', {
        issue_number: open,
        title: issue.title,
        body: issue.body,
      });
      await this.call('POST /repos/{owner}/{repo}/issues/{issue_number}/comments', {
        issue_number: open,
        body: findingsComment(journal, opts),
      });
      return 'updated';
    } catch (err) {
      this.warn('update the findings issue', err);
      return 'failed';
    }
  }
}
