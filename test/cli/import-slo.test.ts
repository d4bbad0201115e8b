/**
 * `chaos-gate import <template> --sloth <spec>` and `--openslo <file>`: the plan's hypothesis and abort
 * rule (and with Sloth its budget) from an SLO of a Sloth spec or an OpenSLO file (fixtures/slo/, after
 * those projects' own examples), on top of the fault the FIS template gives. The plan validates as written; every derived number carries its source; fields the
 * spec holds that are not imported are named; and its SLI reads the sandbox canary through a real
 * Prometheus (`chaos-gate measure`).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import type { CliIo } from '../../src/cli/command.js';
import { main } from '../../src/cli/main.js';
import {
  prometheusSkipReason,
  startPrometheus,
  waitForSeries,
  type PrometheusServer,
} from '../helpers/prometheus.js';
import { startSandboxProcess, type RunningSandbox } from '../helpers/sandbox.js';

const ROOT = join(import.meta.dirname, '../..');
const SPEC = join(ROOT, 'fixtures/slo/sloth-canary.yml');

function cli(cwd: string, env: NodeJS.ProcessEnv = {}): { io: CliIo; out: string[]; err: string[] } {
  const out: string[] = [];
  const err: string[] = [];
  return { io: { out: (t) => out.push(t), err: (t) => err.push(t), tty: false, env, cwd }, out, err };
}

let dir: string;
let template: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'chaos-gate-import-sloth-'));
  // The sandbox plan's fault, saved as a CreateExperimentTemplate input.
  const plan = parse(readFileSync(join(ROOT, 'fixtures/plans/sandbox-prometheus.yaml'), 'utf8')) as {
    fis: Record<string, unknown>;
  };
  template = join(dir, 'template.json');
  writeFileSync(
    template,
    JSON.stringify({
      ...plan.fis,
      tags: { Service: 'canary', Environment: 'sandbox', Owner: 'chaos-gate-e2e' },
    }),
  );
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const OPENSLO = join(ROOT, 'fixtures/slo/openslo-canary.yaml');

async function importOpenSlo(): Promise<{ code: number; text: string; err: string[] }> {
  const c = cli(dir);
  const out = join(dir, 'openslo.yaml');
  const code = await main(
    ['import', template, '--openslo', OPENSLO, '--interval', '2500ms', '--out', out, '--force'],
    c.io,
  );
  return { code, text: code === 0 ? readFileSync(out, 'utf8') : '', err: c.err };
}

async function importAvailability(): Promise<{ code: number; text: string; err: string[] }> {
  const c = cli(dir);
  const out = join(dir, 'availability.yaml');
  const code = await main(
    [
      'import',
      template,
      '--sloth',
      SPEC,
      '--slo',
      'requests-availability',
      '--interval',
      '2500ms',
      '--out',
      out,
      '--force',
    ],
    c.io,
  );
  return { code, text: code === 0 ? readFileSync(out, 'utf8') : '', err: c.err };
}

describe('chaos-gate import --sloth and --openslo', () => {
  it('writes a plan that validates, its SLI the SLO indicator over $window, its bounds from the objective', async () => {
    const { code, text, err } = await importAvailability();
    expect(code, err.join('\n')).toBe(0);
    expect(err.at(-1)).toMatch(
      /wrote .*availability\.yaml \(plan [a-z0-9-]+\); check it with: chaos-gate validate/,
    );
    const plan = parse(text) as {
      service: string;
      hypothesis: { slis: { name: string; prometheus: string; max: number }[]; interval: string };
      abort: { rules: { sli: string; above: number; for: string }[] };
      budget: { from: unknown; total: { prometheus: string } };
    };
    expect(plan.service).toBe('canary');
    expect(plan.hypothesis.interval).toBe('2.5s');
    expect(plan.hypothesis.slis[0]).toMatchObject({
      name: 'requests_availability_error_ratio',
      prometheus:
        '(sum(rate(http_requests_total{job="canary",outcome="error"}[$window])))\n/\n(sum(rate(http_requests_total{job="canary"}[$window])))',
      max: 0.001,
    });
    expect(plan.abort.rules).toEqual([
      { sli: 'requests_availability_error_ratio', above: 0.0144, for: '5s' },
    ]);
    expect(plan.budget.from).toEqual({ sloth: { service: 'canary', slo: 'requests-availability' } });
    // Every derived number names its source.
    expect(text).toContain('max: 0.001 # 1 − objective 99.9 % (slos[0].objective)');
    expect(text).toContain("above: 0.0144 # 14.4 × 0.001: the burn rate of Sloth's page alert");
    expect(text).toContain("total_query (a rate) × 2592000 s: events over Sloth's default 30-day period");
    // The spec's alerting block is named, not dropped.
    expect(text).toMatch(/Not imported from the spec: slos\[0\]\.alerting/);
    expect(err.some((l) => l.includes('not imported: slos[0].alerting'))).toBe(true);

    const v = cli(dir);
    expect(await main(['validate', join(dir, 'availability.yaml')], v.io), v.out.join('\n')).toBe(0);
    expect(v.out.join('\n')).toMatch(/availability\.yaml: valid/);
  });

  it('asks for --slo when the spec has several SLOs, naming them', async () => {
    const c = cli(dir);
    expect(await main(['import', template, '--sloth', SPEC], c.io)).toBe(2);
    expect(c.err.join('\n')).toMatch(
      /sloth-canary\.yml:\d+:\d+: slos: the Sloth spec has 2 SLOs; choose one with --slo \(requests-availability, requests-latency\)/,
    );
  });

  it('names the field when the spec is not a prometheus/v1 Sloth spec', async () => {
    const bad = join(dir, 'k8s.yaml');
    writeFileSync(bad, 'version: sloth.slok.dev/v1\nservice: x\nslos: []\n');
    const c = cli(dir);
    expect(await main(['import', template, '--sloth', bad], c.io)).toBe(2);
    expect(c.err.join('\n')).toMatch(
      /k8s\.yaml:1:10: version: version "sloth\.slok\.dev\/v1" is not a Sloth spec/,
    );
  });

  it('--openslo: the SLO with its SLI and DataSource by reference gives a plan that validates, bounds from the target', async () => {
    const { code, text, err } = await importOpenSlo();
    expect(code, err.join('\n')).toBe(0);
    const plan = parse(text) as {
      hypothesis: { slis: Record<string, unknown>[] };
      abort: { rules: Record<string, unknown>[] };
      budget?: unknown;
    };
    expect(plan.hypothesis.slis[0]).toMatchObject({
      name: 'canary_availability_good_ratio',
      prometheus:
        '(sum(rate(http_requests_total{job="canary",status!="503"}[$window])))\n/\n(sum(rate(http_requests_total{job="canary"}[$window])))',
      min: 0.999,
    });
    expect(plan.abort.rules).toEqual([{ sli: 'canary_availability_good_ratio', below: 0.9856, for: '5s' }]);
    expect(plan.budget).toBeUndefined();
    expect(text).toContain('min: 0.999 # objective target 0.999 (spec.objectives[0].target)');
    expect(text).toContain('good / total of SLI canary-good-requests spec.ratioMetric, ranges → $window');
    expect(text).toContain('Not imported from the OpenSLO file: spec.timeWindow; spec.budgetingMethod.');
    expect(err).toContain(`${OPENSLO}: not imported: spec.timeWindow`);
    const v = cli(dir);
    expect(await main(['validate', join(dir, 'openslo.yaml')], v.io), v.out.join('\n')).toBe(0);
  });

  it('--openslo refuses a metric source that is not Prometheus, naming the field', async () => {
    const file = join(dir, 'cloudwatch-slo.yaml');
    writeFileSync(file, readFileSync(OPENSLO, 'utf8').replace('type: Prometheus', 'type: CloudWatch'));
    const c = cli(dir);
    expect(await main(['import', template, '--openslo', file], c.io)).toBe(2);
    expect(c.err.join('\n')).toMatch(
      /cloudwatch-slo\.yaml:10:9: spec\.type: DataSource sandbox-prometheus is "CloudWatch"; chaos-gate imports Prometheus sources/,
    );
  });

  describe.skipIf(prometheusSkipReason !== undefined)(
    `the imported SLI against the canary through a real Prometheus${prometheusSkipReason ? ` (skipped: ${prometheusSkipReason})` : ''}`,
    () => {
      let sandbox: RunningSandbox;
      let prom: PrometheusServer;
      beforeAll(async () => {
        sandbox = await startSandboxProcess();
        prom = await startPrometheus([{ name: 'canary', target: new URL(sandbox.urls.canary).host }]);
        await waitForSeries(prom.url, 'count_over_time(http_requests_total[5s]) >= 3');
      }, 60_000);
      afterAll(async () => {
        await prom?.stop();
        await sandbox?.stop();
      }, 30_000);

      it('measures the healthy canary within the imported bound', async () => {
        const { code } = await importAvailability();
        expect(code).toBe(0);
        const c = cli(dir);
        const exit = await main(
          ['measure', join(dir, 'availability.yaml'), '--json', '--prometheus-url', prom.url],
          c.io,
        );
        const result = JSON.parse(c.out.join('\n')) as {
          ok: boolean;
          requests: { value: number } | null;
          slis: { name: string; value: number | null; status: string; query: string }[];
        };
        expect(exit, c.err.join('\n')).toBe(0);
        expect(result.ok).toBe(true);
        expect(result.slis[0]).toMatchObject({
          name: 'requests_availability_error_ratio',
          value: 0,
          status: 'ok',
        });
        expect(result.slis[0]?.query).toContain('[2500ms]');
        expect(result.requests?.value).toBeGreaterThan(50);
      });

      it('measures the OpenSLO-imported SLI on the healthy canary within its bound', async () => {
        expect((await importOpenSlo()).code).toBe(0);
        const c = cli(dir);
        const exit = await main(
          ['measure', join(dir, 'openslo.yaml'), '--json', '--prometheus-url', prom.url],
          c.io,
        );
        const result = JSON.parse(c.out.join('\n')) as { ok: boolean; slis: Record<string, unknown>[] };
        expect(exit, c.err.join('\n')).toBe(0);
        expect(result.slis[0]).toMatchObject({
          name: 'canary_availability_good_ratio',
          value: 1,
          status: 'ok',
        });
      });
    },
  );
});
