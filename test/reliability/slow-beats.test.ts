/**
 * Slowness is a failure (issue 13): heartbeats that never arrive: real `chaos-gate run` child processes
 * against a sandbox child process whose admin endpoint makes one AWS operation slow, dropped or throttled
 * once the fault is on. Each case asserts that the fault ended within a bound of its start (read from the
 * stand-in's own record of the FIS action), that the journal says how it ended, and that the verdict is
 * never `held` (with the invariants of every broken run, ./world.ts).
 */
import { describe, expect } from 'vitest';
import { brokenTest } from './world.js';

const RUN_TIMEOUT_MS = 150_000;
const TEST_TIMEOUT_MS = 200_000;

const it = brokenTest('slow-beats', RUN_TIMEOUT_MS);

describe.concurrent('slow AWS heartbeats: the lease stops the fault when no beat arrives', () => {
  it(
    'lets the lease stop the fault when every heartbeat (PutMetricData) is dropped',
    async ({ world }) => {
      const { journal, faultMs } = await world.runSlowed(
        {
          id: world.planId('beats-dropped'),
          actionDuration: 'PT8M',
          maxActionDuration: '10m',
          maxRunDuration: '15m',
        },
        () => world.fault({ service: 'cloudwatch', operation: 'PutMetricData', kind: 'drop' }),
      );
      expect(faultMs, `the fault ran ${faultMs} ms`).toBeLessThanOrEqual(45_000);
      const end = journal.events.find((e) => e.type === 'abort');
      expect(end?.data?.cause, end?.message).toBe('fis-stopped');
    },
    TEST_TIMEOUT_MS,
  );
});
