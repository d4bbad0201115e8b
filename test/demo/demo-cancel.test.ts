/**
 * `chaos-gate demo` cancelled with Ctrl-C while its fault runs: the experiment is stopped and the stop
 * verified, the sandbox and Prometheus it started are ended, and it exits 1.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { DemoRecord } from '../../src/cli/demo/sandbox-demo.js';
import type { Journal } from '../../src/journal/types.js';
import { DEMO_TIMEOUT_MS, alive, demoChildren } from './child.js';

const cli = demoChildren();
/**
 * A fault-phase line 3 s or more into the fault: by then FIS reports the action running, so the cancel
 * stops a fault that ran (a cancel before any action ran is `inconclusive`, not `aborted`).
 */
const FAULT_ON = /\+(?:[3-9]|\d{2,})\.\ds\s+fault\s/;

describe('chaos-gate demo, cancelled with Ctrl-C during the fault', () => {
  const outDir = mkdtempSync(join(tmpdir(), 'chaos-gate-demo-cancel-'));
  afterAll(() => rmSync(outDir, { recursive: true, force: true }));

  it(
    'stops and verifies the experiment, then ends the sandbox and Prometheus, and exits 1',
    async () => {
      let sent = false;
      const run = await cli(['demo', '--out-dir', outDir], DEMO_TIMEOUT_MS, (stdout, child) => {
        if (!sent && FAULT_ON.test(stdout) && child.pid !== undefined) {
          sent = true;
          process.kill(child.pid, 'SIGINT');
        }
      });
      expect(sent).toBe(true);
      expect(run.code).toBe(1);
      const record = JSON.parse(readFileSync(join(outDir, 'demo.json'), 'utf8')) as DemoRecord;
      expect(record.ok).toBe(false);
      expect(record.plans).toHaveLength(1);
      const journal = JSON.parse(readFileSync(record.plans[0]!.files.journal, 'utf8')) as Journal;
      expect(journal.verdict).toBe('aborted');
      expect(journal.reason).toMatch(/cancelled by SIGINT/);
      expect(journal.events.find((e) => e.type === 'stop-verified')?.message).toMatch(/stopped/);
      expect(alive(record.sandboxPid!)).toBe(false);
      if (record.metrics.kind === 'prometheus') expect(alive(record.metrics.pid)).toBe(false);
    },
    DEMO_TIMEOUT_MS + 15_000,
  );
});
