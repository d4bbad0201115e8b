/**
 * The GitHub reporter: the only part of report/ that does I/O. It talks to the REST API at
 * `GITHUB_API_URL` with `fetch`: the check run (created `in_progress` before preflight, completed with
 * the verdict, annotations 50 per request), the PR comment (found by marker and author across every
 * page, updated in place) and findings issues. GitHub errors never change the verdict: they are logged
 * as warnings, and what could not be written is handed back for the job summary.
 */
import type { Journal } from '../journal/types.js';
import {
  annotationBatches,
  checkRunPayload,
  checkRunStartPayload,
  type CheckRunOptions,
} from './check-run.js';
import { commentMarker, findingsMarker, type ConclusionPolicy } from './common.js';
import { fallbackNotice } from './comment.js';
import {
  FINDINGS_LABEL,
  FINDING_VERDICTS,
  findingsComment,
  findingsIssue,
  heldComment,
  type FindingsOptions,
} from './findings.js';

/** The login GitHub gives comments written with an Actions `GITHUB_TOKEN`. */
export const ACTIONS_BOT_LOGIN = 'github-actions[bot]';

/** Page size for list calls: GitHub's maximum (REST pagination docs: "max 100"). */
const PAGE_SIZE = 100;

/** Pages read at most when searching comments or issues; bounds a runaway `Link` chain. */
const MAX_PAGES = 50;

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

export interface GitHubReporterOptions {
  log: ReporterLog;
  conclusions?: ConclusionPolicy | undefined;
  /** The plan file (repository-relative) and a locator for annotations. */
  planPath?: string | undefined;
  locate?: CheckRunOptions['locate'];
  /** The comment author to match; default: `GET /user`, or `github-actions[bot]` when that is refused. */
  commentAuthor?: string | undefined;
  fetch?: typeof fetch;
}

/** A failed API call, with GitHub's status and message. */
export class GitHubApiError extends Error {
  override name = 'GitHubApiError';
  constructor(
    readonly status: number,
    readonly method: string,
    readonly path: string,
    message: string,
  ) {
    super(`${method} ${path}: ${status} ${message}`);
  }
}

interface ApiResponse {
  status: number;
  json: unknown;
  link: string | null;
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
  private readonly doFetch: typeof fetch;
  /** Things the job summary should carry because GitHub refused them. */
  readonly fallbacks: SummaryFallback[] = [];

  constructor(
    readonly ctx: GitHubContext,
    private readonly opts: GitHubReporterOptions,
  ) {
    this.doFetch = opts.fetch ?? fetch;
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

  private async api(method: string, pathOrUrl: string, body?: unknown): Promise<ApiResponse> {
    const base = this.ctx.apiUrl.replace(/\/+$/, '');
    const url = pathOrUrl.startsWith('http') ? pathOrUrl : `${base}${pathOrUrl}`;
    // A Link header could point anywhere; the token goes only to the configured API origin.
    if (new URL(url).origin !== new URL(base).origin)
      throw new GitHubApiError(0, method, url, 'refusing to follow a link to another origin');
    const res = await this.doFetch(url, {
      method,
      headers: {
        authorization: `Bearer ${this.ctx.token}`,
        accept: 'application/vnd.github+json',
        'x-github-api-version': '2022-11-28',
        'user-agent': 'chaos-gate',
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await res.text();
    let json: unknown = undefined;
    try {
      json = text ? JSON.parse(text) : undefined;
    } catch {
      json = text;
    }
    if (res.status >= 400) {
      const msg = (json as { message?: unknown } | undefined)?.message;
      throw new GitHubApiError(
        res.status,
        method,
        new URL(url).pathname,
        typeof msg === 'string' ? msg : res.statusText,
      );
    }
    return { status: res.status, json, link: res.headers.get('link') };
  }

  /** Every item of a paginated list, following `Link: rel="next"`. */
  private async *pages<T>(path: string): AsyncGenerator<T> {
    let next: string | undefined = `${path}${path.includes('?') ? '&' : '?'}per_page=${PAGE_SIZE}`;
    for (let i = 0; next && i < MAX_PAGES; i++) {
      const r: ApiResponse = await this.api('GET', next);
      for (const item of (r.json as T[]) ?? []) yield item;
      next = /<([^>]+)>;\s*rel="next"/.exec(r.link ?? '')?.[1];
    }
  }

  private repoPath(): string {
    return `/repos/${encodeURIComponent(this.ctx.owner)}/${encodeURIComponent(this.ctx.repo)}`;
  }

  private warn(what: string, err: unknown): void {
    this.opts.log.warning(
      `chaos-gate: could not ${what}: ${err instanceof Error ? err.message : String(err)}. The verdict is unchanged.`,
    );
  }

  private forbidden(err: unknown): boolean {
    return err instanceof GitHubApiError && err.status === 403;
  }

  /** Creates the check run `in_progress` before preflight; returns its id, or undefined on failure. */
  async startCheck(planId: string, startedAt: number): Promise<number | undefined> {
    if (isForkPullRequest(this.ctx)) {
      this.fallbacks.push({ what: 'check run', notice: fallbackNotice('fork', 'check run') });
      return undefined;
    }
    try {
      const r = await this.api(
        'POST',
        `${this.repoPath()}/check-runs`,
        checkRunStartPayload(planId, headSha(this.ctx), startedAt, this.ctx.runUrl),
      );
      this.checkRunId = (r.json as { id: number }).id;
      return this.checkRunId;
    } catch (err) {
      if (this.forbidden(err))
        this.fallbacks.push({ what: 'check run', notice: fallbackNotice('forbidden', 'check run') });
      this.warn('create the check run', err);
      return undefined;
    }
  }

  /** Completes the check run with the verdict (creating it if the start failed), then sends the remaining annotations. */
  async completeCheck(journal: Journal, notes: string[] = []): Promise<void> {
    if (isForkPullRequest(this.ctx)) return;
    if (this.fallbacks.some((f) => f.what === 'check run')) return;
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
      if (this.checkRunId === undefined) {
        const r = await this.api('POST', `${this.repoPath()}/check-runs`, payload);
        this.checkRunId = (r.json as { id: number }).id;
      } else {
        await this.api('PATCH', `${this.repoPath()}/check-runs/${this.checkRunId}`, payload);
      }
      for (const annotations of annotationBatches(journal, opts)) {
        await this.api('PATCH', `${this.repoPath()}/check-runs/${this.checkRunId}`, {
          output: { title: payload.output.title, summary: payload.output.summary, annotations },
        });
      }
    } catch (err) {
      if (this.forbidden(err))
        this.fallbacks.push({ what: 'check run', notice: fallbackNotice('forbidden', 'check run') });
      this.warn('complete the check run', err);
    }
  }

  /**
   * Completes the check run without a journal: `cancelled` from the post step after an unfinished
   * run, `failure` when the engine crashed before it could write a verdict.
   */
  async finishCheck(conclusion: 'cancelled' | 'failure', title: string, summary: string): Promise<void> {
    if (this.checkRunId === undefined) return;
    try {
      await this.api('PATCH', `${this.repoPath()}/check-runs/${this.checkRunId}`, {
        status: 'completed',
        conclusion,
        output: { title, summary },
      });
    } catch (err) {
      this.warn(`complete the check run as ${conclusion}`, err);
    }
  }

  /** The login whose comments are ours: the token's user, or the Actions bot for an installation token. */
  async author(): Promise<string> {
    if (this.opts.commentAuthor) return this.opts.commentAuthor;
    if (this.identity) return this.identity;
    try {
      const r = await this.api('GET', '/user');
      this.identity = String((r.json as { login: unknown }).login);
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
        `${this.repoPath()}/issues/${n}/comments`,
      )) {
        // The marker alone is not enough: anyone can paste it into their own comment.
        if (c.user?.login === me && c.body?.includes(marker)) existing = c.id;
      }
      if (existing !== undefined) {
        await this.api('PATCH', `${this.repoPath()}/issues/comments/${existing}`, { body });
        return 'updated';
      }
      await this.api('POST', `${this.repoPath()}/issues/${n}/comments`, { body });
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
      }>(`${this.repoPath()}/issues?state=open&labels=${encodeURIComponent(FINDINGS_LABEL)}`)) {
        if (!i.pull_request && i.user?.login === me && i.body?.includes(marker)) open = i.number;
      }
      if (verdict === 'held') {
        if (open === undefined) return 'none';
        await this.api('POST', `${this.repoPath()}/issues/${open}/comments`, {
          body: heldComment(journal, opts),
        });
        await this.api('PATCH', `${this.repoPath()}/issues/${open}`, {
          state: 'closed',
          state_reason: 'completed',
        });
        return 'closed';
      }
      const issue = findingsIssue(journal, opts);
      if (open === undefined) {
        await this.api('POST', `${this.repoPath()}/issues`, issue);
        return 'opened';
      }
      await this.api('PATCH', `${this.repoPath()}/issues/${open}`, { title: issue.title, body: issue.body });
      await this.api('POST', `${this.repoPath()}/issues/${open}/comments`, {
        body: findingsComment(journal, opts),
      });
      return 'updated';
    } catch (err) {
      this.warn('update the findings issue', err);
      return 'failed';
    }
  }
}
