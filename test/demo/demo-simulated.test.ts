/** `chaos-gate demo --simulated`: the plan on a simulated world, without a sandbox. */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Journal } from '../../src/journal/types.js';
import { SIMULATED_TIMEOUT_MS, demoChildren, tellRun } from './child.js';

const cli = demoChildren();
/** Simulated seconds per wall second for the runs whose verdict is asserted (see the first test). */
const SPEED = '15';

describe('chaos-gate demo --simulated', () => {
  const dir = mkdtempSync(join(tmpdir(), 'chaos-gate-demo-sim-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it(
    'still runs the plan on a simulated world: held, and aborted with --breach',
    async () => {
      // One after the other: each is a few seconds, and two side by side on a busy machine slow each other.
      const held = await cli(
        ['demo', '--simulated', '--journal', join(dir, 'held.json')],
        SIMULATED_TIMEOUT_MS,
      );
      expect(held.stdout, tellRun(held)).toContain('verdict: held (exit 0)');
      expect(held.code, tellRun(held)).toBe(0);
      const breach = await cli(
        ['demo', '--simulated', '--speed', SPEED, '--breach', '--journal', join(dir, 'breach.json')],
        SIMULATED_TIMEOUT_MS,
      );
      expect(breach.stdout, tellRun(breach)).toContain('verdict: aborted (exit 1)');
      expect(breach.code, tellRun(breach)).toBe(1);
      expect((JSON.parse(readFileSync(join(dir, 'held.json'), 'utf8')) as Journal).verdict).toBe('held');
    },
    2 * SIMULATED_TIMEOUT_MS + 15_000,
  );

  it(
    'writes its journal under --out-dir, as its --help says',
    async () => {
      const out = join(dir, 'out-dir');
      const run = await cli(['demo', '--simulated', '--out-dir', out], SIMULATED_TIMEOUT_MS);
      expect(run.stderr, tellRun(run)).not.toContain('unknown option');
      const journalPath = join(out, 'redis-partition.journal.json');
      expect(run.stdout, tellRun(run)).toContain(`journal: ${journalPath}`);
      const journal = JSON.parse(readFileSync(journalPath, 'utf8')) as Journal;
      expect(run.stdout).toContain(`verdict: ${journal.verdict} (exit ${run.code})`);
    },
    SIMULATED_TIMEOUT_MS + 15_000,
  );
});
