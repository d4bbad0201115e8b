/**
 * Memory of a 15-minute run at a 1 s interval: `memory-child.ts`, bundled with esbuild the way
 * dist/ is (so no TypeScript loader sits in the measured process), runs in its own process against
 * the sandbox; its peak RSS is the figure, so the bench harness is not counted.
 */
import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import path from 'node:path';
import { build } from 'esbuild';
import type { RunningSandbox } from '../../test/helpers/sandbox.js';
import { measured, notMeasured, type FigureResult } from '../lib/stats.js';
import { ROOT, sandboxEnv, tempDir, writePlan, type PlanSli } from '../lib/world.js';

/** docs/design/targets.md: ≤ 150 MB RSS, counted in MiB (2^20 bytes) as bench/engine.ts does. */
export const MEMORY_TARGET_MB = 150;
/** docs/design/targets.md: "a 15-minute run at 1 s interval". */
const RUN_MINUTES = 15;
/** The child waits for the lease alarm in real time (≤ 30 s) and then runs ~900 ticks of real I/O. */
const CHILD_TIMEOUT_MS = 180_000;

/**
 * SLIs that stay meaningful when simulated seconds pass in real milliseconds: gauges and a counter
 * increase (a ratio or quantile over a few milliseconds of traffic would be mostly empty windows, and the
 * run would end blind instead of lasting 15 minutes).
 */
function memorySlis(): PlanSli[] {
  const url = '${CANARY_URL}/metrics';
  return [
    { name: 'breaker_open', scrape: { url, gauge: 'circuit_breaker_open' }, max: 1 },
    { name: 'faults_active', scrape: { url, gauge: 'canary_faults_active' }, max: 10 },
    { name: 'requests_seen', scrape: { url, increase: 'http_requests_total' }, min: 0 },
  ];
}

async function bundleChild(outDir: string): Promise<string> {
  const outfile = path.join(outDir, 'memory-child.mjs');
  await build({
    entryPoints: [path.join(ROOT, 'bench/figures/memory-child.ts')],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    minify: true,
    logLevel: 'error',
    banner: {
      js: "import { createRequire as __cgCreateRequire } from 'node:module';\nconst require = __cgCreateRequire(import.meta.url);",
    },
  });
  return outfile;
}

interface ChildReport {
  peakRssBytes: number;
  rssBeforeRunBytes: number;
  heapAfterGcBytes: number;
  measurements: number;
  simulatedMs: number;
  faultMs: number;
  wallMs: number;
  verdict: string;
  reason: string;
  journalBytes: number;
}

function runChild(
  script: string,
  arg: string,
  env: NodeJS.ProcessEnv,
): Promise<{ report?: ChildReport; error?: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--expose-gc', script, arg], {
      cwd: ROOT,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout?.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr?.on('data', (c: Buffer) => (stderr = (stderr + c.toString()).slice(-5000)));
    const timer = setTimeout(() => {
      if (child.exitCode === null && child.pid !== undefined) process.kill(child.pid, 'SIGKILL');
    }, CHILD_TIMEOUT_MS);
    child.once('exit', (code) => {
      clearTimeout(timer);
      const line = stdout.split('\n').find((l) => l.startsWith('{'));
      if (code === 0 && line) resolve({ report: JSON.parse(line) as ChildReport });
      else resolve({ error: `child exited ${code}: ${stderr.trim().slice(-400)}` });
    });
  });
}

/** `repetitions` 15-minute simulated runs, each in a fresh process. */
export async function benchMemory(
  sandbox: RunningSandbox,
  repetitions: number,
  log: (line: string) => void,
  minutes = RUN_MINUTES,
): Promise<FigureResult> {
  const base = {
    id: 'memory-15-min-run',
    figure: `memory of a ${minutes}-minute run at 1 s interval (peak RSS)`,
    unit: 'MB',
    method:
      'bundled child process: engine on a VirtualClock, scrape source + FIS injector + journal over real sockets/files to the sandbox; process.resourceUsage().maxRSS',
  };
  const target = { max: MEMORY_TARGET_MB, text: `≤ ${MEMORY_TARGET_MB} MB` };
  const dir = tempDir();
  const samples: number[] = [];
  const runs: Omit<ChildReport, 'peakRssBytes'>[] = [];
  const problems: string[] = [];
  const timings = (await sandbox.admin.get<{ timings: Record<string, number> }>('/fis/timings')).timings;
  try {
    const script = await bundleChild(dir);
    // Simulated seconds pass in microseconds here, so the stop must read `stopped` at once.
    await sandbox.admin.send('PUT', '/fis/timings', { stoppingMs: 0 });
    for (let i = 0; i < repetitions; i++) {
      const id = `bench-memory-${Date.now().toString(36)}-${i}`;
      const planPath = writePlan(dir, {
        id,
        interval: '1s',
        steady: '60s',
        actionDuration: `PT${minutes}M`,
        maxActionDuration: `${minutes}m`,
        // The fault is observed until the run reaches this ceiling: `minutes` simulated minutes in all.
        maxRunDuration: `${minutes}m`,
        recovery: '10s',
        minRequests: 0,
        requests: false,
        slis: memorySlis(),
        rules: [{ sli: 'faults_active', above: 5, for: '3s' }],
      });
      const journalPath = path.join(dir, `${id}.journal.json`);
      const out = await runChild(script, JSON.stringify({ planPath, journalPath }), sandboxEnv(sandbox.urls));
      if (!out.report) {
        problems.push(`run ${i + 1}: ${out.error ?? 'no report'}`);
        continue;
      }
      const { peakRssBytes, ...rest } = out.report;
      if (rest.simulatedMs < (minutes - 1) * 60_000) {
        problems.push(
          `run ${i + 1}: lasted only ${(rest.simulatedMs / 60_000).toFixed(1)} simulated minutes (${rest.verdict}: ${rest.reason})`,
        );
        continue;
      }
      samples.push(peakRssBytes / 1024 / 1024);
      runs.push(rest);
      log(
        `  run ${i + 1}/${repetitions}: ${rest.measurements} measurements over ${(rest.simulatedMs / 60_000).toFixed(1)} simulated min ` +
          `in ${(rest.wallMs / 1000).toFixed(1)} s, peak RSS ${samples.at(-1)!.toFixed(1)} MB ` +
          `(${(rest.rssBeforeRunBytes / 2 ** 20).toFixed(1)} MB before the first tick; ${rest.verdict})`,
      );
    }
  } catch (error) {
    problems.push(error instanceof Error ? error.message : String(error));
  } finally {
    await sandbox.admin
      .send('PUT', '/fis/timings', { stoppingMs: timings['stoppingMs'] ?? 500 })
      .catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  }
  return samples.length > 0
    ? measured({ ...base, details: { runs, problems } }, samples, target)
    : notMeasured(base, target.text, problems.join('; ') || 'no run completed');
}
