/**
 * Slowness is a failure (issue 13): a stop that never lands: real `chaos-gate run` child processes against
 * a sandbox child process whose admin endpoint makes one AWS operation slow, dropped or throttled once the
 * fault is on. Each case asserts that the fault ended within a bound of its start (read from the
 * stand-in's own record of the FIS action), that the journal says how it ended, and that the verdict is
 * never `held` (with the invariants of every broken run, ./world.ts).
 */
import { describe, expect } from 'vitest';
import { setCanary } from '../../bench/lib/world.js';
import { brokenTest } from './world.js';

const RUN_TIMEOUT_MS = 150_000;
const TEST_TIMEOUT_MS = 200_000;

const it = brokenTest('slow-stop', RUN_TIMEOUT_MS);

describe.concurrent('slow AWS stop: the lease ends the fault when StopExperiment cannot', () => {
  it(
    'ends a 120 s partition within 40 s of its start when StopExperiment hangs for 220 s: the lease takes over',
    async ({ world }) => {
      await setCanary(world.sandbox.admin, { fallback: false });
      const { journal, faultMs } = await world.runSlowed(
        {
          id: world.planId('stop-hang'),
          actionDuration: 'PT8M',
          maxActionDuration: '10m',
          maxRunDuration: '15m',
          rules: [{ sli: 'error_ratio', above: 0.2, for: '2s' }],
        },
        () =>
          world.fault({ service: 'fis', operation: 'StopExperiment', kind: 'latency', latencyMs: 220_000 }),
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
    async ({ world }) => {
      await setCanary(world.sandbox.admin, { fallback: false });
      const { journal, faultMs } = await world.runSlowed(
        {
          id: world.planId('stop-throttled'),
          actionDuration: 'PT8M',
          maxActionDuration: '10m',
          maxRunDuration: '15m',
        },
        () => world.fault({ service: 'fis', operation: 'StopExperiment', kind: 'throttle' }),
      );
      expect(faultMs, `the fault ran ${faultMs} ms`).toBeLessThanOrEqual(40_000);
      expect(journal.events.find((e) => e.type === 'stop-verified')?.data?.by).toBe('lease');
    },
    TEST_TIMEOUT_MS,
  );
});
