import { readFileSync } from 'node:fs';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Journal } from '../../src/journal/types.js';
import { locateField } from '../../src/plan/load.js';
import { GitHubReporter, type GitHubContext } from '../../src/report/github.js';
import { commentMarker } from '../../src/report/common.js';
import { serveStandIn, TOKENS, type Served } from './serve.js';

const FIX = new URL('../../fixtures/github/', import.meta.url);
const journal = (name: string): Journal =>
  JSON.parse(readFileSync(new URL(`journals/${name}.json`, FIX), 'utf8')) as Journal;
const planText = readFileSync(new URL('plans/redis-partition.yaml', FIX), 'utf8');
const MERGE_SHA = 'a'.repeat(40);
const HEAD_SHA = 'b'.repeat(40);
const BOT = { login: 'github-actions[bot]', id: 41898282, type: 'Bot' as const };

let s: Served;
let warnings: string[] = [];
const log = { info: () => undefined, warning: (m: string) => void warnings.push(m) };

beforeAll(async () => {
  s = await serveStandIn({ tokens: TOKENS });
});
afterAll(async () => {
  await s.close();
});
afterEach(() => {
  warnings = [];
});

function pushCtx(token = 'ghs-write', repo = 'shop'): GitHubContext {
  return {
    apiUrl: s.url,
    token,
    owner: 'acme',
    repo,
    eventName: 'push',
    sha: MERGE_SHA,
    payload: { ref: 'refs/heads/main' },
  };
}

function prCtx(
  repo: string,
  number: number,
  opts: { token?: string; headRepo?: string } = {},
): GitHubContext {
  return {
    apiUrl: s.url,
    token: opts.token ?? 'ghs-write',
    owner: 'acme',
    repo,
    eventName: 'pull_request',
    sha: MERGE_SHA,
    payload: {
      pull_request: {
        number,
        head: {
          sha: HEAD_SHA,
          repo: { full_name: opts.headRepo ?? `acme/${repo}`, fork: opts.headRepo !== undefined },
        },
        base: { repo: { full_name: `acme/${repo}` } },
      },
    },
  };
}

function reporter(
  ctx: GitHubContext,
  extra: Partial<ConstructorParameters<typeof GitHubReporter>[1]> = {},
): GitHubReporter {
  return new GitHubReporter(ctx, {
    log,
    planPath: 'chaos/redis-partition.yaml',
    locate: (f) => locateField(planText, f),
    ...extra,
  });
}

describe('GitHub reporter against the stand-in', () => {
  it('creates the check run in_progress on GITHUB_SHA for a push and completes it with the verdict', async () => {
    const before = s.gh.rejected.length;
    const r = reporter(pushCtx('ghs-write', 'push-repo'));
    const id = await r.startCheck('redis-partition', Date.UTC(2026, 2, 2, 9, 15));
    expect(id).toBeTypeOf('number');
    const started = s.gh.state.checkRuns.get(id as number);
    expect(started).toMatchObject({
      status: 'in_progress',
      head_sha: MERGE_SHA,
      name: 'chaos-gate / redis-partition',
      conclusion: null,
    });
    await r.completeCheck(journal('aborted'));
    const done = s.gh.state.checkRuns.get(id as number);
    expect(done).toMatchObject({ status: 'completed', conclusion: 'failure' });
    expect(done?.output.title).toContain('aborted: error_ratio 0.024 above 0.01');
    const rule = locateField(planText, 'abort.rules[0]');
    expect(done?.annotations).toContainEqual(
      expect.objectContaining({
        path: 'chaos/redis-partition.yaml',
        start_line: rule?.line,
        annotation_level: 'failure',
      }),
    );
    expect(s.gh.rejected.slice(before)).toEqual([]);
    expect(s.gh.invalidResponses).toEqual([]);
    expect(warnings).toEqual([]);
  });

  it('puts the check run on the PR head, not the merge commit, for pull_request events', async () => {
    const before = s.gh.rejected.length;
    const pr = s.gh.state.addPullRequest({ owner: 'acme', repo: 'pr-repo', headSha: HEAD_SHA });
    const r = reporter(prCtx('pr-repo', pr.number));
    const id = await r.startCheck('redis-partition', Date.now());
    await r.completeCheck(journal('held'));
    const run = s.gh.state.checkRuns.get(id as number);
    expect(run).toMatchObject({ head_sha: HEAD_SHA, conclusion: 'success' });
    expect(
      [...s.gh.state.checkRuns.values()].filter((c) => c.head_sha === MERGE_SHA && c.repo === 'pr-repo'),
    ).toEqual([]);
    expect(s.gh.rejected.slice(before)).toEqual([]);
  });

  it('sends more than 50 annotations in several requests of at most 50, all accepted', async () => {
    const before = s.gh.rejected.length;
    const r = reporter(pushCtx('ghs-write', 'big-repo'));
    const id = await r.startCheck('redis-partition', Date.now());
    await r.completeCheck(journal('oversized'));
    const run = s.gh.state.checkRuns.get(id as number);
    expect(run?.annotations.length).toBeGreaterThan(100);
    expect(run?.annotationRequests).toBe(Math.ceil((run?.annotations.length ?? 0) / 50));
    expect(run?.output.text?.length).toBeLessThanOrEqual(65_535);
    expect(s.gh.rejected.slice(before)).toEqual([]);
  });

  it('creates the PR comment once, then updates it in place when ours is past 3 pages of other comments', async () => {
    const before = s.gh.rejected.length;
    const pr = s.gh.state.addPullRequest({ owner: 'acme', repo: 'comments', headSha: HEAD_SHA });
    for (let i = 0; i < 120; i++)
      s.gh.state.addComment('acme', 'comments', pr.number, `review ${i}`, {
        login: 'bob',
        id: 7,
        type: 'User',
      });
    const r = reporter(prCtx('comments', pr.number));
    expect(await r.upsertComment('redis-partition', `${commentMarker('redis-partition')}\nfirst`)).toBe(
      'created',
    );
    for (let i = 0; i < 130; i++)
      s.gh.state.addComment('acme', 'comments', pr.number, `later ${i}`, {
        login: 'bob',
        id: 7,
        type: 'User',
      });
    const listBefore = s.gh.requests.filter((q) => q.operationId === 'issues/list-comments').length;
    expect(
      await reporter(prCtx('comments', pr.number)).upsertComment(
        'redis-partition',
        `${commentMarker('redis-partition')}\nsecond`,
      ),
    ).toBe('updated');
    const pagesRead =
      s.gh.requests.filter((q) => q.operationId === 'issues/list-comments').length - listBefore;
    expect(pagesRead).toBe(3);
    const ours = s.gh.state
      .commentsOn('acme', 'comments', pr.number)
      .filter((c) => c.user.login === BOT.login);
    expect(ours).toHaveLength(1);
    expect(ours[0]?.body).toContain('second');
    expect(s.gh.state.commentsOn('acme', 'comments', pr.number)).toHaveLength(251);
    expect(s.gh.rejected.slice(before)).toEqual([]);
  });

  it('does not hijack a comment whose marker was copied by another author', async () => {
    const pr = s.gh.state.addPullRequest({ owner: 'acme', repo: 'hijack', headSha: HEAD_SHA });
    const fake = s.gh.state.addComment(
      'acme',
      'hijack',
      pr.number,
      `${commentMarker('redis-partition')}\nlooks official`,
      { login: 'mallory', id: 666, type: 'User' },
    );
    const result = await reporter(prCtx('hijack', pr.number)).upsertComment(
      'redis-partition',
      `${commentMarker('redis-partition')}\nreal`,
    );
    expect(result).toBe('created');
    expect(fake.body).toContain('looks official');
    const ours = s.gh.state.commentsOn('acme', 'hijack', pr.number).filter((c) => c.user.login === BOT.login);
    expect(ours.map((c) => c.body)).toEqual([`${commentMarker('redis-partition')}\nreal`]);
  });

  it('matches comments by the token user from GET /user for a personal token', async () => {
    const pr = s.gh.state.addPullRequest({ owner: 'acme', repo: 'pat', headSha: HEAD_SHA });
    const mine = s.gh.state.addComment('acme', 'pat', pr.number, `${commentMarker('redis-partition')}\nold`, {
      login: 'alice',
      id: 501,
      type: 'User',
    });
    s.gh.state.addComment('acme', 'pat', pr.number, `${commentMarker('redis-partition')}\nbot copy`, BOT);
    const result = await reporter(prCtx('pat', pr.number, { token: 'ghp-alice' })).upsertComment(
      'redis-partition',
      `${commentMarker('redis-partition')}\nnew`,
    );
    expect(result).toBe('updated');
    expect(mine.body).toContain('new');
  });

  it('falls back to the job summary on a fork PR without writing anything', async () => {
    const pr = s.gh.state.addPullRequest({
      owner: 'acme',
      repo: 'forked',
      headSha: HEAD_SHA,
      headOwner: 'forker',
    });
    const r = reporter(prCtx('forked', pr.number, { token: 'ghs-readonly', headRepo: 'forker/forked' }));
    const writesBefore = s.gh.requests.filter((q) => q.method !== 'GET').length;
    expect(await r.startCheck('redis-partition', Date.now())).toBeUndefined();
    expect(await r.upsertComment('redis-partition', `${commentMarker('redis-partition')}\nreview`)).toBe(
      'fallback',
    );
    expect(s.gh.requests.filter((q) => q.method !== 'GET').length).toBe(writesBefore);
    expect(r.fallbacks.map((f) => f.what)).toEqual(['check run', 'PR comment']);
    expect(r.fallbacks[1]?.notice).toContain('comes from a fork');
    expect(r.fallbacks[1]?.body).toContain('review');
  });

  it('falls back to the job summary when a read-only token gets 403, and warns', async () => {
    const pr = s.gh.state.addPullRequest({ owner: 'acme', repo: 'readonly', headSha: HEAD_SHA });
    const r = reporter(prCtx('readonly', pr.number, { token: 'ghs-readonly' }));
    expect(await r.upsertComment('redis-partition', `${commentMarker('redis-partition')}\nx`)).toBe(
      'fallback',
    );
    expect(r.fallbacks[0]?.notice).toContain('403');
    expect(warnings.join('\n')).toContain('403 Resource not accessible by integration');
    expect(s.gh.state.commentsOn('acme', 'readonly', pr.number)).toEqual([]);
  });

  it('opens a findings issue on deviated, updates it on aborted, and closes it on held', async () => {
    const before = s.gh.rejected.length;
    const ctx = pushCtx('ghs-write', 'nightly');
    s.gh.state.issues.push({
      id: 1,
      owner: 'acme',
      repo: 'nightly',
      number: 99,
      title: 'chaos-gate finding: redis-partition',
      body: '<!-- chaos-gate:findings=redis-partition --> copied',
      state: 'open',
      state_reason: null,
      labels: ['chaos-gate'],
      user: { login: 'mallory', id: 666, type: 'User' },
      created_at: '2026-01-01T00:00:00Z',
      updated_at: '2026-01-01T00:00:00Z',
      closed_at: null,
    });
    expect(
      await reporter(ctx).reportFindings(journal('deviated'), { runUrl: 'https://example.test/run/1' }),
    ).toBe('opened');
    const issues = () => s.gh.state.issues.filter((i) => i.repo === 'nightly' && i.user.login === BOT.login);
    expect(issues()).toHaveLength(1);
    expect(issues()[0]).toMatchObject({
      title: 'chaos-gate finding: redis-partition',
      labels: ['chaos-gate'],
      state: 'open',
    });
    expect(await reporter(ctx).reportFindings(journal('aborted'))).toBe('updated');
    expect(issues()).toHaveLength(1);
    expect(issues()[0]?.body).toContain('🛑 aborted');
    const n = issues()[0]?.number as number;
    expect(s.gh.state.commentsOn('acme', 'nightly', n)).toHaveLength(1);
    expect(await reporter(ctx).reportFindings(journal('inconclusive'))).toBe('none');
    expect(await reporter(ctx).reportFindings(journal('held'))).toBe('closed');
    expect(issues()[0]).toMatchObject({ state: 'closed', state_reason: 'completed' });
    expect(s.gh.state.commentsOn('acme', 'nightly', n)).toHaveLength(2);
    expect(s.gh.state.issues.find((i) => i.number === 99)?.state).toBe('open');
    expect(await reporter(ctx).reportFindings(journal('held'))).toBe('none');
    expect(s.gh.rejected.slice(before)).toEqual([]);
    expect(s.gh.invalidResponses).toEqual([]);
  });

  it('never throws when GitHub is unreachable: it warns and the caller keeps its verdict', async () => {
    const dead: GitHubContext = { ...pushCtx(), apiUrl: 'http://127.0.0.1:9' };
    // Connection refused is retried like a 5xx; a 1 ms backoff keeps the test short.
    const r = reporter(dead, { retry: { backoffUnitMs: 1, checkRunPauseMs: 1 } });
    expect(await r.startCheck('redis-partition', Date.now())).toBeUndefined();
    await r.completeCheck(journal('held'));
    expect(await r.reportFindings(journal('deviated'))).toBe('failed');
    expect(warnings.length).toBe(3);
    expect(warnings.every((w) => w.includes('The verdict is unchanged'))).toBe(true);
  });
});
