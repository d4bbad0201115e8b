/**
 * `abort.alerts` when Alertmanager goes away during the fault (test/e2e/alerts-harness.ts): with the
 * canary's fallback on every SLI stays within bounds, so only the blind Alertmanager keeps the run from
 * `held` — and it ends `inconclusive`, the fault stopped. A file of its own so it runs beside
 * test/e2e/alerts.test.ts rather than after it.
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { startAlertmanager } from '../helpers/alertmanager.js';
import { alertsSkipReason, useAlertsWorld } from './alerts-harness.js';
import { CLI_TIMEOUT_MS, eventOf, readJournal } from './harness.js';

const skip = alertsSkipReason;

describe.skipIf(skip !== undefined)(
  `abort.alerts with Alertmanager gone during the fault${skip ? ` (skipped: ${skip})` : ''}`,
  () => {
    const world = useAlertsWorld();

    it(
      'ends inconclusive, never held, when Alertmanager stops answering during the fault',
      async () => {
        const own = await startAlertmanager();
        const journalPath = path.join(world().e2e.dir, 'am-gone.journal.json');
        const child = world().e2e.cli([
          'run',
          world().plan,
          '--journal',
          journalPath,
          '--json',
          '--prometheus-url',
          world().prom.url,
          '--alertmanager-url',
          own.url,
        ]);
        try {
          await child.waitForStderr(/experiment \S+ started/, CLI_TIMEOUT_MS);
        } finally {
          await own.stop();
        }
        const result = await child.done;
        const json = JSON.parse(result.stdout.trim().split('\n').at(-1) ?? '{}') as { verdict: string };
        expect(json.verdict, result.stderr).toBe('inconclusive');
        expect(result.code).toBe(1);
        const journal = readJournal(journalPath);
        expect(journal.verdict).toBe('inconclusive');
        const abort = eventOf(journal, 'abort');
        expect(abort?.data).toMatchObject({
          cause: 'blind',
          verdict: 'inconclusive',
          check: 'alerts',
          count: 3,
        });
        expect(abort?.message).toMatch(
          /^blind: alerts could not be read 3 times in a row \(reading http:\/\/127\.0\.0\.1:\d+\//,
        );
        // With the fallback on, every SLI stayed within bounds: only the blind Alertmanager kept it from held.
        const fault = journal.measurements.filter((m) => m.phase === 'fault');
        expect(fault.length).toBeGreaterThan(0);
        expect(fault.every((m) => m.slis['error_ratio']?.status === 'ok')).toBe(true);
      },
      CLI_TIMEOUT_MS,
    );
  },
);
