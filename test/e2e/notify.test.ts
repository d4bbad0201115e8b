/**
 * The aborting demo plan against the sandbox through `chaos-gate run` exactly as a user starts it, with
 * all four notification receivers on loopback (`--notify` four times, credentials in the environment):
 * each receiver gets exactly its events, each valid against the published format, and no secret — a
 * webhook path, the token, the routing key, the HMAC key — appears in the output or the journal.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PLANS, eventOf, startE2E, type CliResult, type E2E, type PlanRun } from './harness.js';
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

describe('the action with the notify input against the sandbox', () => {
  /** The action's main step as GitHub starts it on a push, with `extra` inputs and environment. */
  /** The step's output without the `::add-mask::` commands, which hand each secret to the runner's masking. */
  const shown = (text: string): string =>
    text
      .split('\n')
      .filter((l) => !l.startsWith('::add-mask::'))
      .join('\n');

  async function action(name: string, extra: NodeJS.ProcessEnv): Promise<CliResult & { files: string }> {
    const files = { state: `${name}-state`, output: `${name}-output`, summary: `${name}-summary` };
    for (const f of Object.values(files)) writeFileSync(path.join(e2e.dir, f), '');
    const eventPath = path.join(e2e.dir, `${name}-event.json`);
    writeFileSync(eventPath, JSON.stringify({ ref: 'refs/heads/main' }));
    const result = await e2e.node('action', {
      GITHUB_ACTIONS: 'true',
      GITHUB_EVENT_NAME: 'push',
      GITHUB_EVENT_PATH: eventPath,
      GITHUB_WORKSPACE: e2e.dir,
      GITHUB_REPOSITORY: 'acme/payments',
      GITHUB_RUN_ID: '778',
      GITHUB_RUN_ATTEMPT: '1',
      GITHUB_STATE: path.join(e2e.dir, files.state),
      GITHUB_OUTPUT: path.join(e2e.dir, files.output),
      GITHUB_STEP_SUMMARY: path.join(e2e.dir, files.summary),
      INPUT_PLAN: `${PLANS}/demo-aborts.yaml`,
      'INPUT_JOURNAL-PATH': `${name}/journal.json`,
      ...extra,
    }).done;
    const written = Object.values(files)
      .map((f) => readFileSync(path.join(e2e.dir, f), 'utf8'))
      .join('\n');
    return { ...result, files: written };
  }

  it('refuses with exit 2 before any AWS call when a sink lacks its credential, masking the Slack URL', async () => {
    const mark = await e2e.mark();
    const r = await action('missing-key', {
      INPUT_NOTIFY: `slack=${rs.slack.url}\npagerduty=${rs.pagerduty.url}`,
    });
    expect(r.code, r.stderr).toBe(2);
    expect(r.stdout).toMatch(/PAGERDUTY_ROUTING_KEY; it is not set/);
    expect(await e2e.requests({ service: 'fis', since: mark })).toEqual([]);
    // The runner is told to mask the Slack URL path; nothing else prints it.
    expect(r.stdout).toContain(`::add-mask::${new URL(rs.slack.url).pathname}`);
    expect(shown(r.stdout) + r.stderr + r.files).not.toContain(new URL(rs.slack.url).pathname);
  });

  it('sends the verdict to Slack and the webhook from the action, with the link to the CI run', async () => {
    const slackBefore = rs.slack.received.length;
    const hookBefore = rs.cdevents.received.length;
    const r = await action('notified', {
      INPUT_NOTIFY: `slack=${rs.slack.url}\ncdevents=${rs.cdevents.url}`,
      CHAOS_GATE_WEBHOOK_SECRET: SECRETS.CHAOS_GATE_WEBHOOK_SECRET,
    });
    expect(r.code, r.stderr).toBe(1);
    expect(r.files).toMatch(/verdict<<.*\naborted/s);
    expect(rs.slack.problems).toEqual([]);
    expect(rs.cdevents.problems).toEqual([]);
    const slack = rs.slack.received.slice(slackBefore);
    expect(slack).toHaveLength(1);
    expect((slack[0]?.body as { text: string }).text).toContain(
      'https://github.com/acme/payments/actions/runs/778',
    );
    expect(rs.cdevents.received.slice(hookBefore).at(-1)?.headers['ce-type']).toBe(
      'dev.cdevents.testsuiterun.finished.0.3.0',
    );
    expect(r.stdout).toContain('notifications go to slack http://127.0.0.1');
    const secretsOut = [
      new URL(rs.slack.url).pathname,
      new URL(rs.cdevents.url).pathname,
      SECRETS.CHAOS_GATE_WEBHOOK_SECRET,
    ];
    const journal = readFileSync(path.join(e2e.dir, 'notified/journal.json'), 'utf8');
    for (const secret of secretsOut)
      expect(shown(r.stdout) + r.stderr + r.files + journal).not.toContain(secret);
  });
});
