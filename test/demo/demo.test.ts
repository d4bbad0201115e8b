/**
 * `chaos-gate demo` end to end, as a user runs it: a child process that starts its own sandbox (and a
 * real Prometheus when one is installed), runs both demo plans through the action's code path, and
 * cleans up after itself.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DemoRecord, FaultRecord } from '../../src/cli/demo/sandbox-demo.js';
import type { Journal } from '../../src/journal/types.js';
import { abortLatencyMs } from '../../src/action/outputs.js';
import { cliArgs } from '../helpers/cli.js';

const ROOT = resolve(import.meta.dirname, '../..');
/** The demo's own target is under 90 s; the bound leaves room for a loaded CI machine. */
const DEMO_TIMEOUT_MS = 110_000;
/** The simulated demo runs in ~6 s of wall time plus start-up. */
const SIMULATED_TIMEOUT_MS = 40_000;

interface Finished {
  code: number | null;
  stdout: string;
  stderr: string;
}

const children = new Set<ChildProcess>();
/** PIDs the demo printed (sandbox, Prometheus), ended in teardown should the demo have failed to. */
const printedPids = new Set<number>();

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Runs the CLI as a child process, bounded; kills it by PID when the bound passes. */
function cli(
  args: string[],
  timeoutMs: number,
  onStdout?: (stdout: string, child: ChildProcess) => void,
): Promise<Finished> {
  const child = spawn(process.execPath, cliArgs(args), {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, CI: '' },
  });
  children.add(child);
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (c: Buffer) => {
    stdout += c.toString();
    for (const m of stdout.matchAll(/\bpid (\d+)/g)) printedPids.add(Number(m[1]));
    onStdout?.(stdout, child);
  });
  child.stderr?.on('data', (c: Buffer) => (stderr += c.toString()));
  return new Promise((done) => {
    const timer = setTimeout(() => {
      // SIGINT first: the demo stops its fault and its children, as on Ctrl-C.
      if (child.pid !== undefined) process.kill(child.pid, 'SIGINT');
      setTimeout(
        () => child.exitCode === null && child.pid !== undefined && process.kill(child.pid, 'SIGKILL'),
        10_000,
      );
    }, timeoutMs);
    child.once('exit', (code) => {
      clearTimeout(timer);
      children.delete(child);
      done({ code, stdout, stderr });
    });
  });
}

afterAll(() => {
  for (const child of children)
    if (child.pid !== undefined && child.exitCode === null) process.kill(child.pid, 'SIGKILL');
  for (const pid of printedPids) if (alive(pid)) process.kill(pid, 'SIGKILL');
});

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

describe('chaos-gate demo, cancelled with Ctrl-C during the fault', () => {
  const outDir = mkdtempSync(join(tmpdir(), 'chaos-gate-demo-cancel-'));
  afterAll(() => rmSync(outDir, { recursive: true, force: true }));

  it(
    'stops and verifies the experiment, then ends the sandbox and Prometheus, and exits 1',
    async () => {
      let sent = false;
      const run = await cli(['demo', '--out-dir', outDir], DEMO_TIMEOUT_MS, (stdout, child) => {
        if (!sent && /\+\d+\.\ds\s+fault\s/.test(stdout) && child.pid !== undefined) {
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
