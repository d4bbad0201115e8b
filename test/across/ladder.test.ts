/**
 * The promotion ladder (fixtures/ladder/, docs/across-runs.md): staging canary → production canary →
 * production, each a plan with a wider blast radius under its own policy. A wider rung refuses (exit 2,
 * naming the rung it needs, the policy file, line and field, and what is expected) until the narrower
 * rung's `held` is in the verdict history; then it runs.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { relabelled, writeJournal } from './journals.js';

function io() {
  const out: string[] = [];
  const err: string[] = [];
  return {
    out,
    err,
    io: {
      out: (t: string) => out.push(t),
      err: (t: string) => err.push(t),
      tty: false,
      env: {},
      cwd: process.cwd(),
    },
  };
}

const L = 'fixtures/ladder';
const SCENARIO = `${L}/scenario-held.yaml`;

async function rung(
  name: 'staging-canary' | 'production-canary' | 'production',
  history: string | undefined,
  journal?: string,
): Promise<{ code: number; out: string }> {
  const c = io();
  const args = [
    'simulate',
    `${L}/${name}.yaml`,
    '--scenario',
    SCENARIO,
    '--policy',
    `${L}/policy-${name === 'staging-canary' ? 'staging' : name}.yaml`,
  ];
  if (history) args.push('--history', history);
  if (journal) args.push('--journal', journal);
  const code = await main(args, c.io);
  return { code, out: [...c.out, ...c.err].join('\n') };
}

describe('promotion ladder', () => {
  it('refuses the production canary without a history, naming the rung, the policy line and what it expects', async () => {
    const r = await rung('production-canary', undefined);
    expect(r.code).toBe(2);
    expect(r.out).toMatch(
      /^refused: requires: this rung needs the rung "staging canary" to have held first, but no verdict history was given/m,
    );
    expect(r.out).toContain(`${L}/policy-production-canary.yaml:6, requires[0]`);
    expect(r.out).toMatch(
      /expected plan checkout-staging-canary's last run in environment staging to be held and to have started within 7d \(since \d{4}-/,
    );
  });

  it("refuses while the narrower rung's last run deviated, or held too long ago", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cg-ladder-'));
    const now = Date.now();
    writeJournal(
      dir,
      'old-held',
      relabelled({
        planId: 'checkout-staging-canary',
        verdict: 'held',
        runId: '1',
        startedAt: now - 10 * 86_400_000,
      }),
    );
    let r = await rung('production-canary', dir);
    expect(r.code).toBe(2);
    expect(r.out).toMatch(
      /the last held run of plan checkout-staging-canary in environment staging \(run 1\) started .*, 10 d ago, older than 7d/,
    );
    writeJournal(
      dir,
      'deviated',
      relabelled({
        planId: 'checkout-staging-canary',
        verdict: 'deviated',
        runId: '2',
        startedAt: now - 86_400_000,
      }),
    );
    r = await rung('production-canary', dir);
    expect(r.code).toBe(2);
    expect(r.out).toMatch(
      /the last run of plan checkout-staging-canary in environment staging \(run 2, .*\) was deviated, not held/,
    );
  });

  it('climbs rung by rung: each wider rung runs once the narrower one held, and production still waits for its canary', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cg-ladder-'));
    expect((await rung('staging-canary', undefined, join(dir, 'staging-canary.json'))).code).toBe(0);
    const early = await rung('production', dir);
    expect(early.code).toBe(2);
    expect(early.out).toMatch(
      /needs the rung "production canary" to have held first: the verdict history .* has no finished run of plan checkout-production-canary in environment production \(.*policy-production\.yaml:6, requires\[0\]\)/,
    );
    const canary = await rung('production-canary', dir, join(dir, 'production-canary.json'));
    expect(canary.code, canary.out).toBe(0);
    expect(canary.out).toMatch(/^held: /m);
    const production = await rung('production', dir);
    expect(production.code, production.out).toBe(0);
    expect(production.out).toMatch(/^held: /m);
  });
});
