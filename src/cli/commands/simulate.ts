/**
 * `chaos-gate simulate <plan> --scenario <file>`: runs the real engine against a simulated world on a
 * virtual clock (a 15-minute run takes milliseconds). Exit code per verdict (SPEC §4).
 */
import { resolve } from 'node:path';
import type { Clock } from '../../clock/clock.js';
import { VirtualClock } from '../../clock/clock.js';
import { runGate, type RunResult } from '../../engine/run.js';
import { staticRefusalGate } from '../../engine/static-gate.js';
import { withAbortFile } from '../../compose/abort-file.js';
import type { JournalEvent, Measurement } from '../../journal/types.js';
import { FileJournalWriter, MemoryJournalWriter, type JournalWriter } from '../../journal/writer.js';
import { formatIssue, loadPlan, PlanError, type LoadedPlan } from '../../plan/load.js';
import { loadScenario, ScenarioError, type Scenario } from '../../sim/scenario.js';
import { SimWorld } from '../../sim/world.js';
import {
  cliOutputRoots,
  confinedOutputPath,
  parseFlags,
  UsageError,
  type CliCommand,
  type CliIo,
} from '../command.js';
import { exitCodesHelp } from '../exit-codes.js';
import { progressPrinter } from '../../report/progress.js';

/** Unreadable input (SPEC §4). */
const EXIT_BAD_INPUT = 2;

const usage = `Usage: chaos-gate simulate <plan> --scenario <file> [--journal <path>] [--abort-file <path>] [--json]

Runs the plan through the real engine against a simulated world (metrics, FIS, signals) described
by a scenario file, on a virtual clock. Nothing outside this process is touched.

Options:
  --scenario <file>    the simulated world (YAML; see fixtures/scenarios/)
  --journal <path>     write the journal here (NDJSON while running, final JSON at the end)
  --abort-file <path>  a file whose existence aborts the run (the scenario's abortFileAt creates it)
  --json               print {verdict, reason, exitCode, experimentId, journal} as JSON
  -h, --help           show this help

${exitCodesHelp('simulate')}`;

/** Loads a plan for a front door; plan errors are printed and become exit 2. */
export async function loadPlanOrReport(file: string, io: CliIo): Promise<LoadedPlan | undefined> {
  try {
    return await loadPlan(resolve(io.cwd, file), file);
  } catch (error) {
    if (!(error instanceof PlanError)) throw error;
    for (const issue of error.issues) io.err(formatIssue(issue));
    return undefined;
  }
}

export interface SimulationOptions {
  loaded: LoadedPlan;
  scenario: Scenario;
  clock?: Clock | undefined;
  journal?: JournalWriter | undefined;
  abortFile?: string | undefined;
  /** An outside cancellation (e.g. the process's SIGINT) besides the scenario's own signal. */
  signal?: AbortSignal | undefined;
  onTick?: ((m: Measurement) => void) | undefined;
  onEvent?: ((e: JournalEvent) => void) | undefined;
}

/** Wires the engine to a simulated world: the one place the simulation's concrete parts meet. */
export async function runSimulation(o: SimulationOptions): Promise<{ result: RunResult; world: SimWorld }> {
  const clock = o.clock ?? new VirtualClock();
  const world = new SimWorld(o.scenario, clock, { abortFile: o.abortFile });
  const signal = o.signal ? AbortSignal.any([world.signal, o.signal]) : world.signal;
  const runId = `sim-${o.loaded.plan.id}-${clock.now()}`;
  try {
    const result = await runGate({
      plan: o.loaded.plan,
      planDigest: o.loaded.digest,
      planPath: o.loaded.file,
      runId,
      attempt: 1,
      clock,
      sources: world.sources,
      injector: world.injector,
      gates: [staticRefusalGate(o.loaded)],
      journal: o.journal ?? new MemoryJournalWriter(),
      signal,
      midRun: withAbortFile(o.abortFile),
      onTick: o.onTick,
      onEvent: o.onEvent,
      region: 'eu-west-1',
      ctx: { runId, attempt: 1 },
    });
    return { result, world };
  } finally {
    world.close();
  }
}

export const simulate: CliCommand = {
  name: 'simulate',
  usage,
  async run(argv, io) {
    const parsed = parseFlags(argv, {
      scenario: { type: 'string' },
      journal: { type: 'string' },
      'abort-file': { type: 'string' },
      json: { type: 'boolean', default: false },
    });
    const [file, ...extra] = parsed.positionals;
    if (file === undefined) throw new UsageError('missing the plan file argument');
    if (extra.length > 0) throw new UsageError(`expected one plan file, got also: ${extra.join(' ')}`);
    const scenarioFile = parsed.values.scenario;
    if (scenarioFile === undefined) throw new UsageError('missing --scenario <file>');

    const loaded = await loadPlanOrReport(file, io);
    if (!loaded) return EXIT_BAD_INPUT;
    let scenario: Scenario;
    try {
      scenario = loadScenario(resolve(io.cwd, scenarioFile));
    } catch (error) {
      if (!(error instanceof ScenarioError)) throw error;
      io.err(error.message);
      return EXIT_BAD_INPUT;
    }
    const journalPath =
      parsed.values.journal === undefined
        ? undefined
        : confinedOutputPath(io, '--journal', parsed.values.journal);
    const abortFile = parsed.values['abort-file'];
    const progress = io.tty && !parsed.values.json ? progressPrinter(io.out) : undefined;
    const { result } = await runSimulation({
      loaded,
      scenario,
      journal: journalPath
        ? new FileJournalWriter(journalPath, { confine: { what: 'journal', roots: cliOutputRoots(io) } })
        : undefined,
      abortFile: abortFile === undefined ? undefined : resolve(io.cwd, abortFile),
      onTick: progress?.onTick,
      onEvent: progress?.onEvent,
    });
    if (parsed.values.json) {
      io.out(
        JSON.stringify(
          {
            verdict: result.verdict,
            reason: result.reason,
            exitCode: result.exitCode,
            experimentId: result.experimentId ?? null,
            journal: journalPath ?? null,
          },
          null,
          2,
        ),
      );
    } else {
      io.out(`${result.verdict}: ${result.reason}`);
      if (journalPath) io.out(`journal: ${journalPath}`);
    }
    return result.exitCode;
  },
};
