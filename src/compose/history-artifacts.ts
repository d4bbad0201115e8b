/**
 * Past runs' journals from GitHub: the repository's workflow-run artifacts whose name starts with the
 * action's prefix (`chaos-gate-<plan id>`), listed through the REST API (newest first, expired ones
 * skipped) and each downloaded and unzipped by the official toolkit, `@actions/artifact`
 * (`downloadArtifact` with `findBy`: another run's artifact, with a token that may read Actions). The
 * toolkit reaches the API at `GITHUB_API_URL` (github.com when unset), as every Actions client does.
 */
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { DEADLINES, withDeadline } from '../net/deadline.js';
import { errorMessage } from '../errors/message.js';
import { GitHubClient } from '../report/github-client.js';
import type { UnreadJournal } from '../journal/collect.js';

/** The action's artifact name is `chaos-gate-<plan id>` (src/action/run.ts). */
export const JOURNAL_ARTIFACT_PREFIX = 'chaos-gate-';

export interface ArtifactHistoryOptions {
  apiUrl: string;
  token: string;
  owner: string;
  repo: string;
  /** Where the artifacts are unzipped, one directory each (`<run id>-<artifact id>`). */
  dir: string;
  prefix?: string;
  /**
   * Only artifacts of workflow runs on this branch (GitHub's `workflow_run.head_branch`): a promotion
   * should rest on the default branch's runs, not on what any branch's workflow uploaded.
   */
  branch?: string | undefined;
  /** Artifacts downloaded at most, newest first: bounds the time and disk a long history takes. */
  max: number;
  log: (line: string) => void;
}

interface ListedArtifact {
  id: number;
  name: string;
  expired: boolean;
  digest?: string | null;
  workflow_run?: { id?: number; head_branch?: string } | null;
}

/** Downloads past runs' journal artifacts under `o.dir`; what could not be fetched is listed, not hidden. */
export async function downloadJournalArtifacts(
  o: ArtifactHistoryOptions,
): Promise<{ downloaded: number; problems: UnreadJournal[] }> {
  const prefix = o.prefix ?? JOURNAL_ARTIFACT_PREFIX;
  const client = new GitHubClient(
    { apiUrl: o.apiUrl, token: o.token, owner: o.owner, repo: o.repo },
    { log: { info: o.log, warning: o.log } },
  );
  const wanted: ListedArtifact[] = [];
  for await (const a of client.pages<ListedArtifact>('GET /repos/{owner}/{repo}/actions/artifacts', {})) {
    if (!a.name.startsWith(prefix) || a.expired) continue;
    if (o.branch !== undefined && a.workflow_run?.head_branch !== o.branch) continue;
    wanted.push(a);
    if (wanted.length >= o.max) break;
  }
  const { DefaultArtifactClient } = await import('@actions/artifact');
  const artifacts = new DefaultArtifactClient();
  const problems: UnreadJournal[] = [];
  let downloaded = 0;
  for (const a of wanted) {
    const runId = a.workflow_run?.id;
    const where = `artifact ${a.name} (id ${a.id}${runId === undefined ? '' : `, run ${runId}`})`;
    if (runId === undefined) {
      problems.push({ file: where, error: `${where}: GitHub names no workflow run for it` });
      continue;
    }
    const path = join(o.dir, `${runId}-${a.id}`);
    mkdirSync(path, { recursive: true });
    try {
      const result = await withDeadline(
        () =>
          artifacts.downloadArtifact(a.id, {
            path,
            ...(a.digest ? { expectedHash: a.digest } : {}),
            findBy: {
              token: o.token,
              workflowRunId: runId,
              repositoryOwner: o.owner,
              repositoryName: o.repo,
            },
          }),
        DEADLINES.githubArtifactDownload,
        `download of ${where}`,
      );
      if (result.digestMismatch) {
        // Its files are not read as journals: a changed journal is no evidence.
        rmSync(path, { recursive: true, force: true });
        problems.push({
          file: where,
          error: `${where}: its content does not match the digest GitHub recorded at upload`,
        });
        continue;
      }
      downloaded++;
    } catch (error) {
      problems.push({ file: where, error: `${where}: not downloaded: ${errorMessage(error)}` });
    }
  }
  return { downloaded, problems };
}
