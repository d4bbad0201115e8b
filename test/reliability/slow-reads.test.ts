/**
 * Slowness is a failure (issue 13): reads that hang: real `chaos-gate run` child processes against a
 * sandbox child process whose admin endpoint makes one AWS operation slow, dropped or throttled once the
 * fault is on. Each case asserts that the fault ended within a bound of its start (read from the
 * stand-in's own record of the FIS action), that the journal says how it ended, and that the verdict is
 * never `held` (with the invariants of every broken run, ./world.ts).
 */
import { describe, expect } from 'vitest';
import { setCanary } from '../../bench/lib/world.js';
import { brokenTest, waitForCompletePeriod } from './world.js';

const RUN_TIMEOUT_MS = 150_000;
const TEST_TIMEOUT_MS = 200_000;

const it = brokenTest('slow-reads', RUN_TIMEOUT_MS);

describe.concurrent('slow AWS reads: the fault ends within a bound, and the verdict is never held', () => {
  it(
    'stops the aborting plan within 15 s of its start while every GetExperiment answer takes 25 s',
    async ({ world }) => {
      await setCanary(world.sandbox.admin, { fallback: false });
      const { journal, faultMs } = await world.runSlowed(
        { id: world.planId('get-25s'), actionDuration: 'PT2M', maxActionDuration: '2m' },
        () => world.fault({ service: 'fis', operation: 'GetExperiment', kind: 'latency', latencyMs: 25_000 }),
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
    'aborts blind within seconds when GetMetricData takes 20 s on a CloudWatch-only plan',
    async ({ world }) => {
      // The steady state reads the CloudWatch SLI: wait for the fresh sandbox's first complete period.
      await waitForCompletePeriod(world, {
        namespace: 'Sandbox/Canary',
        metricName: 'LatencyP95',
        dimensions: { Service: 'canary' },
        stat: 'Maximum',
        periodS: 5,
      });
      const { journal, faultMs } = await world.runSlowed(
        {
          id: world.planId('gmd-20s'),
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
          world.fault({
            service: 'cloudwatch',
            operation: 'GetMetricData',
            kind: 'latency',
            latencyMs: 20_000,
          }),
      );
      expect(journal.verdict).toBe('inconclusive');
      const abort = journal.events.find((e) => e.type === 'abort');
      expect(abort?.data?.cause).toBe('blind');
      expect(abort?.message).toMatch(/did not answer within/);
      expect(faultMs, `the fault ran ${faultMs} ms`).toBeLessThanOrEqual(20_000);
    },
    TEST_TIMEOUT_MS,
  );
});
