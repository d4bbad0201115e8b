/**
 * Metric reads under deadlines (issue 13.1): the Prometheus and scrape sources against real slow HTTP
 * servers on loopback. A missed deadline is a reading with status `error` that says it timed out, a
 * tick's reads end within the tick's window, the caller's signal tears every request down, and `read`
 * never rejects. Elapsed-time bounds prove "did not stall", not performance.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/clock/clock.js';
import { PrometheusSource } from '../../src/metrics/prometheus/source.js';
import { ScrapeMetricSource } from '../../src/metrics/scrape/source.js';
import type { Query, Reading } from '../../src/metrics/source.js';

/** How far past its deadline a read may settle and still count as "did not stall". */
const SLACK_MS = 1_500;

/** How the slow server treats a request. */
type Behaviour =
  | { kind: 'answer'; afterMs: number; status?: number; body: string; type?: string }
  | { kind: 'hang' }
  | { kind: 'stall-body'; first: string };

interface SlowServer {
  origin: string;
  /** Requests received. */
  received: number;
  /** Requests whose connection the client closed before the answer was complete. */
  abandoned: number;
  next: (req: IncomingMessage) => Behaviour;
  close(): Promise<void>;
}

async function startSlowServer(): Promise<SlowServer> {
  const state: SlowServer = {
    origin: '',
    received: 0,
    abandoned: 0,
    next: () => ({ kind: 'hang' }),
    close: async () => undefined,
  };
  const timers = new Set<NodeJS.Timeout>();
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    state.received++;
    req.resume();
    res.on('close', () => {
      if (!res.writableFinished) state.abandoned++;
    });
    const b = state.next(req);
    if (b.kind === 'hang') return;
    if (b.kind === 'stall-body') {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.write(b.first);
      return;
    }
    const timer = setTimeout(() => {
      timers.delete(timer);
      if (res.destroyed) return;
      res.writeHead(b.status ?? 200, { 'content-type': b.type ?? 'application/json' }).end(b.body);
    }, b.afterMs);
    timers.add(timer);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  state.origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  state.close = () =>
    new Promise<void>((resolve) => {
      for (const t of timers) clearTimeout(t);
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return state;
}

/** A successful Prometheus instant-query answer with one sample, for the `time=` asked for (as Prometheus does). */
const vector = (req: IncomingMessage): string =>
  JSON.stringify({
    status: 'success',
    data: {
      resultType: 'vector',
      result: [
        { metric: {}, value: [Number(new URL(req.url ?? '/', 'http://x').searchParams.get('time')), '0.25'] },
      ],
    },
  });

const pq = (name: string): Query => ({ name, spec: { prometheus: 'sum(rate(x[$window]))' } });
const sq = (name: string): Query => ({ name, spec: { scrape: { url: '${ORIGIN}/metrics', gauge: 'up' } } });

/** Reads and measures how long `read` took; fails the test if `read` rejects. */
async function timedRead(read: () => Promise<Reading[]>): Promise<{ readings: Reading[]; ms: number }> {
  const t0 = Date.now();
  const readings = await read();
  return { readings, ms: Date.now() - t0 };
}

let server: SlowServer;
beforeAll(async () => {
  server = await startSlowServer();
});
afterAll(async () => {
  await server.close();
});
beforeEach(() => {
  server.received = 0;
  server.abandoned = 0;
});

describe('Prometheus source deadlines', () => {
  it('reads a value from a server that answers in time (the baseline of the tests below)', async () => {
    server.next = (req) => ({ kind: 'answer', afterMs: 50, body: vector(req) });
    const { readings } = await timedRead(() =>
      new PrometheusSource({ url: server.origin }).read([pq('a')], Date.now(), 2_000),
    );
    expect(readings).toMatchObject([{ name: 'a', status: 'ok', value: 0.25 }]);
  });

  it("gives an error reading that says it timed out when the answer comes after the tick's window", async () => {
    server.next = (req) => ({ kind: 'answer', afterMs: 3_000, body: vector(req) });
    const { readings, ms } = await timedRead(() =>
      new PrometheusSource({ url: server.origin }).read([pq('a'), pq('b')], Date.now(), 600),
    );
    expect(readings.map((r) => r.status)).toEqual(['error', 'error']);
    for (const r of readings) expect(r.error).toMatch(/^Prometheus timed out: no answer within \d+ ms$/);
    expect(ms).toBeLessThan(600 + SLACK_MS);
  });

  it("cuts a budget longer than the tick's window to the window", async () => {
    server.next = () => ({ kind: 'hang' });
    const { readings, ms } = await timedRead(() =>
      new PrometheusSource({ url: server.origin, budgetMs: 30_000, timeoutMs: 30_000 }).read(
        [pq('a')],
        Date.now(),
        500,
      ),
    );
    expect(readings[0]?.status).toBe('error');
    expect(readings[0]?.error).toContain('timed out');
    expect(ms).toBeLessThan(500 + SLACK_MS);
  });

  it('times out a server that sends its headers and then stalls the body', async () => {
    server.next = () => ({ kind: 'stall-body', first: '{"status":"succ' });
    const { readings, ms } = await timedRead(() =>
      new PrometheusSource({ url: server.origin, timeoutMs: 300 }).read([pq('a')], Date.now(), 700),
    );
    expect(readings[0]).toMatchObject({ status: 'error', value: null });
    expect(readings[0]?.error).toMatch(/timed out/);
    expect(ms).toBeLessThan(700 + SLACK_MS);
  });

  it('ends at the deadline even when a step ignores the abort signal (a SigV4 credentials provider that never answers)', async () => {
    server.next = (req) => ({ kind: 'answer', afterMs: 0, body: vector(req) });
    const stuck = new PrometheusSource({
      url: server.origin,
      sigv4: { region: 'us-east-1', credentials: () => new Promise(() => undefined) },
    });
    const { readings, ms } = await timedRead(() => stuck.read([pq('a')], Date.now(), 500));
    expect(readings[0]?.status).toBe('error');
    // The message names what was left of the 500 ms when the query started: a busy machine may have spent
    // a millisecond or two of it before.
    const left = /^Prometheus timed out: no answer within (\d+) ms$/.exec(readings[0]?.error ?? '')?.[1];
    expect(Number(left), readings[0]?.error).toBeGreaterThan(450);
    expect(Number(left)).toBeLessThanOrEqual(500);
    expect(ms).toBeLessThan(500 + SLACK_MS);
    expect(server.received).toBe(0);
  });

  it("aborts every request of the tick when the caller's signal aborts, closing the connections", async () => {
    server.next = () => ({ kind: 'hang' });
    const caller = new AbortController();
    setTimeout(() => caller.abort(), 150);
    const { readings, ms } = await timedRead(() =>
      new PrometheusSource({ url: server.origin }).read(
        [pq('a'), pq('b'), pq('c')],
        Date.now(),
        10_000,
        caller.signal,
      ),
    );
    expect(readings.map((r) => r.error)).toEqual(Array(3).fill('cancelled before Prometheus answered'));
    expect(ms).toBeLessThan(1_000);
    expect(server.received).toBe(3);
    // The requests were really torn down, not merely abandoned with their sockets open.
    await expect.poll(() => server.abandoned, { timeout: 1_000 }).toBe(3);
  });

  it('sleeps its retry backoff on the injected clock', async () => {
    let calls = 0;
    server.next = (req) =>
      ++calls === 1
        ? { kind: 'answer', afterMs: 0, status: 503, body: '{"status":"error","error":"overloaded"}' }
        : { kind: 'answer', afterMs: 0, body: vector(req) };
    const slept: number[] = [];
    const clock = {
      now: () => Date.now(),
      sleep: (ms: number, signal?: AbortSignal) => {
        slept.push(ms);
        return systemClock.sleep(0, signal);
      },
    };
    const { readings } = await timedRead(() =>
      new PrometheusSource({ url: server.origin, clock }).read([pq('a')], Date.now(), 2_000),
    );
    expect(readings[0]).toMatchObject({ status: 'ok', value: 0.25 });
    expect(slept).toEqual([50]);
  });
});

describe('scrape source deadlines', () => {
  const source = (timeoutMs?: number): ScrapeMetricSource =>
    new ScrapeMetricSource({ env: { ORIGIN: server.origin }, ...(timeoutMs ? { timeoutMs } : {}) });

  it("gives an error reading that says it timed out when /metrics answers after the tick's window", async () => {
    server.next = () => ({ kind: 'answer', afterMs: 3_000, body: 'up 1\n', type: 'text/plain' });
    const { readings, ms } = await timedRead(() => source().read([sq('up')], Date.now(), 500));
    expect(readings[0]).toMatchObject({
      status: 'error',
      value: null,
      error: `${server.origin}/metrics: timed out: no answer within 500 ms`,
    });
    expect(ms).toBeLessThan(500 + SLACK_MS);
  });

  it('times out an endpoint that sends its headers and then stalls the body', async () => {
    server.next = () => ({ kind: 'stall-body', first: '# TYPE up gauge\nup ' });
    const { readings, ms } = await timedRead(() => source(400).read([sq('up')], Date.now(), 5_000));
    expect(readings[0]).toMatchObject({
      status: 'error',
      error: `${server.origin}/metrics: timed out: no answer within 400 ms`,
    });
    expect(ms).toBeLessThan(400 + SLACK_MS);
  });

  it("aborts the scrape when the caller's signal aborts, closing the connection", async () => {
    server.next = () => ({ kind: 'hang' });
    const caller = new AbortController();
    setTimeout(() => caller.abort(), 150);
    const { readings, ms } = await timedRead(() =>
      source().read([sq('up')], Date.now(), 10_000, caller.signal),
    );
    expect(readings[0]).toMatchObject({
      status: 'error',
      error: `${server.origin}/metrics: cancelled before it answered`,
    });
    expect(ms).toBeLessThan(1_000);
    await expect.poll(() => server.abandoned, { timeout: 1_000 }).toBe(1);
  });

  it('measures again once the endpoint answers in time after a timed-out scrape', async () => {
    const src = source();
    server.next = () => ({ kind: 'hang' });
    const [late] = await src.read([sq('up')], Date.now(), 300);
    expect(late?.error).toContain('timed out');
    server.next = () => ({ kind: 'answer', afterMs: 0, body: 'up 1\n', type: 'text/plain' });
    const [ok] = await src.read([sq('up')], Date.now(), 2_000);
    expect(ok).toMatchObject({ status: 'ok', value: 1 });
  });
});
