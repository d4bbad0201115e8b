/**
 * Issue 28: the run loop's tick time with every notification sink on. A simulated 60-minute run at 1 s
 * (the Redis partition plan, virtual clock, journal to a real file) runs once with no sink and once with
 * all five — CDEvents webhook, Slack, PagerDuty, Grafana, each posting to a loopback receiver that
 * validates what it gets (test/helpers/notify-receivers.ts), and the GitHub deployment statuses, posted
 * to the GitHub stand-in that validates them against GitHub's OpenAPI description. The order alternates per repetition. A
 * sample is the ratio of the two runs' wall time per measurement, counted from the start to the
 * `verdict` event: the end-of-run wait for the queue comes after the verdict and is not loop time.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { VirtualClock } from '../../src/clock/clock.js';
import { runGate } from '../../src/engine/run.js';
import { FileJournalWriter } from '../../src/journal/writer.js';
import { loadPlan } from '../../src/plan/load.js';
import { scenarioForPlan } from '../../src/sim/generate.js';
import { SimWorld } from '../../src/sim/world.js';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  notifyingJournal,
  notifySettings,
  parseNotifyTargets,
  type DeploymentSettings,
} from '../../src/notify/index.js';
import { createGitHubStandIn } from '../../src/sandbox/github/index.js';
import { secrets } from '../../src/security/redact.js';
import { startReceiver, type Receiver } from '../../test/helpers/notify-receivers.js';
import { measured, type FigureResult } from '../lib/stats.js';

const RUN_MS = 60 * 60_000;
/** The tick may cost at most this much more with every sink on. */
export const NOTIFY_TICK_TARGET = 1.1;

const ENV = {
  CHAOS_GATE_WEBHOOK_SECRET: 'bench-webhook-hmac-key-0123456789',
  PAGERDUTY_ROUTING_KEY: 'BENCHROUTINGKEYBENCHROUTINGKEY01',
  GRAFANA_TOKEN: 'glsa_bench_token_0123456789abcdef',
};

/** Wall ms per measurement of one simulated run, and what the receivers got. */
async function oneRun(
  receivers: Receiver[] | undefined,
  deployment?: DeploymentSettings,
): Promise<{ perTickMs: number; ticks: number; verdict: string }> {
  const loaded = await loadPlan('fixtures/plans/redis-partition.yaml');
  const plan = structuredClone(loaded.plan);
  plan.hypothesis.interval = 1000;
  plan.hypothesis.steadyState.duration = 60_000;
  plan.blastRadius.maxRunDuration = 2 * RUN_MS;
  const scenario = scenarioForPlan(plan);
  scenario.injector.actionDuration = RUN_MS - plan.hypothesis.steadyState.duration - 10_000;
  const dir = mkdtempSync(join(tmpdir(), 'chaos-gate-bench-notify-'));
  try {
    const clock = new VirtualClock();
    const world = new SimWorld(scenario, clock);
    const settings = receivers
      ? notifySettings(
          parseNotifyTargets(
            receivers.map((r) => `${r.kind}=${r.url}`),
            'bench',
          ),
          ENV,
          deployment,
        )
      : undefined;
    let verdictAt = 0;
    const start = performance.now();
    const result = await runGate({
      plan,
      planDigest: loaded.digest,
      runId: 'bench',
      attempt: 1,
      clock,
      sources: world.sources,
      injector: world.injector,
      journal: notifyingJournal(
        new FileJournalWriter(join(dir, 'bench.journal.json')),
        settings && { settings, now: () => clock.now() },
      ),
      onEvent: (e) => {
        if (e.type === 'verdict') verdictAt = performance.now();
      },
      ctx: { runId: 'bench', attempt: 1 },
    });
    world.close();
    const ticks = result.journal.measurements.length;
    return { perTickMs: (verdictAt - start) / ticks, ticks, verdict: result.verdict };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function benchNotify(repetitions: number, log: (line: string) => void): Promise<FigureResult> {
  const receivers = await Promise.all([
    startReceiver('cdevents', { secret: ENV.CHAOS_GATE_WEBHOOK_SECRET }),
    startReceiver('slack'),
    startReceiver('pagerduty', { credential: ENV.PAGERDUTY_ROUTING_KEY }),
    startReceiver('grafana', { credential: ENV.GRAFANA_TOKEN }),
  ]);
  const gh = createGitHubStandIn();
  const server = createServer(gh.handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const deployment: DeploymentSettings = {
    apiUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    token: 'sandbox-token',
    owner: 'acme',
    repo: 'bench',
    sha: 'b'.repeat(40),
    environment: 'staging',
  };
  const ratios: number[] = [];
  const runs: Record<string, unknown>[] = [];
  try {
    // Warm-up, both ways: module loading (fetch's undici loads on its first use) and JIT.
    await oneRun(undefined);
    await oneRun(receivers, deployment);
    for (let i = 0; i < repetitions; i++) {
      const first = i % 2 === 0;
      const a = await oneRun(first ? undefined : receivers, first ? undefined : deployment);
      const b = await oneRun(first ? receivers : undefined, first ? deployment : undefined);
      const [off, on] = first ? [a, b] : [b, a];
      ratios.push(on.perTickMs / off.perTickMs);
      runs.push({
        offUsPerTick: off.perTickMs * 1000,
        onUsPerTick: on.perTickMs * 1000,
        ticks: on.ticks,
        verdict: on.verdict,
      });
      log(
        `  notify: ${(off.perTickMs * 1000).toFixed(0)} µs/tick without sinks, ${(on.perTickMs * 1000).toFixed(0)} µs with all five`,
      );
    }
  } finally {
    await Promise.all(receivers.map((r) => r.close()));
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    secrets.clear();
  }
  const problems = [
    ...receivers.flatMap((r) => r.problems),
    ...gh.rejected.map((r) => `github ${r.operationId ?? r.path}: ${r.reason}`),
  ];
  return measured(
    {
      id: 'notify-tick',
      figure: 'tick time, all five sinks on ÷ off',
      unit: '×',
      method:
        'bench/figures/notify.ts: a simulated 60-minute run at 1 s with and without the five sinks posting to validating loopback receivers and the GitHub stand-in; wall time to the verdict per measurement',
      details: {
        runs,
        receiverProblems: problems,
        received: {
          ...Object.fromEntries(receivers.map((r) => [r.kind, r.received.length])),
          'github-deployment': gh.requests.length,
        },
      },
    },
    ratios,
    { max: NOTIFY_TICK_TARGET, text: `≤ ${NOTIFY_TICK_TARGET}×` },
  );
}
