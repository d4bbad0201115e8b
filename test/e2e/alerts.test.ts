/**
 * `abort.alerts` against the real parts: the sandbox canary scraped by a real Prometheus, whose alerting
 * rule (fixtures/prometheus/canary-alerts.yml) sends to a real Alertmanager. The plan is the Prometheus
 * e2e plan with its own abort rule removed, so only the alert can abort it:
 *
 * - fallback off: the partition's 503s fire CanaryErrorRateHigh, Alertmanager reports it, the run aborts
 *   naming it, and FIS is stopped;
 * - fallback on, Alertmanager stopped after the injection: the run cannot see its alerts and ends
 *   `inconclusive` (blind), never `held`;
 * - Alertmanager unreachable before the start: `not-run`, nothing injected.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  alertmanagerSkipReason,
  startAlertmanager,
  type AlertmanagerServer,
} from '../helpers/alertmanager.js';
import {
  prometheusSkipReason,
  startPrometheus,
  waitForSeries,
  type PrometheusServer,
} from '../helpers/prometheus.js';
import { freePort } from '../helpers/ports.js';
import { CLI_TIMEOUT_MS, ROOT, copyPlan, eventOf, readJournal, startE2E, type E2E } from './harness.js';

const RULES = path.join(ROOT, 'fixtures/prometheus/canary-alerts.yml');
const skip = prometheusSkipReason ?? alertmanagerSkipReason;

/** The Prometheus e2e plan, its error_ratio abort rule replaced by the canary's critical alerts. */
function alertPlan(text: string): string {
  const rules = /abort:\n {2}rules:\n(?: {4}.*\n)+/;
  if (!rules.test(text)) throw new Error('the fixture plan no longer has the abort block this test edits');
  return text.replace(
    rules,
    'abort:\n  rules: []\n  alerts:\n    matchers: [\'severity="critical"\', \'service="canary"\']\n',
  );
}

describe.skipIf(skip !== undefined)(
  `abort.alerts with a real Prometheus and Alertmanager${skip ? ` (skipped: ${skip})` : ''}`,
  () => {
    let e2e: E2E;
    let prom: PrometheusServer;
    let am: AlertmanagerServer;
    let plan: string;

    beforeAll(async () => {
      e2e = await startE2E();
      am = await startAlertmanager();
      prom = await startPrometheus([{ name: 'canary', target: new URL(e2e.sandbox.urls.canary).host }], {
        rules: [readFileSync(RULES, 'utf8')],
        alertmanager: am.host,
      });
      await waitForSeries(prom.url, 'count_over_time(http_request_duration_seconds_count[5s]) >= 4');
      plan = copyPlan(e2e.dir, 'sandbox-prometheus.yaml', alertPlan);
    }, 90_000);

    afterAll(async () => {
      try {
        await prom?.stop();
        await am?.stop();
      } finally {
        await e2e?.close();
      }
    }, 40_000);

    it('the alerting rule file passes promtool check rules', () => {
      const r = spawnSync('promtool', ['check', 'rules', RULES], { encoding: 'utf8' });
      expect(r.status, r.stdout + r.stderr).toBe(0);
      expect(r.stdout).toMatch(/SUCCESS: 1 rules found/);
    });

    it(
      'aborts when the partition fires CanaryErrorRateHigh in Alertmanager, naming the alert, and stops FIS',
      async () => {
        await e2e.sandbox.admin.send('PUT', '/canary', { fallback: false });
        let run;
        try {
          run = await e2e.run(plan, ['--prometheus-url', prom.url, '--alertmanager-url', am.url]);
        } finally {
          await e2e.sandbox.admin.send('PUT', '/canary', { fallback: true });
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
        expect((await e2e.experiment(json.experimentId ?? '')).state?.status).toBe('stopped');
      },
      CLI_TIMEOUT_MS,
    );

    it(
      'ends inconclusive, never held, when Alertmanager stops answering during the fault',
      async () => {
        const own = await startAlertmanager();
        const journalPath = path.join(e2e.dir, 'am-gone.journal.json');
        const child = e2e.cli([
          'run',
          plan,
          '--journal',
          journalPath,
          '--json',
          '--prometheus-url',
          prom.url,
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

    it('does not start when Alertmanager cannot be read before the start', async () => {
      const nobody = `http://127.0.0.1:${await freePort()}`;
      const run = await e2e.run(plan, ['--prometheus-url', prom.url, '--alertmanager-url', nobody]);
      expect(run.json.verdict, run.stderr).toBe('not-run');
      expect(run.json.reason).toMatch(
        /cannot read the alerts matching severity="critical", service="canary" \(reading http:\/\/127\.0\.0\.1:\d+\/: .*\); refusing to start blind to them/,
      );
      expect(run.json.experimentId).toBeNull();
    });

    it('refuses a plan with abort.alerts and no Alertmanager URL as a setting error (exit 2)', async () => {
      const journalPath = path.join(e2e.dir, 'no-am.journal.json');
      const run = await e2e.cli([
        'run',
        plan,
        '--journal',
        journalPath,
        '--json',
        '--prometheus-url',
        prom.url,
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
