/**
 * `chaos-gate demo`: by default the two demo plans on the local sandbox, through the GitHub Action's
 * code path (`src/cli/demo/`); with `--simulated`, the Redis partition plan on a simulated world in a few
 * seconds of wall time. Both print a line per measurement. No AWS, no GitHub, no Docker.
 */
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { FileJournalWriter } from '../../journal/writer.js';
import { planRunDurationMs } from '../../plan/refusals.js';
import { ScaledClock } from '../../sim/clock.js';
import { scenarioForPlan } from '../../sim/generate.js';
import { loadScenario, ScenarioError, type Scenario } from '../../sim/scenario.js';
import { parseFlags, UsageError, type CliCommand, type CliIo } from '../command.js';
import { exitCodesHelp } from '../exit-codes.js';
import { progressPrinter } from '../../report/progress.js';
import { loadPlanOrReport, runSimulation } from './simulate.js';

const DEMO_PLAN = 'fixtures/plans/redis-partition.yaml';
/** Wall time the demo aims for: long enough to watch, short enough not to bore. */
const TARGET_WALL_MS = 6_000;
/** Steady-state ticks are condensed to one line per this much simulated time. */
const STEADY_LINE_EVERY_MS = 30_000;
const EXIT_BAD_INPUT = 2;

const usage = `Usage: chaos-gate demo [--no-prometheus] [--out-dir <dir>]
       chaos-gate demo --simulated [--plan <file>] [--scenario <file>] [--breach] [--speed <n>]
                                   [--out-dir <dir>] [--journal <path>]

Default: starts the sandbox (\`chaos-gate sandbox\`) as a child process and runs two Redis partition
plans through the GitHub Action's own code path, against the sandbox's AWS and GitHub stand-ins:
fixtures/plans/demo-holds.yaml with the canary's fallback on (expects held) and
fixtures/plans/demo-aborts.yaml with it off (expects aborted: a tripwire stops FIS). SLIs come from a
real Prometheus when \`prometheus\` is on PATH (or $PROMETHEUS_BIN), else from the canary's /metrics.
Prints a line per measurement, the check runs the GitHub stand-in recorded, where the journal, summary
and HTML report are, and a recap. Exit 0 when both verdicts are as expected, else 1. Under 90 s.

Options:
  --no-prometheus    use the scrape source even when Prometheus is installed
  --out-dir <dir>    where the files go (default out/demo)
  --simulated        the older demo: one plan on a simulated world, no sandbox (options below)
  -h, --help         show this help

With --simulated:
  --plan <file>      the plan to run (default ${DEMO_PLAN})
  --scenario <file>  a scenario file instead of the world generated from the plan
  --breach           make the first abort rule's SLI break its threshold (shows an abort)
  --speed <n>        simulated seconds per wall second (default: the run fits in ~6 s)
  --out-dir <dir>    where the journal goes (default out/demo)
  --journal <path>   the journal's path itself (default <out-dir>/<plan id>.journal.json)

Ctrl-C stops the fault like a cancelled job (then, by default, ends the sandbox and Prometheus).

${exitCodesHelp('demo')}`;

/** The plan file: relative to the working directory, else to the installed package. */
function findPlan(cwd: string, file: string): string {
  const here = resolve(cwd, file);
  if (existsSync(here)) return here;
  const moduleDir = dirname(fileURLToPath(import.meta.url));
  for (const up of ['..', '../..', '../../..']) {
    const candidate = resolve(moduleDir, up, file);
    if (existsSync(candidate)) return candidate;
  }
  return here;
}

function noPositionals(positionals: string[]): void {
  if (positionals.length > 0)
    throw new UsageError(`unexpected argument '${positionals[0]}': the demo takes options only`);
}

/** When the built-in simulated scenario starts: a Monday, 10:30 in Berlin (inside the demo plan's window). */
export const DEMO_START_AT = '2026-03-02T09:30:00Z';

/** The simulated demo (`--simulated`): one plan on a simulated world, no sandbox. */
async function simulatedDemo(argv: string[], io: CliIo): Promise<number> {
  const parsed = parseFlags(argv, {
    plan: { type: 'string' },
    scenario: { type: 'string' },
    breach: { type: 'boolean', default: false },
    speed: { type: 'string' },
    'out-dir': { type: 'string' },
    journal: { type: 'string' },
  });
  noPositionals(parsed.positionals);
  const planFile = parsed.values.plan ?? DEMO_PLAN;
  const loaded = await loadPlanOrReport(findPlan(io.cwd, planFile), io);
  if (!loaded) return EXIT_BAD_INPUT;
  let scenario: Scenario;
  if (parsed.values.scenario !== undefined) {
    try {
      scenario = loadScenario(resolve(io.cwd, parsed.values.scenario));
    } catch (error) {
      if (!(error instanceof ScenarioError)) throw error;
      io.err(error.message);
      return EXIT_BAD_INPUT;
    }
  } else {
    // The simulation judges the plan's schedule at its start, like a run: the built-in scenario starts
    // on a weekday morning (DEMO_START_AT) so the demo shows the experiment, whatever the hour it is run.
    scenario = { ...scenarioForPlan(loaded.plan, { breach: parsed.values.breach }), startAt: DEMO_START_AT };
  }
  const speed =
    parsed.values.speed !== undefined
      ? Number(parsed.values.speed)
      : Math.max(1, planRunDurationMs(loaded.plan) / TARGET_WALL_MS);
  if (!Number.isFinite(speed) || speed <= 0)
    throw new UsageError(`--speed ${parsed.values.speed}: expected a positive number`);
  const journalPath = resolve(
    io.cwd,
    parsed.values.journal ??
      join(parsed.values['out-dir'] ?? join('out', 'demo'), `${loaded.plan.id}.journal.json`),
  );

  io.out(`chaos-gate demo: ${loaded.plan.title}`);
  io.out(
    `plan ${planFile} (digest ${loaded.digest.slice(0, 12)}), simulated world at ${speed.toFixed(0)}x speed\n`,
  );
  const cancel = new AbortController();
  const onSignal = (name: NodeJS.Signals): void => cancel.abort(name);
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    const progress = progressPrinter(io.out, { steadyEveryMs: STEADY_LINE_EVERY_MS });
    const { result } = await runSimulation({
      loaded,
      scenario,
      clock: new ScaledClock(
        speed,
        scenario.startAt === undefined ? Date.now() : Date.parse(scenario.startAt),
      ),
      journal: new FileJournalWriter(journalPath),
      signal: cancel.signal,
      onTick: progress.onTick,
      onEvent: progress.onEvent,
    });
    io.out(`\nverdict: ${result.verdict} (exit ${result.exitCode})`);
    io.out(`reason:  ${result.reason}`);
    io.out(`journal: ${journalPath}`);
    io.out(`summary: chaos-gate report ${journalPath} --markdown`);
    return result.exitCode;
  } finally {
    process.removeListener('SIGINT', onSignal);
    process.removeListener('SIGTERM', onSignal);
  }
}

/** Signals that cancel the demo: the run stops its fault, then the sandbox and Prometheus are ended. */
const CANCEL_SIGNALS = ['SIGINT', 'SIGTERM'] as const;

/** The sandbox demo (default). */
async function sandboxDemo(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseFlags(argv, {
    'no-prometheus': { type: 'boolean' },
    'out-dir': { type: 'string' },
  });
  noPositionals(positionals);
  // Before the sandbox starts: an install without development dependencies lacks the GitHub description.
  const { missingSandboxDependency } = await import('../../sandbox/github/requirement.js');
  const missing = missingSandboxDependency('demo');
  if (missing !== undefined) {
    io.err(`${missing}\n(chaos-gate demo --simulated runs without it.)`);
    return 1;
  }
  // Loaded here, not at the top: the action's wiring it uses (@actions/core, @actions/artifact) is
  // heavy, and no other command needs it.
  const { runSandboxDemo } = await import('../demo/sandbox-demo.js');
  const cancel = new AbortController();
  const onSignal = (name: NodeJS.Signals): void => {
    if (!cancel.signal.aborted) io.err(`\nchaos-gate demo: ${name}: stopping the fault, then the sandbox…`);
    cancel.abort(name);
  };
  for (const sig of CANCEL_SIGNALS) process.on(sig, onSignal);
  try {
    const record = await runSandboxDemo({
      cwd: io.cwd,
      outDir: values['out-dir'],
      noPrometheus: values['no-prometheus'] ?? false,
      env: io.env,
      out: io.out,
      signal: cancel.signal,
      progress: () => progressPrinter((line) => io.out(`  ${line}`)),
    });
    return record.ok ? 0 : 1;
  } finally {
    for (const sig of CANCEL_SIGNALS) process.removeListener(sig, onSignal);
  }
}

export const demo: CliCommand = {
  name: 'demo',
  usage,
  async run(argv, io) {
    if (argv.includes('--simulated'))
      return simulatedDemo(
        argv.filter((a) => a !== '--simulated'),
        io,
      );
    return sandboxDemo(argv, io);
  },
};
