/**
 * The load generator's two transports against one canary model: in process (the default) and real HTTP
 * over loopback. Both must leave the same trace in the canary's metrics — every answered request counted
 * once, errors as errors — and the in-process one must drop what is pending when it stops.
 */
import { afterEach, describe, expect, it } from 'vitest';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Canary } from '../../src/sandbox/canary.js';
import { DEFAULT_LOAD, LoadGenerator, type LoadTransport } from '../../src/sandbox/loadgen.js';
import { SandboxConfig } from '../../src/sandbox/config.js';

const servers: http.Server[] = [];
const generators: LoadGenerator[] = [];

afterEach(async () => {
  for (const g of generators.splice(0)) g.stop();
  await Promise.all(
    servers.splice(0).map(
      (s) =>
        new Promise<void>((r) => {
          s.close(() => r());
          s.closeAllConnections();
        }),
    ),
  );
});

/** The canary's `http_requests_total` by `outcome|status`. */
function counts(canary: Canary): Record<string, number> {
  const out: Record<string, number> = {};
  for (const m of canary
    .metricsText()
    .matchAll(/^http_requests_total\{outcome="(\w+)",status="(\d+)"\} (\d+)$/gm))
    out[`${m[1]}|${m[2]}`] = Number(m[3]);
  return out;
}

function histogramCount(canary: Canary): number {
  return Number(/^http_request_duration_seconds_count (\d+)$/m.exec(canary.metricsText())?.[1]);
}

async function listen(canary: Canary): Promise<URL> {
  const server = http.createServer((req, res) => canary.handle(req, res));
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/pay`);
}

/** Sends load for `ms`, stops sending, and waits until nothing is in flight. */
async function drive(transport: LoadTransport, canary: Canary, ms: number): Promise<LoadGenerator> {
  const target = await listen(canary);
  const gen = new LoadGenerator(target, { enabled: true, transport, rate: 200, concurrency: 64 }, canary);
  generators.push(gen);
  gen.start();
  await new Promise((r) => setTimeout(r, ms));
  gen.configure({ enabled: false });
  for (let i = 0; i < 100 && gen.stats.inFlight > 0; i++) await new Promise((r) => setTimeout(r, 10));
  return gen;
}

describe('load generator transports', () => {
  it('sends in process by default, and the sandbox config accepts only the two transports', () => {
    expect(DEFAULT_LOAD.transport).toBe('in-process');
    expect(SandboxConfig.safeParse({ load: { transport: 'http' } }).success).toBe(true);
    expect(SandboxConfig.safeParse({ load: { transport: 'udp' } }).success).toBe(false);
  });

  it('refuses the in-process transport when there is no canary in this process', () => {
    const settings = { ...DEFAULT_LOAD, transport: 'in-process' as const };
    expect(() => new LoadGenerator(new URL('http://127.0.0.1:1/'), settings)).toThrow(/needs the canary/);
    const gen = new LoadGenerator(new URL('http://127.0.0.1:1/'), {
      ...settings,
      transport: 'http',
      enabled: false,
    });
    expect(() => gen.configure({ transport: 'in-process' })).toThrow(/needs the canary/);
    expect(gen.current.transport).toBe('http');
  });

  for (const transport of ['in-process', 'http'] as const) {
    it(`${transport}: every request answered is counted once by the canary and once by the generator`, async () => {
      const canary = new Canary(Date.now, { baseLatencyMs: 2 });
      const gen = await drive(transport, canary, 400);
      const s = gen.stats;
      expect(s.sent).toBeGreaterThan(20);
      expect(s.inFlight).toBe(0);
      expect(s.ok).toBe(s.sent);
      expect(s.httpErrors + s.networkErrors).toBe(0);
      expect(counts(canary)['ok|200']).toBe(s.ok);
      expect(histogramCount(canary)).toBe(s.sent);
    });

    it(`${transport}: a full outage shows as errors in both the canary's metrics and the generator's counters`, async () => {
      const canary = new Canary(Date.now, { baseLatencyMs: 2, dependencyTimeoutMs: 2 });
      canary.faultOn('x/outage', { kind: 'outage', share: 1 });
      const gen = await drive(transport, canary, 300);
      expect(gen.stats.sent).toBeGreaterThan(10);
      expect(gen.stats.httpErrors).toBe(gen.stats.sent);
      expect(gen.stats.ok).toBe(0);
      expect(counts(canary)['error|503']).toBe(gen.stats.sent);
      expect(counts(canary)['ok|200'] ?? 0).toBe(0);
    });
  }

  it('in-process: stopping drops the requests still pending, so nothing is recorded after the stop', async () => {
    const canary = new Canary(Date.now, { baseLatencyMs: 400 });
    const target = await listen(canary);
    const gen = new LoadGenerator(target, { ...DEFAULT_LOAD, rate: 200 }, canary);
    generators.push(gen);
    gen.start();
    await new Promise((r) => setTimeout(r, 100));
    expect(gen.stats.inFlight).toBeGreaterThan(0);
    gen.stop();
    await new Promise((r) => setTimeout(r, 800));
    expect(histogramCount(canary)).toBe(0);
  });
});
