/**
 * Where the run happens, read from the Actions event: the repository, the commit a check belongs to, the
 * pull request (if any) and whether its head is a fork (whose token is read-only). Pure functions of the
 * webhook payload; the reporter (github.ts) decides what to write from them.
 */

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
