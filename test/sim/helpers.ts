/** Test wiring: a plan and a scenario on a virtual clock, through the real engine. */
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { VirtualClock } from '../../src/clock/clock.js';
import { Plan, type PlanInput } from '../../src/plan/schema.js';
import { runGate, type RunDeps, type RunResult } from '../../src/engine/run.js';
import { MemoryJournalWriter } from '../../src/journal/writer.js';
import { SimWorld } from '../../src/sim/world.js';
import type { Injector } from '../../src/injector/injector.js';
import { loadScenario, type Scenario } from '../../src/sim/scenario.js';
import { withAbortFile } from '../../src/compose/abort-file.js';

export const CHECKOUT_PLAN = 'fixtures/sim-plans/checkout.yaml';

export function loadTestPlan(path = CHECKOUT_PLAN): Plan {
  return Plan.parse(parse(readFileSync(path, 'utf8')));
}

/** The checkout plan with a change applied to its input form. */
export function planWith(change: (p: PlanInput) => void): Plan {
  const input = parse(readFileSync(CHECKOUT_PLAN, 'utf8')) as PlanInput;
  change(input);
  return Plan.parse(input);
}

export interface SimRun {
  result: RunResult;
  world: SimWorld;
  journal: MemoryJournalWriter;
  clock: VirtualClock;
}

export async function simulate(
  scenario: Scenario | string,
  options: { plan?: Plan; deps?: (world: SimWorld) => Partial<RunDeps>; abortFile?: string } = {},
): Promise<SimRun> {
  const clock = new VirtualClock();
  const s = typeof scenario === 'string' ? loadScenario(`fixtures/scenarios/${scenario}.yaml`) : scenario;
  const world = new SimWorld(s, clock, { abortFile: options.abortFile });
  const journal = new MemoryJournalWriter();
  const result = await runGate({
    plan: options.plan ?? loadTestPlan(),
    planDigest: 'sha256:test',
    runId: 'run-1',
    attempt: 1,
    clock,
    sources: world.sources,
    injector: world.injector,
    journal,
    signal: world.signal,
    midRun: withAbortFile(options.abortFile),
    stopVerifyTimeoutMs: 20_000,
    ctx: { runId: 'run-1', attempt: 1 },
    ...options.deps?.(world),
  });
  world.close();
  return { result, world, journal, clock };
}

/** The world's injector with some methods replaced (the rest delegate). */
export function injectorWith(world: SimWorld, patch: Partial<Injector>): Injector {
  const inner = world.injector;
  return {
    provision: (p, c) => inner.provision(p, c),
    resolveTargets: (p, t) => inner.resolveTargets(p, t),
    start: (p, t, c) => inner.start(p, t, c),
    state: (id) => inner.state(id),
    stop: (id, r) => inner.stop(id, r),
    ...patch,
  };
}
