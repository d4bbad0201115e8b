/**
 * `chaos-gate simulate <plan> --scenario <file>`: runs the real engine against a simulated world on a
 * virtual clock (a 15-minute run takes milliseconds). Exit code per verdict (docs/design/verdicts.md).
 *
 * It passes the gates `run` passes (compose/gates.ts), against the simulated world: the static stage
 * (plan rules, failover model, policy, catalog), the schedule at the scenario's `startAt` (default now),
 * incidents, the kill switch, the error budget (its counts are series of the scenario) and the blast
 * radius of the scenario's targets. One gate is not run, and the output says so: concurrency, since the
 * simulated world holds no other experiment. A plan `run` would not start is never `held` here.
 */
import { dirname, resolve } from 'node:path';
import type { Clock } from '../../clock/clock.js';
import { VirtualClock } from '../../clock/clock.js';
import { runGate, type RunResult } from '../../engine/run.js';
import { withAbortFile } from '../../compose/abort-file.js';
import { runGates } from '../../compose/gates.js';
import { loadPolicy, readCatalog, readHistory } from '../../compose/inputs.js';
import { planFileReader } from '../../files/read.js';
import type { CatalogInput, LoadedPolicy, VerdictHistory } from '../../preflight/index.js';
import { countReaderFromSources, PolicyError } from '../../preflight/index.js';
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

/** Unreadable input (docs/design/verdicts.md). */
const EXIT_BAD_INPUT = 2;

const usage = `Usage: chaos-gate simulate <plan> --scenario <file> [--policy <file>] [--history <path>]... [--journal <path>] [--abort-file <path>] [--json]

Runs the plan through the real engine against a simulated world (metrics, FIS, signals) described
by a scenario file, on a virtual clock. Nothing outside this process is touched. The gates a run
passes run here too, against the simulated world (schedule at the scenario's startAt, default now;
incidents, kill switch and budget from the scenario; blast radius of its targets); concurrency is not
checked (the simulated world holds no other experiment), and the output says so.

Options:
  --scenario <file>    the simulated world (YAML; see fixtures/scenarios/)
  --policy <file>      policy file whose ceilings the plan may only narrow
  --history <path>     past runs' journals the policy's requires entries are checked against (repeatable)
  --journal <path>     write the journal here (NDJSON while running; one JSON document at the end
                       of a short run, a final NDJSON record after a long one: docs/journal.md)
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
  policy?: LoadedPolicy | undefined;
  /** The verdict history the policy's `requires` is checked against. */
  history?: VerdictHistory | undefined;
  /** The catalog the plan names, read by the front door (compose/inputs.ts `readCatalog`). */
  catalog?: CatalogInput | undefined;
  /** An outside cancellation (e.g. the process's SIGINT) besides the scenario's own signal. */
  signal?: AbortSignal | undefined;
  onTick?: ((m: Measurement) => void) | undefined;
  onEvent?: ((e: JournalEvent) => void) | undefined;
}

/** The gates of a run that a simulation does not run, each with why: printed with every result. */
export const SKIPPED_GATES: readonly { gate: string; why: string }[] = [
  { gate: 'concurrency', why: 'the simulated world holds no other experiment' },
];

/** Wires the engine to a simulated world: the one place the simulation's concrete parts meet. */
export async function runSimulation(o: SimulationOptions): Promise<{ result: RunResult; world: SimWorld }> {
  const startAt = o.scenario.startAt === undefined ? Date.now() : Date.parse(o.scenario.startAt);
  const clock = o.clock ?? new VirtualClock(startAt);
  const world = new SimWorld(o.scenario, clock, { abortFile: o.abortFile });
  const signal = o.signal ? AbortSignal.any([world.signal, o.signal]) : world.signal;
  const runId = `sim-${o.loaded.plan.id}-${clock.now()}`;
  const plan = o.loaded.plan;
  const probes = world.probes;
  // The gates `run` builds (compose/gates.ts), over the world's probes instead of AWS and Prometheus.
  const preflight = runGates(o.loaded, {
    policy: o.policy,
    history: o.history,
    catalog: o.catalog,
    incidents: plan.schedule.incidents ? probes.incidents : undefined,
    killSwitch: probes.killSwitch,
    budget: plan.budget
      ? { counts: countReaderFromSources(world.sources), ledger: probes.ledger }
      : undefined,
    candidates: probes.candidates,
  });
  try {
    const result = await runGate({
      plan,
      planDigest: o.loaded.digest,
      planPath: o.loaded.file,
      runId,
      attempt: 1,
      clock,
      sources: world.sources,
      injector: world.injector,
      gates: preflight.gates,
      journal: o.journal ?? new MemoryJournalWriter(),
      signal,
      midRun: withAbortFile(o.abortFile, preflight.midRun),
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
      policy: { type: 'string' },
      history: { type: 'string', multiple: true },
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
    let policy: LoadedPolicy | undefined;
    try {
      policy = parsed.values.policy ? await loadPolicy(resolve(io.cwd, parsed.values.policy)) : undefined;
    } catch (error) {
      if (!(error instanceof PolicyError)) throw error;
      io.err(error.message);
      return EXIT_BAD_INPUT;
    }
    const planPath = resolve(io.cwd, file);
    const catalog = await readCatalog(loaded.plan, planFileReader(dirname(planPath), io.cwd));
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
      policy,
      history: policy?.policy.requires?.length
        ? readHistory(parsed.values.history?.map((h) => resolve(io.cwd, h)))
        : undefined,
      catalog,
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
            skippedGates: SKIPPED_GATES,
          },
          null,
          2,
        ),
      );
    } else {
      io.out(`${result.verdict}: ${result.reason}`);
      for (const { gate, why } of SKIPPED_GATES)
        io.out(`not checked in the simulated world: ${gate} (${why})`);
      if (journalPath) io.out(`journal: ${journalPath}`);
    }
    return result.exitCode;
  },
};
