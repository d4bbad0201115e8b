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
 * sends them.
 */
import { getOctokit } from '@actions/github';
import { retry } from '@octokit/plugin-retry';
import { throttling } from '@octokit/plugin-throttling';
import { DEADLINES, isDeadlineError, withDeadline } from '../net/deadline.js';
import type { Journal } from '../journal/types.js';
import { redactDeep } from '../security/redact.js';
import {
  annotationBatches,
  checkRunPayload,
  checkRunStartPayload,
  type CheckRunOptions,
} from './check-run.js';
import { checkName, commentMarker, findingsMarker, type ConclusionPolicy } from './common.js';
import { fallbackNotice } from './comment.js';
import {
  FINDINGS_LABEL,
  FINDING_VERDICTS,
  findingsComment,
  findingsIssue,
  heldComment,
  type FindingsOptions,
} from './findings.js';
import { errorMessage } from '../errors/message.js';

/** The login GitHub gives comments written with an Actions `GITHUB_TOKEN`. */
export const ACTIONS_BOT_LOGIN = 'github-actions[bot]';

/** Page size for list calls: GitHub's maximum (REST pagination docs: "max 100"). */
const PAGE_SIZE = 100;

/** Pages read at most when searching comments or issues; bounds a runaway `Link` chain. */
const MAX_PAGES = 50;

/**
 * Deadline of one REST request (ms), the body included. GitHub answers these in well under a second;
 * 10 s is an outage, and reporting never changes the verdict, so it is not worth waiting longer.
 */
export const DEFAULT_GITHUB_TIMEOUT_MS: number = DEADLINES.githubRequest;

/** Where the run happens, from the Actions environment. */
export interface GitHubContext {
  apiUrl: string;
  token: string;
  owner: string;
  repo: string;
  eventName: string;
  /** `GITHUB_SHA`: on pull_request events this is the merge commit, not the head. */
  sha: string;
  /** The webhook payload (`GITHUB_EVENT_PATH`). */
  payload: Record<string, unknown>;
  /** Link to this workflow run. */
  runUrl?: string | undefined;
}

interface PullPayload {
  number?: number;
  head?: { sha?: string; repo?: { full_name?: string; fork?: boolean } | null };
  base?: { repo?: { full_name?: string } };
}

function pull(ctx: GitHubContext): PullPayload | undefined {
  const p = ctx.payload.pull_request;
  return p && typeof p === 'object' ? (p as PullPayload) : undefined;
}

/** The commit a check belongs to: the PR head on pull_request events, else `GITHUB_SHA`. */
export function headSha(ctx: GitHubContext): string {
  const sha = pull(ctx)?.head?.sha;
  return ctx.eventName.startsWith('pull_request') && typeof sha === 'string' ? sha : ctx.sha;
}

/** The pull request number, when the event has one. */
export function pullNumber(ctx: GitHubContext): number | undefined {
  const n = pull(ctx)?.number;
  if (typeof n === 'number') return n;
  const issue = ctx.payload.issue as { number?: unknown; pull_request?: unknown } | undefined;
  return issue?.pull_request && typeof issue.number === 'number' ? issue.number : undefined;
}

/** True on a pull_request event whose head lives in another repository (its token is read-only). */
export function isForkPullRequest(ctx: GitHubContext): boolean {
  const p = pull(ctx);
  if (!p || !ctx.eventName.startsWith('pull_request')) return false;
  const head = p.head?.repo?.full_name;
  const base = p.base?.repo?.full_name ?? `${ctx.owner}/${ctx.repo}`;
  if (p.head?.repo === null) return true;
  return (
    (typeof head === 'string' && head.toLowerCase() !== base.toLowerCase()) || p.head?.repo?.fork === true
  );
}

/** The reporter's sink for warnings and notes (core.warning / core.info in the action). */
export interface ReporterLog {
  info(message: string): void;
  warning(message: string): void;
}

/**
 * How hard the reporter tries. Three layers: the retry plugin (5xx, network errors), the throttling
 * plugin (rate limits, waiting out `Retry-After`), and — for the check run alone, which a required status
 * check waits for — a few attempts of the whole write.
 */
export interface GitHubRetryPolicy {
  /** Retries per request of a 5xx or a network error (`@octokit/plugin-retry`). */
  retries: number;
  /** Backoff unit (ms): the plugin waits unit × n² before its n-th retry (1 s, 4 s, 9 s). */
  backoffUnitMs: number;
  /** Rate-limit answers (403/429 "secondary rate limit", or a spent primary limit) waited out per request. */
  rateLimitRetries: number;
  /** The longest `Retry-After` (s) worth waiting; a longer one fails the request at once. */
  maxRetryAfterS: number;
  /** Milliseconds per second of `Retry-After` (1000; tests shrink it so a 60 s wait takes 60 ms). */
  retryAfterUnitMs: number;
  /** Attempts of a check-run write as a whole (create, complete), each with the retries above. */
  checkRunAttempts: number;
  /** Pause between two such attempts (ms). */
  checkRunPauseMs: number;
}

/**
 * The policy in production. GitHub's guidance for rate limits is to wait `Retry-After` (a secondary limit
 * without one: at least a minute); a 60 s wait is the most a run's reporting is worth, three times. A 5xx
 * is usually gone within seconds, so the plugin's 1 s / 4 s / 9 s backoff covers it.
 */
export const DEFAULT_GITHUB_RETRY: GitHubRetryPolicy = {
  retries: 3,
  backoffUnitMs: 1_000,
  rateLimitRetries: 3,
  maxRetryAfterS: 60,
  retryAfterUnitMs: 1_000,
  checkRunAttempts: 3,
  checkRunPauseMs: 3_000,
};

/**
 * Statuses the retry plugin must not retry: client errors, and 429 — a rate limit, which the throttling
 * plugin waits out by its `Retry-After` instead of the retry plugin's fixed backoff.
 */
const DO_NOT_RETRY = [400, 401, 403, 404, 410, 422, 429, 451];

/**
 * Spacing of two writes (POST/PATCH) by one client: `@octokit/plugin-throttling`'s default, GitHub's
 * guidance for mutative requests ("at least one second between each request"). Writes that notify
 * (comments, issues) are spaced 3 s apart.
 */
export const WRITE_SPACING_MS = 1_000;

/** GitHub's REST API version the requests are written against (the `X-GitHub-Api-Version` header). */
const API_VERSION = '2022-11-28';

export interface GitHubReporterOptions {
  log: ReporterLog;
  conclusions?: ConclusionPolicy | undefined;
  /** The plan file (repository-relative) and a locator for annotations. */
  planPath?: string | undefined;
  locate?: CheckRunOptions['locate'];
  /** The comment author to match; default: `GET /user`, or `github-actions[bot]` when that is refused. */
  commentAuthor?: string | undefined;
  /** The fetch the client uses; default: `@actions/github`'s, which honours the runner's proxy settings. */
  fetch?: typeof fetch | undefined;
  /** Deadline of one request attempt (ms); default {@link DEFAULT_GITHUB_TIMEOUT_MS}. */
  timeoutMs?: number | undefined;
  /** Overrides of {@link DEFAULT_GITHUB_RETRY}. */
  retry?: Partial<GitHubRetryPolicy> | undefined;
  /**
   * Identifies this run's check run (`external_id`), e.g. `<GITHUB_RUN_ID>-<attempt>`: a create that timed
   * out may still have landed, and the retry adopts that check run instead of opening a second one.
   */
  runKey?: string | undefined;
  /** Waits between check-run attempts (tests pass a fake). */
  sleep?: ((ms: number) => Promise<void>) | undefined;
}

/** A failed API call, with GitHub's status (0 when no answer came) and message. */
export class GitHubApiError extends Error {
  override name = 'GitHubApiError';
  constructor(
    readonly status: number,
    readonly method: string,
    readonly path: string,
    message: string,
  ) {
    super(`${method} ${path}: ${status === 0 ? 'no answer' : status} ${message}`);
  }
}

/** The shape of an Octokit `RequestError`, read structurally (the class lives in a transitive package). */
interface OctokitFailure {
  status: number;
  message: string;
  request?: { method?: string; url?: string };
  response?: { data?: unknown };
}

function isOctokitFailure(err: unknown): err is OctokitFailure {
  return err instanceof Error && typeof (err as { status?: unknown }).status === 'number';
}

/** An Octokit error as a {@link GitHubApiError}: GitHub's own message, without the documentation link. */
function apiError(err: unknown): unknown {
  if (err instanceof GitHubApiError || !isOctokitFailure(err)) return err;
  const method = err.request?.method ?? '?';
  let path = err.request?.url ?? '?';
  try {
    path = new URL(path).pathname;
  } catch {
    // a relative URL stays as it is
  }
  const data = err.response?.data as { message?: unknown } | undefined;
  const message = typeof data?.message === 'string' ? data.message : err.message;
  // No response: the request never got an answer (connection refused, reset); Octokit reports it as 500.
  return new GitHubApiError(err.response ? err.status : 0, method, path, message);
}

/** True when trying the same write again may succeed: no answer, a 5xx, or a rate limit. */
export function isTransient(err: unknown): boolean {
  if (isDeadlineError(err)) return true;
  if (!(err instanceof GitHubApiError)) return false;
  if (err.status === 0 || err.status >= 500 || err.status === 429) return true;
  return err.status === 403 && /rate limit/i.test(err.message);
}

/** What could not be posted and therefore belongs in the job summary, with the reason. */
export interface SummaryFallback {
  what: string;
  notice: string;
  body?: string;
}

/** The REST client: `@actions/github`'s Octokit with the retry and throttling plugins. */
type Client = ReturnType<typeof getOctokit>;
type Plugin = NonNullable<Parameters<typeof getOctokit>[2]>;

/**
 * The innermost request hook: one attempt under a deadline (the signal tears the request down; the
 * deadline also settles a body that stalls, which Octokit would otherwise swallow), the API version
 * header, and the token sent to the configured API origin only — a `Link` header could point anywhere.
 */
function attemptPlugin(timeoutMs: number, apiOrigin: string): Plugin {
  return (octokit) => {
    octokit.hook.wrap('request', (request, options) => {
      const { method, url } = octokit.request.endpoint.parse(options);
      const target = new URL(url);
      if (target.origin !== apiOrigin)
        throw new GitHubApiError(0, method, url, 'refusing to follow a link to another origin');
      // Set on the call's own options object: the hooks inside this one (Octokit's auth) were bound to it
      // and ignore a new object; its `request` and `headers` may be shared defaults, so they are replaced.
      options.headers = { ...options.headers, 'x-github-api-version': API_VERSION };
      return withDeadline(
        async (signal) => {
          options.request = { ...options.request, signal };
          return request(options);
        },
        timeoutMs,
        `GitHub ${method} ${target.pathname}`,
      );
    });
    return {};
  };
}

/** One reporter per run. Every public method swallows GitHub errors into warnings. */
export class GitHubReporter {
  private checkRunId: number | undefined;
  private identity: string | undefined;
  private readonly octokit: Client;
  private readonly policy: GitHubRetryPolicy;
  private readonly sleep: (ms: number) => Promise<void>;
  /** Things the job summary should carry because GitHub refused them. */
  readonly fallbacks: SummaryFallback[] = [];

  constructor(
    readonly ctx: GitHubContext,
    private readonly opts: GitHubReporterOptions,
  ) {
    this.policy = { ...DEFAULT_GITHUB_RETRY, ...definedOnly(opts.retry ?? {}) };
    this.sleep = opts.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
    const baseUrl = ctx.apiUrl.replace(/\/+$/, '');
    const log = opts.log;
    const waitOut =
      (what: string) =>
      (
        retryAfter: number,
        options: { method?: string; url?: string },
        _client: unknown,
        retryCount: number,
      ) => {
        const call = `${options.method ?? ''} ${options.url ?? ''}`.trim();
        if (retryCount < this.policy.rateLimitRetries && retryAfter <= this.policy.maxRetryAfterS) {
          log.info(
            `chaos-gate: GitHub answered ${call} with a ${what}; retrying after ${retryAfter} s (retry ${retryCount + 1} of ${this.policy.rateLimitRetries}).`,
          );
          return true;
        }
        log.info(
          `chaos-gate: GitHub answered ${call} with a ${what} (Retry-After ${retryAfter} s); not waiting longer.`,
        );
        return false;
      };
    this.octokit = getOctokit(
      ctx.token,
      {
        baseUrl,
        userAgent: 'chaos-gate',
        ...(opts.fetch ? { request: { fetch: opts.fetch } } : {}),
        retry: {
          retries: this.policy.retries,
          retryAfterBaseValue: this.policy.backoffUnitMs,
          doNotRetry: DO_NOT_RETRY,
        },
        throttle: {
          onSecondaryRateLimit: waitOut('secondary rate limit'),
          onRateLimit: waitOut('rate limit'),
          retryAfterBaseValue: this.policy.retryAfterUnitMs,
        },
        // Octokit's own notices (deprecations, a throttling handler error) go to the step log.
        log: {
          debug: () => undefined,
          info: () => undefined,
          warn: (m: string) => log.info(`chaos-gate: GitHub client: ${m}`),
          error: (m: string) => log.info(`chaos-gate: GitHub client: ${m}`),
        },
      },
      attemptPlugin(opts.timeoutMs ?? DEFAULT_GITHUB_TIMEOUT_MS, new URL(baseUrl).origin),
      retry,
      throttling,
    );
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

  /** One REST call; Octokit's errors come back as {@link GitHubApiError}s. */
  private async call<T>(route: string, params: Record<string, unknown> = {}): Promise<T> {
    try {
      // The one redactor, just before the body is serialized (SPEC §11; the builders redact too).
      const r = await this.octokit.request(route, {
        owner: this.ctx.owner,
        repo: this.ctx.repo,
        ...redactDeep(params),
      });
      return r.data as T;
    } catch (err) {
      throw apiError(err);
    }
  }

  /** Every item of a paginated list (at most {@link MAX_PAGES} pages of {@link PAGE_SIZE}). */
  private async *pages<T>(route: string, params: Record<string, unknown>): AsyncGenerator<T> {
    let read = 0;
    try {
      for await (const page of this.octokit.paginate.iterator(route, {
        owner: this.ctx.owner,
        repo: this.ctx.repo,
        per_page: PAGE_SIZE,
        ...params,
      })) {
        for (const item of page.data as T[]) yield item;
        if (++read >= MAX_PAGES) return;
      }
    } catch (err) {
      throw apiError(err);
    }
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
   * Completes the check run without a journal: `cancelled` from the post step after an unfinished
   * run, `failure` when the engine crashed before it could write a verdict. True once GitHub accepted it.
   */
  async finishCheck(conclusion: 'cancelled' | 'failure', title: string, summary: string): Promise<boolean> {
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

/** The fields of a partial that are set (`exactOptionalPropertyTypes`: undefined must not override). */
function definedOnly<T extends object>(partial: Partial<T>): Partial<T> {
  return Object.fromEntries(Object.entries(partial).filter(([, v]) => v !== undefined)) as Partial<T>;
}
