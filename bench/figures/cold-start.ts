/**
 * Action cold start to first AWS call, and bundle sizes. The action is the built bundle
 * (`node dist/action.js`) with its inputs in `INPUT_*` variables as the runner passes them and
 * `AWS_ENDPOINT_URL` at the sandbox; the figure is the spawn → the first request in the stand-in's log.
 * The child is SIGKILLed as soon as that request is seen (long before any fault could start). After each
 * start a floor bundle (the CloudWatch client alone, sending the same first request) is timed the same
 * way, so the figure comes with what the AWS SDK itself costs on the same machine at the same moment.
 */
import { spawn } from 'node:child_process';
import { build } from 'esbuild';
import { existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { RunningSandbox } from '../../test/helpers/sandbox.js';
import { measured, median, notMeasured, type FigureResult } from '../lib/stats.js';
import { lastSeq, pollFor, requestLog, ROOT, sandboxEnv, tempDir, writePlan } from '../lib/world.js';

/** docs/design/targets.md: action cold start to first AWS call ≤ 300 ms. */
export const COLD_START_TARGET_MS = 300;
/** docs/design/targets.md: bundle ≤ 5 MB (10^6 bytes per MB, as npm and GitHub report sizes). */
export const BUNDLE_TARGET_BYTES = 5_000_000;
/** The bundles `npm run build` writes (scripts/build.mjs). */
export const BUNDLES = ['action.js', 'post.js', 'cli.js'] as const;
/** Give up on one cold start after this long (a broken bundle must not hang the bench). */
const FIRST_CALL_TIMEOUT_MS = 15_000;

/** `repetitions` cold starts of `<distDir>/action.js` (default the committed dist/). */
export async function benchColdStart(
  sandbox: RunningSandbox,
  repetitions: number,
  log: (line: string) => void,
  distDir = path.join(ROOT, 'dist'),
): Promise<FigureResult> {
  const base = {
    id: 'action-cold-start',
    figure: 'action cold start to first AWS call',
    unit: 'ms',
    method:
      'spawn of node dist/action.js (INPUT_* env, AWS_ENDPOINT_URL at the sandbox) → first request in the stand-in log',
  };
  const target = { max: COLD_START_TARGET_MS, text: `≤ ${COLD_START_TARGET_MS} ms` };
  const bundle = path.join(distDir, 'action.js');
  if (!existsSync(bundle))
    return notMeasured(
      base,
      target.text,
      `${path.relative(ROOT, bundle)} is missing (npm run build failed or was skipped)`,
    );
  const samples: number[] = [];
  const floorSamples: number[] = [];
  const operations: string[] = [];
  const problems: string[] = [];
  const dir = tempDir();
  try {
    const plan = writePlan(dir, { id: 'bench-cold-start', steady: '30s' });
    const floor = await buildFloor(dir);
    for (let i = 0; i < repetitions; i++) {
      // @actions/core appends to these files and fails when one is missing.
      const files = { state: `state-${i}`, output: `output-${i}`, summary: `summary-${i}.md` };
      for (const f of Object.values(files)) writeFileSync(path.join(dir, f), '');
      const env = sandboxEnv(sandbox.urls, {
        INPUT_PLAN: plan,
        INPUT_COMMAND: 'run',
        'INPUT_CHECK-RUN': 'false',
        'INPUT_PR-COMMENT': 'false',
        'INPUT_QUEUE-TIMEOUT': '0s',
        'INPUT_JOURNAL-PATH': path.join(dir, `journal-${i}.json`),
        'INPUT_REPORT-PATH': path.join(dir, `report-${i}.html`),
        GITHUB_WORKSPACE: dir,
        // A trusted event (src/action/context.ts): `run` refuses, touching nothing, without one.
        GITHUB_EVENT_NAME: 'workflow_dispatch',
        GITHUB_RUN_ID: `bench-cold-${Date.now()}-${i}`,
        GITHUB_STATE: path.join(dir, files.state),
        GITHUB_OUTPUT: path.join(dir, files.output),
        GITHUB_STEP_SUMMARY: path.join(dir, files.summary),
      });
      delete env.GITHUB_TOKEN;
      delete env.GITHUB_REPOSITORY;
      const first = await firstCall(sandbox, bundle, dir, env);
      if (typeof first === 'string') problems.push(`start ${i + 1}: ${first}`);
      else {
        samples.push(first.ms);
        operations.push(first.operation);
      }
      // The floor right after, so both see the same machine.
      const floorFirst = await firstCall(sandbox, floor, dir, env);
      if (typeof floorFirst === 'string') problems.push(`floor start ${i + 1}: ${floorFirst}`);
      else floorSamples.push(floorFirst.ms);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const floorMedian = floorSamples.length > 0 ? median(floorSamples) : undefined;
  log(
    `  cold starts: ${samples.map((s) => s.toFixed(0)).join(', ')} ms (first call: ${[...new Set(operations)].join(', ')})`,
  );
  log(
    `  floor (the CloudWatch client alone, one DescribeAlarms): ${floorSamples.map((s) => s.toFixed(0)).join(', ')} ms, median ${floorMedian?.toFixed(0) ?? '–'} ms`,
  );
  return samples.length > 0
    ? measured(
        {
          ...base,
          details: { firstOperations: operations, problems, floorSamples, floorMedian },
        },
        samples,
        target,
      )
    : notMeasured(base, target.text, problems.join('; '));
}

/**
 * The floor under the figure: a bundle, built the way scripts/bundle.mjs builds dist/, that does nothing
 * but send the kill-switch DescribeAlarms with the pinned CloudWatch client. The action's first call is
 * that same request, so the gap between the two is what the action adds.
 */
async function buildFloor(dir: string): Promise<string> {
  const outfile = path.join(dir, 'floor', 'floor.mjs');
  await build({
    stdin: {
      contents: [
        "import { CloudWatchClient, DescribeAlarmsCommand } from '@aws-sdk/client-cloudwatch';",
        "await new CloudWatchClient({}).send(new DescribeAlarmsCommand({ AlarmNames: ['chaos-gate-kill-switch'] }));",
      ].join('\n'),
      resolveDir: ROOT,
      loader: 'ts',
    },
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    mainFields: ['module', 'main'],
    minify: true,
    banner: {
      js: "import { createRequire as __cgCreateRequire } from 'node:module'; const require = __cgCreateRequire(import.meta.url);",
    },
    logLevel: 'warning',
  });
  return outfile;
}

/** Spawns `node <script>` and times it to its first request in the stand-in's log; a problem as text. */
async function firstCall(
  sandbox: RunningSandbox,
  script: string,
  cwd: string,
  env: NodeJS.ProcessEnv,
): Promise<{ ms: number; operation: string } | string> {
  const since = await lastSeq(sandbox.admin);
  const spawnedAt = Date.now();
  const child = spawn(process.execPath, [script], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  const keep = (c: Buffer): void => void (stderr = (stderr + c.toString()).slice(-5000));
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  try {
    const first = await pollFor(
      async () => (await requestLog(sandbox.admin, { since }))[0],
      FIRST_CALL_TIMEOUT_MS,
      5,
    );
    return first
      ? { ms: first.time - spawnedAt, operation: `${first.service}:${first.operation ?? '?'}` }
      : `no AWS request within ${FIRST_CALL_TIMEOUT_MS / 1000} s (${stderr.trim().slice(-300)})`;
  } finally {
    if (child.exitCode === null && child.signalCode === null && child.pid !== undefined)
      process.kill(child.pid, 'SIGKILL');
    await exited;
  }
}

/** The size of each bundle (one sample each; a bundle's size does not vary between runs). */
/**
 * The files an entry loads at start: itself and every chunk it imports statically, transitively. Chunks
 * reached only by `import()` (the artifact client, the HTML report) load on demand and are not counted here.
 */
export function staticClosure(entry: string): string[] {
  const seen = new Set<string>();
  const visit = (file: string): void => {
    if (seen.has(file) || !existsSync(file)) return;
    seen.add(file);
    const code = readFileSync(file, 'utf8');
    // Minified ESM: `import{a as b}from"./chunks/x.js"` or `import"./chunks/x.js"`; never `import("…")`.
    for (const m of code.matchAll(/(?:from|import)\s*"(\.{1,2}\/[^"]+\.js)"/g)) {
      visit(path.resolve(path.dirname(file), m[1] as string));
    }
  };
  visit(entry);
  return [...seen];
}

export function benchBundles(distDir = path.join(ROOT, 'dist')): FigureResult[] {
  const chunksDir = path.join(distDir, 'chunks');
  const allChunks = existsSync(chunksDir)
    ? readdirSync(chunksDir)
        .filter((f) => f.endsWith('.js'))
        .map((f) => path.join(chunksDir, f))
    : [];
  return BUNDLES.map((name) => {
    const base = {
      id: `bundle-${name.replace('.js', '')}`,
      figure: `bundle size dist/${name} (+ chunks it loads at start)`,
      unit: 'MB',
      method: `sum of dist/${name} and the chunks it imports statically, after npm run build; lazy chunks in details`,
    };
    const file = path.join(distDir, name);
    const text = `≤ ${BUNDLE_TARGET_BYTES / 1e6} MB`;
    if (!existsSync(file))
      return notMeasured(base, text, `dist/${name} is missing (npm run build failed or was skipped)`);
    const atStart = staticClosure(file);
    const bytes = atStart.reduce((sum, f) => sum + statSync(f).size, 0);
    // Every entry loads the rest on demand (the CLI one command at a time), so the lazy bytes are shared.
    const lazy = allChunks.filter((f) => !atStart.includes(f));
    const lazyBytes = lazy.reduce((sum, f) => sum + statSync(f).size, 0);
    return measured(
      {
        ...base,
        details: {
          bytes,
          files: atStart.map((f) => path.relative(ROOT, f)),
          lazyBytes,
          lazyFiles: lazy.map((f) => path.relative(ROOT, f)),
        },
      },
      [bytes / 1e6],
      { max: BUNDLE_TARGET_BYTES / 1e6, text },
    );
  });
}
