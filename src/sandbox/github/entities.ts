/**
 * Builders for the JSON GitHub returns, shaped to the description's response schemas (the stand-in's
 * tests validate every response against them). Only the fields GitHub marks as required plus the ones
 * chaos-gate reads are filled with meaningful values; the rest are plausible constants.
 */

/** A user or bot as the stand-in knows it. */
export interface Identity {
  login: string;
  id: number;
  type: 'User' | 'Bot';
}

/** URLs used inside entities: the API origin (for `url`) and the web origin (for `html_url`). */
export interface Origins {
  api: string;
  web: string;
}

/** `2026-01-01T00:00:00Z`: GitHub's timestamps have no milliseconds. */
export function isoSeconds(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');
}

export function nodeId(kind: string, id: number): string {
  return Buffer.from(`0:${kind}${id}`).toString('base64');
}

/** `simple-user`. */
export function simpleUser(o: Origins, u: Identity): Record<string, unknown> {
  const url = `${o.api}/users/${encodeURIComponent(u.login)}`;
  return {
    login: u.login,
    id: u.id,
    node_id: nodeId('User', u.id),
    avatar_url: `${o.web}/avatars/${u.id}`,
    gravatar_id: '',
    url,
    html_url: `${o.web}/${encodeURIComponent(u.login)}`,
    followers_url: `${url}/followers`,
    following_url: `${url}/following{/other_user}`,
    gists_url: `${url}/gists{/gist_id}`,
    starred_url: `${url}/starred{/owner}{/repo}`,
    subscriptions_url: `${url}/subscriptions`,
    organizations_url: `${url}/orgs`,
    repos_url: `${url}/repos`,
    events_url: `${url}/events{/privacy}`,
    received_events_url: `${url}/received_events`,
    type: u.type,
    site_admin: false,
  };
}

/** `private-user` (what `GET /user` returns for the token's own account). */
export function privateUser(o: Origins, u: Identity, createdAt: string): Record<string, unknown> {
  return {
    ...simpleUser(o, u),
    user_view_type: 'private',
    name: u.login,
    company: null,
    blog: '',
    location: null,
    email: null,
    hireable: null,
    bio: null,
    public_repos: 1,
    public_gists: 0,
    followers: 0,
    following: 0,
    created_at: createdAt,
    updated_at: createdAt,
    private_gists: 0,
    total_private_repos: 0,
    owned_private_repos: 0,
    disk_usage: 0,
    collaborators: 0,
    two_factor_authentication: true,
  };
}

/** The GitHub Actions app, as `check-run.app` (`nullable-integration`). */
export function actionsApp(o: Origins, createdAt: string): Record<string, unknown> {
  return {
    id: 15368,
    slug: 'github-actions',
    node_id: nodeId('Integration', 15368),
    owner: simpleUser(o, { login: 'github', id: 9919, type: 'User' }),
    name: 'GitHub Actions',
    description: 'Automate your workflow from idea to production',
    external_url: 'https://help.github.com/en/actions',
    html_url: `${o.web}/apps/github-actions`,
    created_at: createdAt,
    updated_at: createdAt,
    permissions: { checks: 'write', issues: 'write', pull_requests: 'write', metadata: 'read' },
    events: ['check_run', 'issue_comment', 'pull_request', 'push'],
  };
}

/** `repository`: a full repository object (the pull request's head and base carry one each). */
export function repository(
  o: Origins,
  owner: Identity,
  name: string,
  id: number,
  fork: boolean,
  at: string,
): Record<string, unknown> {
  const full = `${owner.login}/${name}`;
  const url = `${o.api}/repos/${full}`;
  const web = `${o.web}/${full}`;
  const t = (path: string): string => `${url}/${path}`;
  return {
    id,
    node_id: nodeId('Repository', id),
    name,
    full_name: full,
    license: null,
    forks: 0,
    permissions: { admin: false, pull: true, triage: false, push: !fork, maintain: false },
    owner: simpleUser(o, owner),
    private: false,
    html_url: web,
    description: null,
    fork,
    url,
    archive_url: t('{archive_format}{/ref}'),
    assignees_url: t('assignees{/user}'),
    blobs_url: t('git/blobs{/sha}'),
    branches_url: t('branches{/branch}'),
    collaborators_url: t('collaborators{/collaborator}'),
    comments_url: t('comments{/number}'),
    commits_url: t('commits{/sha}'),
    compare_url: t('compare/{base}...{head}'),
    contents_url: t('contents/{+path}'),
    contributors_url: t('contributors'),
    deployments_url: t('deployments'),
    downloads_url: t('downloads'),
    events_url: t('events'),
    forks_url: t('forks'),
    git_commits_url: t('git/commits{/sha}'),
    git_refs_url: t('git/refs{/sha}'),
    git_tags_url: t('git/tags{/sha}'),
    git_url: `git://example.invalid/${full}.git`,
    issue_comment_url: t('issues/comments{/number}'),
    issue_events_url: t('issues/events{/number}'),
    issues_url: t('issues{/number}'),
    keys_url: t('keys{/key_id}'),
    labels_url: t('labels{/name}'),
    languages_url: t('languages'),
    merges_url: t('merges'),
    milestones_url: t('milestones{/number}'),
    notifications_url: t('notifications{?since,all,participating}'),
    pulls_url: t('pulls{/number}'),
    releases_url: t('releases{/id}'),
    ssh_url: `git@example.invalid:${full}.git`,
    stargazers_url: t('stargazers'),
    statuses_url: t('statuses/{sha}'),
    subscribers_url: t('subscribers'),
    subscription_url: t('subscription'),
    tags_url: t('tags'),
    teams_url: t('teams'),
    trees_url: t('git/trees{/sha}'),
    clone_url: `${web}.git`,
    mirror_url: null,
    hooks_url: t('hooks'),
    svn_url: web,
    homepage: null,
    language: 'TypeScript',
    forks_count: 0,
    stargazers_count: 0,
    watchers_count: 0,
    size: 1,
    default_branch: 'main',
    open_issues_count: 0,
    is_template: false,
    topics: [],
    has_issues: true,
    has_projects: false,
    has_wiki: false,
    has_pages: false,
    has_downloads: true,
    archived: false,
    disabled: false,
    visibility: 'public',
    pushed_at: at,
    created_at: at,
    updated_at: at,
    allow_forking: true,
    open_issues: 0,
    watchers: 0,
  };
}
