/**
 * `chaos-gate demo` end to end, as a user runs it: a child process that starts its own sandbox (and a
 * real Prometheus when one is installed), runs both demo plans through the action's code path, and
 * cleans up after itself. Ctrl-C and `--simulated` have their own files beside this one.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DemoRecord, FaultRecord } from '../../src/cli/demo/sandbox-demo.js';
import type { Journal } from '../../src/journal/types.js';
import { abortLatencyMs } from '../../src/action/outputs.js';
import { DEMO_TIMEOUT_MS, alive, demoChildren, type Finished } from './child.js';

const cli = demoChildren();

describe('chaos-gate demo (sandbox, through the action)', () => {
  const outDir = mkdtempSync(join(tmpdir(), 'chaos-gate-demo-test-'));
  let run: Finished;
  let record: DemoRecord;
  /** The end of the demo's output, shown when an assertion fails. */
  const tail = (): string => `${run.stdout.slice(-4000)}\n${run.stderr.slice(-2000)}`;

  beforeAll(async () => {
    run = await cli(['demo', '--out-dir', outDir], DEMO_TIMEOUT_MS);
    record = JSON.parse(readFileSync(join(outDir, 'demo.json'), 'utf8')) as DemoRecord;
  }, DEMO_TIMEOUT_MS + 15_000);
  afterAll(() => rmSync(outDir, { recursive: true, force: true }));

  it('holds with the fallback on, aborts with it off, and exits 0', () => {
    expect(
      record.plans.map((p) => [p.planId, p.verdict]),
      tail(),
    ).toEqual([
      ['demo-holds', 'held'],
      ['demo-aborts', 'aborted'],
    ]);
    expect(run.code, run.stderr).toBe(0);
    expect(record.ok).toBe(true);
    expect(run.stdout).toMatch(/verdict {2}held \(exit 0\)/);
    expect(run.stdout).toMatch(/verdict {2}aborted \(exit 1\)/);
  });

  it('prints a progress line per tick and says which metric source it used', () => {
    const ticks = run.stdout
      .split('\n')
      .filter((l) => /^\s+[+-]\d+\.\ds\s+(steady|fault|recovery)\s/.test(l));
    expect(ticks.length).toBeGreaterThanOrEqual(20);
    if (record.metrics.kind === 'prometheus') expect(run.stdout).toContain(`Prometheus`);
    else expect(run.stdout).toContain('scrape source');
    expect(run.stdout).toMatch(/^recap$/m);
  });

  it('leaves the journal, the markdown summary and the HTML report of each run', () => {
    for (const p of record.plans) {
      for (const f of [p.files.journal, p.files.summary, p.files.report]) expect(existsSync(f), f).toBe(true);
      const journal = JSON.parse(readFileSync(p.files.journal, 'utf8')) as Journal;
      expect(journal.verdict).toBe(p.verdict);
      expect(readFileSync(p.files.summary, 'utf8')).toContain(p.verdict);
      expect(readFileSync(p.files.report, 'utf8')).toMatch(/<html/i);
      expect(run.stdout).toContain(p.files.journal);
      expect(run.stdout).toContain(p.files.report);
    }
  });

  it('stopped the aborted experiment and verified it stopped', () => {
    const aborts = record.plans.find((p) => p.planId === 'demo-aborts')!;
    const journal = JSON.parse(readFileSync(aborts.files.journal, 'utf8')) as Journal;
    const types = journal.events.map((e) => e.type);
    expect(types).toContain('abort');
    expect(types).toContain('stop-requested');
    expect(journal.events.find((e) => e.type === 'stop-verified')?.message).toMatch(/stopped/);
    // The action's abort-latency-ms output: a whole number of milliseconds (never '' for an abort), the
    // one the journal records from the measurement that completed the rule to the StopExperiment request.
    expect(aborts.abortLatencyMs).toMatch(/^\d+$/);
    expect(aborts.abortLatencyMs).toBe(String(Math.round(abortLatencyMs(journal) ?? NaN)));
    // No rule tripped in the held run: the output is empty.
    expect(record.plans.find((p) => p.planId === 'demo-holds')?.abortLatencyMs).toBe('');
  });

  it('ran the partition in the FIS stand-in: to completion when held, stopped early when aborted', () => {
    const [holds, aborts] = record.plans;
    for (const p of [holds!, aborts!]) {
      expect(p.fault, tail()).not.toHaveProperty('error');
      const [action] = p.fault as FaultRecord[];
      expect(action?.actionId).toBe('aws:network:disrupt-connectivity');
      expect(action?.targets).toEqual([expect.stringMatching(/subnet\/subnet-0ed15/)]);
    }
    expect((holds!.fault as FaultRecord[])[0]?.endedAs).toBe('completed');
    // `stopped`, not `completed`: the tripwire ended the 30 s action before its time.
    expect((aborts!.fault as FaultRecord[])[0]?.endedAs).toBe('stopped');
  });

  it('completed a check run per plan in the GitHub stand-in, with the verdict’s conclusion', () => {
    const checks = record.plans.map((p) => p.check);
    for (const c of checks) expect(c, tail()).not.toHaveProperty('error');
    expect(
      checks.map((c) => ('name' in c ? [c.name, c.status, c.conclusion] : c)),
      tail(),
    ).toEqual([
      ['chaos-gate / demo-holds', 'completed', 'success'],
      ['chaos-gate / demo-aborts', 'completed', 'failure'],
    ]);
  });

  it('ends the sandbox and the Prometheus it started', () => {
    expect(record.sandboxPid).toBeGreaterThan(0);
    expect(alive(record.sandboxPid!)).toBe(false);
    if (record.metrics.kind === 'prometheus') expect(alive(record.metrics.pid)).toBe(false);
  });
});
