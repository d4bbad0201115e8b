/**
 * `chaos-gate history`: verdict trends per plan, flakiness (verdict changes while the plan digest stays),
 * the untested set within a period, as Markdown and a self-contained HTML page — from a directory, and
 * from past workflow runs' artifacts through GitHub's artifacts API (the stand-in, validated against
 * GitHub's OpenAPI description) and the official toolkit.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { main } from '../../src/cli/main.js';
import { cliArgs } from '../helpers/cli.js';
import { planHistories, runEntry, untested } from '../../src/journal/history.js';
import type { Verdict } from '../../src/journal/types.js';
import { serveStandIn, type Served } from '../github/serve.js';
import { relabelled, writeJournal } from './journals.js';

function io(env: NodeJS.ProcessEnv = {}) {
  const out: string[] = [];
  const err: string[] = [];
  return {
    out,
    err,
    io: {
      out: (t: string) => out.push(t),
      err: (t: string) => err.push(t),
      tty: false,
      env,
      cwd: process.cwd(),
    },
  };
}

const DAY = 86_400_000;
const NOW = Date.now();

/** checkout: held, held, deviated, held on one digest (2 changes in 3 pairs); search: a new digest each run. */
function history(dir: string): void {
  const checkout: Verdict[] = ['held', 'held', 'deviated', 'held'];
  checkout.forEach((verdict, i) =>
    writeJournal(
      dir,
      `checkout-${i}`,
      relabelled({
        planId: 'checkout',
        service: 'checkout',
        verdict,
        runId: String(100 + i),
        startedAt: NOW - (4 - i) * DAY,
        planDigest: 'd1',
      }),
    ),
  );
  (['held', 'deviated'] as Verdict[]).forEach((verdict, i) =>
    writeJournal(
      dir,
      `search-${i}`,
      relabelled({
        planId: 'search',
        service: 'search',
        verdict,
        runId: String(200 + i),
        startedAt: NOW - (2 - i) * DAY,
        planDigest: `s${i}`,
      }),
    ),
  );
  // Exercised 20 days ago, then only refused (nothing injected): untested within 7 days.
  writeJournal(
    dir,
    'payments-0',
    relabelled({
      planId: 'payments',
      service: 'payments',
      verdict: 'held',
      runId: '300',
      startedAt: NOW - 20 * DAY,
      planDigest: 'p',
    }),
  );
  writeJournal(
    dir,
    'payments-1',
    relabelled({
      planId: 'payments',
      service: 'payments',
      verdict: 'refused',
      runId: '301',
      startedAt: NOW - DAY,
      planDigest: 'p',
    }),
  );
}

describe('history', () => {
  it('from a directory: the last verdicts, flakiness without a plan change, and the untested set with a plan never run', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cg-history-'));
    history(dir);
    const html = join(dir, 'history.html');
    const c = io();
    const code = await main(
      [
        'history',
        dir,
        '--period',
        '7d',
        '--plans',
        'fixtures/sim-plans/checkout.yaml',
        '--markdown',
        '--html',
        html,
      ],
      c.io,
    );
    expect(code, c.err.join('\n')).toBe(0);
    const md = c.out.join('\n');
    const row = (plan: string): string => md.split('\n').find((l) => l.startsWith(`| ${plan} |`)) ?? '';
    expect(row('checkout')).toContain('| ✅ ✅ ❌ ✅ |');
    expect(row('checkout')).toContain('| 2 of 3 (66.67 %) | 0 |');
    // A verdict change that comes with a plan change is not a flake.
    expect(row('search')).toContain('| ✅ ❌ |');
    expect(row('search')).toContain('| no two runs of the same plan yet | 1 |');
    expect(row('payments')).toContain('| ✅ ⛔ |');
    const untestedPart = md.slice(md.indexOf('### Not exercised within 7 d'));
    expect(untestedPart).toMatch(/\| payments \| staging \| payments \| \d{4}-.* \(20 d ago\) \|/);
    expect(untestedPart).toContain(
      '| checkout-redis-partition | staging | checkout | never (in this history) |',
    );
    expect(untestedPart).not.toMatch(/\| checkout \| staging/);
    expect(untestedPart).toContain('Services none of whose plans was exercised: payments');
    const page = readFileSync(html, 'utf8');
    expect(page).toMatch(/^<!doctype html>/);
    expect(page).toContain('data-plan="checkout"');
    expect(page).toContain('data-flaky="true"');
    expect(page).not.toMatch(/<(script|link|img)\b/i);
  });

  it('counts one run once and leaves an unfinished run out of the flakiness', () => {
    const held = relabelled({
      planId: 'a',
      verdict: 'held',
      runId: '1',
      startedAt: NOW - 3 * DAY,
      planDigest: 'x',
    });
    const crashed = relabelled({
      planId: 'a',
      verdict: 'deviated',
      runId: '2',
      startedAt: NOW - 2 * DAY,
      planDigest: 'x',
    });
    crashed.complete = false;
    const again = relabelled({
      planId: 'a',
      verdict: 'held',
      runId: '3',
      startedAt: NOW - DAY,
      planDigest: 'x',
    });
    const entries = [
      runEntry(held, 'f1'),
      runEntry(held, 'artifact'),
      runEntry(crashed, 'f2'),
      runEntry(again, 'f3'),
    ];
    const [h] = planHistories(entries);
    expect(h?.runs.map((r) => r.verdict)).toEqual(['held', null, 'held']);
    expect(h?.flaky).toEqual({ pairs: 0, changes: 0 });
    expect(untested(planHistories(entries), NOW - 7 * DAY).plans).toEqual([]);
  });

  describe("from past runs' artifacts", () => {
    let served: Served;
    beforeAll(async () => {
      served = await serveStandIn({
        tokens: {
          'ghs-read': { login: 'github-actions[bot]', id: 41898282, type: 'Bot', installation: true },
        },
      });
    });
    afterAll(async () => {
      await served.close();
    });

    it('downloads the journal artifacts of past runs with @actions/artifact and renders them; expired and other artifacts are passed over', async () => {
      const journal = (verdict: Verdict, runId: string, daysAgo: number): string =>
        JSON.stringify(
          relabelled({ planId: 'checkout', verdict, runId, startedAt: NOW - daysAgo * DAY, planDigest: 'd' }),
        );
      const { state } = served.gh;
      state.addArtifact({
        owner: 'acme',
        repo: 'shop',
        name: 'chaos-gate-checkout',
        runId: 501,
        files: {
          'chaos-gate/journal.json': journal('held', '501', 3),
          'chaos-gate/report.html': '<!doctype html>',
        },
      });
      // Seeded over HTTP, as a sandbox user does (the REST API has no upload).
      const seeded = await fetch(`${served.url}/_sandbox/artifacts`, {
        method: 'POST',
        body: JSON.stringify({
          owner: 'acme',
          repo: 'shop',
          name: 'chaos-gate-checkout',
          runId: 502,
          files: { 'chaos-gate/journal.json': journal('deviated', '502', 2) },
        }),
      });
      expect(seeded.status).toBe(201);
      state.addArtifact({
        owner: 'acme',
        repo: 'shop',
        name: 'chaos-gate-checkout',
        runId: 400,
        expired: true,
        files: { 'chaos-gate/journal.json': journal('held', '400', 60) },
      });
      state.addArtifact({
        owner: 'acme',
        repo: 'shop',
        name: 'coverage',
        runId: 502,
        files: { 'lcov.json': '{}' },
      });
      // A branch's run uploaded a forged held: with --branch main it is not part of the history.
      state.addArtifact({
        owner: 'acme',
        repo: 'shop',
        name: 'chaos-gate-checkout',
        runId: 503,
        headBranch: 'feature',
        files: { 'chaos-gate/journal.json': journal('held', '503', 1) },
      });
      const dir = mkdtempSync(join(tmpdir(), 'cg-history-artifacts-'));
      // A child process, as on a runner: the toolkit fixes its API URL when it is first loaded.
      const c = await historyChild(['--artifacts', dir, '--branch', 'main'], served.url);
      expect(c.code, c.err.join('\n')).toBe(0);
      expect(c.err.join('\n')).toContain('downloaded 2 journal artifact(s)');
      const md = c.out.filter((l) => l.startsWith('## ') || l.includes('|')).join('\n');
      expect(md).toMatch(/\| checkout \| staging \| ✅ ❌ \|/);
      expect(served.gh.rejected).toEqual([]);
      expect(served.gh.invalidResponses).toEqual([]);
      const ops = served.gh.requests.map((r) => r.operationId);
      expect(ops.filter((o) => o === 'actions/download-artifact')).toHaveLength(2);
      expect(ops).toContain('actions/list-artifacts-for-repo');
    });

    it('names an artifact it could not download and exits 2', async () => {
      served.gh.faults.add({ operation: 'actions/download-artifact', kind: 'error', status: 500, count: 10 });
      const dir = mkdtempSync(join(tmpdir(), 'cg-history-artifacts-'));
      writeFileSync(join(dir, 'keep.txt'), '');
      const c = await historyChild(['--artifacts', dir], served.url);
      expect(c.code).toBe(2);
      expect(c.err.join('\n')).toMatch(/artifact chaos-gate-checkout \(id \d+, run 50[12]\): not downloaded/);
    });
  });
});

/** `chaos-gate history <args>` in a child process whose environment points the toolkit at `api`. */
async function historyChild(
  args: string[],
  api: string,
): Promise<{ code: number | null; out: string[]; err: string[] }> {
  const child = spawn(process.execPath, cliArgs(['history', ...args]), {
    env: { ...process.env, GITHUB_TOKEN: 'ghs-read', GITHUB_REPOSITORY: 'acme/shop', GITHUB_API_URL: api },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr.on('data', (c: Buffer) => (err += c.toString()));
  const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
  return { code, out: out.split('\n'), err: err.split('\n') };
}
