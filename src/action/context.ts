/**
 * The GitHub Actions environment, read once: API URL, repository, event, SHA and the run's link — and
 * whether the event proves the code in the workspace is trusted enough to drive a fault (docs/design/principles.md#security,
 * docs/security.md).
 */
import { readFileBoundedSync } from '../files/read.js';
import { DEADLINES, withDeadline } from '../net/deadline.js';
import type { GitHubContext } from '../report/github.js';
import { errorMessage } from '../errors/message.js';

/** The public API when `GITHUB_API_URL` is unset (outside Actions, or older runners). */
export const DEFAULT_API_URL = 'https://api.github.com';

/** Largest event payload read: GitHub caps webhook payloads at 25 MB ("Webhook payload object" docs). */
export const MAX_EVENT_PAYLOAD_BYTES = 25 * 1024 * 1024;

/** The webhook payload as read: a JSON object, or why there is none. */
export type EventPayload = { ok: true; payload: Record<string, unknown> } | { ok: false; error: string };

/** Reads `GITHUB_EVENT_PATH` (a regular file, capped while reading) as a JSON object. */
export function readEvent(env: Record<string, string | undefined>): EventPayload {
  const path = env.GITHUB_EVENT_PATH;
  if (!path) return { ok: false, error: 'GITHUB_EVENT_PATH is not set' };
  try {
    const { text } = readFileBoundedSync(path, {
      what: 'event payload',
      maxBytes: MAX_EVENT_PAYLOAD_BYTES,
    });
    const json: unknown = JSON.parse(text);
    if (json === null || typeof json !== 'object' || Array.isArray(json))
      return { ok: false, error: `the event payload ${path} is not a JSON object` };
    return { ok: true, payload: json as Record<string, unknown> };
  } catch (err) {
    return { ok: false, error: errorMessage(err) };
  }
}

/** The webhook payload, or `{}` when there is none or it cannot be read (reporting only; never trust). */
export function readEventPayload(env: Record<string, string | undefined>): Record<string, unknown> {
  const event = readEvent(env);
  return event.ok ? event.payload : {};
}

/** The workflow run's web page (logs and artifacts), when the environment names one. */
export function runUrl(env: Record<string, string | undefined>): string | undefined {
  const { GITHUB_SERVER_URL: server, GITHUB_REPOSITORY: repo, GITHUB_RUN_ID: id } = env;
  return server && repo && id ? `${server}/${repo}/actions/runs/${id}` : undefined;
}

/** The reporter's context; undefined without a token or repository (reporting to GitHub is then off). */
export function githubContextFromEnv(
  env: Record<string, string | undefined>,
  token: string | undefined,
): GitHubContext | undefined {
  const [owner, repo] = (env.GITHUB_REPOSITORY ?? '').split('/');
  if (!token || !owner || !repo) return undefined;
  return {
    apiUrl: env.GITHUB_API_URL || DEFAULT_API_URL,
    token,
    owner,
    repo,
    eventName: env.GITHUB_EVENT_NAME ?? '',
    sha: env.GITHUB_SHA ?? '',
    payload: readEventPayload(env),
    runUrl: runUrl(env),
  };
}

/** Whether `run` may start a fault for this event, and why (quoted in the refusal). */
export type Trust = { trusted: true; why: string } | { trusted: false; why: string };

/** Events whose code is the repository's own and that only people with write access can start. */
export const TRUSTED_EVENTS: ReadonlySet<string> = new Set([
  'push',
  'schedule',
  'workflow_dispatch',
  'repository_dispatch',
  'merge_group',
  'release',
  'deployment',
  'deployment_status',
]);

/** Events that carry a `pull_request` in their payload. */
export const PULL_REQUEST_EVENTS: ReadonlySet<string> = new Set([
  'pull_request',
  'pull_request_target',
  'pull_request_review',
  'pull_request_review_comment',
]);

/** A repository as a payload names it. */
interface RepoRef {
  full_name?: unknown;
  id?: unknown;
}

/** The head and base repository of a pull request, as the API or a payload gives them. */
export interface PullRepos {
  head: RepoRef | null | undefined;
  base: RepoRef | null | undefined;
}

/** Looks up a pull request's head and base repository (for `issue_comment`, whose payload lacks them). */
export type PullLookup = (pullNumber: number) => Promise<PullRepos>;

function record(v: unknown): Record<string, unknown> | undefined {
  return v !== null && typeof v === 'object' && !Array.isArray(v)
    ? (v as Record<string, unknown>)
    : undefined;
}

function fullName(r: RepoRef | null | undefined): string | undefined {
  return typeof r?.full_name === 'string' && r.full_name !== '' ? r.full_name : undefined;
}

/**
 * Same repository: the full names match (GitHub names are case-insensitive) and, where both carry one,
 * so do the ids. `fork: true` alone proves nothing — a repository that is itself a fork has it on
 * same-repository pull requests too.
 */
function sameRepo(
  head: RepoRef | null | undefined,
  base: RepoRef | null | undefined,
  repository: string,
): string | undefined {
  const h = fullName(head);
  const b = fullName(base);
  if (h === undefined)
    return 'the payload names no head repository (a deleted fork, or an incomplete payload)';
  if (b === undefined) return 'the payload names no base repository';
  if (h.toLowerCase() !== b.toLowerCase())
    return `the head repository ${h} is not the base repository ${b} (a fork)`;
  if (b.toLowerCase() !== repository.toLowerCase())
    return `the base repository ${b} is not this workflow's repository ${repository}`;
  if (typeof head?.id === 'number' && typeof base?.id === 'number' && head.id !== base.id)
    return `the head repository id ${head.id} is not the base repository id ${base.id} (a fork)`;
  return undefined;
}

/**
 * Fork detection that fails closed (docs/design/principles.md#security): `run` proceeds only when the event proves the code is
 * trusted. Pull-request events need a readable payload whose head repository is the base; an unreadable
 * payload or a missing head repository refuses; `workflow_run` and `issue_comment` tied to a fork's pull
 * request refuse; `push`, `schedule`, `workflow_dispatch` and the other events only writers can start
 * run; any other event refuses, naming it.
 */
export async function decideTrust(o: {
  eventName: string | undefined;
  repository: string | undefined;
  event: EventPayload;
  /** Needed for `issue_comment` on a pull request; without it such a comment refuses. */
  lookupPull?: PullLookup | undefined;
}): Promise<Trust> {
  const name = o.eventName ?? '';
  if (TRUSTED_EVENTS.has(name))
    return { trusted: true, why: `${name} runs the repository's own code and needs write access to start` };
  if (!name) return { trusted: false, why: 'GITHUB_EVENT_NAME is not set, so the event cannot be checked' };
  const repository = o.repository ?? '';
  if (!/^[^/\s]+\/[^/\s]+$/.test(repository))
    return {
      trusted: false,
      why: `GITHUB_REPOSITORY is ${repository ? `"${repository}"` : 'not set'}, so the event cannot be checked`,
    };
  if (!o.event.ok)
    return { trusted: false, why: `the ${name} event payload cannot be read (${o.event.error})` };
  const payload = o.event.payload;

  if (PULL_REQUEST_EVENTS.has(name)) {
    const pr = record(payload.pull_request);
    if (!pr) return { trusted: false, why: `the ${name} payload has no pull_request` };
    const problem = sameRepo(
      record(pr.head)?.repo as RepoRef | null,
      record(pr.base)?.repo as RepoRef,
      repository,
    );
    if (problem) return { trusted: false, why: `${name}: ${problem}` };
    return { trusted: true, why: `${name} from a branch of ${repository} itself` };
  }

  if (name === 'workflow_run') {
    const run = record(payload.workflow_run);
    if (!run) return { trusted: false, why: 'the workflow_run payload has no workflow_run' };
    const problem = sameRepo(run.head_repository as RepoRef | null, run.repository as RepoRef, repository);
    const by = typeof run.event === 'string' ? ` (started by ${run.event})` : '';
    if (problem) return { trusted: false, why: `workflow_run${by}: ${problem}` };
    return { trusted: true, why: `workflow_run${by} from ${repository} itself` };
  }

  if (name === 'issue_comment') {
    const issue = record(payload.issue);
    if (!issue) return { trusted: false, why: 'the issue_comment payload has no issue' };
    if (!issue.pull_request)
      return { trusted: true, why: "issue_comment on an issue: the workflow runs the default branch's code" };
    const number = issue.number;
    if (typeof number !== 'number')
      return { trusted: false, why: 'the issue_comment payload has no issue number' };
    if (!o.lookupPull)
      return {
        trusted: false,
        why: `issue_comment on pull request #${number}: its head repository cannot be checked without a github-token`,
      };
    let repos: PullRepos;
    try {
      repos = await o.lookupPull(number);
    } catch (err) {
      return {
        trusted: false,
        why: `issue_comment on pull request #${number}: its head repository cannot be checked (${errorMessage(err)})`,
      };
    }
    const problem = sameRepo(repos.head, repos.base, repository);
    if (problem) return { trusted: false, why: `issue_comment on pull request #${number}: ${problem}` };
    return { trusted: true, why: `issue_comment on pull request #${number} from a branch of ${repository}` };
  }

  return {
    trusted: false,
    why: `chaos-gate cannot tell whether a ${name} event runs trusted code; trigger run from ${[...TRUSTED_EVENTS].slice(0, 3).join(', ')}, a same-repository pull request or workflow_run`,
  };
}

/** Reads a pull request's head and base repository through the REST API (`GET /repos/…/pulls/{n}`). */
export function pullLookup(ctx: GitHubContext, doFetch: typeof fetch = fetch): PullLookup {
  return async (n) => {
    const url = `${ctx.apiUrl.replace(/\/+$/, '')}/repos/${encodeURIComponent(ctx.owner)}/${encodeURIComponent(ctx.repo)}/pulls/${n}`;
    const json = await withDeadline(
      async (signal) => {
        const res = await doFetch(url, {
          headers: {
            authorization: `Bearer ${ctx.token}`,
            accept: 'application/vnd.github+json',
            'x-github-api-version': '2022-11-28',
            'user-agent': 'chaos-gate',
          },
          signal,
        });
        if (!res.ok) throw new Error(`GET /repos/${ctx.owner}/${ctx.repo}/pulls/${n}: HTTP ${res.status}`);
        return (await res.json()) as unknown;
      },
      DEADLINES.githubRequest,
      `GitHub GET /repos/${ctx.owner}/${ctx.repo}/pulls/${n}`,
    );
    const pr = record(json);
    return {
      head: record(record(pr?.head)?.repo) as RepoRef | undefined,
      base: record(record(pr?.base)?.repo) as RepoRef | undefined,
    };
  };
}
