/**
 * `npm run bench`: measures every figure of docs/design/targets.md against a sandbox child process over real
 * sockets, prints a table (median and p99 over repeated runs, the target, whether it is met) and
 * writes `bench/results.json`. Nothing is hard-coded: a figure that cannot be measured here is printed
 * as "not measured: <why>".
 *
 * Options: --quick (fewer repetitions), --only <id,…> (a subset; other rows of results.json are kept),
 * --no-build (use dist/ as it is), --dist <dir> (build into and measure <dir> instead of dist/), --out <file>.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import * as prettier from 'prettier';
import { BUNDLE_ENV } from '../test/helpers/cli.js';
import { startSandboxProcess, type RunningSandbox } from '../test/helpers/sandbox.js';
import { benchApiCalls } from './figures/api-calls.js';
import { benchAccountRate, benchSliCalls } from './figures/account-demand.js';
import { benchCliStart } from './figures/cli-start.js';
import { benchBundles, benchColdStart } from './figures/cold-start.js';
import { benchLease } from './figures/lease.js';
import { benchMemory } from './figures/memory.js';
import { benchOverhead, OVERHEAD_PUBLISH_INTERVAL_MS, OVERHEAD_TARGET_MS } from './figures/overhead.js';
import { benchReaction } from './figures/reaction.js';
import { benchScanFigures } from './figures/scan.js';
import { benchNotify } from './figures/notify.js';
import { benchSlowAws } from './figures/slow-aws.js';
import { benchVerdicts } from './figures/verdicts.js';
import { notMeasured, type FigureResult } from './lib/stats.js';
import { ROOT } from './lib/world.js';

/**
 * Repetitions per figure: full and `--quick`. The lease takes ~30 s a run, hence fewer; an overhead
 * run takes about a minute and a half, a slowed-AWS run one to two (slowAws counts runs per scenario).
 */
const REPETITIONS = {
  full: {
    reaction: 7,
    lease: 3,
    coldStart: 10,
    memory: 3,
    scan: 7,
    overhead: 5,
    slowAws: 3,
    cliStart: 15,
    notify: 5,
    verdicts: 8,
  },
  quick: {
    reaction: 3,
    lease: 2,
    coldStart: 5,
    memory: 1,
    scan: 3,
    overhead: 3,
    slowAws: 2,
    cliStart: 7,
    notify: 3,
    verdicts: 3,
  },
} as const;

/** Groups of figures, by the `--only` names that select them. */
const GROUPS = [
  'bundle',
  'scan',
  'cli-start',
  'cold-start',
  'reaction',
  'api-calls',
  'sli-calls',
  'account-rate',
  'memory',
  'lease',
  'overhead',
  'slow-aws',
  'notify',
  'verdicts',
] as const;
type Group = (typeof GROUPS)[number];

/** What `bench/results.json` holds. */
export interface BenchResults {
  command: string;
  date: string;
  node: string;
  platform: string;
  cpus: number;
  cpuModel: string;
  memoryBytes: number;
  /** 1/5/15-minute load averages when the bench started and ended: the figures are wall-clock times. */
  loadAverage: { start: number[]; end: number[] };
  figures: FigureResult[];
}

function log(line: string): void {
  process.stderr.write(`${line}\n`);
}

function format(value: number | null, unit: string): string {
  if (value === null || Number.isNaN(value)) return '–';
  if (unit === 'ms') return value >= 10_000 ? `${(value / 1000).toFixed(1)} s` : `${value.toFixed(0)} ms`;
  if (unit === 'MB') return `${value.toFixed(2)} MB`;
  if (unit === '×') return `${value.toFixed(2)}×`;
  return `${Number.isInteger(value) ? value.toFixed(0) : value.toFixed(2)}`;
}

/** The bench table as text. */
export function table(figures: readonly FigureResult[]): string {
  const rows = figures.map((f) =>
    f.notMeasured !== undefined
      ? [f.figure, `not measured: ${f.notMeasured}`, '', '', f.target, '–']
      : [
          f.figure,
          format(f.median, f.unit),
          format(f.p99, f.unit),
          String(f.samples.length),
          f.target,
          f.meets ? 'yes' : 'NO',
        ],
  );
  const header = ['figure', 'median', 'p99', 'n', 'target', 'meets'];
  const widths = header.map((h, i) =>
    Math.max(h.length, ...rows.filter((r) => r[2] !== '' || i === 0).map((r) => (r[i] ?? '').length)),
  );
  const line = (cells: string[]): string =>
    cells[2] === '' && cells[1]?.startsWith('not measured')
      ? `| ${(cells[0] ?? '').padEnd(widths[0] ?? 0)} | ${cells[1]} (target ${cells[4]})`
      : `| ${cells.map((c, i) => c.padEnd(widths[i] ?? 0)).join(' | ')} |`;
  return [line(header), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...rows.map(line)].join('\n');
}

async function withSandbox<T>(
  fn: (sandbox: RunningSandbox) => Promise<T>,
  config?: Record<string, unknown>,
): Promise<T> {
  const sandbox = await startSandboxProcess(config ? { config } : {});
  try {
    return await fn(sandbox);
  } finally {
    await sandbox.stop();
  }
}

const USAGE = `Usage: npm run bench -- [options]

  --quick         fewer repetitions
  --only <g,...>  a subset of figure groups: ${GROUPS.join(', ')}
  --no-build      measure dist/ as it is
  --dist <dir>    build into (and measure) <dir> instead of dist/
  --out <file>    where the results go (default bench/results.json)
  --help          this text
`;

async function main(): Promise<void> {
  let parsed;
  try {
    parsed = parseArgs({
      options: {
        help: { type: 'boolean', short: 'h', default: false },
        quick: { type: 'boolean', default: false },
        only: { type: 'string' },
        'no-build': { type: 'boolean', default: false },
        dist: { type: 'string' },
        out: { type: 'string', default: path.join(ROOT, 'bench/results.json') },
      },
    });
  } catch (error) {
    // A bad option is a usage error: say so and show the options, no stack trace.
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n\n${USAGE}`);
    process.exitCode = 2;
    return;
  }
  if (parsed.values.help) {
    process.stdout.write(USAGE);
    return;
  }
  const { values } = parsed;
  const reps = values.quick ? REPETITIONS.quick : REPETITIONS.full;
  const only = values.only?.split(',').map((s) => s.trim()) ?? [...GROUPS];
  const unknown = only.filter((g) => !(GROUPS as readonly string[]).includes(g));
  if (unknown.length > 0) {
    process.stderr.write(
      `--only: unknown figure group(s) ${unknown.join(', ')}; expected ${GROUPS.join(', ')}\n\n${USAGE}`,
    );
    process.exitCode = 2;
    return;
  }
  const wants = (g: Group): boolean => only.includes(g);
  const loadAtStart = os.loadavg();
  const figures: FigureResult[] = [];

  let buildProblem: string | undefined;
  const distDir = path.resolve(ROOT, values.dist ?? 'dist');
  // Every child the bench starts (the sandbox, `chaos-gate run`, the action) is the built bundle, as a
  // user runs it: from the sources through tsx each start would cost seconds the product does not.
  if (only.some((g) => g !== 'scan') && !values['no-build']) {
    log(`building ${path.relative(ROOT, distDir)}/ (scripts/build.mjs)…`);
    const built = spawnSync(process.execPath, ['scripts/build.mjs', '--outdir', distDir], {
      cwd: ROOT,
      encoding: 'utf8',
    });
    if (built.status !== 0)
      buildProblem = `npm run build failed: ${(built.stderr || built.stdout).trim().slice(-300)}`;
  }
  if (existsSync(path.join(distDir, 'cli.js'))) process.env[BUNDLE_ENV] = distDir;
  if (wants('bundle')) {
    figures.push(
      ...benchBundles(distDir).map((f) =>
        buildProblem && f.notMeasured === undefined
          ? { ...f, details: { ...f.details, stale: buildProblem } }
          : f,
      ),
    );
  }
  if (wants('scan')) {
    log(`scan: ${reps.scan} passes…`);
    figures.push(...benchScanFigures(reps.scan));
  }
  if (wants('cli-start')) {
    log(`CLI start: ${reps.cliStart} rounds of node -e 0 against --version, --help and validate…`);
    figures.push(...benchCliStart(distDir, reps.cliStart, log));
  }

  if (wants('notify')) {
    log(`notify: ${reps.notify} pairs of simulated 60-minute runs, sinks off and on…`);
    figures.push(await benchNotify(reps.notify, log));
  }

  if (wants('verdicts')) {
    log(`verdicts: ${reps.verdicts} demo runs (both plans) with one core kept busy…`);
    figures.push(...(await benchVerdicts(reps.verdicts, log)));
  }

  // `overhead` runs on a sandbox of its own (10 s alarm evaluation), below.
  const live = GROUPS.filter(
    (g) =>
      wants(g) &&
      !['bundle', 'scan', 'cli-start', 'overhead', 'notify', 'verdicts', 'account-rate'].includes(g),
  );
  if (live.length > 0) {
    try {
      await withSandbox(async (sandbox) => {
        if (wants('cold-start')) {
          log(`action cold start: ${reps.coldStart} starts…`);
          figures.push(await benchColdStart(sandbox, reps.coldStart, log, distDir));
        }
        if (wants('reaction')) {
          log(`tripwire reaction / breach onset → stopped: ${reps.reaction} aborted runs…`);
          figures.push(...(await benchReaction(sandbox, reps.reaction, log)));
        }
        if (wants('api-calls')) {
          log('API calls per tick: one held run with scrape, CloudWatch and Prometheus SLIs…');
          figures.push(...(await benchApiCalls(sandbox, log)));
        }
        if (wants('sli-calls')) {
          log('AWS calls per tick: held runs with 1, 10 and 50 CloudWatch SLIs…');
          figures.push(...(await benchSliCalls(sandbox, log)));
        }
        if (wants('memory')) {
          log(`memory: ${reps.memory} simulated 15-minute runs…`);
          figures.push(await benchMemory(sandbox, reps.memory, log));
        }
        if (wants('lease')) {
          log(`lease: ${reps.lease} runs SIGKILLed during the fault (~30 s each)…`);
          figures.push(await benchLease(sandbox, reps.lease, log));
        }
        if (wants('slow-aws')) {
          log(
            `slow AWS: ${reps.slowAws} runs with GetExperiment at 25 s, ${reps.slowAws} with StopExperiment hanging 220 s (~1–2 min each)…`,
          );
          figures.push(...(await benchSlowAws(sandbox, reps.slowAws, log)));
        }
      });
    } catch (error) {
      const why = `the sandbox failed: ${error instanceof Error ? error.message : String(error)}`;
      for (const g of live) {
        if (!figures.some((f) => f.id.startsWith(g))) {
          figures.push(
            notMeasured({ id: g, figure: g, unit: '', method: 'sandbox' }, 'see docs/design/targets.md', why),
          );
        }
      }
    }
  }

  if (wants('overhead')) {
    log(
      `gate overhead: ${reps.overhead} held runs on a sandbox evaluating alarms every 10 s (~1.5 min each)…`,
    );
    try {
      // The sandbox evaluates alarms when its publish timer fires. Every 10 s, as here, a 10 s-period
      // alarm's state lags its period by up to 10 s; at the other groups' 1 s it lags by at most a
      // second, which would hide much of the lease warm-up.
      const figure = await withSandbox((sandbox) => benchOverhead(sandbox, reps.overhead, log), {
        publishIntervalMs: OVERHEAD_PUBLISH_INTERVAL_MS,
      });
      figures.push(figure);
    } catch (error) {
      const why = `the sandbox failed: ${error instanceof Error ? error.message : String(error)}`;
      figures.push(
        notMeasured(
          { id: 'gate-overhead', figure: 'gate overhead', unit: 'ms', method: 'sandbox' },
          `≤ ${OVERHEAD_TARGET_MS / 1000} s`,
          why,
        ),
      );
    }
  }

  if (wants('account-rate')) {
    // Each N gets a sandbox of its own, so its request log holds that matrix alone.
    log('account peak request rate: 1, 5 and 20 runs started together against FIS quota 5…');
    figures.push(...(await benchAccountRate(log)));
  }

  const previous: FigureResult[] =
    values.only && existsSync(values.out)
      ? (JSON.parse(readFileSync(values.out, 'utf8')) as BenchResults).figures.filter(
          (f) => !figures.some((n) => n.id === f.id),
        )
      : [];
  const results: BenchResults = {
    command: `npm run bench${process.argv.length > 2 ? ` -- ${process.argv.slice(2).join(' ')}` : ''}`,
    date: new Date().toISOString(),
    node: process.version,
    platform: `${os.platform()} ${os.release()} ${os.arch()}`,
    cpus: os.cpus().length,
    cpuModel: os.cpus()[0]?.model ?? 'unknown',
    memoryBytes: os.totalmem(),
    loadAverage: { start: loadAtStart, end: os.loadavg() },
    figures: [...previous, ...figures],
  };
  // Formatted as the repository formats JSON, so `npm run format:check` passes on a fresh results file.
  const options = (await prettier.resolveConfig(values.out)) ?? {};
  writeFileSync(values.out, await prettier.format(JSON.stringify(results), { ...options, parser: 'json' }));
  console.log(table(results.figures));
  const missed = results.figures.filter((f) => f.meets === false).length;
  const unmeasured = results.figures.filter((f) => f.notMeasured !== undefined).length;
  console.log(
    `\n${results.figures.length} figures: ${results.figures.length - missed - unmeasured} meet their target, ${missed} miss it, ${unmeasured} not measured ` +
      `(node ${results.node}, ${results.cpus} cores, ${results.date}); written to ${path.relative(process.cwd(), values.out)}`,
  );
}

await main();
