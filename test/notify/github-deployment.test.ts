/**
 * The GitHub deployment sink against the GitHub stand-in, which validates every request and response
 * against GitHub's OpenAPI description: a deployment created for the commit in an environment (past the
 * gate's own in-progress check run), statuses `in_progress` at the injection and `success`/`failure`
 * with the verdict, a description GitHub accepts (one line, at most 140 characters, no secret), and a
 * GitHub that fails or hangs costing the run nothing but a journaled `notify` event.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { MemoryJournalWriter, type JournalWriter } from '../../src/journal/writer.js';
import type { Journal, JournalHeader, Measurement, Verdict } from '../../src/journal/types.js';
import { notifyingJournal, notifySettings, type DeploymentSettings } from '../../src/notify/index.js';
import { secrets } from '../../src/security/redact.js';
import { isBadInput } from '../../src/errors/bad-input.js';
import { deploymentSettings } from '../../src/action/engine.js';
import { serveStandIn, TOKENS, type Served } from '../github/serve.js';

const T0 = Date.UTC(2026, 5, 1, 12);
const SHA = 'c'.repeat(40);
const RUN = 'https://github.com/acme/shop/actions/runs/77';

let s: Served;
beforeAll(async () => {
  s = await serveStandIn({ tokens: TOKENS, now: () => T0 });
  // The stand-in compiles GitHub's description on first use: done here, not inside a call's deadline.
  const d = await fetch(`${s.url}/repos/acme/warm-up/deployments`, {
    method: 'POST',
    headers: { authorization: 'Bearer ghs-write', 'content-type': 'application/json' },
    body: JSON.stringify({ ref: 'f'.repeat(40), required_contexts: [] }),
  });
  const { id } = (await d.json()) as { id: number };
  await fetch(`${s.url}/repos/acme/warm-up/deployments/${id}/statuses`, {
    method: 'POST',
    headers: { authorization: 'Bearer ghs-write', 'content-type': 'application/json' },
    body: JSON.stringify({ state: 'success', log_url: 'https://github.com/acme/warm-up/actions/runs/1' }),
  });
});
afterAll(async () => {
  await s.close();
});
afterEach(() => {
  s.gh.faults.clear();
  secrets.clear();
});

const HEADER: JournalHeader = {
  kind: 'chaos-gate-journal',
  version: 1,
  runId: 'run-5',
  planId: 'checkout-redis-partition',
  planDigest: 'sha256:abc',
  title: 'Checkout survives a Redis primary partition',
  service: 'checkout',
  environment: 'staging',
  slis: [{ name: 'error_ratio', bound: '<= 0.01', steadyBound: '<= 0.001', during: true }],
  abortRules: [],
  intervalMs: 1000,
  startedAt: T0,
  attempt: 1,
};

function tick(at: number, value: number): Measurement {
  return {
    at,
    phase: 'fault',
    requests: 900,
    slis: { error_ratio: { value, status: value > 0.01 ? 'breach' : 'ok', query: 'q', bound: '<= 0.01' } },
  };
}

async function writeRun(journal: JournalWriter, verdict: Verdict, reason: string): Promise<Journal> {
  journal.begin(HEADER);
  journal.update({ timings: { injectedAt: T0 + 1000 } });
  journal.event({ at: T0 + 1000, type: 'inject', message: 'experiment EXP1 started' });
  for (let i = 1; i <= 3; i++) journal.measurement(tick(T0 + 1000 + i * 1000, 0.001));
  journal.update({ timings: { stopRequestedAt: T0 + 4500, stoppedAt: T0 + 5000, finishedAt: T0 + 6000 } });
  journal.event({ at: T0 + 5000, type: 'fault-ended', message: 'fault ended' });
  return journal.finish({ verdict, reason, exitCode: verdict === 'held' ? 0 : 1 });
}

function settings(o: Partial<DeploymentSettings>): DeploymentSettings {
  return { apiUrl: s.url, token: 'ghs-write', owner: 'acme', repo: 'shop', sha: SHA, ...o };
}

function notifying(deployment: DeploymentSettings, callMs = 10_000): JournalWriter {
  const n = notifySettings([], {}, deployment);
  return notifyingJournal(
    new MemoryJournalWriter(),
    n && {
      settings: n,
      now: () => T0 + 6000,
      links: () => ({ run: RUN }),
      callMs,
      drainMs: 12_000,
      backoffMs: 10,
    },
  );
}

const failures = (j: Journal) => j.events.filter((e) => e.type === 'notify' && e.data?.error !== undefined);

function deploymentsOf(sha: string) {
  return [...s.gh.state.deployments.values()].filter((d) => d.sha === sha);
}

describe('the GitHub deployment sink', () => {
  it('creates the deployment in the environment and posts in_progress, then failure with the reason', async () => {
    const sha = '1'.repeat(40);
    const rejected = s.gh.rejected.length;
    const invalid = s.gh.invalidResponses.length;
    // The gate's own check run is in progress on the commit: the deployment must not wait for it.
    s.gh.state.checkRuns.set(1, {
      id: 1,
      owner: 'acme',
      repo: 'shop',
      name: 'chaos-gate / checkout-redis-partition',
      head_sha: sha,
      status: 'in_progress',
      conclusion: null,
      started_at: null,
      completed_at: null,
      external_id: null,
      details_url: null,
      output: { title: null, summary: null, text: null },
      annotations: [],
      annotationRequests: 0,
    });
    secrets.add('hunter2-the-secret-value');
    const reason = `error_ratio 0.31 > 0.01\n(+4.0 s)\u202e; header hunter2-the-secret-value; ${'x'.repeat(300)}`;
    const j = await writeRun(notifying(settings({ sha, environment: 'staging' })), 'aborted', reason);
    expect(failures(j)).toEqual([]);
    expect(s.gh.rejected.slice(rejected)).toEqual([]);
    expect(s.gh.invalidResponses.slice(invalid)).toEqual([]);
    const [d, ...more] = deploymentsOf(sha);
    expect(more).toEqual([]);
    expect(d).toMatchObject({
      ref: sha,
      task: 'chaos-gate',
      environment: 'staging',
      production_environment: false,
      transient_environment: false,
    });
    expect(d?.statuses.map((x) => [x.state, x.log_url, x.environment])).toEqual([
      ['in_progress', RUN, 'staging'],
      ['failure', RUN, 'staging'],
    ]);
    const description = d?.statuses[1]?.description ?? '';
    expect(description.length).toBe(140);
    expect(description).toMatch(
      /^chaos-gate aborted: error_ratio 0\.31 > 0\.01 \(\+4\.0 s\) ; header \*\*\*; x+…$/,
    );
    expect(description.endsWith('…')).toBe(true);
    expect(JSON.stringify(d)).not.toContain('hunter2');
  });

  it('posts to a named deployment: success for held, and creates none', async () => {
    const sha = '2'.repeat(40);
    const created = await fetch(`${s.url}/repos/acme/shop/deployments`, {
      method: 'POST',
      headers: { authorization: 'Bearer ghs-write', 'content-type': 'application/json' },
      body: JSON.stringify({ ref: sha, environment: 'production', required_contexts: [] }),
    });
    const id = ((await created.json()) as { id: number }).id;
    const j = await writeRun(notifying(settings({ sha, deploymentId: id })), 'held', 'every SLI held');
    expect(failures(j)).toEqual([]);
    const all = deploymentsOf(sha);
    expect(all.map((d) => d.id)).toEqual([id]);
    expect(all[0]?.statuses.map((x) => [x.state, x.description, x.environment])).toEqual([
      ['in_progress', expect.stringContaining('fault injected'), 'production'],
      ['success', 'chaos-gate held: every SLI held', 'production'],
    ]);
  });

  it('a GitHub that answers 500 or never answers changes nothing but a notify event naming the call', async () => {
    const base = await writeRun(new MemoryJournalWriter(), 'deviated', 'error_ratio 0.2 > 0.01');
    s.gh.faults.add({ operation: 'repos/create-deployment', kind: 'error', status: 500 });
    const failed = await writeRun(
      notifying(settings({ sha: '3'.repeat(40), environment: 'qa' })),
      'deviated',
      'error_ratio 0.2 > 0.01',
    );
    s.gh.faults.clear();
    // A deployment that exists, whose statuses never get an answer in time.
    const existing = await fetch(`${s.url}/repos/acme/shop/deployments`, {
      method: 'POST',
      headers: { authorization: 'Bearer ghs-write', 'content-type': 'application/json' },
      body: JSON.stringify({ ref: '4'.repeat(40), environment: 'qa', required_contexts: [] }),
    });
    const deploymentId = ((await existing.json()) as { id: number }).id;
    s.gh.faults.add({ operation: 'repos/create-deployment-status', kind: 'delay', delayMs: 5_000 });
    const hung = await writeRun(
      notifying(settings({ sha: '4'.repeat(40), deploymentId }), 300),
      'deviated',
      'error_ratio 0.2 > 0.01',
    );
    for (const j of [failed, hung]) {
      expect(j.verdict).toBe(base.verdict);
      expect(j.reason).toBe(base.reason);
      expect(j.exitCode).toBe(base.exitCode);
      expect(j.timings).toEqual(base.timings);
      expect(j.measurements).toEqual(base.measurements);
    }
    expect(failures(failed).map((e) => e.data?.call)).toEqual([
      'deployment create',
      'status in_progress',
      'status failure',
    ]);
    expect(String(failures(failed)[0]?.data?.error)).toMatch(/HTTP 500.*4 attempts/);
    expect(String(failures(failed)[1]?.data?.error)).toContain('its creation did not get through');
    expect(failures(hung).map((e) => e.data?.call)).toEqual(['status in_progress', 'status failure']);
    expect(String(failures(hung)[0]?.data?.error)).toMatch(/deadline|300 ms/i);
    expect(JSON.stringify([failed, hung])).not.toContain('ghs-write');
  });

  it('is refused by a read-only token, and the journal says so', async () => {
    const j = await writeRun(
      notifying(settings({ sha: '5'.repeat(40), environment: 'qa', token: 'ghs-readonly' })),
      'held',
      'ok',
    );
    expect(j.verdict).toBe('held');
    expect(String(failures(j)[0]?.data?.error)).toContain('HTTP 403');
  });
});

describe('the deployment settings the action reads', () => {
  const env = {
    GITHUB_REPOSITORY: 'acme/shop',
    GITHUB_SHA: SHA,
    GITHUB_API_URL: 'https://ghe.example.com/api/v3',
  };

  it('need nothing when neither deployment-id nor environment is given', () => {
    expect(
      deploymentSettings({ deploymentId: undefined, environment: undefined, githubToken: 't' }, env),
    ).toBe(undefined);
  });

  it('post to the configured API for the commit under test, and need a token', () => {
    expect(
      deploymentSettings({ deploymentId: undefined, environment: 'staging', githubToken: 'ghs_tok' }, env),
    ).toEqual({
      apiUrl: 'https://ghe.example.com/api/v3',
      token: 'ghs_tok',
      owner: 'acme',
      repo: 'shop',
      sha: SHA,
      deploymentId: undefined,
      environment: 'staging',
    });
    let error: unknown;
    try {
      deploymentSettings({ deploymentId: 7, environment: undefined, githubToken: undefined }, env);
    } catch (e) {
      error = e;
    }
    expect(isBadInput(error)).toBe(true);
    expect(String(error)).toContain('"deployment-id" needs github-token');
  });
});
