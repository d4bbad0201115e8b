/**
 * Slowness is a failure (issue 13): real `chaos-gate run` child processes against a sandbox child
 * process whose admin endpoint makes one AWS operation slow, dropped or throttled once the fault is on.
 * Each case asserts that the fault ended within a bound of its start (read from the stand-in's own
 * record of the FIS action), that the journal says how it ended, and that the verdict is never `held`.
 */
import { readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Journal } from '../../src/journal/types.js';
import { parseJournal } from '../../src/journal/read.js';
import { startSandboxProcess, type RunningSandbox } from '../helpers/sandbox.js';
import {
  actionsOf,
  liveFaults,
  pollFor,
  setCanary,
  startRun,
  tempDir,
  writePlan,
  type ActionRecord,
  type PlanOptions,
} from '../../bench/lib/world.js';

const RUN_TIMEOUT_MS = 150_000;
const TEST_TIMEOUT_MS = 200_000;
const REACH_FAULT_MS = 60_000;

let sandbox: RunningSandbox;
let dir: string;

beforeAll(async () => {
  // FIS runs no action under PT1M (the sandbox enforces it): the plans name real durations and this
  // sandbox runs them at 4× speed, so PT8M is 120 s of fault.
  sandbox = await startSandboxProcess({ config: { fis: { durationScale: 0.25 } } });
  dir = tempDir('chaos-gate-slow-');
}, 60_000);

afterEach(async () => {
  await sandbox.admin.send('DELETE', '/faults');
  await setCanary(sandbox.admin, { fallback: true });
});

afterAll(async () => {
  await sandbox?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

let seq = 0;
const planId = (what: string): string => `slow-${what}-${Date.now().toString(36)}-${seq++}`;

async function fault(spec: Record<string, unknown>): Promise<void> {
  await sandbox.admin.send('POST', '/faults', spec);
}

interface Outcome {
  journal: Journal;
  action: ActionRecord;
  /** How long the FIS action ran, from the stand-in's own record (ms). */
  faultMs: number;
}

/** Runs a plan; once its FIS action is running, `during` slows AWS down. */
async function runSlowed(plan: PlanOptions, during: () => Promise<void>): Promise<Outcome> {
  const planPath = writePlan(dir, plan);
  const journalPath = path.join(dir, `${plan.id}.journal.json`);
  const run = startRun(planPath, sandbox.urls, { journalPath });
  const timer = setTimeout(() => run.kill('SIGKILL'), RUN_TIMEOUT_MS);
  let experimentId: string | undefined;
  let out: Awaited<typeof run.done>;
  try {
    experimentId = await pollFor(
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
  expect(out.signal, `the run ended by itself:\n${out.stderr.slice(-2000)}`).toBeNull();
  await sandbox.admin.send('DELETE', '/faults');
  const journal = parseJournal(readFileSync(journalPath, 'utf8'), journalPath);
  expect(journal.complete).toBe(true);
  expect(journal.verdict, `verdict ${journal.verdict}: ${journal.reason}`).not.toBe('held');
  const live = await pollFor(async () => {
    const l = await liveFaults(sandbox.admin);
    return l.experiments.length === 0 ? l : undefined;
  }, 20_000);
  expect(live?.canaryFaults ?? {}, 'no canary fault is left on').toEqual({});
  const action = (await actionsOf(sandbox.admin, experimentId!))[0]!;
  expect(action.endTime, 'the FIS action ended').not.toBeNull();
  const faultMs = Date.parse(action.endTime!) - Date.parse(action.startTime);
  return { journal, action, faultMs };
}

describe('slow AWS: the fault ends within a bound, and the verdict is never held', () => {
  it(
    'stops the aborting plan within 15 s of its start while every GetExperiment answer takes 25 s',
    async () => {
      await setCanary(sandbox.admin, { fallback: false });
      const { journal, faultMs } = await runSlowed(
        { id: planId('get-25s'), actionDuration: 'PT2M', maxActionDuration: '2m' },
        () => fault({ service: 'fis', operation: 'GetExperiment', kind: 'latency', latencyMs: 25_000 }),
      );
      expect(journal.events.find((e) => e.type === 'abort')?.data?.cause).toBe('rule');
      expect(faultMs, `the fault ran ${faultMs} ms`).toBeLessThanOrEqual(15_000);
      // Ticks kept to the clock while the state reads hung: one measurement per second of fault.
      const fault0 = journal.measurements.filter((m) => m.phase === 'fault');
      for (const m of fault0) expect(m.windowMs).toBeLessThanOrEqual(1500);
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'ends a 120 s partition within 40 s of its start when StopExperiment hangs for 220 s: the lease takes over',
    async () => {
      await setCanary(sandbox.admin, { fallback: false });
      const { journal, faultMs } = await runSlowed(
        {
          id: planId('stop-hang'),
          actionDuration: 'PT8M',
          maxActionDuration: '10m',
          maxRunDuration: '15m',
          rules: [{ sli: 'error_ratio', above: 0.2, for: '2s' }],
        },
        () => fault({ service: 'fis', operation: 'StopExperiment', kind: 'latency', latencyMs: 220_000 }),
      );
      expect(faultMs, `the fault ran ${faultMs} ms`).toBeLessThanOrEqual(40_000);
      const lease = journal.events.find((e) => e.type === 'lease' && e.data?.forced === true);
      expect(lease, 'the lease alarm was forced to ALARM').toBeDefined();
      const verified = journal.events.find((e) => e.type === 'stop-verified');
      expect(verified?.data?.by).toBe('lease');
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'ends the fault through the lease when every StopExperiment is throttled',
    async () => {
      await setCanary(sandbox.admin, { fallback: false });
      const { journal, faultMs } = await runSlowed(
        {
          id: planId('stop-throttled'),
          actionDuration: 'PT8M',
          maxActionDuration: '10m',
          maxRunDuration: '15m',
        },
        () => fault({ service: 'fis', operation: 'StopExperiment', kind: 'throttle' }),
      );
      expect(faultMs, `the fault ran ${faultMs} ms`).toBeLessThanOrEqual(40_000);
      expect(journal.events.find((e) => e.type === 'stop-verified')?.data?.by).toBe('lease');
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'aborts blind within seconds when GetMetricData takes 20 s on a CloudWatch-only plan',
    async () => {
      const { journal, faultMs } = await runSlowed(
        {
          id: planId('gmd-20s'),
          actionDuration: 'PT4M',
          maxActionDuration: '4m',
          requests: false,
          minRequests: 0,
          slis: [
            {
              name: 'cw_p95_latency_ms',
              cloudwatch: {
                namespace: 'Sandbox/Canary',
                metricName: 'LatencyP95',
                dimensions: { Service: 'canary' },
                stat: 'Maximum',
                period: '5s',
              },
              max: 5000,
            },
          ],
          rules: [{ sli: 'cw_p95_latency_ms', above: 5000, for: '3s' }],
        },
        () =>
          fault({ service: 'cloudwatch', operation: 'GetMetricData', kind: 'latency', latencyMs: 20_000 }),
      );
      expect(journal.verdict).toBe('inconclusive');
      const abort = journal.events.find((e) => e.type === 'abort');
      expect(abort?.data?.cause).toBe('blind');
      expect(abort?.message).toMatch(/did not answer within/);
      expect(faultMs, `the fault ran ${faultMs} ms`).toBeLessThanOrEqual(20_000);
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'lets the lease stop the fault when every heartbeat (PutMetricData) is dropped',
    async () => {
      const { journal, faultMs } = await runSlowed(
        {
          id: planId('beats-dropped'),
          actionDuration: 'PT8M',
          maxActionDuration: '10m',
          maxRunDuration: '15m',
        },
        () => fault({ service: 'cloudwatch', operation: 'PutMetricData', kind: 'drop' }),
      );
      expect(faultMs, `the fault ran ${faultMs} ms`).toBeLessThanOrEqual(45_000);
      const end = journal.events.find((e) => e.type === 'abort');
      expect(end?.data?.cause, end?.message).toBe('fis-stopped');
    },
    TEST_TIMEOUT_MS,
  );
});
