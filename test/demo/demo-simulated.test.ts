/** `chaos-gate demo --simulated`: the plan on a simulated world, without a sandbox. */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Journal } from '../../src/journal/types.js';
import { SIMULATED_TIMEOUT_MS, demoChildren } from './child.js';

const cli = demoChildren();

describe('chaos-gate demo --simulated', () => {
  const dir = mkdtempSync(join(tmpdir(), 'chaos-gate-demo-sim-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it(
    'still runs the plan on a simulated world: held, and aborted with --breach',
    async () => {
      const [held, breach] = await Promise.all([
        cli(['demo', '--simulated', '--journal', join(dir, 'held.json')], SIMULATED_TIMEOUT_MS),
        cli(['demo', '--simulated', '--breach', '--journal', join(dir, 'breach.json')], SIMULATED_TIMEOUT_MS),
      ]);
      expect(held.stdout).toContain('verdict: held (exit 0)');
      expect(held.code).toBe(0);
      expect(breach.stdout).toContain('verdict: aborted (exit 1)');
      expect(breach.code).toBe(1);
      expect((JSON.parse(readFileSync(join(dir, 'held.json'), 'utf8')) as Journal).verdict).toBe('held');
    },
    SIMULATED_TIMEOUT_MS + 15_000,
  );

  it(
    'writes its journal under --out-dir, as its --help says',
    async () => {
      const out = join(dir, 'out-dir');
      const run = await cli(['demo', '--simulated', '--out-dir', out], SIMULATED_TIMEOUT_MS);
      expect(run.stderr).not.toContain('unknown option');
      const journalPath = join(out, 'redis-partition.journal.json');
      expect(run.stdout).toContain(`journal: ${journalPath}`);
      const journal = JSON.parse(readFileSync(journalPath, 'utf8')) as Journal;
      expect(run.stdout).toContain(`verdict: ${journal.verdict} (exit ${run.code})`);
    },
    SIMULATED_TIMEOUT_MS + 15_000,
  );
});
