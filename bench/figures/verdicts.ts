/**
 * Verdict stability on a busy machine: the demo's two plans through the bundled action, against a
 * sandbox child process, with one core kept busy by a spinning child the whole time. A run of the demo
 * runs both plans: `demo-holds` (fallback on, must be `held`) and `demo-aborts` (fallback off, must be
 * `aborted`). The figures count the runs where the verdict was not the expected one: a `held` plan that
 * comes out anything else is a false fail (a gate a team switches off), an aborting plan that is not
 * `aborted` is a miss. Both targets are 0. The verdicts and reasons of every run are in `details`.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DemoRecord } from '../../src/cli/demo/sandbox-demo.js';
import { cliArgs } from '../../test/helpers/cli.js';
import { measured, notMeasured, type FigureResult } from '../lib/stats.js';
import { ROOT } from '../lib/world.js';

/** A demo run takes about a minute on a busy machine; give it ten before calling it lost. */
const DEMO_TIMEOUT_MS = 600_000;

/** A child that keeps one core busy until killed. */
function busyCore(): ChildProcess {
  return spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' });
}

async function demoOnce(outDir: string): Promise<DemoRecord> {
  const child = spawn(process.execPath, cliArgs(['demo', '--out-dir', outDir]), {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  const keep = (c: Buffer): void => void (stderr = (stderr + c.toString()).slice(-2000));
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const timer = setTimeout(() => child.kill('SIGKILL'), DEMO_TIMEOUT_MS);
  await new Promise<void>((resolve) => child.once('close', () => resolve()));
  clearTimeout(timer);
  try {
    return JSON.parse(readFileSync(join(outDir, 'demo.json'), 'utf8')) as DemoRecord;
  } catch {
    throw new Error(`the demo wrote no demo.json: ${stderr.trim().slice(-300)}`);
  }
}

export async function benchVerdicts(runs: number, log: (line: string) => void): Promise<FigureResult[]> {
  const holds = {
    id: 'demo-holds-false-fails',
    figure: 'false fails: demo-holds not held, one core kept busy',
    unit: 'runs',
    method: `chaos-gate demo (bundled action vs sandbox child, real Prometheus when installed) ${runs}× beside a spinning child`,
  };
  const aborts = {
    id: 'demo-aborts-misses',
    figure: 'misses: demo-aborts not aborted, one core kept busy',
    unit: 'runs',
    method: holds.method,
  };
  const spinner = busyCore();
  const falseFails: number[] = [];
  const misses: number[] = [];
  const seen: { run: number; plan: string; verdict: string; reason: string }[] = [];
  let problem: string | undefined;
  try {
    for (let i = 1; i <= runs; i++) {
      const dir = mkdtempSync(join(tmpdir(), 'chaos-gate-bench-verdicts-'));
      try {
        const record = await demoOnce(dir);
        for (const p of record.plans) {
          seen.push({ run: i, plan: p.planId, verdict: p.verdict, reason: p.reason });
          if (p.expected === 'held') falseFails.push(p.verdict === 'held' ? 0 : 1);
          if (p.expected === 'aborted') misses.push(p.verdict === 'aborted' ? 0 : 1);
        }
        log(`  run ${i}: ${record.plans.map((p) => `${p.planId} ${p.verdict}`).join(', ')}`);
      } catch (error) {
        problem = error instanceof Error ? error.message : String(error);
        log(`  run ${i}: ${problem}`);
        break;
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    }
  } finally {
    spinner.kill('SIGKILL');
  }
  const target = { text: '0 of every run', max: 0 };
  const details = { runs: seen };
  const figure = (base: typeof holds, samples: number[]): FigureResult =>
    problem !== undefined && samples.length === 0
      ? notMeasured({ ...base, details }, target.text, problem)
      : { ...measured({ ...base, details }, samples, target), median: sum(samples), p99: sum(samples) };
  return [figure(holds, falseFails), figure(aborts, misses)];
}

/** The count of runs that missed, shown in the table's median and p99 columns. */
function sum(samples: readonly number[]): number {
  return samples.reduce((a, b) => a + b, 0);
}
