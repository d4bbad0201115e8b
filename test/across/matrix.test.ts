/**
 * `chaos-gate report --matrix`: one job summary over a matrix's journals — a row per plan, worst first,
 * every figure the run's judgement, untrusted text neutralised, inside GitHub's 1 MiB.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { runEntry } from '../../src/journal/history.js';
import { VERDICT_ORDER } from '../../src/journal/judgement.js';
import { VERDICTS } from '../../src/journal/types.js';
import { renderMatrix } from '../../src/report/matrix.js';
import { JOB_SUMMARY_LIMIT_BYTES } from '../../src/report/limits.js';
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

const T0 = Date.UTC(2026, 10, 2, 2, 17);

/** Table rows of the summary: every line that starts with `| ` after the header and separator. */
function rows(md: string): string[] {
  return md.split('\n').filter((l) => l.startsWith('| ') && !l.startsWith('| plan '));
}

describe('report --matrix', () => {
  it('renders 20 journals of a nightly matrix as one summary under 1 MiB, a row each, worst first, linked to their runs', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cg-matrix-'));
    const verdicts = VERDICTS.filter((v) => v !== 'refused');
    for (let i = 0; i < 20; i++) {
      const verdict = verdicts[i % verdicts.length]!;
      writeJournal(
        dir,
        `chaos-gate-plan-${i}`,
        relabelled({
          planId: `plan-${String(i).padStart(2, '0')}`,
          verdict,
          runId: String(9000 + i),
          startedAt: T0 + i * 1000,
        }),
      );
    }
    const c = io({ GITHUB_SERVER_URL: 'https://github.com', GITHUB_REPOSITORY: 'acme/shop' });
    expect(await main(['report', '--matrix', dir], c.io)).toBe(0);
    const md = c.out.join('\n');
    expect(Buffer.byteLength(md)).toBeLessThan(JOB_SUMMARY_LIMIT_BYTES);
    const table = rows(md);
    expect(table).toHaveLength(20);
    // Worst first: the verdict column's order follows VERDICT_ORDER.
    const ranks = table.map((r) => VERDICT_ORDER.findIndex((v) => r.split(' | ')[2]!.endsWith(` ${v}`)));
    expect(ranks.every((r) => r >= 0)).toBe(true);
    expect([...ranks].sort((a, b) => a - b)).toEqual(ranks);
    expect(md).toContain('4 of 20 held');
    // The aborted run's figure is its judgement's breach → FIS ended, and it links to its run and experiment.
    const aborted = table.find((r) => r.includes('🛑 aborted'))!;
    const entry = runEntry(relabelled({ planId: 'x', verdict: 'aborted', runId: '1', startedAt: T0 }), 'x');
    expect(aborted).toContain(`| ${Math.round(entry.breachToStoppedMs!)} ms |`);
    expect(aborted).toMatch(/\[run 90\d\d\]\(https:\/\/github\.com\/acme\/shop\/actions\/runs\/90\d\d\)/);
    expect(aborted).toContain('[FIS](https://eu-west-1.console.aws.amazon.com/fis/');
    expect(aborted).toMatch(/\| 31 of 2592 bad events \(1\.196 %\) \|/);
  });

  it('shows a plan once, by its latest run, and says how many older runs are not shown', () => {
    const older = runEntry(relabelled({ planId: 'a', verdict: 'deviated', runId: '1', startedAt: T0 }), 'a1');
    const retry = { ...older, attempt: 2, verdict: 'held' as const, reason: 'held on retry' };
    const other = runEntry(relabelled({ planId: 'b', verdict: 'held', runId: '1', startedAt: T0 }), 'b');
    const md = renderMatrix([older, retry, other, { ...other, source: 'again' }]);
    expect(rows(md)).toHaveLength(2);
    expect(rows(md).find((r) => r.startsWith('| a |'))).toContain('held on retry');
    expect(md).toContain('1 older run of the same plans is not shown');
  });

  it('lists a journal it cannot read, counts it as not held and exits 2', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cg-matrix-'));
    writeJournal(dir, 'a', relabelled({ planId: 'a', verdict: 'held', runId: '1', startedAt: T0 }));
    writeFileSync(join(dir, 'broken.json'), '{"kind": "something else"}\n');
    // A verdict chaos-gate never writes makes the journal unreadable: never counted held, never rendered raw.
    const forged = relabelled({ planId: 'forged', verdict: 'held', runId: '2', startedAt: T0 });
    (forged as { verdict: string }).verdict = 'held <img src=x>';
    writeJournal(dir, 'forged', forged);
    const c = io();
    expect(await main(['report', '--matrix', dir], c.io)).toBe(2);
    const md = c.out.join('\n');
    expect(md).toContain('1 of 3 held');
    expect(md).toMatch(/> - .*forged.*verdict "held &lt;img src=x>" is not one chaos-gate writes/);
    expect(md).not.toContain('<img');
    expect(md).toMatch(/> - .*broken\.json/);
    expect(c.err.join('\n')).toContain('broken.json');
  });

  it('keeps untrusted plan text inside its cell, and trims to the limit worst first with a stated note', () => {
    const hostile = relabelled({
      planId: 'evil | <img src=x> ![](https://x)',
      verdict: 'failed',
      runId: '7',
      startedAt: T0,
    });
    hostile.environment = 'prod\n# heading';
    const entries = [runEntry(hostile, 'hostile')];
    const held = runEntry(relabelled({ planId: 'h', verdict: 'held', runId: '1', startedAt: T0 }), 'h');
    const deviated = runEntry(
      relabelled({ planId: 'd', verdict: 'deviated', runId: '2', startedAt: T0 }),
      'd',
    );
    for (let i = 0; i < 3000; i++) {
      const e = { ...(i % 2 ? held : deviated), planId: `p${i}`, runId: String(i) };
      e.reason = `${e.reason} ${'long reason '.repeat(60)}`;
      entries.push(e);
    }
    const md = renderMatrix(entries, [], { repoUrl: 'https://github.com/acme/shop' });
    expect(Buffer.byteLength(md)).toBeLessThanOrEqual(JOB_SUMMARY_LIMIT_BYTES);
    const table = rows(md);
    expect(table.length).toBeLessThan(3001);
    expect(md).toContain(`${3001 - table.length} of 3001 rows are left off`);
    // The rows left off are the best ones: every deviated row and the failed one are kept before any held.
    const firstHeld = table.findIndex((r) => r.includes('✅ held'));
    expect(table.slice(firstHeld).every((r) => r.includes('✅ held'))).toBe(true);
    // Seven cells per row, whatever the plan id holds; no raw HTML, image or heading leaks out.
    const evil = table[0]!;
    expect(evil.split(/(?<!\\)\|/).length - 2).toBe(7);
    expect(evil).not.toContain('<img');
    expect(evil).not.toContain('![](');
    expect(md).not.toMatch(/^# heading/m);
  });
});
