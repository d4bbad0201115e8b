/**
 * The process whose peak RSS is the "memory of a 15-minute run at 1 s interval" figure (run by
 * `bench/figures/memory.ts`, bundled like dist/ so no TypeScript loader is counted). The engine runs on
 * a VirtualClock, so 15 simulated minutes pass in seconds; everything it talks to is real: the scrape
 * source fetches the sandbox canary's /metrics over HTTP, the FIS injector provisions, dry-runs, starts,
 * polls and stops a real experiment in the sandbox's FIS stand-in, and the journal is written to a file.
 *
 * The lease beats on the wall clock (the stand-in's alarm lives in real time), outside the engine.
 * Prints one JSON line: peak RSS, measurements, simulated and wall time, verdict.
 *
 * Usage: node memory-child.mjs '{"planPath": …, "journalPath": …}' (AWS_ENDPOINT_URL etc. in the env).
 */
import { statSync } from 'node:fs';
import { systemClock, VirtualClock } from '../../src/clock/clock.js';
import { runGate } from '../../src/engine/run.js';
import { createAwsClients } from '../../src/injector/aws/clients.js';
import { CloudWatchLease } from '../../src/injector/fis/alarms.js';
import { FisInjector } from '../../src/injector/fis/injector.js';
import { FileJournalWriter } from '../../src/journal/writer.js';
import { createMetricSources } from '../../src/metrics/index.js';
import { loadPlan } from '../../src/plan/load.js';
import { resolvePlanEnv } from '../../src/plan/env.js';

interface Args {
  planPath: string;
  journalPath: string;
}

const args = JSON.parse(process.argv[2] ?? '{}') as Args;
const loaded = await loadPlan(args.planPath);
const clients = createAwsClients({ env: process.env });
const injector = new FisInjector({
  fis: clients.fis,
  cloudwatch: clients.cloudwatch,
  region: clients.region,
  // The injector's own waits (dry run, lease warm-up) are against the real stand-in: wall clock.
  clock: systemClock,
});
const lease = new CloudWatchLease(clients.cloudwatch, loaded.plan.id);
const beat = (): void => void lease.beat().catch(() => undefined);
beat();
const beating = setInterval(beat, lease.intervalMs);

// What loading the code and building the clients cost, before the first tick: the rest is the run's.
const rssBeforeRunBytes = process.memoryUsage().rss;
const clock = new VirtualClock(Date.now());
const start = performance.now();
const result = await runGate({
  plan: loaded.plan,
  planDigest: loaded.digest,
  runId: `bench-memory-${Date.now()}`,
  attempt: 1,
  clock,
  // The scrape URLs expand only the variables the plan declares (docs/design/principles.md#security).
  sources: createMetricSources({ scrape: { env: resolvePlanEnv(loaded.plan, process.env).values } }),
  injector,
  journal: new FileJournalWriter(args.journalPath),
  ctx: { runId: 'bench-memory', attempt: 1 },
});
const wallMs = performance.now() - start;
clearInterval(beating);
const t = result.journal.timings;
// Live heap after a full collection (the parent passes --expose-gc): what the run retains, not garbage.
(globalThis as { gc?: () => void }).gc?.();
const heapAfterGcBytes = process.memoryUsage().heapUsed;
console.log(
  JSON.stringify({
    peakRssBytes: process.resourceUsage().maxRSS * 1024,
    rssBeforeRunBytes,
    heapAfterGcBytes,
    measurements: result.journal.measurements.length,
    simulatedMs: (t.finishedAt ?? 0) - (t.startedAt ?? 0),
    faultMs: (t.stoppedAt ?? t.stopRequestedAt ?? 0) - (t.injectedAt ?? 0),
    wallMs,
    verdict: result.verdict,
    reason: result.reason,
    experimentId: result.experimentId ?? null,
    journalBytes: statSync(args.journalPath).size,
  }),
);
// The SDK's keep-alive sockets would hold the process open; the figure is taken, so leave now.
process.exit(0);
