/** The GitHub Actions environment, read once: API URL, repository, event, SHA and the run's link. */
import { readFileSync } from 'node:fs';
import { isForkPullRequest, type GitHubContext } from '../report/github.js';

/** The public API when `GITHUB_API_URL` is unset (outside Actions, or older runners). */
export const DEFAULT_API_URL = 'https://api.github.com';

/** The webhook payload, or `{}` when there is none or it cannot be read. */
export function readEventPayload(env: Record<string, string | undefined>): Record<string, unknown> {
  const path = env.GITHUB_EVENT_PATH;
  if (!path) return {};
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
  } catch {
    return {};
  }
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

/** True when the event is a pull request from a fork (decided from the payload, token or not). */
export function isForkEvent(env: Record<string, string | undefined>): boolean {
  const ctx = githubContextFromEnv({ GITHUB_REPOSITORY: 'unknown/unknown', ...env }, 'unused');
  return ctx !== undefined && isForkPullRequest(ctx);
}
