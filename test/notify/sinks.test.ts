/**
 * Each sink on its own against its validating loopback receiver (test/helpers/notify-receivers.ts),
 * through the same fan-out a run uses, fed a journal written record by record: the formats' limits
 * (Slack's 3000-character sections, PagerDuty's 1024-character summary), Grafana's fallback when the
 * region could not be created, the webhook signature, and the settings a front door reads.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { MemoryJournalWriter, type JournalWriter } from '../../src/journal/writer.js';
import type { Journal, JournalEvent, JournalHeader, Measurement } from '../../src/journal/types.js';
import { notifyingJournal, notifySettings, parseNotifyTargets } from '../../src/notify/index.js';
import { redact, secrets } from '../../src/security/redact.js';
import { judge } from '../../src/journal/judgement.js';
import { isBadInput } from '../../src/errors/bad-input.js';
import {
  schemaValidators,
  startReceiver,
  type Receiver,
  type ReceiverOptions,
} from '../helpers/notify-receivers.js';

const T0 = Date.UTC(2026, 5, 1, 12);
const ENV = {
  CHAOS_GATE_WEBHOOK_SECRET: 'the-webhook-hmac-key-0123456789',
  PAGERDUTY_ROUTING_KEY: 'R0UT1NGKEYR0UT1NGKEYR0UT1NGKEY02',
  GRAFANA_TOKEN: 'glsa_anothertoken0123456789abcdef',
};

let receivers: Receiver[] = [];
afterEach(async () => {
  await Promise.all(receivers.map((r) => r.close()));
  receivers = [];
  secrets.clear();
});

async function receiver(kind: Receiver['kind'], o: ReceiverOptions = {}): Promise<Receiver> {
  const r = await startReceiver(kind, o);
  receivers.push(r);
  return r;
}

const HEADER: JournalHeader = {
  kind: 'chaos-gate-journal',
  version: 1,
  runId: 'run-9',
  planId: 'checkout-redis-partition',
  planDigest: 'sha256:abc',
  title: 'Checkout survives a Redis primary partition',
  service: 'checkout',
  environment: 'staging',
  slis: [{ name: 'error_ratio', bound: '<= 0.01', steadyBound: '<= 0.001', during: true }],
  abortRules: [],
  intervalMs: 1000,
  startedAt: T0,
  attempt: 1,
};

function tick(at: number, value: number): Measurement {
  const status = value > 0.01 ? 'breach' : 'ok';
  return {
    at,
    phase: 'fault',
    requests: 900,
    slis: { error_ratio: { value, status, query: 'q', bound: '<= 0.01' } },
  };
}

/** A run written into `journal` as the engine writes it: injection, breaching ticks, the end. */
async function writeRun(
  journal: JournalWriter,
  o: { reason?: string; faultEnded?: boolean; verdict?: 'aborted' | 'held' } = {},
): Promise<Journal> {
  journal.begin(HEADER);
  journal.event({ at: T0, type: 'run-started', message: 'run run-9' });
  journal.update({ timings: { injectedAt: T0 + 1000 } });
  journal.event({
    at: T0 + 1000,
    type: 'inject',
    message: 'experiment EXP1 started',
    data: { experimentId: 'EXP1' },
  });
  for (let i = 1; i <= 5; i++) journal.measurement(tick(T0 + 1000 + i * 1000, i * 0.02));
  journal.update({ timings: { stopRequestedAt: T0 + 6500 } });
  if (o.faultEnded !== false) {
    journal.update({ timings: { stoppedAt: T0 + 7000 } });
    journal.event({ at: T0 + 7000, type: 'fault-ended', message: 'fault ended' });
  }
  journal.update({ timings: { finishedAt: T0 + 8000 } });
  return journal.finish({
    verdict: o.verdict ?? 'aborted',
    reason: o.reason ?? 'error_ratio 0.1 > 0.01 for 3 measurements in a row',
    exitCode: 1,
  });
}

function notifying(rs: Receiver[], env: Record<string, string> = ENV, extra = {}): JournalWriter {
  const settings = notifySettings(
    parseNotifyTargets(
      rs.map((r) => `${r.kind}=${r.url}`),
      '--notify',
    ),
    env,
  );
  return notifyingJournal(
    new MemoryJournalWriter(),
    settings && {
      settings,
      now: () => T0 + 8000,
      links: () => ({ run: 'https://github.com/acme/shop/actions/runs/1' }),
      callMs: 10_000, // a loaded 2-core machine answers late; no test here times a call
      drainMs: 12_000,
      backoffMs: 10,
      ...extra,
    },
  );
}

const failures = (j: Journal) => j.events.filter((e) => e.type === 'notify' && e.data?.error !== undefined);

describe('the Slack sink', () => {
  it('keeps a 10 000-character reason inside Block Kit limits and the plain-text fallback', async () => {
    const slack = await receiver('slack');
    const j = await writeRun(notifying([slack]), { reason: `tripped: ${'x'.repeat(10_000)}` });
    expect(slack.problems).toEqual([]);
    expect(failures(j)).toEqual([]);
    const body = slack.received[0]?.body as {
      text: string;
      blocks: { type: string; text?: { text: string } }[];
    };
    expect(body.text.length).toBeLessThanOrEqual(3000);
    const reason = body.blocks.find((b) => b.text?.text.startsWith('*Reason*'));
    expect(reason?.text?.text.length).toBe(3000);
    expect(reason?.text?.text.endsWith('…')).toBe(true);
    expect(JSON.stringify(body.blocks)).toContain(
      'error_ratio 0.1 (bound &lt;= 0.01), 5 of 5 readings outside',
    );
  });

  it('posts a start message too when CHAOS_GATE_SLACK_START is set', async () => {
    const slack = await receiver('slack');
    await writeRun(notifying([slack], { ...ENV, CHAOS_GATE_SLACK_START: 'true' }));
    expect(slack.problems).toEqual([]);
    expect(slack.received.map((r) => (r.body as { text: string }).text.split(' — ')[0])).toEqual([
      'chaos-gate: checkout-redis-partition on checkout (staging) started',
      'chaos-gate: aborted',
    ]);
  });
});

describe('the PagerDuty sink', () => {
  it('closes a window FIS never reported ended with a change event whose summary is cut to 1024', async () => {
    const pd = await receiver('pagerduty', { credential: ENV.PAGERDUTY_ROUTING_KEY });
    await writeRun(notifying([pd]), { faultEnded: false, reason: 'r'.repeat(5000) });
    expect(pd.problems).toEqual([]);
    const bodies = pd.received.map((r) => r.body as { routing_key: string; payload: { summary: string } });
    expect(bodies).toHaveLength(2);
    expect(bodies[1]?.payload.summary.length).toBe(1024);
    expect(bodies[1]?.payload.summary).toContain('without a verified end');
    expect(bodies.every((b) => b.routing_key === ENV.PAGERDUTY_ROUTING_KEY)).toBe(true);
    expect(pd.received.every((r) => !('event_action' in (r.body as object)))).toBe(true);
  });
});

describe('the Grafana sink', () => {
  it('posts the whole region at the end when its creation never got through', async () => {
    const grafana = await receiver('grafana', { credential: ENV.GRAFANA_TOKEN, failFirst: 4 });
    const j = await writeRun(notifying([grafana]));
    expect(grafana.problems).toEqual([]);
    expect(failures(j).map((e) => e.data?.call)).toEqual(['annotation create']);
    expect(grafana.received.map((r) => `${r.method} ${r.path}`)).toEqual([
      ...Array(4).fill('POST /api/annotations'),
      'POST /api/annotations',
    ]);
    expect(grafana.annotations.get(1)).toMatchObject({
      time: T0 + 1000,
      timeEnd: T0 + 7000,
      tags: expect.arrayContaining(['verdict:aborted', 'service:checkout']),
    });
  });

  it('is refused by Grafana with a wrong token, and the journal says so', async () => {
    const grafana = await receiver('grafana', { credential: 'glsa_the-right-token-0000' });
    const j = await writeRun(notifying([grafana]));
    expect(grafana.problems[0]).toMatch(/Bearer/);
    // A 401 is final: not retried.
    expect(grafana.received.filter((r) => r.method === 'POST')).toHaveLength(2);
    expect(failures(j).map((e) => e.data?.error)).toEqual([
      expect.stringMatching(/^HTTP 401/),
      expect.stringMatching(/^HTTP 401/),
    ]);
  });
});

describe('the CDEvents webhook sink', () => {
  it('signs every delivery; a receiver holding another key rejects them all', async () => {
    const good = await receiver('cdevents', { secret: ENV.CHAOS_GATE_WEBHOOK_SECRET });
    await writeRun(notifying([good]));
    expect(good.problems).toEqual([]);
    expect(
      good.received.every((r) => String(r.headers['x-chaos-gate-signature']).startsWith('sha256=')),
    ).toBe(true);
    secrets.clear();
    const wrong = await receiver('cdevents', { secret: 'some-other-key-0000000' });
    const j = await writeRun(notifying([wrong]));
    expect(wrong.problems.length).toBe(wrong.received.length);
    expect(wrong.problems.every((p) => p.includes('X-Chaos-Gate-Signature does not match'))).toBe(true);
    expect(failures(j).length).toBe(wrong.received.length);
  });

  it('sends events the official schemas accept, and the schemas reject a malformed one', async () => {
    const hook = await receiver('cdevents');
    await writeRun(notifying([hook], {}));
    expect(hook.problems).toEqual([]);
    const { cdevent, cloudevent } = schemaValidators();
    const finished = hook.received.at(-1)?.body as { subject: { content: Record<string, unknown> } };
    const validate = cdevent.get('dev.cdevents.testsuiterun.finished.0.3.0');
    expect(validate?.(finished)).toBe(true);
    const broken = structuredClone(finished);
    broken.subject.content.outcome = 'aborted';
    expect(validate?.(broken)).toBe(false);
    expect(cloudevent({ specversion: '1.0', id: 'x', type: 't' })).toBe(false);
  });
});

describe('what every sink says', () => {
  it('is the journal’s one judgement: readings its tolerance forgave read as held, not recounted as breached', async () => {
    // The run as recorded (every fault reading but the first outside the bound), judged once with a
    // tolerance of 5 outside readings: held. A sink that counted the readings again would say failed.
    const raw = await writeRun(new MemoryJournalWriter(), { verdict: 'held' });
    const running: JournalEvent = {
      at: T0 + 1500,
      type: 'experiment-state',
      message: 'FIS: running',
      data: { status: 'running', actions: { partition: 'running' } },
    };
    const recovered: JournalEvent = {
      at: T0 + 7800,
      type: 'recovery',
      message: 'recovered',
      data: { recovered: true },
    };
    const events = [...raw.events, running, recovered].sort((a, b) => a.at - b.at);
    const judged = judge({
      slis: [{ ...HEADER.slis[0]!, tolerance: { outside: 5 } }],
      expectations: [],
      measurements: raw.measurements,
      events,
      timings: raw.timings,
    });
    expect(judged.verdict).toBe('held');
    const hook = await receiver('cdevents');
    const slack = await receiver('slack');
    const journal = notifying([hook, slack], {});
    journal.begin(HEADER);
    journal.update({ timings: raw.timings });
    for (const e of events) journal.event(e);
    for (const m of raw.measurements) journal.measurement(m);
    await journal.finish({ verdict: 'held', reason: judged.reason, exitCode: 0, judgement: judged });
    expect(hook.problems).toEqual([]);
    const sent = hook.received.map(
      (r) => r.body as { context: { type: string }; subject: { content: Record<string, unknown> } },
    );
    const cases = sent.filter((e) => e.context.type.includes('testcaserun'));
    expect(cases.map((c) => c.subject.content.outcome)).toEqual(['success']);
    expect(cases[0]?.subject.content.reason).toContain('tolerated');
    expect(sent.at(-1)?.subject.content).toMatchObject({
      outcome: 'success',
      reason: `held: ${judged.reason}`,
    });
    expect((slack.received[0]?.body as { text: string }).text).toContain(`held — `);
  });
});

describe('notification settings', () => {
  it('needs each kind’s credential from the environment, naming the variable', () => {
    const targets = parseNotifyTargets(['pagerduty=https://events.pagerduty.com'], '--notify');
    expect(() => notifySettings(targets, {})).toThrow(/PAGERDUTY_ROUTING_KEY; it is not set/);
    const grafana = parseNotifyTargets(['grafana=https://grafana.example.com'], '--notify');
    let error: unknown;
    try {
      notifySettings(grafana, {});
    } catch (err) {
      error = err;
    }
    expect(isBadInput(error)).toBe(true);
    expect((error as Error).message).toMatch(/GRAFANA_TOKEN/);
  });

  it('refuses an unknown kind, a kind twice and a URL that is not http(s), without quoting a secret', () => {
    expect(() => parseNotifyTargets(['teams=https://x.example.com'], '--notify')).toThrow(
      /--notify entry 1: 'teams' is not a notification kind; expected KIND=URL with KIND one of cdevents, slack, pagerduty, grafana/,
    );
    expect(() =>
      parseNotifyTargets(
        ['slack=https://hooks.slack.com/a/b/c1234567', 'slack=https://hooks.slack.com/d/e/f'],
        '--notify',
      ),
    ).toThrow(/entry 2: slack is configured twice/);
    let message = '';
    try {
      parseNotifyTargets(['slack=ftp://hooks.slack.com/services/T/B/sekr1tsekr1t'], '--notify');
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).toMatch(/needs an http\(s\) URL; got ftp:/);
    expect(message).not.toContain('sekr1tsekr1t');
  });

  it('registers every credential with the redactor as it is read', () => {
    const slack = 'https://hooks.slack.com/services/T0/B0/slacksecretpart123';
    notifySettings(
      parseNotifyTargets(
        [`slack=${slack}`, 'pagerduty=https://events.pagerduty.com', 'grafana=https://g.example.com'],
        'x',
      ),
      ENV,
    );
    const text = redact(
      `${slack} ${ENV.PAGERDUTY_ROUTING_KEY} Bearer ${ENV.GRAFANA_TOKEN} ${ENV.CHAOS_GATE_WEBHOOK_SECRET}`,
    );
    for (const secret of ['slacksecretpart123', ...Object.values(ENV)]) expect(text).not.toContain(secret);
  });
});
