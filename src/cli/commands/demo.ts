/**
 * `chaos-gate demo`: the Redis partition plan on a simulated world, at a few seconds of wall time,
 * printed live. No AWS, no Prometheus, no GitHub.
 */
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { FileJournalWriter } from '../../journal/writer.js';
import { planRunDurationMs } from '../../plan/refusals.js';
import { ScaledClock } from '../../sim/clock.js';
import { scenarioForPlan } from '../../sim/generate.js';
import { loadScenario, ScenarioError, type Scenario } from '../../sim/scenario.js';
import { UsageError, type CliCommand } from '../command.js';
import { progressPrinter } from '../progress.js';
import { loadPlanOrReport, runSimulation } from './simulate.js';

const DEMO_PLAN = 'fixtures/plans/redis-partition.yaml';
/** Wall time the demo aims for: long enough to watch, short enough not to bore. */
const TARGET_WALL_MS = 6_000;
/** Steady-state ticks are condensed to one line per this much simulated time. */
const STEADY_LINE_EVERY_MS = 30_000;
const EXIT_BAD_INPUT = 2;

const usage = `Usage: chaos-gate demo [--plan <file>] [--scenario <file>] [--breach] [--speed <n>] [--journal <path>]

Runs a plan (default ${DEMO_PLAN}) against a simulated world in a few seconds, printing one line
per measurement, then the verdict and where the journal is. Ctrl-C stops the fault like a cancelled job.

Options:
  --plan <file>      the plan to run
  --scenario <file>  a scenario file instead of the world generated from the plan
  --breach           make the first abort rule's SLI break its threshold (shows an abort)
  --speed <n>        simulated seconds per wall second (default: the run fits in ~6 s)
  --journal <path>   where to write the journal (default out/demo/<plan id>.journal.json)
  -h, --help         show this help`;

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

export const demo: CliCommand = {
  name: 'demo',
  summary: 'run the Redis partition plan on a simulated world, live, in a few seconds',
  usage,
  async run(argv, io) {
    let parsed;
    try {
      parsed = parseArgs({
        args: argv,
        options: {
          plan: { type: 'string' },
          scenario: { type: 'string' },
          breach: { type: 'boolean', default: false },
          speed: { type: 'string' },
          journal: { type: 'string' },
        },
        allowPositionals: false,
        strict: true,
      });
    } catch (error) {
      throw new UsageError(error instanceof Error ? error.message : String(error));
    }
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
      scenario = scenarioForPlan(loaded.plan, { breach: parsed.values.breach });
    }
    const speed =
      parsed.values.speed !== undefined
        ? Number(parsed.values.speed)
        : Math.max(1, planRunDurationMs(loaded.plan) / TARGET_WALL_MS);
    if (!Number.isFinite(speed) || speed <= 0)
      throw new UsageError(`--speed ${parsed.values.speed}: expected a positive number`);
    const journalPath = resolve(
      io.cwd,
      parsed.values.journal ?? join('out', 'demo', `${loaded.plan.id}.journal.json`),
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
        clock: new ScaledClock(speed),
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
  },
};
