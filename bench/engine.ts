/**
 * docs/design/targets.md / issue 2: a simulated 15-minute run at a 1 s interval through the real engine, on the
 * virtual clock, journaling to a real file. Prints wall time and peak RSS (target ≤ 150 MB); asserts
 * nothing. Run standalone: `npx tsx bench/engine.ts`.
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { pathToFileURL } from 'node:url';
import { VirtualClock } from '../src/clock/clock.js';
import { runGate } from '../src/engine/run.js';
import { FileJournalWriter } from '../src/journal/writer.js';
import { loadPlan } from '../src/plan/load.js';
import { scenarioForPlan } from '../src/sim/generate.js';
import { SimWorld } from '../src/sim/world.js';

/** The simulated run length (docs/design/targets.md: "a 15-minute run at 1 s interval"). */
export const RUN_MS = 15 * 60_000;
/** The docs/design/targets.md memory target, bytes. */
export const TARGET_RSS_BYTES = 150 * 1024 * 1024;

export interface EngineBenchResult {
  simulatedMs: number;
  measurements: number;
  wallMs: number;
  peakRssBytes: number;
  journalBytes: number;
  verdict: string;
}

/** Runs the Redis partition plan with the steady state, fault and recovery stretched to RUN_MS in total. */
export async function benchEngine(
  planPath = 'fixtures/plans/redis-partition.yaml',
): Promise<EngineBenchResult> {
  const loaded = await loadPlan(planPath);
  const plan = structuredClone(loaded.plan);
  plan.hypothesis.interval = 1000;
  plan.hypothesis.steadyState.duration = 60_000;
  plan.blastRadius.maxRunDuration = 2 * RUN_MS;
  const scenario = scenarioForPlan(plan);
  // Fault for the rest of the 15 minutes, minus a few seconds for recovery.
  scenario.injector.actionDuration = RUN_MS - plan.hypothesis.steadyState.duration - 10_000;
  const dir = mkdtempSync(join(tmpdir(), 'chaos-gate-bench-'));
  const journalPath = join(dir, 'bench.journal.json');
  try {
    const clock = new VirtualClock();
    const world = new SimWorld(scenario, clock);
    const start = performance.now();
    const result = await runGate({
      plan,
      planDigest: loaded.digest,
      runId: 'bench',
      attempt: 1,
      clock,
      sources: world.sources,
      injector: world.injector,
      journal: new FileJournalWriter(journalPath),
      ctx: { runId: 'bench', attempt: 1 },
    });
    const wallMs = performance.now() - start;
    world.close();
    return {
      simulatedMs: (result.journal.timings.finishedAt ?? 0) - (result.journal.timings.startedAt ?? 0),
      measurements: result.journal.measurements.length,
      wallMs,
      peakRssBytes: process.resourceUsage().maxRSS * 1024,
      journalBytes: statSync(journalPath).size,
      verdict: result.verdict,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const r = await benchEngine();
  console.log(
    `engine: ${(r.simulatedMs / 60_000).toFixed(1)} simulated minutes, ${r.measurements} measurements, ` +
      `verdict ${r.verdict}: wall ${r.wallMs.toFixed(0)} ms, peak RSS ${(r.peakRssBytes / 1024 / 1024).toFixed(1)} MB ` +
      `(target ≤ ${TARGET_RSS_BYTES / 1024 / 1024} MB), journal ${(r.journalBytes / 1024).toFixed(0)} KiB`,
  );
}
