/**
 * The aborting demo plan against the sandbox through `chaos-gate run` exactly as a user starts it, with
 * all four notification receivers on loopback (`--notify` four times, credentials in the environment):
 * each receiver gets exactly its events, each valid against the published format, and no secret — a
 * webhook path, the token, the routing key, the HMAC key — appears in the output or the journal.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PLANS, eventOf, startE2E, type E2E, type PlanRun } from './harness.js';
import { startReceiver, type Receiver } from '../helpers/notify-receivers.js';

const SECRETS = {
  CHAOS_GATE_WEBHOOK_SECRET: 'e2e-webhook-hmac-key-0123456789',
  PAGERDUTY_ROUTING_KEY: 'E2EROUTINGKEYE2EROUTINGKEYE2E001',
  GRAFANA_TOKEN: 'glsa_e2e_serviceaccount_token_0123456789',
};

let e2e: E2E;
let run: PlanRun;
let rs: Record<Receiver['kind'], Receiver>;

beforeAll(async () => {
  const [sandbox, cdevents, slack, pagerduty, grafana] = await Promise.all([
    startE2E({ canary: { fallback: false } }),
    startReceiver('cdevents', { secret: SECRETS.CHAOS_GATE_WEBHOOK_SECRET }),
    startReceiver('slack'),
    startReceiver('pagerduty', { credential: SECRETS.PAGERDUTY_ROUTING_KEY }),
    startReceiver('grafana', { credential: SECRETS.GRAFANA_TOKEN }),
  ]);
  e2e = sandbox;
  rs = { cdevents, slack, pagerduty, grafana };
  run = await e2e.run(
    `${PLANS}/demo-aborts.yaml`,
    Object.values(rs).flatMap((r) => ['--notify', `${r.kind}=${r.url}`]),
    { ...SECRETS, GITHUB_REPOSITORY: 'acme/payments', GITHUB_RUN_ID: '777' },
  );
}, 120_000);

afterAll(async () => {
  await Promise.all(Object.values(rs ?? {}).map((r) => r.close()));
  await e2e?.close();
}, 30_000);

describe('chaos-gate run --notify against the sandbox, the aborting demo plan', () => {
  it('ends aborted, and every receiver accepted everything it got', () => {
    expect(run.json.verdict, run.stderr).toBe('aborted');
    for (const r of Object.values(rs)) expect(r.problems, r.kind).toEqual([]);
    expect(run.journal.events.filter((e) => e.type === 'notify' && e.data?.error !== undefined)).toEqual([]);
  });

  it('delivers exactly the expected events to each receiver', () => {
    const cases = run.journal.slis.length + (run.journal.expectations ?? []).length;
    expect(rs.cdevents.received.map((r) => r.headers['ce-type'])).toEqual([
      'dev.cdevents.testsuiterun.started.0.3.0',
      ...Array(cases).fill('dev.cdevents.testcaserun.finished.0.3.0'),
      'dev.cdevents.testsuiterun.finished.0.3.0',
    ]);
    const finished = rs.cdevents.received.at(-1)?.body as {
      subject: { content: { outcome: string } };
      customData: { links: { run: string } };
    };
    expect(finished.subject.content.outcome).toBe('failure');
    expect(finished.customData.links.run).toBe('https://github.com/acme/payments/actions/runs/777');
    expect(rs.slack.received).toHaveLength(1);
    expect((rs.slack.received[0]?.body as { text: string }).text).toMatch(
      /^chaos-gate: aborted — demo-aborts/,
    );
    expect(rs.pagerduty.received).toHaveLength(2);
    expect(rs.grafana.received.map((r) => `${r.method} ${r.path}`)).toEqual([
      'POST /api/annotations',
      'PATCH /api/annotations/1',
    ]);
    const region = rs.grafana.annotations.get(1);
    expect(region?.time).toBe(run.journal.timings.injectedAt);
    expect(region?.timeEnd).toBe(run.journal.timings.stoppedAt);
    expect(region?.tags).toContain('verdict:aborted');
  });

  it('stops the fault as it does without sinks: abort, stop and verification all journaled', () => {
    for (const type of ['first-breach', 'abort', 'stop-requested', 'stop-verified'])
      expect(eventOf(run.journal, type), type).toBeDefined();
  });

  it('prints and journals no secret', () => {
    const written = run.stdout + run.stderr + readFileSync(run.journalPath, 'utf8');
    expect(written).toContain('notifications go to');
    for (const secret of [
      ...Object.values(SECRETS),
      new URL(rs.slack.url).pathname,
      new URL(rs.cdevents.url).pathname,
    ])
      expect(written).not.toContain(secret);
  });
});
