/**
 * The reliability run against the metric sources (issue 9, docs/design/run.md, docs/design/targets.md): real `chaos-gate run` child
 * processes against a sandbox child process whose admin endpoint breaks the AWS stand-in while the fault
 * is on. Whatever breaks, every run must end with the fault stopped, a complete journal, and a verdict
 * that says what happened: `inconclusive` when the run was blind, never `held` on missing data (the
 * invariants are asserted for every run in ./world.ts).
 */
import { describe, expect } from 'vitest';
import { scrapeSlis, type PlanSli } from '../../bench/lib/world.js';
import { brokenTest, killableProxy, waitForCompletePeriod } from './world.js';

/** One run: start, ~5 s steady state, a fault of up to 20 s, stop, recovery; generous for a loaded CI box. */
const RUN_TIMEOUT_MS = 100_000;
const TEST_TIMEOUT_MS = 150_000;

const it = brokenTest('rel-metrics', RUN_TIMEOUT_MS);

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

/** The canary's CloudWatch p95, as `waitForCompletePeriod` reads it. */
const latencyMetric = {
  namespace: 'Sandbox/Canary',
  metricName: 'LatencyP95',
  dimensions: { Service: 'canary' },
  stat: 'Maximum',
  periodS: 10,
};

describe.concurrent('reliability: the metric sources slow, failing or cut off while the fault is on', () => {
  it(
    'measures through 400 ms of added latency on FIS and CloudWatch, and CloudWatch throttling, to a verdict from data',
    async ({ world }) => {
      // The steady state reads the CloudWatch SLI: wait for the fresh sandbox's first complete period.
      await waitForCompletePeriod(world, latencyMetric);
      const { journal } = await world.runBroken(
        { id: world.planId('latency'), actionDuration: 'PT1M', slis: [...scrapeSlis(), cloudwatchLatency] },
        async () => {
          await world.fault({ service: 'fis', operation: '*', kind: 'latency', latencyMs: 400 });
          await world.fault({ service: 'cloudwatch', operation: '*', kind: 'latency', latencyMs: 400 });
          // Lease heartbeats and GetMetricData alike: the SDK's retries (4 attempts) must absorb the throttles.
          // Fewer throttles than attempts, so whichever call meets them — the order depends on timing —
          // still succeeds; more would make the outcome depend on that order.
          await world.fault({ service: 'cloudwatch', operation: '*', kind: 'throttle', count: 3 });
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
    async ({ world }) => {
      await waitForCompletePeriod(world, latencyMetric);
      const { journal } = await world.runBroken(
        {
          id: world.planId('cw-5xx'),
          actionDuration: 'PT1M20S',
          maxActionDuration: '2m',
          // The error ratio and the CloudWatch SLI only: the canary's p95 under a loaded machine can breach
          // its bound for real, and a breach rightly outranks blindness (deviated); this case is about the
          // blind CloudWatch SLI alone.
          slis: [...scrapeSlis().filter((s) => s.name === 'error_ratio'), cloudwatchLatency],
        },
        async () => {
          await world.fault({
            service: 'cloudwatch',
            operation: 'GetMetricData',
            kind: 'error',
            status: 500,
          });
        },
      );
      expect(journal.verdict, `${journal.verdict}: ${journal.reason}`).toBe('inconclusive');
      const abort = journal.events.find((e) => e.type === 'abort');
      expect(abort?.data?.cause).toBe('blind');
      expect(abort?.message).toContain('cw_p95_latency_ms');
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'is inconclusive, not held, when the scrape connection to the canary is killed mid-fault',
    async ({ world }) => {
      const proxy = await killableProxy(world.sandbox.urls.canary);
      try {
        const url = '${CANARY_PROXY_URL}/metrics';
        const { journal } = await world.runBroken(
          {
            id: world.planId('scrape-killed'),
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
