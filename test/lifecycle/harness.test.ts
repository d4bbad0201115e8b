/**
 * The harness's own contract with `@actions/core` and the GitHub stand-in: the file-command format it
 * parses is the one core writes, the input variables it sets are the ones core reads, and the stand-in's
 * introspection routes report and seed what the lifecycle test relies on.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as core from '@actions/core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { actionDefaults, inputEnvName, parseFileCommands } from '../helpers/actions-runner.js';
import { serveStandIn, type Served } from '../github/serve.js';

describe('file commands and inputs, as @actions/core writes and reads them', () => {
  let dir: string;
  const saved = { ...process.env };
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'chaos-gate-harness-'));
  });
  afterEach(() => {
    for (const k of Object.keys(process.env)) if (!(k in saved)) delete process.env[k];
    Object.assign(process.env, saved);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('reads back multi-line and empty values that core.saveState and core.setOutput wrote', () => {
    const state = join(dir, 'state');
    const output = join(dir, 'output');
    writeFileSync(state, '');
    writeFileSync(output, '');
    process.env.GITHUB_STATE = state;
    process.env.GITHUB_OUTPUT = output;
    core.saveState('experiment-id', 'EXP123');
    core.saveState('note', 'line one\nline two');
    core.setOutput('reason', 'a=b<<c');
    core.setOutput('budget-remaining', '');
    core.saveState('experiment-id', 'EXP456');
    expect(parseFileCommands(readFileSync(state, 'utf8'))).toEqual({
      'experiment-id': 'EXP456',
      note: 'line one\nline two',
    });
    expect(parseFileCommands(readFileSync(output, 'utf8'))).toEqual({
      reason: 'a=b<<c',
      'budget-remaining': '',
    });
  });

  it('accepts the one-line name=value form and refuses an unterminated block', () => {
    expect(parseFileCommands('verdict=held\nreason=x=y\n')).toEqual({ verdict: 'held', reason: 'x=y' });
    expect(() => parseFileCommands('verdict<<EOF\nheld\n')).toThrow(/no closing delimiter EOF/);
  });

  it('names input variables so core.getInput finds them (dashes kept, spaces to underscores)', () => {
    process.env[inputEnvName('github-token')] = 'tok';
    process.env[inputEnvName('my input')] = 'spaced';
    expect(inputEnvName('github-token')).toBe('INPUT_GITHUB-TOKEN');
    expect(core.getInput('github-token')).toBe('tok');
    expect(core.getInput('my input')).toBe('spaced');
  });

  it("fills action.yml's defaults, with ${{ github.token }} replaced by the job's token", () => {
    const d = actionDefaults('sandbox-token');
    expect(d['github-token']).toBe('sandbox-token');
    expect(d.command).toBe('run');
    expect(d['journal-path']).toBe('chaos-gate/journal.json');
    expect(d).not.toHaveProperty('plan');
  });
});

describe('the GitHub stand-in introspection routes', () => {
  let s: Served;
  beforeAll(async () => {
    s = await serveStandIn();
  });
  afterAll(async () => s.close());

  const call = async (method: string, route: string, body?: unknown) => {
    const res = await fetch(`${s.url}/_sandbox/${route}`, {
      method,
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: res.status, json: (await res.json()) as Record<string, unknown> };
  };

  it('seeds a pull request that the REST API then serves and accepts comments on', async () => {
    const head = 'c4e6a8b0d2f4a6c8e0b2d4f6a8c0e2b4d6f8a0c2';
    const seeded = await call('POST', 'pulls', { owner: 'octo-org', repo: 'shop', headSha: head });
    expect(seeded.status).toBe(201);
    const n = seeded.json.number as number;
    const auth = { authorization: 'token sandbox-token', 'content-type': 'application/json' };
    const pull = await fetch(`${s.url}/repos/octo-org/shop/pulls/${n}`, { headers: auth });
    expect(((await pull.json()) as { head: { sha: string } }).head.sha).toBe(head);
    const comment = await fetch(`${s.url}/repos/octo-org/shop/issues/${n}/comments`, {
      method: 'POST',
      headers: auth,
      body: JSON.stringify({ body: 'hello' }),
    });
    expect(comment.status).toBe(201);
    const state = await call('GET', 'state');
    expect(state.json.comments).toEqual([expect.objectContaining({ issue: n, body: 'hello' })]);
  });

  it('reports a rejected API request, and is not itself logged as API traffic', async () => {
    const before = s.gh.requests.length;
    await fetch(`${s.url}/repos/octo-org/shop/check-runs`, {
      method: 'POST',
      headers: { authorization: 'token sandbox-token', 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'x' }),
    });
    const r = await call('GET', 'rejected');
    expect(r.json.rejected).toEqual([
      expect.objectContaining({ status: 422, path: '/repos/octo-org/shop/check-runs' }),
    ]);
    expect(s.gh.requests.length).toBe(before + 1);
    expect(s.gh.rejected).toHaveLength(1);
  });

  it('refuses a bad seed with the field and the expected form', async () => {
    const r = await call('POST', 'pulls', { owner: 'octo-org', repo: 'shop', headSha: 'main' });
    expect(r.status).toBe(400);
    expect(r.json.error).toMatch(/headSha: expected a 40-character lowercase hex commit SHA/);
    expect((await call('GET', 'nope')).status).toBe(404);
  });
});
