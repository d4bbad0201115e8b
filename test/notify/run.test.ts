/**
 * The notification sinks on a real run: the engine on the simulated world (virtual clock), its journal
 * writer wrapped by the fan-out exactly as compose/run.ts wraps it, and the four loopback receivers
 * that validate what they get against the published formats (test/helpers/notify-receivers.ts).
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { MemoryJournalWriter } from '../../src/journal/writer.js';
import type { Journal, JournalEvent } from '../../src/journal/types.js';
import {
  notifyingJournal,
  notifySettings,
  parseNotifyTargets,
  type DeploymentSettings,
  type NotifyOptions,
} from '../../src/notify/index.js';
import { serveStandIn, TOKENS } from '../github/serve.js';
import { secrets } from '../../src/security/redact.js';
import { simulate, planWith } from '../sim/helpers.js';
import { startReceiver, type Receiver, type ReceiverMode } from '../helpers/notify-receivers.js';

const ENV = {
  CHAOS_GATE_WEBHOOK_SECRET: 'hmac-key-for-the-webhook-0123456789',
  PAGERDUTY_ROUTING_KEY: 'R0UT1NGKEYR0UT1NGKEYR0UT1NGKEY01',
  GRAFANA_TOKEN: 'glsa_serviceaccounttoken0123456789abcdef',
  GITHUB_SERVER_URL: 'https://github.com',
  GITHUB_REPOSITORY: 'acme/payments',
  GITHUB_RUN_ID: '4242',
};

let receivers: Receiver[] = [];
afterEach(async () => {
  await Promise.all(receivers.map((r) => r.close()));
  receivers = [];
  secrets.clear();
});

async function startAll(mode: ReceiverMode = 'ok'): Promise<Record<Receiver['kind'], Receiver>> {
  const [cdevents, slack, pagerduty, grafana] = await Promise.all([
    startReceiver('cdevents', { mode, secret: ENV.CHAOS_GATE_WEBHOOK_SECRET }),
    startReceiver('slack', { mode }),
    startReceiver('pagerduty', { mode, credential: ENV.PAGERDUTY_ROUTING_KEY }),
    startReceiver('grafana', { mode, credential: ENV.GRAFANA_TOKEN }),
  ]);
  receivers.push(cdevents, slack, pagerduty, grafana);
  return { cdevents, slack, pagerduty, grafana };
}

interface Notified {
  journal: Journal;
  events: JournalEvent[];
  verdict: string;
}

/** Runs `scenario` with the fan-out over `rs`; `events` is what the front door's onEvent heard. */
async function run(
  scenario: string,
  rs: Receiver[],
  options: Partial<NotifyOptions> & { planNotify?: ('cdevents' | 'slack' | 'pagerduty' | 'grafana')[] } = {},
): Promise<Notified> {
  const targets = parseNotifyTargets(
    rs.map((r) => `${r.kind}=${r.url}`),
    '--notify',
  );
  const settings = notifySettings(targets, { ...ENV, CHAOS_GATE_SLACK_START: 'false' });
  const events: JournalEvent[] = [];
  const plan = planWith((p) => {
    if (options.planNotify) p.notify = options.planNotify;
  });
  const { result } = await simulate(scenario, {
    plan,
    deps: (world) => {
      return {
        onEvent: (e) => events.push(e),
        journal: notifyingJournal(
          new MemoryJournalWriter(),
          settings && {
            settings,
            wanted: plan.notify,
            now: () => world.clock.now(),
            links: () => ({
              run: 'https://github.com/acme/payments/actions/runs/4242',
              checkRun: 'https://github.com/acme/payments/runs/7',
            }),
            onEvent: (e) => events.push(e),
            callMs: 10_000, // a loaded 2-core machine answers late; no test here times a call
            drainMs: 12_000,
            backoffMs: 20,
            ...options,
          },
        ),
      };
    },
  });
  return { journal: result.journal, events, verdict: result.verdict };
}

/** What a run without any sink records: the baseline a sink must not change. */
async function baseline(scenario: string): Promise<Journal> {
  return (await simulate(scenario)).result.journal;
}

const ceType = (r: Receiver): string[] => r.received.map((x) => String(x.headers['ce-type']));

describe('notifications on an aborted run', () => {
  it('delivers each receiver exactly its events, every one valid against the published format', async () => {
    const rs = await startAll();
    const { journal, verdict } = await run('aborted-rule', Object.values(rs));
    expect(verdict).toBe('aborted');
    for (const r of Object.values(rs)) expect(r.problems, r.kind).toEqual([]);

    // CDEvents: the suite started, one test case per SLI and expectation, the suite finished.
    const cases = [...journal.slis.map((s) => s.name), ...(journal.expectations ?? []).map((e) => e.name)];
    expect(ceType(rs.cdevents)).toEqual([
      'dev.cdevents.testsuiterun.started.0.3.0',
      ...cases.map(() => 'dev.cdevents.testcaserun.finished.0.3.0'),
      'dev.cdevents.testsuiterun.finished.0.3.0',
    ]);
    const finished = rs.cdevents.received.at(-1)?.body as {
      subject: { content: { outcome: string; reason: string; environment: { id: string } } };
      customData: { links: Record<string, string>; verdict: string };
    };
    expect(finished.subject.content.outcome).toBe('failure');
    expect(finished.subject.content.reason).toBe(`aborted: ${journal.reason}`);
    expect(finished.subject.content.environment.id).toBe('staging');
    expect(finished.customData.links).toEqual({
      run: 'https://github.com/acme/payments/actions/runs/4242',
      checkRun: 'https://github.com/acme/payments/runs/7',
    });
    const p95 = rs.cdevents.received.find((x) =>
      (x.body as { subject: { id: string } }).subject.id.endsWith('/p95_latency_s'),
    )?.body as { subject: { content: { outcome: string } } };
    expect(p95.subject.content.outcome).toBe('failure');

    // Slack: one message, at the end, with the verdict and the reason.
    expect(rs.slack.received).toHaveLength(1);
    const slack = rs.slack.received[0]?.body as { text: string; blocks: unknown[] };
    expect(slack.text).toContain('aborted');
    expect(slack.text).toContain(journal.reason);
    expect(JSON.stringify(slack.blocks)).toContain('p95_latency_s');

    // PagerDuty: two change events, at the start and at the end of the fault window.
    const pd = rs.pagerduty.received.map(
      (x) => x.body as { payload: { summary: string; timestamp: string } },
    );
    expect(pd.map((b) => b.payload.summary.split(' — ')[0])).toEqual([
      'chaos-gate: fault injected',
      'chaos-gate: fault ended',
    ]);
    expect(pd.map((b) => Date.parse(b.payload.timestamp))).toEqual([
      journal.events.find((e) => e.type === 'inject')?.at,
      journal.events.find((e) => e.type === 'fault-ended')?.at,
    ]);

    // Grafana: one region, created at the injection and completed with the verdict.
    expect(rs.grafana.received.map((x) => `${x.method} ${x.path}`)).toEqual([
      'POST /api/annotations',
      'PATCH /api/annotations/1',
    ]);
    const region = rs.grafana.annotations.get(1);
    expect(region).toMatchObject({
      time: journal.timings.injectedAt,
      timeEnd: journal.timings.stoppedAt,
      tags: expect.arrayContaining(['service:checkout', 'plan:checkout-redis-partition', 'verdict:aborted']),
    });
    // Grafana shows annotation text as HTML: the reason arrives escaped, as text.
    expect(String(region?.text)).toContain(String(journal.reason).replace(/>/g, '&gt;'));
    expect(String(region?.text)).toContain('<a href="https://github.com/acme/payments/actions/runs/4242">');

    // The journal says where notifications went, and records no failure.
    const notes = journal.events.filter((e) => e.type === 'notify');
    expect(notes).toHaveLength(1);
    expect(notes[0]?.data).toEqual({ sinks: ['cdevents', 'slack', 'pagerduty', 'grafana'] });
  });

  it('a receiver that answers 500 costs the run nothing: same verdict and timings, a notify event per failed call', async () => {
    const rs = await startAll('fail');
    const plain = await baseline('aborted-rule');
    const { journal, events } = await run('aborted-rule', Object.values(rs));
    expect(journal.verdict).toBe(plain.verdict);
    expect(journal.reason).toBe(plain.reason);
    expect(journal.timings).toEqual(plain.timings);
    const failed = journal.events.filter((e) => e.type === 'notify' && e.data?.error !== undefined);
    expect(new Set(failed.map((e) => e.data?.sink))).toEqual(
      new Set(['cdevents', 'slack', 'pagerduty', 'grafana']),
    );
    for (const e of failed)
      expect(String(e.data?.error)).toMatch(/^HTTP 500: internal error \(\d attempts\)$/);
    // Retried inside the deadline: more than one attempt reached each receiver for its first call.
    for (const r of Object.values(rs)) expect(r.received.length, r.kind).toBeGreaterThan(1);
    // The step log heard every failure too.
    expect(events.filter((e) => e.type === 'notify' && e.data?.error !== undefined)).toHaveLength(
      failed.length,
    );
    // Every failure is recorded before the final record, after the stop.
    const stopAt = journal.events.findIndex((e) => e.type === 'stop-verified');
    expect(stopAt).toBeGreaterThanOrEqual(0);
    for (const e of failed) expect(journal.events.indexOf(e)).toBeGreaterThan(stopAt);
  });

  it('a receiver that never answers costs the run nothing: the stop happens while its first call is in flight', async () => {
    const rs = await startAll('hang');
    const plain = await baseline('aborted-rule');
    // The call deadline is far beyond the whole run; the end waits a short bounded time and moves on.
    const { journal } = await run('aborted-rule', Object.values(rs), { callMs: 600_000, drainMs: 300 });
    expect(journal.verdict).toBe(plain.verdict);
    expect(journal.timings).toEqual(plain.timings);
    expect(journal.complete).toBe(true);
    const pending = journal.events.filter((e) => e.type === 'notify' && e.data?.pending === true);
    // Each sink's first call hung, so it and everything queued behind it is reported undelivered.
    expect(new Set(pending.map((e) => e.data?.sink))).toEqual(
      new Set(['cdevents', 'slack', 'pagerduty', 'grafana']),
    );
    // The stop (and the verdict) came before the sinks' first calls ended: they were still pending.
    const verdictAt = journal.events.find((e) => e.type === 'verdict')?.at ?? Infinity;
    const stopAt = journal.timings.stopRequestedAt ?? Infinity;
    expect(stopAt).toBeLessThanOrEqual(verdictAt);
    for (const e of pending) expect(e.at).toBeGreaterThanOrEqual(verdictAt);
    for (const r of Object.values(rs)) expect(r.received.length, r.kind).toBe(1);
    // Given up, the calls were torn down: no socket keeps the process alive until the 10-minute deadline.
    await vi.waitFor(() => {
      for (const r of Object.values(rs)) expect(r.abandoned, r.kind).toBe(1);
    });
  });
});

describe('notifications and the plan', () => {
  it('a held run is a success, and a plan naming one sink is reported to that sink only', async () => {
    const rs = await startAll();
    const { journal } = await run('held', Object.values(rs), { planNotify: ['cdevents'] });
    expect(journal.verdict).toBe('held');
    expect(rs.slack.received).toHaveLength(0);
    expect(rs.pagerduty.received).toHaveLength(0);
    expect(rs.grafana.received).toHaveLength(0);
    expect(rs.cdevents.problems).toEqual([]);
    const last = rs.cdevents.received.at(-1)?.body as { subject: { content: { outcome: string } } };
    expect(last.subject.content.outcome).toBe('success');
    const note = journal.events.find((e) => e.type === 'notify');
    expect(note?.message).toContain('not to slack, pagerduty, grafana');
  });

  it('a run that never injects sends no fault window: the suite is reported cancelled', async () => {
    const rs = await startAll();
    const { journal } = await run('not-run-steady-breach', Object.values(rs));
    expect(journal.verdict).toBe('not-run');
    expect(rs.pagerduty.received).toHaveLength(0);
    expect(rs.grafana.received).toHaveLength(0);
    expect(rs.slack.received).toHaveLength(1);
    expect(rs.cdevents.problems).toEqual([]);
    const last = rs.cdevents.received.at(-1)?.body as { subject: { content: { outcome: string } } };
    expect(last.subject.content.outcome).toBe('cancel');
  });
});

describe('notification secrets', () => {
  it('no URL path, token, routing key or HMAC key appears in the journal or the step log', async () => {
    const rs = await startAll('fail');
    const { journal, events } = await run('aborted-rule', Object.values(rs));
    const written = JSON.stringify(journal) + JSON.stringify(events);
    const slackPath = new URL(rs.slack.url).pathname;
    const hookPath = new URL(rs.cdevents.url).pathname;
    expect(written).toContain('notification to slack failed');
    for (const secret of [
      slackPath,
      hookPath,
      ENV.GRAFANA_TOKEN,
      ENV.PAGERDUTY_ROUTING_KEY,
      ENV.CHAOS_GATE_WEBHOOK_SECRET,
    ])
      expect(written).not.toContain(secret);
    // What was sent carries no secret it need not: the routing key only in its own field.
    for (const r of [rs.cdevents, rs.slack, rs.grafana])
      for (const x of r.received) expect(x.raw).not.toContain(ENV.PAGERDUTY_ROUTING_KEY);
  });
});

describe('GitHub deployment statuses on a real run', () => {
  it('the aborted run’s environment gets in_progress then failure; a GitHub that hangs changes no timing', async () => {
    const served = await serveStandIn({ tokens: TOKENS });
    try {
      // The stand-in compiles GitHub's description on first use: done before the run, not inside a deadline.
      await warmUp(served.url);
      const deployment = (sha: string) => ({
        apiUrl: served.url,
        token: 'ghs-write',
        owner: 'acme',
        repo: 'payments',
        sha,
        environment: 'staging',
      });
      const plain = await baseline('aborted-rule');
      const ok = await runWith('aborted-rule', deployment('a'.repeat(40)));
      expect(ok.verdict).toBe('aborted');
      expect(served.gh.rejected).toEqual([]);
      expect(served.gh.invalidResponses).toEqual([]);
      const [d] = [...served.gh.state.deployments.values()].filter((x) => x.repo === 'payments');
      expect(d?.statuses.map((x) => x.state)).toEqual(['in_progress', 'failure']);
      // The judgement's reason, one line, cut to GitHub's 140 characters.
      const full = `chaos-gate aborted: ${ok.journal.reason}`;
      const description = d?.statuses[1]?.description ?? '';
      expect(description.length).toBeLessThanOrEqual(140);
      expect(full.startsWith(description.replace(/…$/, ''))).toBe(true);
      expect(description.length === full.length || description.endsWith('…')).toBe(true);
      expect(ok.journal.events.filter((e) => e.type === 'notify' && e.data?.error)).toEqual([]);

      served.gh.faults.add({ operation: '*', kind: 'delay', delayMs: 60_000 });
      const hung = await runWith('aborted-rule', deployment('b'.repeat(40)), {
        callMs: 600_000,
        drainMs: 300,
      });
      expect(hung.verdict).toBe(plain.verdict);
      expect(hung.journal.timings).toEqual(plain.timings);
      const pending = hung.journal.events.filter((e) => e.type === 'notify' && e.data?.pending === true);
      expect(pending.map((e) => e.data?.sink)).toContain('github-deployment');
    } finally {
      served.gh.faults.clear();
      await served.close();
    }
  });
});

/** One request of each operation the sink uses, so the stand-in's validators are compiled. */
async function warmUp(url: string): Promise<void> {
  const post = (path: string, body: unknown) =>
    fetch(`${url}${path}`, {
      method: 'POST',
      headers: { authorization: 'Bearer ghs-write', 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  const d = (await (
    await post('/repos/acme/warm-up/deployments', { ref: 'f'.repeat(40), required_contexts: [] })
  ).json()) as { id: number };
  await post(`/repos/acme/warm-up/deployments/${d.id}/statuses`, {
    state: 'success',
    log_url: 'https://github.com/acme/warm-up/actions/runs/1',
  });
}

/** Runs `scenario` with only the GitHub deployment sink. */
async function runWith(
  scenario: string,
  deployment: DeploymentSettings,
  options: Partial<NotifyOptions> = {},
): Promise<Notified> {
  const settings = notifySettings([], ENV, deployment);
  const { result } = await simulate(scenario, {
    deps: (world) => ({
      journal: notifyingJournal(
        new MemoryJournalWriter(),
        settings && {
          settings,
          now: () => world.clock.now(),
          links: () => ({ run: 'https://github.com/acme/payments/actions/runs/4242' }),
          callMs: 10_000, // a loaded 2-core machine answers late; no test here times a call
          drainMs: 12_000,
          backoffMs: 20,
          ...options,
        },
      ),
    }),
  });
  return { journal: result.journal, events: [], verdict: result.verdict };
}
