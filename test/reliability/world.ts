/**
 * What the reliability and slow-AWS files share: a sandbox child process per case (FIS at 4× speed), real
 * `chaos-gate run` children against it, and the invariants every broken run must keep. Each case gets its
 * own sandbox because the admin endpoint's faults apply to the whole stand-in; so the cases of a file run
 * side by side (`describe.concurrent`): they spend their time waiting for a slowed call, a lease or a
 * fault to end, and a sandbox costs a few percent of a core.
 *
 * Whatever breaks, a run must end by itself with the fault stopped (no live experiment, no canary fault,
 * the FIS action ended), a complete journal (the final JSON document), the `--json` summary agreeing with
 * it, the stop verified or the run `failed` for it, and never `held` when it aborted blind.
 */
import { readFileSync, rmSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { CloudWatchClient, GetMetricDataCommand } from '@aws-sdk/client-cloudwatch';
import { expect, test } from 'vitest';
import type { Journal } from '../../src/journal/types.js';
import { parseJournal } from '../../src/journal/read.js';
import { startSandboxProcess, type RunningSandbox } from '../helpers/sandbox.js';
import {
  actionsOf,
  liveFaults,
  pollFor,
  startRun,
  tempDir,
  writePlan,
  type ActionRecord,
  type PlanOptions,
  type RunSummary,
} from '../../bench/lib/world.js';

/** How long to wait for the fault to be running before breaking things. */
const REACH_FAULT_MS = 60_000;
/** How long FIS may take to show the experiment ended once the run has exited. */
const SETTLE_MS = 20_000;

export interface BrokenWorld {
  /** The sandbox of this case. */
  readonly sandbox: RunningSandbox;
  /** Adds an API fault through the admin endpoint. */
  fault(spec: Record<string, unknown>): Promise<void>;
  /** A plan id unique to this process. */
  planId(what: string): string;
  /**
   * Runs a plan; once its FIS action is running, `during` breaks something. Resolves after the child
   * exited, having asserted the invariants of every run. The child is SIGKILLed after the world's
   * `runTimeoutMs`.
   */
  runBroken(plan: PlanOptions, during: () => Promise<void>, env?: Record<string, string>): Promise<Outcome>;
  /** {@link runBroken} where `during` slows AWS down: the verdict must not be `held` either. */
  runSlowed(plan: PlanOptions, during: () => Promise<void>): Promise<Outcome>;
}

export interface Outcome {
  journal: Journal;
  summary: RunSummary;
  /** The raw journal file parsed as one JSON document (throws if it is still NDJSON). */
  finalDocument: unknown;
  /** The FIS action as the stand-in recorded it. */
  action: ActionRecord;
  /** How long the FIS action ran, from the stand-in's own record (ms). */
  faultMs: number;
}

let seq = 0;

/**
 * `it` with a `world` fixture: a fresh sandbox (and temporary folder) for the case, stopped after it.
 * `runTimeoutMs` bounds one run: past it the child is SIGKILLed and the case fails.
 */
export function brokenTest(prefix: string, runTimeoutMs: number) {
  return test.extend<{ world: BrokenWorld }>({
    // eslint-disable-next-line no-empty-pattern -- vitest reads the fixture's dependencies from this pattern
    world: async ({}, use) => {
      // FIS runs no action under PT1M (the sandbox enforces it): the plans name real durations and this
      // sandbox runs them at 4× speed, so PT1M20S is 20 s of fault.
      const sandbox = await startSandboxProcess({ config: { fis: { durationScale: 0.25 } } });
      const dir = tempDir(`chaos-gate-${prefix}-`);
      try {
        await use(brokenWorld(sandbox, dir, prefix, runTimeoutMs));
      } finally {
        await sandbox.stop();
        rmSync(dir, { recursive: true, force: true });
      }
    },
  });
}

function brokenWorld(
  sandbox: RunningSandbox,
  dir: string,
  prefix: string,
  runTimeoutMs: number,
): BrokenWorld {
  const world: BrokenWorld = {
    sandbox,
    async fault(spec) {
      await world.sandbox.admin.send('POST', '/faults', spec);
    },
    planId(what) {
      return `${prefix}-${what}-${Date.now().toString(36)}-${seq++}`;
    },
    async runSlowed(plan, during) {
      const outcome = await world.runBroken(plan, during);
      const { verdict, reason } = outcome.journal;
      expect(verdict, `verdict ${verdict}: ${reason}`).not.toBe('held');
      return outcome;
    },
    async runBroken(plan, during, env) {
      const { admin, urls } = world.sandbox;
      const planPath = writePlan(dir, plan);
      const journalPath = path.join(dir, `${plan.id}.journal.json`);
      const run = startRun(planPath, urls, { journalPath, ...(env ? { env } : {}) });
      const timer = setTimeout(() => run.kill('SIGKILL'), runTimeoutMs);
      let experimentId: string | undefined;
      let out: Awaited<typeof run.done>;
      try {
        experimentId = await pollFor(
          async () => {
            const j = parseJournal(readFileSync(journalPath, 'utf8'), journalPath);
            if (!j.experimentId) return undefined;
            const actions = await actionsOf(admin, j.experimentId);
            return actions.some((a) => a.endTime === null) ? j.experimentId : undefined;
          },
          REACH_FAULT_MS,
          50,
        );
        if (experimentId === undefined) {
          run.kill('SIGKILL');
          const early = await run.done;
          expect.fail(
            `the run did not reach a running fault within ${REACH_FAULT_MS} ms (exit ${early.code ?? early.signal}):\n${early.stdout.slice(-1500)}\n${early.stderr.slice(-1500)}`,
          );
        }
        await during();
        out = await run.done;
      } finally {
        clearTimeout(timer);
        run.kill('SIGKILL');
        await run.done;
      }
      expect(out.signal, `the run ended by itself:\n${out.stderr.slice(-2000)}`).toBeNull();
      const text = readFileSync(journalPath, 'utf8');
      const finalDocument: unknown = JSON.parse(text);
      const journal = parseJournal(text, journalPath);
      expect(journal.complete).toBe(true);
      expect(journal.verdict).not.toBeNull();
      const summaryLine = out.stdout
        .split('\n')
        .reverse()
        .find((l) => l.startsWith('{'));
      expect(summaryLine, `the run printed its --json summary:\n${out.stderr.slice(-2000)}`).toBeDefined();
      const summary = JSON.parse(summaryLine ?? '{}') as RunSummary;
      expect(summary.verdict).toBe(journal.verdict);
      // How the stop ended is on record: verified, or not verified and then the run `failed` (a run that
      // cannot read the experiment's state cannot prove the stop; it says so instead).
      // When FIS ended the experiment itself (completed, or a stop condition, the safety lever), nothing
      // was left to stop: the `fault-ended` event carries FIS's status instead, and no stop was requested.
      const stops = journal.events.filter((e) => e.type === 'stop-verified' || e.type === 'stop-failed');
      const endedByFis = journal.events.some(
        (e) =>
          e.type === 'fault-ended' &&
          ['completed', 'stopped', 'failed', 'cancelled'].includes(String(e.data?.status)),
      );
      expect(
        stops.map((e) => e.type),
        'the journal records whether the stop was verified',
      ).toHaveLength(endedByFis && stops.length === 0 ? 0 : 1);
      if (stops.length === 0)
        expect(journal.timings.stopRequestedAt, 'no stop was requested').toBeUndefined();
      if (stops[0]?.type === 'stop-failed') expect(journal.verdict, journal.reason ?? '').toBe('failed');
      // A blind abort is never `held`; it is `inconclusive` unless something outranks it (a breach seen
      // before it went blind, a failure: docs/plan-format.md, verdict precedence).
      const blind = journal.events.some((e) => e.type === 'abort' && e.data?.cause === 'blind');
      if (blind)
        expect(['inconclusive', 'deviated', 'failed'], `${journal.verdict}: ${journal.reason}`).toContain(
          journal.verdict,
        );

      await admin.send('DELETE', '/faults');
      const live = await pollFor(async () => {
        const l = await liveFaults(admin);
        return l.experiments.length === 0 ? l : undefined;
      }, SETTLE_MS);
      expect(live, 'no FIS experiment is left live').toBeDefined();
      expect(live?.canaryFaults ?? {}, 'no canary fault is left on').toEqual({});
      const action = (await actionsOf(admin, experimentId!))[0];
      expect(action?.endTime, 'the FIS action ended').not.toBeNull();
      const faultMs = Date.parse(action!.endTime!) - Date.parse(action!.startTime);
      return { journal, summary, finalDocument, action: action!, faultMs };
    },
  };
  return world;
}

/** A CloudWatch metric as a plan's `cloudwatch:` SLI names it. */
export interface CloudWatchMetric {
  namespace: string;
  metricName: string;
  dimensions: Record<string, string>;
  stat: string;
  periodS: number;
}

/**
 * Waits until `metric` has a complete period readable the way a run reads it (the period ended at least
 * the 5 s ingestion allowance ago). A fresh sandbox has none for its first period or two, and a run whose
 * steady state starts then is rightly `not-run` (no data), which is not what a reliability case tests.
 */
export async function waitForCompletePeriod(
  world: BrokenWorld,
  metric: CloudWatchMetric,
  timeoutMs = 60_000,
): Promise<void> {
  const cw = new CloudWatchClient({
    endpoint: world.sandbox.urls.aws,
    region: 'us-east-1',
    credentials: { accessKeyId: 'sandbox', secretAccessKey: 'sandbox' },
  });
  const periodMs = metric.periodS * 1000;
  try {
    const ready = await pollFor(
      async () => {
        const end = Math.floor((Date.now() - 5_000) / periodMs) * periodMs;
        const out = await cw.send(
          new GetMetricDataCommand({
            StartTime: new Date(end - periodMs),
            EndTime: new Date(end),
            MetricDataQueries: [
              {
                Id: 'ready',
                MetricStat: {
                  Metric: {
                    Namespace: metric.namespace,
                    MetricName: metric.metricName,
                    Dimensions: Object.entries(metric.dimensions).map(([Name, Value]) => ({ Name, Value })),
                  },
                  Period: metric.periodS,
                  Stat: metric.stat,
                },
              },
            ],
          }),
        );
        return (out.MetricDataResults?.[0]?.Values?.length ?? 0) > 0 ? true : undefined;
      },
      timeoutMs,
      500,
    );
    expect(ready, `${metric.namespace}/${metric.metricName} had no complete period`).toBe(true);
  } finally {
    cw.destroy();
  }
}

/** A loopback TCP proxy to `target` that can be killed: listener closed, every connection destroyed. */
export async function killableProxy(target: string): Promise<{ url: string; kill(): Promise<void> }> {
  const upstream = new URL(target);
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const up = net.connect(Number(upstream.port), upstream.hostname);
    sockets.add(client).add(up);
    const drop = (): void => {
      client.destroy();
      up.destroy();
      sockets.delete(client);
      sockets.delete(up);
    };
    client.on('error', drop).on('close', drop);
    up.on('error', drop).on('close', drop);
    client.pipe(up).pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address() as net.AddressInfo;
  return {
    url: `http://127.0.0.1:${address.port}`,
    kill: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
