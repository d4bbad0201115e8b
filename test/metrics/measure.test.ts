import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import type { MeasureResult } from '../../src/cli/commands/measure.js';
import {
  prometheusSkipReason,
  startPrometheus,
  waitForSeries,
  type PrometheusServer,
} from '../helpers/prometheus.js';
import { STANDARD_SCRIPT, startTrafficServer, type TrafficServer } from '../helpers/traffic-server.js';

let dir: string;
let traffic: TrafficServer;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'chaos-gate-measure-'));
  traffic = await startTrafficServer({ ...STANDARD_SCRIPT, startBatches: 3600 });
});
afterAll(async () => {
  await traffic.close();
  await rm(dir, { recursive: true, force: true });
});

interface PlanParts {
  minRequests?: number;
  errorMax?: number;
  extraSlis?: string;
}

/** A minimal valid plan whose SLIs scrape the traffic server (its origin comes from ${TRAFFIC}). */
function planYaml(p: PlanParts = {}): string {
  return `version: 1
id: measure-test
title: measure test
service: traffic
environment: staging
owner: team-test
env: [{ name: TRAFFIC, public: true }]
hypothesis:
  interval: 1s
  minRequests: ${p.minRequests ?? 50}
  requests:
    scrape: { url: "\${TRAFFIC}/metrics", increase: app_requests_total }
  slis:
    - name: error_ratio
      scrape:
        url: "\${TRAFFIC}/metrics"
        ratio: { numerator: 'app_requests_total{outcome="error"}', denominator: app_requests_total }
      max: ${p.errorMax ?? 0.1}
    - name: p95_s
      scrape:
        url: "\${TRAFFIC}/metrics"
        quantile: { q: 0.95, histogram: app_request_duration_seconds }
      between: [0.1, 0.5]
${p.extraSlis ?? ''}  steadyState: { duration: 1m }
  recovery: { within: 30s }
abort:
  rules: []
fis:
  roleArn: arn:aws:iam::123456789012:role/chaos
  targets:
    nodes: { resourceType: "aws:ec2:instance", resourceTags: { Chaos: "yes" }, selectionMode: "COUNT(1)" }
  actions:
    stop: { actionId: "aws:ec2:stop-instances", targets: { Instances: nodes } }
`;
}

async function run(
  args: string[],
  env: Record<string, string> = {},
): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await main(['measure', ...args], {
    out: (t) => (out += t + '\n'),
    err: (t) => (err += t + '\n'),
    tty: false,
    env: { TRAFFIC: traffic.origin, ...env },
    cwd: dir,
  });
  return { code, out, err };
}

async function planFile(name: string, text: string): Promise<string> {
  await writeFile(join(dir, name), text);
  return name;
}

describe('chaos-gate measure', () => {
  it('prints each SLI value, bound and status with the request count, and exits 0 when all are ok', async () => {
    const file = await planFile('ok.yaml', planYaml());
    const { code, out } = await run([file, '--json']);
    const result = JSON.parse(out) as MeasureResult;
    expect(code).toBe(0);
    expect(result.ok).toBe(true);
    expect(result.windowMs).toBe(1000);
    // Two scrapes about 1 s apart see one or two whole batches of 100 requests.
    expect([100, 200]).toContain(result.requests?.value);
    expect(result.slis).toEqual([
      expect.objectContaining({ name: 'error_ratio', value: 0.05, bound: '<= 0.1', status: 'ok' }),
      expect.objectContaining({
        name: 'p95_s',
        value: expect.closeTo(0.375, 12),
        bound: 'in [0.1, 0.5]',
        status: 'ok',
      }),
    ]);

    const text = await run([file]);
    expect(text.code).toBe(0);
    expect(text.out).toMatch(/error_ratio\s+0\.05\s+<= 0\.1\s+ok/);
    expect(text.out).toMatch(/p95_s\s+0\.375\s+in \[0\.1, 0\.5\]\s+ok/);
    expect(text.out).toContain('all SLIs ok');
  });

  it('exits 1 and marks a breach when a value is outside its bound', async () => {
    const file = await planFile('breach.yaml', planYaml({ errorMax: 0.01 }));
    const { code, out } = await run([file]);
    expect(code).toBe(1);
    expect(out).toMatch(/error_ratio\s+0\.05\s+<= 0\.01\s+breach/);
    expect(out).toContain('not all SLIs ok');
  });

  it('reports every SLI as no-data when the window has fewer requests than minRequests', async () => {
    const file = await planFile('starved.yaml', planYaml({ minRequests: 1000 }));
    const { code, out } = await run([file, '--json']);
    const result = JSON.parse(out) as MeasureResult;
    expect(code).toBe(1);
    expect(result.requests?.status).toBe('no-data');
    expect(result.slis.map((s) => s.status)).toEqual(['no-data', 'no-data']);
    expect(result.slis[0]?.error).toMatch(/^\d+ requests in the window < minRequests 1000$/);
  });

  it('exits 2 before measuring when the plan has PromQL but no Prometheus URL, naming the SLI and the setting', async () => {
    const extra = `    - name: up\n      prometheus: up\n      min: 1\n`;
    const file = await planFile('noprom.yaml', planYaml({ extraSlis: extra }));
    const { code, out, err } = await run([file, '--json']);
    expect(code).toBe(2);
    expect(out).toBe('');
    // The same check and words as `run` (src/compose/setup.ts): the field, its line, the settings.
    expect(err.split('\n')[0]).toMatch(
      /^chaos-gate measure: .*noprom\.yaml:\d+:\d+: hypothesis\.slis\[\d\] \(up\) reads Prometheus, but no Prometheus URL is set; expected the action input prometheus-url, the CLI flag --prometheus-url or the environment variable CHAOS_GATE_PROMETHEUS_URL$/,
    );
  });

  it('exits 2 with file:line for an invalid plan, and for bad usage', async () => {
    const file = await planFile('bad.yaml', planYaml().replace('interval: 1s', 'interval: soon'));
    const bad = await run([file]);
    expect(bad.code).toBe(2);
    expect(bad.err).toContain('bad.yaml:');
    expect(bad.err).toContain('hypothesis.interval');
    expect((await run([])).code).toBe(2);
    expect((await run([file, '--prometheus-header', 'no colon here'])).code).toBe(2);
  });
});

describe.skipIf(prometheusSkipReason !== undefined)(
  `chaos-gate measure through a real Prometheus${prometheusSkipReason ? ` (skipped: ${prometheusSkipReason})` : ''}`,
  () => {
    let prom: PrometheusServer;
    beforeAll(async () => {
      prom = await startPrometheus([{ name: 'traffic', target: traffic.target }]);
      await waitForSeries(prom.url, 'count_over_time(app_requests_total{outcome="ok"}[6s]) >= 5');
    });
    afterAll(async () => {
      await prom?.stop();
    });

    it('reads Prometheus SLIs from --prometheus-url (or the environment) next to scrape SLIs', async () => {
      const extra = [
        '    - name: prom_error_ratio',
        '      prometheus: sum(rate(app_requests_total{outcome="error"}[5s])) / sum(rate(app_requests_total[5s]))',
        '      max: 0.1',
        '',
      ].join('\n');
      const file = await planFile('prom.yaml', planYaml({ extraSlis: extra }));
      const viaFlag = JSON.parse(
        (await run([file, '--json', '--prometheus-url', prom.url])).out,
      ) as MeasureResult;
      expect(viaFlag.ok).toBe(true);
      expect(viaFlag.slis[2]).toMatchObject({
        name: 'prom_error_ratio',
        status: 'ok',
        value: expect.closeTo(0.05, 9),
      });
      const viaEnv = await run([file, '--json'], { CHAOS_GATE_PROMETHEUS_URL: prom.url });
      expect(viaEnv.code).toBe(0);
    });
  },
);
