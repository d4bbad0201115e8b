/**
 * The GitHub REST client the reporter writes through: `@actions/github`'s `getOctokit` with
 * `@octokit/plugin-retry` (5xx and network errors retried with backoff) and `@octokit/plugin-throttling`
 * (GitHub's request pacing; secondary rate limits wait out their `Retry-After`), every attempt under a
 * deadline, the token sent to the configured API origin only, and every request body redacted. Octokit's
 * errors come back as {@link GitHubApiError}s; {@link isTransient} says which are worth trying again.
 */
import { getOctokit } from '@actions/github';
import { retry } from '@octokit/plugin-retry';
import { throttling } from '@octokit/plugin-throttling';
import { DEADLINES, isDeadlineError, withDeadline } from '../net/deadline.js';
import { redactDeep } from '../security/redact.js';

/** Page size for list calls: GitHub's maximum (REST pagination docs: "max 100"). */
export const PAGE_SIZE = 100;

/** Pages read at most when searching comments or issues; bounds a runaway `Link` chain. */
const MAX_PAGES = 50;

/**
 * Deadline of one REST request (ms), the body included. GitHub answers these in well under a second;
 * 10 s is an outage, and reporting never changes the verdict, so it is not worth waiting longer.
 */
export const DEFAULT_GITHUB_TIMEOUT_MS: number = DEADLINES.githubRequest;

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

/** How the client is reached and how hard it tries (a subset of the reporter's options). */
export interface GitHubClientOptions {
  log: ReporterLog;
  /** The fetch the client uses; default: `@actions/github`'s, which honours the runner's proxy settings. */
  fetch?: typeof fetch | undefined;
  /** Deadline of one request attempt (ms); default {@link DEFAULT_GITHUB_TIMEOUT_MS}. */
  timeoutMs?: number | undefined;
  /** Overrides of {@link DEFAULT_GITHUB_RETRY}. */
  retry?: Partial<GitHubRetryPolicy> | undefined;
}

/** One repository's REST client: single calls and paginated lists, errors as {@link GitHubApiError}s. */
export class GitHubClient {
  private readonly octokit: Client;
  /** The retry policy in force ({@link DEFAULT_GITHUB_RETRY} with the overrides given). */
  readonly policy: GitHubRetryPolicy;

  constructor(
    private readonly target: { apiUrl: string; token: string; owner: string; repo: string },
    opts: GitHubClientOptions,
  ) {
    this.policy = { ...DEFAULT_GITHUB_RETRY, ...definedOnly(opts.retry ?? {}) };
    const baseUrl = target.apiUrl.replace(/\/+$/, '');
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
      target.token,
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

  /** One REST call; Octokit's errors come back as {@link GitHubApiError}s. */
  async call<T>(route: string, params: Record<string, unknown> = {}): Promise<T> {
    try {
      // The one redactor, just before the body is serialized (docs/design/principles.md#security; the builders redact too).
      const r = await this.octokit.request(route, {
        owner: this.target.owner,
        repo: this.target.repo,
        ...redactDeep(params),
      });
      return r.data as T;
    } catch (err) {
      throw apiError(err);
    }
  }

  /** Every item of a paginated list (at most {@link MAX_PAGES} pages of {@link PAGE_SIZE}). */
  async *pages<T>(route: string, params: Record<string, unknown>): AsyncGenerator<T> {
    let read = 0;
    try {
      for await (const page of this.octokit.paginate.iterator(route, {
        owner: this.target.owner,
        repo: this.target.repo,
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
}

/** The fields of a partial that are set (`exactOptionalPropertyTypes`: undefined must not override). */
function definedOnly<T extends object>(partial: Partial<T>): Partial<T> {
  return Object.fromEntries(Object.entries(partial).filter(([, v]) => v !== undefined)) as Partial<T>;
}
