/**
 * `abort.alerts` against the real parts (test/e2e/alerts-harness.ts): the sandbox canary scraped by a
 * real Prometheus whose alerting rule sends to a real Alertmanager, and a plan only an alert can abort:
 *
 * - fallback off: the partition's 503s fire CanaryErrorRateHigh, Alertmanager reports it, the run aborts
 *   naming it, and FIS is stopped;
 * - Alertmanager unreachable before the start: `not-run`, nothing injected;
 * - no Alertmanager URL: a setting error (exit 2).
 *
 * Alertmanager going away during the fault is test/e2e/alerts-blind.test.ts.
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { freePort } from '../helpers/ports.js';
import { ALERT_RULES, alertsSkipReason, useAlertsWorld } from './alerts-harness.js';
import { CLI_TIMEOUT_MS, eventOf } from './harness.js';

const skip = alertsSkipReason;
const RULES = ALERT_RULES;

describe.skipIf(skip !== undefined)(
  `abort.alerts with a real Prometheus and Alertmanager${skip ? ` (skipped: ${skip})` : ''}`,
  () => {
    const world = useAlertsWorld();

    it('the alerting rule file passes promtool check rules', () => {
      const r = spawnSync('promtool', ['check', 'rules', RULES], { encoding: 'utf8' });
      expect(r.status, r.stdout + r.stderr).toBe(0);
      expect(r.stdout).toMatch(/SUCCESS: 1 rules found/);
    });

    it(
      'aborts when the partition fires CanaryErrorRateHigh in Alertmanager, naming the alert, and stops FIS',
      async () => {
        await world().e2e.sandbox.admin.send('PUT', '/canary', { fallback: false });
        let run;
        try {
          run = await world().e2e.run(world().plan, [
            '--prometheus-url',
            world().prom.url,
            '--alertmanager-url',
            world().am.url,
          ]);
        } finally {
          await world().e2e.sandbox.admin.send('PUT', '/canary', { fallback: true });
        }
        const { json, journal } = run;
        expect(json.verdict, run.stderr).toBe('aborted');
        expect(run.code).toBe(1);
        expect(json.reason).toMatch(
          /^alerts: 1 alert\(s\) matching severity="critical", service="canary" fired/,
        );
        expect(json.reason).toMatch(/CanaryErrorRateHigh\{service="canary", severity="critical"\} since /);
        const abort = eventOf(journal, 'abort');
        expect(abort?.data).toMatchObject({ cause: 'mid-run', check: 'alerts', verdict: 'aborted' });
        // The gate read Alertmanager before the start and found nothing firing.
        const gate = journal.events.find((e) => e.type === 'preflight' && /Alertmanager/.test(e.message));
        expect(gate?.message).toMatch(/no alert matching severity="critical", service="canary"/);
        // The alert started after the injection, as Alertmanager reports it.
        const since = /since (\S+)/.exec(json.reason)?.[1] ?? '';
        expect(Date.parse(since)).toBeGreaterThanOrEqual(
          Math.floor((journal.timings.injectedAt ?? 0) / 1000) * 1000,
        );
        expect(eventOf(journal, 'stop-verified')).toBeDefined();
        expect((await world().e2e.experiment(json.experimentId ?? '')).state?.status).toBe('stopped');
      },
      CLI_TIMEOUT_MS,
    );

    it('does not start when Alertmanager cannot be read before the start', async () => {
      const nobody = `http://127.0.0.1:${await freePort()}`;
      const run = await world().e2e.run(world().plan, [
        '--prometheus-url',
        world().prom.url,
        '--alertmanager-url',
        nobody,
      ]);
      expect(run.json.verdict, run.stderr).toBe('not-run');
      expect(run.json.reason).toMatch(
        /cannot read the alerts matching severity="critical", service="canary" \(reading http:\/\/127\.0\.0\.1:\d+\/: .*\); refusing to start blind to them/,
      );
      expect(run.json.experimentId).toBeNull();
    });

    it('refuses a plan with abort.alerts and no Alertmanager URL as a setting error (exit 2)', async () => {
      const journalPath = path.join(world().e2e.dir, 'no-am.journal.json');
      const run = await world().e2e.cli([
        'run',
        world().plan,
        '--journal',
        journalPath,
        '--json',
        '--prometheus-url',
        world().prom.url,
      ]).done;
      expect(run.code, run.stderr).toBe(2);
      const json = JSON.parse(run.stdout.trim().split('\n').at(-1) ?? '{}') as {
        verdict: string;
        reason: string;
      };
      expect(json.verdict).toBe('failed');
      expect(json.reason).toMatch(
        /sandbox-prometheus\.yaml:\d+:\d+: abort\.alerts reads Alertmanager, but no Alertmanager URL is set; expected the CLI flag --alertmanager-url or the environment variable CHAOS_GATE_ALERTMANAGER_URL/,
      );
    });
  },
);
