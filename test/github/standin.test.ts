import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveStandIn, TOKENS, type Served } from './serve.js';

let s: Served;
beforeAll(async () => {
  s = await serveStandIn({ tokens: TOKENS, now: () => Date.UTC(2026, 0, 2, 3, 4, 5) });
});
afterAll(async () => {
  await s.close();
});

// Responses are walked loosely: the stand-in validates their shape against the description itself.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Loose = any;

async function call(
  method: string,
  path: string,
  body?: unknown,
  token = 'ghs-write',
): Promise<{ status: number; json: Loose; link: string | null }> {
  const res = await fetch(s.url + path, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      accept: 'application/vnd.github+json',
    },
    ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
  });
  const text = await res.text();
  return { status: res.status, json: text ? JSON.parse(text) : undefined, link: res.headers.get('link') };
}

describe('GitHub stand-in', () => {
  it('creates, updates and lists a check run, with responses that match the description', async () => {
    const before = s.gh.rejected.length;
    const created = await call('POST', '/repos/acme/shop/check-runs', {
      name: 'chaos-gate / redis',
      head_sha: 'a'.repeat(40),
      status: 'in_progress',
    });
    expect(created.status).toBe(201);
    expect(created.json).toMatchObject({
      name: 'chaos-gate / redis',
      status: 'in_progress',
      conclusion: null,
      head_sha: 'a'.repeat(40),
    });
    const id = created.json.id as number;
    const done = await call('PATCH', `/repos/acme/shop/check-runs/${id}`, {
      conclusion: 'failure',
      output: {
        title: 'deviated',
        summary: 's',
        annotations: [
          { path: 'chaos/p.yaml', start_line: 3, end_line: 3, annotation_level: 'failure', message: 'm' },
        ],
      },
    });
    expect(done.status).toBe(200);
    expect(done.json).toMatchObject({
      status: 'completed',
      conclusion: 'failure',
      completed_at: '2026-01-02T03:04:05Z',
    });
    expect(done.json.output.annotations_count).toBe(1);
    const list = await call(
      'GET',
      `/repos/acme/shop/commits/${'a'.repeat(40)}/check-runs?check_name=${encodeURIComponent('chaos-gate / redis')}`,
    );
    expect(list.json.total_count).toBe(1);
    expect(list.json.check_runs[0].id).toBe(id);
    expect(s.gh.rejected.length).toBe(before);
    expect(s.gh.invalidResponses).toEqual([]);
  });

  it('rejects a check run without head_sha with 422 and the Ajv error, and records it', async () => {
    const before = s.gh.rejected.length;
    const r = await call('POST', '/repos/acme/shop/check-runs', { name: 'x', status: 'in_progress' });
    expect(r.status).toBe(422);
    expect(r.json.errors).toContainEqual(
      expect.objectContaining({ code: 'required', message: "must have required property 'head_sha'" }),
    );
    expect(s.gh.rejected.slice(before)).toEqual([
      expect.objectContaining({ status: 422, operationId: 'checks/create' }),
    ]);
    expect(s.gh.state.checkRuns.size).toBeGreaterThan(0);
    expect([...s.gh.state.checkRuns.values()].some((c) => c.name === 'x')).toBe(false);
  });

  it('rejects an unknown conclusion and a wrongly typed field', async () => {
    const r1 = await call('POST', '/repos/acme/shop/check-runs', {
      name: 'x',
      head_sha: 'b',
      conclusion: 'passed',
    });
    expect(r1.status).toBe(422);
    expect(r1.json.errors[0]).toMatchObject({ code: 'enum', field: '/conclusion' });
    const r2 = await call('POST', '/repos/acme/shop/issues', { title: 't', labels: 'chaos-gate' });
    expect(r2.status).toBe(422);
    expect(r2.json.errors.map((e: { field: string }) => e.field)).toContain('/labels');
  });

  it('answers 422 for a summary over 65 535 characters and for 51 annotations in one request', async () => {
    const long = await call('POST', '/repos/acme/shop/check-runs', {
      name: 'x',
      head_sha: 'c',
      output: { title: 't', summary: 'x'.repeat(65_536) },
    });
    expect(long.status).toBe(422);
    expect(long.json.errors[0]).toMatchObject({ code: 'maxLength', field: '/output/summary' });
    const fits = await call('POST', '/repos/acme/shop/check-runs', {
      name: 'fits',
      head_sha: 'c',
      output: { title: 't', summary: 'x'.repeat(65_535) },
    });
    expect(fits.status).toBe(201);
    const ann = Array.from({ length: 51 }, (_, i) => ({
      path: 'p.yaml',
      start_line: i + 1,
      end_line: i + 1,
      annotation_level: 'warning',
      message: 'm',
    }));
    const many = await call('PATCH', `/repos/acme/shop/check-runs/${fits.json.id}`, {
      output: { title: 't', summary: 's', annotations: ann },
    });
    expect(many.status).toBe(422);
    expect(many.json.errors[0]).toMatchObject({ code: 'maxItems', field: '/output/annotations' });
    const fifty = await call('PATCH', `/repos/acme/shop/check-runs/${fits.json.id}`, {
      output: { title: 't', summary: 's', annotations: ann.slice(0, 50) },
    });
    expect(fifty.status).toBe(200);
    expect(fifty.json.output.annotations_count).toBe(50);
  });

  it('answers 422 for a comment body over 65 536 characters, as GitHub does', async () => {
    const pr = s.gh.state.addPullRequest({ owner: 'acme', repo: 'shop', headSha: '2'.repeat(40) });
    const long = await call('POST', `/repos/acme/shop/issues/${pr.number}/comments`, {
      body: 'x'.repeat(65_537),
    });
    expect(long.status).toBe(422);
    expect(long.json.message).toContain('body is too long (maximum is 65536 characters)');
    const fits = await call('POST', `/repos/acme/shop/issues/${pr.number}/comments`, {
      body: 'x'.repeat(65_536),
    });
    expect(fits.status).toBe(201);
  });

  it('refuses to complete a check run without a conclusion', async () => {
    const r = await call('POST', '/repos/acme/shop/check-runs', {
      name: 'x',
      head_sha: 'd',
      status: 'completed',
    });
    expect(r.status).toBe(422);
  });

  it('validates path parameters: a non-numeric issue number is 422', async () => {
    const r = await call('GET', '/repos/acme/shop/issues/abc/comments');
    expect(r.status).toBe(422);
    expect(r.json.errors[0]).toMatchObject({ code: 'type', field: '/issue_number' });
  });

  it('answers 404 for a path GitHub does not have and records it', async () => {
    const before = s.gh.rejected.length;
    const r = await call('GET', '/repos/acme/shop/no-such-thing');
    expect(r.status).toBe(404);
    expect(s.gh.rejected.slice(before)).toEqual([expect.objectContaining({ status: 404 })]);
  });

  it('answers 400 for a body that is not JSON', async () => {
    const r = await call('POST', '/repos/acme/shop/check-runs', '{"name": ');
    expect(r.status).toBe(400);
    expect(r.json.message).toBe('Problems parsing JSON');
  });

  it('requires a known token', async () => {
    const none = await fetch(`${s.url}/repos/acme/shop/issues`);
    expect(none.status).toBe(401);
    const bad = await call('GET', '/repos/acme/shop/issues', undefined, 'nope');
    expect(bad.status).toBe(401);
    expect(bad.json.message).toBe('Bad credentials');
  });

  it('gives a read-only token 403 on writes but lets it read', async () => {
    const pr = s.gh.state.addPullRequest({
      owner: 'acme',
      repo: 'shop',
      headSha: 'e'.repeat(40),
      headOwner: 'forker',
    });
    const write = await call(
      'POST',
      `/repos/acme/shop/issues/${pr.number}/comments`,
      { body: 'hi' },
      'ghs-readonly',
    );
    expect(write.status).toBe(403);
    expect(write.json.message).toBe('Resource not accessible by integration');
    const read = await call('GET', `/repos/acme/shop/pulls/${pr.number}`, undefined, 'ghs-readonly');
    expect(read.status).toBe(200);
    expect(read.json.head).toMatchObject({
      sha: 'e'.repeat(40),
      repo: { full_name: 'forker/shop', fork: true },
    });
    expect(read.json.base.repo.full_name).toBe('acme/shop');
    expect(s.gh.state.commentsOn('acme', 'shop', pr.number)).toEqual([]);
    expect(s.gh.invalidResponses).toEqual([]);
  });

  it('answers GET /user for a personal token and 403 for an installation token', async () => {
    const me = await call('GET', '/user', undefined, 'ghp-alice');
    expect(me.status).toBe(200);
    expect(me.json).toMatchObject({ login: 'alice', id: 501, type: 'User' });
    const bot = await call('GET', '/user', undefined, 'ghs-write');
    expect(bot.status).toBe(403);
    expect(s.gh.invalidResponses).toEqual([]);
  });

  it('paginates comments with per_page/page and Link headers', async () => {
    const pr = s.gh.state.addPullRequest({ owner: 'acme', repo: 'shop', headSha: 'f'.repeat(40) });
    for (let i = 0; i < 7; i++)
      s.gh.state.addComment('acme', 'shop', pr.number, `c${i}`, { login: 'bob', id: 7, type: 'User' });
    const p1 = await call('GET', `/repos/acme/shop/issues/${pr.number}/comments?per_page=3`);
    expect(p1.json.map((c: { body: string }) => c.body)).toEqual(['c0', 'c1', 'c2']);
    expect(p1.link).toContain('page=2>; rel="next"');
    expect(p1.link).toContain('page=3>; rel="last"');
    expect(p1.link).not.toContain('rel="prev"');
    const p3 = await call('GET', `/repos/acme/shop/issues/${pr.number}/comments?per_page=3&page=3`);
    expect(p3.json.map((c: { body: string }) => c.body)).toEqual(['c6']);
    expect(p3.link).toContain('page=2>; rel="prev"');
    expect(p3.link).not.toContain('rel="next"');
    const big = await call('GET', `/repos/acme/shop/issues/${pr.number}/comments?per_page=500`);
    expect(big.json).toHaveLength(7);
    expect(big.link).toBeNull();
  });

  it('keeps issues: create with labels, list by label, comment, close', async () => {
    const created = await call('POST', '/repos/acme/shop/issues', {
      title: 'chaos-gate: redis did not hold',
      body: 'b',
      labels: ['chaos-gate'],
    });
    expect(created.status).toBe(201);
    await call('POST', '/repos/acme/shop/issues', { title: 'unrelated', labels: ['bug'] });
    const listed = await call('GET', '/repos/acme/shop/issues?labels=chaos-gate&state=open');
    expect(listed.json.map((i: { title: string }) => i.title)).toEqual(['chaos-gate: redis did not hold']);
    const n = created.json.number as number;
    const cm = await call('POST', `/repos/acme/shop/issues/${n}/comments`, { body: 'held again' });
    expect(cm.status).toBe(201);
    expect(cm.json.user.login).toBe('github-actions[bot]');
    const closed = await call('PATCH', `/repos/acme/shop/issues/${n}`, {
      state: 'closed',
      state_reason: 'completed',
    });
    expect(closed.json).toMatchObject({ state: 'closed', state_reason: 'completed', comments: 1 });
    const open = await call('GET', '/repos/acme/shop/issues?labels=chaos-gate');
    expect(open.json).toEqual([]);
    expect(s.gh.invalidResponses).toEqual([]);
  });

  it("does not let one author edit another author's comment", async () => {
    const pr = s.gh.state.addPullRequest({ owner: 'acme', repo: 'shop', headSha: '1'.repeat(40) });
    const c = s.gh.state.addComment('acme', 'shop', pr.number, 'mine', {
      login: 'mallory',
      id: 666,
      type: 'User',
    });
    const r = await call(
      'PATCH',
      `/repos/acme/shop/issues/comments/${c.id}`,
      { body: 'edited' },
      'ghp-alice',
    );
    expect(r.status).toBe(403);
    expect(c.body).toBe('mine');
  });
});

describe('GitHub stand-in deployments', () => {
  const sha = 'd'.repeat(40);

  it('creates a deployment and its statuses as GitHub describes them, and refuses what GitHub refuses', async () => {
    const before = s.gh.invalidResponses.length;
    // The gate's own check run is still in progress: without required_contexts GitHub checks it first.
    await call('POST', '/repos/acme/shop/check-runs', { name: 'gate', head_sha: sha, status: 'in_progress' });
    const blocked = await call('POST', '/repos/acme/shop/deployments', { ref: sha, environment: 'staging' });
    expect(blocked.status).toBe(409);
    const created = await call('POST', '/repos/acme/shop/deployments', {
      ref: sha,
      environment: 'staging',
      auto_merge: false,
      required_contexts: [],
      transient_environment: false,
      production_environment: false,
    });
    expect(created.status).toBe(201);
    expect(created.json).toMatchObject({ sha, environment: 'staging', production_environment: false });
    const id = created.json.id as number;
    const status = await call('POST', `/repos/acme/shop/deployments/${id}/statuses`, {
      state: 'in_progress',
      log_url: 'https://github.com/acme/shop/actions/runs/7',
      description: 'chaos-gate: fault injected',
    });
    expect(status.status).toBe(201);
    expect(status.json).toMatchObject({
      state: 'in_progress',
      target_url: 'https://github.com/acme/shop/actions/runs/7',
      environment: 'staging',
    });
    const long = await call('POST', `/repos/acme/shop/deployments/${id}/statuses`, {
      state: 'success',
      description: 'x'.repeat(141),
    });
    expect(long.status).toBe(422);
    const badState = await call('POST', `/repos/acme/shop/deployments/${id}/statuses`, { state: 'held' });
    expect(badState.status).toBe(422);
    const missing = await call('POST', '/repos/acme/shop/deployments/999999/statuses', { state: 'success' });
    expect(missing.status).toBe(404);
    const list = await call('GET', `/repos/acme/shop/deployments/${id}/statuses`);
    expect(list.json.map((x: Loose) => x.state)).toEqual(['in_progress']);
    expect(s.gh.invalidResponses.slice(before)).toEqual([]);
  });
});
