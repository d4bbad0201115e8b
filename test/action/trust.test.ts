/**
 * Fork detection fails closed (issue 14.3, docs/design/principles.md#security): the decision `run` makes for every event, from the
 * payload GitHub writes. `issue_comment` looks the pull request up through the OpenAPI-validating GitHub
 * stand-in. The same matrix runs through the bundled action against the sandbox in
 * test/security/fork-matrix.test.ts.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decideTrust, pullLookup, readEvent, type EventPayload } from '../../src/action/context.js';
import { serveStandIn, TOKENS, type Served } from '../github/serve.js';

const REPO = 'acme/shop';
const repo = (full: string, id = full === REPO ? 1 : 2): Record<string, unknown> => ({
  id,
  full_name: full,
  fork: full !== REPO,
});
const pr = (head: unknown, base: unknown = repo(REPO)): EventPayload => ({
  ok: true,
  payload: { pull_request: { number: 7, head: { sha: 'a'.repeat(40), repo: head }, base: { repo: base } } },
});
const decide = (
  eventName: string,
  event: EventPayload,
  lookupPull?: Parameters<typeof decideTrust>[0]['lookupPull'],
) => decideTrust({ eventName, repository: REPO, event, lookupPull });

let s: Served;
let dir: string;
beforeAll(async () => {
  s = await serveStandIn({ tokens: TOKENS });
  dir = mkdtempSync(join(tmpdir(), 'chaos-gate-trust-'));
});
afterAll(async () => {
  await s.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('decideTrust: which events may drive a fault', () => {
  it('runs on push, schedule and workflow_dispatch whatever the payload says', async () => {
    for (const name of ['push', 'schedule', 'workflow_dispatch']) {
      expect(await decide(name, { ok: false, error: 'unreadable' })).toMatchObject({ trusted: true });
    }
  });

  it('runs a pull_request (and pull_request_target) whose head repository is the base', async () => {
    expect(await decide('pull_request', pr(repo(REPO)))).toMatchObject({ trusted: true });
    expect(await decide('pull_request_target', pr(repo(REPO)))).toMatchObject({ trusted: true });
  });

  it('runs a same-repository pull request in a repository that is itself a fork (fork: true on both sides)', async () => {
    const self = { id: 1, full_name: REPO, fork: true };
    expect(await decide('pull_request', pr(self, self))).toMatchObject({ trusted: true });
  });

  it('refuses a pull_request and a pull_request_target from a fork, naming both repositories', async () => {
    for (const name of ['pull_request', 'pull_request_target', 'pull_request_review']) {
      const t = await decide(name, pr(repo('mallory/shop')));
      expect(t).toEqual({
        trusted: false,
        why: `${name}: the head repository mallory/shop is not the base repository acme/shop (a fork)`,
      });
    }
  });

  it('refuses a pull_request whose payload cannot be read, or that lacks the head repository', async () => {
    expect(await decide('pull_request', { ok: false, error: 'GITHUB_EVENT_PATH is not set' })).toEqual({
      trusted: false,
      why: 'the pull_request event payload cannot be read (GITHUB_EVENT_PATH is not set)',
    });
    expect((await decide('pull_request', pr(null))).why).toContain('names no head repository');
    expect((await decide('pull_request', pr(undefined))).why).toContain('names no head repository');
    expect((await decide('pull_request', { ok: true, payload: {} })).why).toBe(
      'the pull_request payload has no pull_request',
    );
  });

  it('refuses a head repository with the base name but another id (a renamed fork)', async () => {
    const t = await decide('pull_request', pr({ id: 99, full_name: REPO }, { id: 1, full_name: REPO }));
    expect(t).toMatchObject({ trusted: false });
    expect(t.why).toContain('id 99 is not the base repository id 1');
  });

  it('refuses a pull request event of another repository than the workflow’s', async () => {
    const other = repo('acme/other', 5);
    const t = await decide('pull_request', pr(other, other));
    expect(t.why).toBe(
      "pull_request: the base repository acme/other is not this workflow's repository acme/shop",
    );
  });

  it('refuses workflow_run started by a fork’s pull request, and runs one started in the repository', async () => {
    const run = (head: unknown): EventPayload => ({
      ok: true,
      payload: { workflow_run: { event: 'pull_request', head_repository: head, repository: repo(REPO) } },
    });
    expect(await decide('workflow_run', run(repo('mallory/shop')))).toEqual({
      trusted: false,
      why: 'workflow_run (started by pull_request): the head repository mallory/shop is not the base repository acme/shop (a fork)',
    });
    expect(await decide('workflow_run', run(repo(REPO)))).toMatchObject({ trusted: true });
    expect((await decide('workflow_run', run(null))).trusted).toBe(false);
    expect((await decide('workflow_run', { ok: true, payload: {} })).trusted).toBe(false);
  });

  it('refuses issue_comment on a fork’s pull request, looked up through the GitHub API', async () => {
    const forked = s.gh.state.addPullRequest({
      owner: 'acme',
      repo: 'shop',
      headSha: 'b'.repeat(40),
      headOwner: 'mallory',
    });
    const own = s.gh.state.addPullRequest({ owner: 'acme', repo: 'shop', headSha: 'c'.repeat(40) });
    const lookup = pullLookup({
      apiUrl: s.url,
      token: 'ghs-write',
      owner: 'acme',
      repo: 'shop',
      eventName: 'issue_comment',
      sha: '',
      payload: {},
    });
    const comment = (n: number): EventPayload => ({
      ok: true,
      payload: { issue: { number: n, pull_request: { url: 'x' } }, comment: { body: '/chaos run' } },
    });
    expect(await decide('issue_comment', comment(forked.number), lookup)).toEqual({
      trusted: false,
      why: `issue_comment on pull request #${forked.number}: the head repository mallory/shop is not the base repository acme/shop (a fork)`,
    });
    expect(await decide('issue_comment', comment(own.number), lookup)).toMatchObject({ trusted: true });
    // Without a token the head cannot be checked: refuse.
    expect((await decide('issue_comment', comment(own.number))).trusted).toBe(false);
    // A pull request the API does not know: refuse.
    const missing = await decide('issue_comment', comment(9999), lookup);
    expect(missing.trusted).toBe(false);
    expect(missing.why).toContain('HTTP 404');
    expect(s.gh.rejected).toEqual([]);
  });

  it('runs issue_comment on a plain issue (the default branch’s code)', async () => {
    const t = await decide('issue_comment', { ok: true, payload: { issue: { number: 3 } } });
    expect(t).toMatchObject({ trusted: true });
  });

  it('refuses an event it does not know, and a missing event name or repository', async () => {
    expect((await decide('check_suite', { ok: true, payload: {} })).why).toContain(
      'cannot tell whether a check_suite event runs trusted code',
    );
    expect((await decide('', { ok: true, payload: {} })).trusted).toBe(false);
    expect(
      (await decideTrust({ eventName: 'pull_request', repository: undefined, event: pr(repo(REPO)) }))
        .trusted,
    ).toBe(false);
  });
});

describe('readEvent', () => {
  it('reads the payload as a JSON object, and says why when it cannot', () => {
    const good = join(dir, 'event.json');
    writeFileSync(good, JSON.stringify({ ref: 'refs/heads/main' }));
    expect(readEvent({ GITHUB_EVENT_PATH: good })).toEqual({ ok: true, payload: { ref: 'refs/heads/main' } });
    const bad = join(dir, 'bad.json');
    writeFileSync(bad, '{"pull_request": ');
    expect(readEvent({ GITHUB_EVENT_PATH: bad }).ok).toBe(false);
    const list = join(dir, 'list.json');
    writeFileSync(list, '[]');
    expect(readEvent({ GITHUB_EVENT_PATH: list })).toEqual({
      ok: false,
      error: `the event payload ${list} is not a JSON object`,
    });
    expect(readEvent({})).toEqual({ ok: false, error: 'GITHUB_EVENT_PATH is not set' });
    const device = readEvent({ GITHUB_EVENT_PATH: '/dev/zero' });
    expect(device).toMatchObject({ ok: false });
    expect(!device.ok && device.error).toContain('it is a character device');
  });
});
