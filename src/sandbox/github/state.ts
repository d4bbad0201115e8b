/**
 * What the GitHub stand-in remembers: check runs (with their appended annotations), issue and PR
 * comments, issues and pull requests. Tests seed it directly (a PR, comments by other people) and read
 * it back to assert what the reporter did.
 */
import {
  actionsApp,
  isoSeconds,
  nodeId,
  repository,
  simpleUser,
  type Identity,
  type Origins,
} from './entities.js';

/** One check-run annotation as sent by the client. */
export interface StoredAnnotation {
  path: string;
  start_line: number;
  end_line: number;
  start_column?: number;
  end_column?: number;
  annotation_level: string;
  message: string;
  title?: string;
  raw_details?: string;
}

export interface StoredCheckRun {
  id: number;
  owner: string;
  repo: string;
  name: string;
  head_sha: string;
  status: string;
  conclusion: string | null;
  started_at: string | null;
  completed_at: string | null;
  external_id: string | null;
  details_url: string | null;
  output: { title: string | null; summary: string | null; text: string | null };
  /** Every annotation ever sent: GitHub appends on each update. */
  annotations: StoredAnnotation[];
  /** How many requests carried annotations (each at most 50). */
  annotationRequests: number;
}

export interface StoredComment {
  id: number;
  owner: string;
  repo: string;
  issue: number;
  body: string;
  user: Identity;
  created_at: string;
  updated_at: string;
}

export interface StoredIssue {
  id: number;
  owner: string;
  repo: string;
  number: number;
  title: string;
  body: string | null;
  state: 'open' | 'closed';
  state_reason: string | null;
  labels: string[];
  user: Identity;
  created_at: string;
  updated_at: string;
  closed_at: string | null;
}

export interface StoredPull {
  id: number;
  owner: string;
  repo: string;
  number: number;
  title: string;
  user: Identity;
  head: { sha: string; ref: string; owner: string; repo: string };
  base: { sha: string; ref: string };
  created_at: string;
}

export interface StoredDeployment {
  id: number;
  owner: string;
  repo: string;
  sha: string;
  ref: string;
  task: string;
  payload: Record<string, unknown> | string;
  environment: string;
  description: string | null;
  transient_environment: boolean;
  production_environment: boolean;
  creator: Identity;
  created_at: string;
  updated_at: string;
  /** Every status posted, oldest first. */
  statuses: StoredDeploymentStatus[];
}

export interface StoredDeploymentStatus {
  id: number;
  state: string;
  description: string;
  environment: string;
  log_url: string;
  environment_url: string;
  creator: Identity;
  created_at: string;
}

export interface PullSeed {
  owner: string;
  repo: string;
  headSha: string;
  baseSha?: string;
  headRef?: string;
  /** The head repository's owner; a different owner than `owner` makes the PR a fork PR. */
  headOwner?: string;
  title?: string;
  author?: Identity;
}

/** The stand-in's mutable state. */
/** A workflow run's artifact: its files, zipped on download as GitHub does. */
export interface StoredArtifact {
  id: number;
  owner: string;
  repo: string;
  name: string;
  runId: number;
  headSha: string;
  headBranch: string;
  files: Record<string, string | Buffer>;
  created_at: string;
  /** Past its retention: listed with `expired: true`, and its download answers 410. */
  expired: boolean;
}

/** What a test seeds for an artifact (the upload itself goes through the runner's own service). */
export interface ArtifactSeed {
  owner: string;
  repo: string;
  name: string;
  runId: number;
  files: Record<string, string | Buffer>;
  headSha?: string;
  /** The workflow run's branch; default `main`. */
  headBranch?: string;
  /** ms since the epoch; default now. */
  createdAt?: number;
  expired?: boolean;
}

/** Days GitHub keeps an artifact by default ("90 days", Actions docs: artifact and log retention). */
const RETENTION_DAYS = 90;

export class GitHubState {
  readonly checkRuns = new Map<number, StoredCheckRun>();
  readonly artifacts: StoredArtifact[] = [];
  /** Signatures of the blob URLs a download redirected to, and the artifact each opens. */
  readonly blobSignatures = new Map<string, number>();
  readonly comments: StoredComment[] = [];
  readonly issues: StoredIssue[] = [];
  readonly pulls: StoredPull[] = [];
  readonly deployments = new Map<number, StoredDeployment>();
  private nextId = 1000;
  private readonly numbers = new Map<string, number>();
  private readonly repoIds = new Map<string, number>();

  constructor(private readonly now: () => number) {}

  id(): number {
    return this.nextId++;
  }

  time(): string {
    return isoSeconds(this.now());
  }

  /** Issue and PR numbers share one sequence per repository, as on GitHub. */
  nextNumber(owner: string, repo: string): number {
    const key = `${owner}/${repo}`.toLowerCase();
    const n = (this.numbers.get(key) ?? 0) + 1;
    this.numbers.set(key, n);
    return n;
  }

  repoId(owner: string, repo: string): number {
    const key = `${owner}/${repo}`.toLowerCase();
    let id = this.repoIds.get(key);
    if (id === undefined) this.repoIds.set(key, (id = this.id()));
    return id;
  }

  /** Adds a workflow run's artifact (tests seed these; uploads go through the runner's service). */
  addArtifact(seed: ArtifactSeed): StoredArtifact {
    const a: StoredArtifact = {
      id: this.id(),
      owner: seed.owner,
      repo: seed.repo,
      name: seed.name,
      runId: seed.runId,
      headSha: seed.headSha ?? '0'.repeat(40),
      headBranch: seed.headBranch ?? 'main',
      files: seed.files,
      created_at: isoSeconds(seed.createdAt ?? this.now()),
      expired: seed.expired ?? false,
    };
    this.artifacts.push(a);
    return a;
  }

  /** The REST `artifact` object. `size_in_bytes` is the files' total, as uploaded. */
  artifactJson(o: Origins, a: StoredArtifact): Record<string, unknown> {
    const base = `${o.api}/repos/${a.owner}/${a.repo}/actions/artifacts/${a.id}`;
    const created = Date.parse(a.created_at);
    const repositoryId = this.repoId(a.owner, a.repo);
    return {
      id: a.id,
      node_id: nodeId('Artifact', a.id),
      name: a.name,
      size_in_bytes: Object.values(a.files).reduce((n, f) => n + Buffer.byteLength(f), 0),
      url: base,
      archive_download_url: `${base}/zip`,
      expired: a.expired,
      created_at: a.created_at,
      updated_at: a.created_at,
      expires_at: isoSeconds(created + RETENTION_DAYS * 86_400_000),
      workflow_run: {
        id: a.runId,
        repository_id: repositoryId,
        head_repository_id: repositoryId,
        head_branch: a.headBranch,
        head_sha: a.headSha,
      },
    };
  }

  /** Opens a pull request (tests and the sandbox seed these; the API here cannot create them). */
  addPullRequest(seed: PullSeed): StoredPull {
    const pull: StoredPull = {
      id: this.id(),
      owner: seed.owner,
      repo: seed.repo,
      number: this.nextNumber(seed.owner, seed.repo),
      title: seed.title ?? 'Change a chaos plan',
      user: seed.author ?? { login: 'octocat', id: 583231, type: 'User' },
      head: {
        sha: seed.headSha,
        ref: seed.headRef ?? 'feature',
        owner: seed.headOwner ?? seed.owner,
        repo: seed.repo,
      },
      base: { sha: seed.baseSha ?? '0'.repeat(40), ref: 'main' },
      created_at: this.time(),
    };
    this.pulls.push(pull);
    return pull;
  }

  /** Adds a comment as someone else (e.g. a reviewer, or an impostor copying the marker). */
  addComment(owner: string, repo: string, issue: number, body: string, user: Identity): StoredComment {
    const at = this.time();
    const c: StoredComment = {
      id: this.id(),
      owner,
      repo,
      issue,
      body,
      user,
      created_at: at,
      updated_at: at,
    };
    this.comments.push(c);
    return c;
  }

  findIssueOrPull(owner: string, repo: string, n: number): StoredIssue | StoredPull | undefined {
    const same = (x: { owner: string; repo: string; number: number }): boolean =>
      sameRepo(x, owner, repo) && x.number === n;
    return this.issues.find(same) ?? this.pulls.find(same);
  }

  commentsOn(owner: string, repo: string, issue: number): StoredComment[] {
    return this.comments.filter((c) => sameRepo(c, owner, repo) && c.issue === issue);
  }

  // ---- response shapes -------------------------------------------------------------------------

  checkRunJson(o: Origins, c: StoredCheckRun): Record<string, unknown> {
    const at = this.time();
    const pulls = this.pulls.filter((p) => sameRepo(p, c.owner, c.repo) && p.head.sha === c.head_sha);
    return {
      id: c.id,
      head_sha: c.head_sha,
      node_id: nodeId('CheckRun', c.id),
      external_id: c.external_id,
      url: `${o.api}/repos/${c.owner}/${c.repo}/check-runs/${c.id}`,
      html_url: `${o.web}/${c.owner}/${c.repo}/runs/${c.id}`,
      details_url: c.details_url,
      status: c.status,
      conclusion: c.conclusion,
      started_at: c.started_at,
      completed_at: c.completed_at,
      output: {
        title: c.output.title,
        summary: c.output.summary,
        text: c.output.text,
        annotations_count: c.annotations.length,
        annotations_url: `${o.api}/repos/${c.owner}/${c.repo}/check-runs/${c.id}/annotations`,
      },
      name: c.name,
      check_suite: { id: 1 },
      app: actionsApp(o, at),
      pull_requests: pulls.map((p) => ({
        id: p.id,
        number: p.number,
        url: `${o.api}/repos/${p.owner}/${p.repo}/pulls/${p.number}`,
        head: {
          ref: p.head.ref,
          sha: p.head.sha,
          repo: {
            id: this.repoId(p.head.owner, p.head.repo),
            url: `${o.api}/repos/${p.head.owner}/${p.head.repo}`,
            name: p.head.repo,
          },
        },
        base: {
          ref: p.base.ref,
          sha: p.base.sha,
          repo: {
            id: this.repoId(p.owner, p.repo),
            url: `${o.api}/repos/${p.owner}/${p.repo}`,
            name: p.repo,
          },
        },
      })),
    };
  }

  deploymentJson(o: Origins, d: StoredDeployment): Record<string, unknown> {
    const url = `${o.api}/repos/${d.owner}/${d.repo}/deployments/${d.id}`;
    return {
      url,
      id: d.id,
      node_id: nodeId('Deployment', d.id),
      sha: d.sha,
      ref: d.ref,
      task: d.task,
      payload: d.payload,
      original_environment: d.environment,
      environment: d.environment,
      description: d.description,
      creator: simpleUser(o, d.creator),
      created_at: d.created_at,
      updated_at: d.updated_at,
      statuses_url: `${url}/statuses`,
      repository_url: `${o.api}/repos/${d.owner}/${d.repo}`,
      transient_environment: d.transient_environment,
      production_environment: d.production_environment,
      performed_via_github_app: actionsApp(o, d.created_at),
    };
  }

  deploymentStatusJson(o: Origins, d: StoredDeployment, st: StoredDeploymentStatus): Record<string, unknown> {
    const deploymentUrl = `${o.api}/repos/${d.owner}/${d.repo}/deployments/${d.id}`;
    return {
      url: `${deploymentUrl}/statuses/${st.id}`,
      id: st.id,
      node_id: nodeId('DeploymentStatus', st.id),
      state: st.state,
      creator: simpleUser(o, st.creator),
      description: st.description,
      environment: st.environment,
      // GitHub copies `log_url` into the legacy `target_url`.
      target_url: st.log_url,
      created_at: st.created_at,
      updated_at: st.created_at,
      deployment_url: deploymentUrl,
      repository_url: `${o.api}/repos/${d.owner}/${d.repo}`,
      // Optional in the description and `uri`-formatted: left out rather than sent empty.
      ...(st.environment_url ? { environment_url: st.environment_url } : {}),
      ...(st.log_url ? { log_url: st.log_url } : {}),
      performed_via_github_app: actionsApp(o, st.created_at),
    };
  }

  annotationJson(a: StoredAnnotation): Record<string, unknown> {
    return {
      path: a.path,
      start_line: a.start_line,
      end_line: a.end_line,
      start_column: a.start_column ?? null,
      end_column: a.end_column ?? null,
      annotation_level: a.annotation_level,
      title: a.title ?? null,
      message: a.message,
      raw_details: a.raw_details ?? null,
      blob_href: '',
    };
  }

  commentJson(o: Origins, c: StoredComment): Record<string, unknown> {
    const repoApi = `${o.api}/repos/${c.owner}/${c.repo}`;
    return {
      id: c.id,
      node_id: nodeId('IssueComment', c.id),
      url: `${repoApi}/issues/comments/${c.id}`,
      html_url: `${o.web}/${c.owner}/${c.repo}/issues/${c.issue}#issuecomment-${c.id}`,
      issue_url: `${repoApi}/issues/${c.issue}`,
      body: c.body,
      user: simpleUser(o, c.user),
      created_at: c.created_at,
      updated_at: c.updated_at,
      author_association: c.user.type === 'Bot' ? 'NONE' : 'MEMBER',
    };
  }

  issueJson(o: Origins, i: StoredIssue): Record<string, unknown> {
    const repoApi = `${o.api}/repos/${i.owner}/${i.repo}`;
    const issueApi = `${repoApi}/issues/${i.number}`;
    return {
      id: i.id,
      node_id: nodeId('Issue', i.id),
      url: issueApi,
      repository_url: repoApi,
      labels_url: `${issueApi}/labels{/name}`,
      comments_url: `${issueApi}/comments`,
      events_url: `${issueApi}/events`,
      html_url: `${o.web}/${i.owner}/${i.repo}/issues/${i.number}`,
      number: i.number,
      state: i.state,
      state_reason: i.state_reason,
      title: i.title,
      body: i.body,
      user: simpleUser(o, i.user),
      labels: i.labels.map((name) => this.labelJson(o, i.owner, i.repo, name)),
      assignee: null,
      assignees: [],
      milestone: null,
      locked: false,
      active_lock_reason: null,
      comments: this.commentsOn(i.owner, i.repo, i.number).length,
      closed_at: i.closed_at,
      created_at: i.created_at,
      updated_at: i.updated_at,
      author_association: 'NONE',
    };
  }

  labelJson(o: Origins, owner: string, repo: string, name: string): Record<string, unknown> {
    const id = this.labelId(name);
    return {
      id,
      node_id: nodeId('Label', id),
      url: `${o.api}/repos/${owner}/${repo}/labels/${encodeURIComponent(name)}`,
      name,
      description: null,
      color: 'ededed',
      default: false,
    };
  }

  private labelId(name: string): number {
    let h = 7;
    for (const ch of name) h = (h * 31 + ch.charCodeAt(0)) % 1_000_000_007;
    return h;
  }

  pullJson(o: Origins, p: StoredPull): Record<string, unknown> {
    const repoApi = `${o.api}/repos/${p.owner}/${p.repo}`;
    const web = `${o.web}/${p.owner}/${p.repo}/pull/${p.number}`;
    const at = p.created_at;
    const baseOwner: Identity = { login: p.owner, id: this.repoId(p.owner, ''), type: 'User' };
    const headOwner: Identity = { login: p.head.owner, id: this.repoId(p.head.owner, ''), type: 'User' };
    const fork = p.head.owner.toLowerCase() !== p.owner.toLowerCase();
    const link = (href: string): { href: string } => ({ href });
    return {
      url: `${repoApi}/pulls/${p.number}`,
      id: p.id,
      node_id: nodeId('PullRequest', p.id),
      html_url: web,
      diff_url: `${web}.diff`,
      patch_url: `${web}.patch`,
      issue_url: `${repoApi}/issues/${p.number}`,
      commits_url: `${repoApi}/pulls/${p.number}/commits`,
      review_comments_url: `${repoApi}/pulls/${p.number}/comments`,
      review_comment_url: `${repoApi}/pulls/comments{/number}`,
      comments_url: `${repoApi}/issues/${p.number}/comments`,
      statuses_url: `${repoApi}/statuses/${p.head.sha}`,
      number: p.number,
      state: 'open',
      locked: false,
      title: p.title,
      user: simpleUser(o, p.user),
      body: null,
      labels: [],
      milestone: null,
      active_lock_reason: null,
      created_at: at,
      updated_at: at,
      closed_at: null,
      merged_at: null,
      merge_commit_sha: null,
      assignee: null,
      assignees: [],
      requested_reviewers: [],
      requested_teams: [],
      head: {
        label: `${p.head.owner}:${p.head.ref}`,
        ref: p.head.ref,
        sha: p.head.sha,
        user: simpleUser(o, headOwner),
        repo: repository(o, headOwner, p.head.repo, this.repoId(p.head.owner, p.head.repo), fork, at),
      },
      base: {
        label: `${p.owner}:${p.base.ref}`,
        ref: p.base.ref,
        sha: p.base.sha,
        user: simpleUser(o, baseOwner),
        repo: repository(o, baseOwner, p.repo, this.repoId(p.owner, p.repo), false, at),
      },
      _links: {
        self: link(`${repoApi}/pulls/${p.number}`),
        html: link(web),
        issue: link(`${repoApi}/issues/${p.number}`),
        comments: link(`${repoApi}/issues/${p.number}/comments`),
        review_comments: link(`${repoApi}/pulls/${p.number}/comments`),
        review_comment: link(`${repoApi}/pulls/comments{/number}`),
        commits: link(`${repoApi}/pulls/${p.number}/commits`),
        statuses: link(`${repoApi}/statuses/${p.head.sha}`),
      },
      author_association: 'CONTRIBUTOR',
      auto_merge: null,
      draft: false,
      merged: false,
      mergeable: true,
      rebaseable: true,
      mergeable_state: 'clean',
      merged_by: null,
      comments: this.commentsOn(p.owner, p.repo, p.number).length,
      review_comments: 0,
      maintainer_can_modify: false,
      commits: 1,
      additions: 1,
      deletions: 0,
      changed_files: 1,
    };
  }
}

function sameRepo(x: { owner: string; repo: string }, owner: string, repo: string): boolean {
  return x.owner.toLowerCase() === owner.toLowerCase() && x.repo.toLowerCase() === repo.toLowerCase();
}
