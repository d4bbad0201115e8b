/**
 * What the abort.alerts e2e files share: a sandbox, a real Alertmanager, and a real Prometheus scraping
 * the canary with the canary's alerting rule (fixtures/prometheus/canary-alerts.yml) sending to that
 * Alertmanager; and the Prometheus e2e plan with its own abort rule replaced by `abort.alerts`, so only
 * an alert can abort it. One world per test file, started before its tests and stopped after them.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll } from 'vitest';
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
import { ROOT, copyPlan, startE2E, type E2E } from './harness.js';

export const ALERT_RULES = path.join(ROOT, 'fixtures/prometheus/canary-alerts.yml');

/** Why the alerts e2e files cannot run here (no Prometheus or no Alertmanager), or undefined. */
export const alertsSkipReason = prometheusSkipReason ?? alertmanagerSkipReason;

/** The Prometheus e2e plan, its error_ratio abort rule replaced by the canary's critical alerts. */
export function alertPlan(text: string): string {
  const rules = /abort:\n {2}rules:\n(?: {4}.*\n)+/;
  if (!rules.test(text)) throw new Error('the fixture plan no longer has the abort block this test edits');
  return text.replace(
    rules,
    'abort:\n  rules: []\n  alerts:\n    matchers: [\'severity="critical"\', \'service="canary"\']\n',
  );
}

export interface AlertsWorld {
  e2e: E2E;
  prom: PrometheusServer;
  am: AlertmanagerServer;
  /** The plan copy with abort.alerts. */
  plan: string;
}

/** Starts the world for the calling file; the getter is valid once its tests run. */
export function useAlertsWorld(): () => AlertsWorld {
  let world: AlertsWorld | undefined;
  const parts: Partial<AlertsWorld> = {};
  beforeAll(async () => {
    parts.e2e = await startE2E();
    parts.am = await startAlertmanager();
    parts.prom = await startPrometheus(
      [{ name: 'canary', target: new URL(parts.e2e.sandbox.urls.canary).host }],
      { rules: [readFileSync(ALERT_RULES, 'utf8')], alertmanager: parts.am.host },
    );
    await waitForSeries(parts.prom.url, 'count_over_time(http_request_duration_seconds_count[5s]) >= 4');
    world = {
      ...(parts as Omit<AlertsWorld, 'plan'>),
      plan: copyPlan(parts.e2e.dir, 'sandbox-prometheus.yaml', alertPlan),
    };
  }, 90_000);
  afterAll(async () => {
    try {
      await parts.prom?.stop();
      await parts.am?.stop();
    } finally {
      await parts.e2e?.close();
    }
  }, 40_000);
  return () => {
    if (!world) throw new Error('the alerts world is not started');
    return world;
  };
}
