/**
 * The canary, the fault mapping, the load generator's bounds and the config errors, in process: a
 * real HTTP server on 127.0.0.1:0 with a hand-driven clock and tiny latencies.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Canary } from '../../src/sandbox/canary.js';
import { canaryFaultFor } from '../../src/sandbox/faults.js';
import { LoadGenerator } from '../../src/sandbox/loadgen.js';
import { loadSandboxConfig } from '../../src/sandbox/config.js';
import { sandboxInventory } from '../../src/sandbox/targets.js';

let clock = 1_000_000;
const canary = new Canary(() => clock, {
  baseLatencyMs: 1,
  dependencyTimeoutMs: 2,
  breakerThreshold: 3,
  breakerResetMs: 1000,
  errorBurstMs: 500,
});
let server: http.Server;
let base = '';

beforeAll(async () => {
  server = http.createServer((req, res) => canary.handle(req, res));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise<void>((r) => server.close(() => r()));
});

async function hit(n: number): Promise<{ status: number; outcome: string }[]> {
  const out: { status: number; outcome: string }[] = [];
  for (let i = 0; i < n; i++) {
    const res = await fetch(`${base}/pay`);
    out.push({ status: res.status, outcome: ((await res.json()) as { outcome: string }).outcome });
  }
  return out;
}

async function metrics(): Promise<Record<string, number>> {
  const text = await (await fetch(`${base}/metrics`)).text();
  return Object.fromEntries(
    text
      .split('\n')
      .filter((l) => l && !l.startsWith('#'))
      .map((l) => [l.slice(0, l.lastIndexOf(' ')), Number(l.slice(l.lastIndexOf(' ') + 1))]),
  );
}

describe('canary', () => {
  it('answers ok when healthy and exposes the Prometheus series', async () => {
    expect((await hit(5)).every((r) => r.status === 200 && r.outcome === 'ok')).toBe(true);
    const m = await metrics();
    expect(m['http_requests_total{outcome="ok",status="200"}']).toBe(5);
    expect(m['http_request_duration_seconds_count']).toBe(5);
    expect(m['http_request_duration_seconds_bucket{le="+Inf"}']).toBe(5);
    expect(m['circuit_breaker_open']).toBe(0);
  });

  it('opens the breaker after the threshold of dependency failures and serves the fallback, then closes after the fault', async () => {
    canary.faultOn('EXP1/partition', { kind: 'partition' });
    const answers = await hit(6);
    expect(answers.every((r) => r.status === 200 && r.outcome === 'degraded')).toBe(true);
    let m = await metrics();
    expect(m['circuit_breaker_open']).toBe(1);
    expect(m['circuit_breaker_opened_total']).toBe(1);
    expect(m['fallback_served_total']).toBe(6);

    canary.faultsOffByPrefix('EXP1/');
    clock += 1000; // the reset time passes: the next request is the half-open probe
    expect(await hit(2)).toEqual([
      { status: 200, outcome: 'ok' },
      { status: 200, outcome: 'ok' },
    ]);
    m = await metrics();
    expect(m['circuit_breaker_open']).toBe(0);
  });

  it('without the fallback, a partition answers 503 and nothing opens', async () => {
    canary.configure({ fallback: false });
    canary.faultOn('EXP2/partition', { kind: 'partition' });
    try {
      expect((await hit(3)).map((r) => r.status)).toEqual([503, 503, 503]);
      expect((await metrics())['circuit_breaker_opened_total']).toBe(1);
    } finally {
      canary.faultOff('EXP2/partition');
      canary.configure({ fallback: true });
    }
  });

  it('an error burst from stopped compute fails every request while it lasts, and none after', async () => {
    canary.faultOn('EXP3/stop', { kind: 'error-burst', share: 1, untilMs: clock + 500 });
    expect((await hit(2)).map((r) => r.status)).toEqual([503, 503]);
    clock += 500;
    expect((await hit(2)).map((r) => r.status)).toEqual([200, 200]);
    canary.faultOff('EXP3/stop');
  });

  it('publishes per-second counts and latency at high resolution to the datum sink', async () => {
    await hit(3);
    const data: { metricName: string; value: number; storageResolution?: number; namespace: string }[] = [];
    canary.publish((d) => data.push(d), clock);
    const byName = Object.fromEntries(data.map((d) => [d.metricName, d]));
    expect(byName.RequestCount?.value).toBeGreaterThanOrEqual(3);
    expect(byName.LatencyP95?.value).toBeGreaterThan(0);
    expect(data.every((d) => d.storageResolution === 1 && d.namespace === 'Sandbox/Canary')).toBe(true);
    const next: { metricName: string; value: number }[] = [];
    canary.publish((d) => next.push(d), clock + 1000);
    expect(next.find((d) => d.metricName === 'RequestCount')?.value).toBe(0);
  });
});

describe('fault mapping', () => {
  const inventory = sandboxInventory();
  const behaviour = new Canary(() => 0).settings;
  const run = (actionId: string, arns: string[]) => ({
    experimentId: 'EXP',
    actionName: 'a',
    actionId,
    parameters: {},
    targets: inventory.filter((r) => arns.includes(r.arn)),
    startTime: 0,
  });
  const arn = (name: string) => inventory.find((r) => r.tags.Name === name)!.arn;

  it('partitions the dependency, bursts errors for a third of the instances, and ignores production look-alikes', () => {
    const subnet = inventory.find((r) => r.resourceType === 'aws:ec2:subnet' && r.role === 'dependency')!.arn;
    expect(
      canaryFaultFor(run('aws:network:disrupt-connectivity', [subnet]), inventory, behaviour, 0),
    ).toEqual({ kind: 'partition' });
    expect(
      canaryFaultFor(run('aws:ec2:stop-instances', [arn('canary-app-01')]), inventory, behaviour, 10),
    ).toEqual({
      kind: 'error-burst',
      share: 1 / 3,
      untilMs: 10 + behaviour.errorBurstMs,
    });
    const prodSubnet = inventory.find(
      (r) => r.resourceType === 'aws:ec2:subnet' && r.tags.Environment === 'production',
    )!.arn;
    expect(
      canaryFaultFor(run('aws:network:disrupt-connectivity', [prodSubnet]), inventory, behaviour, 0),
    ).toBeUndefined();
    expect(canaryFaultFor(run('aws:fis:wait', []), inventory, behaviour, 0)).toBeUndefined();
  });
});

describe('load generator and config bounds', () => {
  it('refuses a non-loopback target and out-of-range settings', () => {
    expect(
      () =>
        new LoadGenerator(new URL('http://example.com/'), {
          enabled: true,
          transport: 'http',
          rate: 10,
          concurrency: 1,
        }),
    ).toThrow(/loopback/);
    expect(
      () =>
        new LoadGenerator(new URL('http://127.0.0.1:1/'), {
          enabled: true,
          transport: 'http',
          rate: 5000,
          concurrency: 1,
        }),
    ).toThrow(/rate 5000/);
  });

  it('names the file, field, value and expectation for a bad config', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'sandbox-config-'));
    const file = path.join(dir, 'bad.yaml');
    writeFileSync(file, 'region: mars\nload:\n  rate: 99999\n');
    expect(() => loadSandboxConfig(file)).toThrow(
      `${file}:1:9: region: "mars" is not valid; expected a Region such as us-east-1`,
    );
    expect(() => loadSandboxConfig(file)).toThrow(
      `${file}:3:9: load.rate: 99999 is not valid; expected a number ≤`,
    );
  });
});
