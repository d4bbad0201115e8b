/**
 * The reliability run (issue 9, SPEC §6, §12): real `chaos-gate run` child processes against a sandbox
 * child process whose admin endpoint breaks the AWS stand-in while the fault is on — throttling, 5xx,
 * latency on FIS and CloudWatch — and whose canary metrics are cut off by killing the TCP proxy a plan
 * scrapes through. Whatever breaks, every run must end with the fault stopped (no live experiment, no
 * canary fault), a complete journal (the final JSON document), and a verdict that says what happened:
 * `inconclusive` when the run was blind, never `held`.
 */
import { readFileSync, rmSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Journal } from '../../src/journal/types.js';
import { startSandboxProcess, type RunningSandbox } from '../helpers/sandbox.js';
import {
  actionsOf,
  liveFaults,
  pollFor,
  requestLog,
  scrapeSlis,
  setCanary,
  startRun,
  tempDir,
  writePlan,
  type PlanOptions,
  type PlanSli,
  type RunSummary,
} from '../../bench/lib/world.js';
import { parseJournal } from '../../src/journal/read.js';

/** One run: start, ~5 s steady state, a fault of up to 20 s, stop, recovery; generous for a loaded CI box. */
const RUN_TIMEOUT_MS = 100_000;
const TEST_TIMEOUT_MS = 150_000;
/** How long to wait for the fault to be running before breaking things. */
const REACH_FAULT_MS = 60_000;

let sandbox: RunningSandbox;
let dir: string;

beforeAll(async () => {
  // FIS runs no action under PT1M (the sandbox enforces it): the plans name real durations and this
  // sandbox runs them at 4× speed, so PT1M20S is 20 s of fault.
  sandbox = await startSandboxProcess({ config: { fis: { durationScale: 0.25 } } });
  dir = tempDir('chaos-gate-reliability-');
}, 60_000);

afterEach(async () => {
  await sandbox.admin.send('DELETE', '/faults');
  await setCanary(sandbox.admin, { fallback: true });
});

afterAll(async () => {
  await sandbox?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** A CloudWatch SLI on what the canary publishes every second. */
const cloudwatchLatency: PlanSli = {
  name: 'cw_p95_latency_ms',
  cloudwatch: {
    namespace: 'Sandbox/Canary',
    metricName: 'LatencyP95',
    dimensions: { Service: 'canary' },
    stat: 'Maximum',
    period: '10s',
  },
  max: 5000,
};

interface Outcome {
  journal: Journal;
  summary: RunSummary;
  /** The raw journal file parsed as one JSON document (throws if it is still NDJSON). */
  finalDocument: unknown;
}

/**
 * Runs a plan; once its FIS action is running, `during` breaks something. Returns the journal after
 * the child exits, having asserted the invariants every run must keep.
 */
async function runBroken(
  plan: PlanOptions,
  during: () => Promise<void>,
  env?: Record<string, string>,
): Promise<Outcome> {
  const planPath = writePlan(dir, plan);
  const journalPath = path.join(dir, `${plan.id}.journal.json`);
  const run = startRun(planPath, sandbox.urls, { journalPath, ...(env ? { env } : {}) });
  const timer = setTimeout(() => run.kill('SIGKILL'), RUN_TIMEOUT_MS);
  let out: Awaited<typeof run.done>;
  try {
    const experimentId = await pollFor(
      async () => {
        const j = parseJournal(readFileSync(journalPath, 'utf8'), journalPath);
        if (!j.experimentId) return undefined;
        const actions = await actionsOf(sandbox.admin, j.experimentId);
        return actions.some((a) => a.endTime === null) ? j.experimentId : undefined;
      },
      REACH_FAULT_MS,
      50,
    );
    expect(experimentId, 'the run reached a running fault').toBeDefined();
    await during();
    out = await run.done;
  } finally {
    clearTimeout(timer);
    run.kill('SIGKILL');
    await run.done;
  }
  // The invariants of every run, however it was broken.
  expect(out.signal, `the run was not killed by the test's timeout:\n${out.stderr.slice(-2000)}`).toBeNull();
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

  await sandbox.admin.send('DELETE', '/faults');
  const live = await liveFaults(sandbox.admin);
  expect(live.experiments, 'no FIS experiment is left live').toEqual([]);
  expect(live.canaryFaults, 'no canary fault is left on').toEqual({});
  const blind = journal.events.some((e) => e.type === 'abort' && e.data?.cause === 'blind');
  if (blind) expect(journal.verdict).toBe('inconclusive');
  expect(
    journal.events.some((e) => e.type === 'stop-verified'),
    'the stop was verified',
  ).toBe(true);
  return { journal, summary, finalDocument };
}

/** Adds an API fault through the admin endpoint. */
async function fault(spec: Record<string, unknown>): Promise<void> {
  await sandbox.admin.send('POST', '/faults', spec);
}

/** A loopback TCP proxy to `target` that can be killed: listener closed, every connection destroyed. */
async function killableProxy(target: string): Promise<{ url: string; kill(): Promise<void> }> {
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

let seq = 0;
function planId(what: string): string {
  return `rel-${what}-${Date.now().toString(36)}-${seq++}`;
}

describe('reliability: every run ends with the fault stopped, the journal complete and an honest verdict', () => {
  it(
    'aborts on the tripwire and still stops FIS while StopExperiment and GetExperiment are throttled',
    async () => {
      await setCanary(sandbox.admin, { fallback: false });
      const before = (await requestLog(sandbox.admin)).at(-1)?.seq ?? 0;
      const { journal } = await runBroken(
        { id: planId('throttle'), actionDuration: 'PT2M', maxActionDuration: '2m' },
        async () => {
          await fault({ service: 'fis', operation: 'StopExperiment', kind: 'throttle', count: 3 });
          await fault({ service: 'fis', operation: 'GetExperiment', kind: 'throttle', durationMs: 4000 });
        },
      );
      expect(journal.verdict).toBe('aborted');
      expect(journal.events.find((e) => e.type === 'abort')?.data?.cause).toBe('rule');
      const throttled = (await requestLog(sandbox.admin, { service: 'fis', since: before })).filter((r) =>
        r.fault?.startsWith('throttle'),
      );
      expect(throttled.some((r) => r.operation === 'StopExperiment')).toBe(true);
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'stops the fault and says so when every FIS call answers 500 for a while',
    async () => {
      const before = (await requestLog(sandbox.admin)).at(-1)?.seq ?? 0;
      const { journal } = await runBroken(
        { id: planId('fis-5xx'), actionDuration: 'PT1M20S', maxActionDuration: '2m' },
        async () => {
          await fault({ service: 'fis', operation: '*', kind: 'error', status: 500, durationMs: 8000 });
        },
      );
      const failed = (await requestLog(sandbox.admin, { service: 'fis', since: before })).filter(
        (r) => r.status === 500,
      );
      expect(failed.length).toBeGreaterThan(0);
      // Eight seconds of 500s outlast the SDK's retries: the state went unread and the journal says so.
      const unread = journal.events.filter((e) => e.type === 'error' && /experiment state/.test(e.message));
      expect(unread.length).toBeGreaterThan(0);
      if (journal.verdict === 'held') {
        // Held is honest only if the experiment's state was read again and the fault was watched to its end.
        expect(journal.events.some((e) => e.type === 'fault-ended')).toBe(true);
      } else {
        expect(['failed', 'aborted', 'inconclusive']).toContain(journal.verdict);
      }
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'measures through 400 ms of added latency on FIS and CloudWatch, and CloudWatch throttling, to a verdict from data',
    async () => {
      const { journal } = await runBroken(
        { id: planId('latency'), actionDuration: 'PT1M', slis: [...scrapeSlis(), cloudwatchLatency] },
        async () => {
          await fault({ service: 'fis', operation: '*', kind: 'latency', latencyMs: 400 });
          await fault({ service: 'cloudwatch', operation: '*', kind: 'latency', latencyMs: 400 });
          // Lease heartbeats and GetMetricData alike: the SDK's retries (4 attempts) must absorb the throttles.
          // Fewer throttles than attempts, so whichever call meets them — the order depends on timing —
          // still succeeds; more would make the outcome depend on that order.
          await fault({ service: 'cloudwatch', operation: '*', kind: 'throttle', count: 3 });
        },
      );
      const ticks = journal.measurements.filter((m) => m.phase === 'fault');
      expect(ticks.length).toBeGreaterThan(3);
      // A reading must be back within its 1 s tick: a 400 ms call that meets a throttle and its retry may
      // not be, and is an error reading then — but only now and then, never blindAfter in a row.
      const errors = ticks.filter((m) => m.slis['cw_p95_latency_ms']?.status === 'error').length;
      expect(errors, `${errors} of ${ticks.length} CloudWatch readings late`).toBeLessThanOrEqual(
        ticks.length / 2,
      );
      expect(journal.events.some((e) => e.type === 'abort' && e.data?.cause === 'blind')).toBe(false);
      // A late reading makes the verdict honest about its gap (inconclusive), never held on missing data.
      expect(['held', 'deviated', 'inconclusive'], `verdict ${journal.verdict}: ${journal.reason}`).toContain(
        journal.verdict,
      );
      if (journal.verdict === 'inconclusive') expect(journal.reason).toMatch(/had no data in \d+ of \d+/);
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'is inconclusive, not held, when GetMetricData fails with 5xx and the CloudWatch SLI goes blind',
    async () => {
      const { journal } = await runBroken(
        {
          id: planId('cw-5xx'),
          actionDuration: 'PT1M20S',
          maxActionDuration: '2m',
          slis: [...scrapeSlis(), cloudwatchLatency],
        },
        async () => {
          await fault({ service: 'cloudwatch', operation: 'GetMetricData', kind: 'error', status: 500 });
        },
      );
      expect(journal.verdict).toBe('inconclusive');
      const abort = journal.events.find((e) => e.type === 'abort');
      expect(abort?.data?.cause).toBe('blind');
      expect(abort?.message).toContain('cw_p95_latency_ms');
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'is inconclusive, not held, when the scrape connection to the canary is killed mid-fault',
    async () => {
      const proxy = await killableProxy(sandbox.urls.canary);
      try {
        const url = '${CANARY_PROXY_URL}/metrics';
        const { journal } = await runBroken(
          {
            id: planId('scrape-killed'),
            actionDuration: 'PT1M20S',
            maxActionDuration: '2m',
            slis: scrapeSlis(url),
            requestsUrl: url,
            env: ['CANARY_PROXY_URL'],
          },
          () => proxy.kill(),
          { CANARY_PROXY_URL: proxy.url },
        );
        expect(journal.verdict).toBe('inconclusive');
        const abort = journal.events.find((e) => e.type === 'abort');
        expect(abort?.data?.cause).toBe('blind');
        const lastFault = journal.measurements.filter((m) => m.phase === 'fault').at(-1);
        expect(lastFault?.slis['error_ratio']?.status).toMatch(/error|no-data/);
      } finally {
        await proxy.kill();
      }
    },
    TEST_TIMEOUT_MS,
  );
});
