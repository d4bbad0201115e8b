import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import * as core from '@actions/core';
import { loadPlan } from '../../src/plan/load.js';
import { DEMO_PLANS, planIdOf, prometheusVariant, prometheusVariantOf } from '../../src/cli/demo/plans.js';
import { parseOutputFile } from '../../src/cli/demo/action-run.js';
import { selfCommand } from '../../src/cli/demo/sandbox-process.js';

const ROOT = resolve(import.meta.dirname, '../..');
const dir = mkdtempSync(join(tmpdir(), 'chaos-gate-demo-plans-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('demo plans', () => {
  it('are valid plans that read every SLI from the canary by scrape, with distinct ids', async () => {
    const ids = new Set<string>();
    for (const p of DEMO_PLANS) {
      const loaded = await loadPlan(join(ROOT, p.file), p.file);
      ids.add(loaded.plan.id);
      expect(planIdOf(join(ROOT, p.file))).toBe(loaded.plan.id);
      for (const sli of loaded.plan.hypothesis.slis) expect(sli.scrape, sli.name).toBeDefined();
    }
    expect(ids.size).toBe(DEMO_PLANS.length);
    expect(DEMO_PLANS.map((p) => p.expected)).toEqual(['held', 'aborted']);
    expect(DEMO_PLANS.map((p) => p.fallback)).toEqual([true, false]);
  });

  it('differ only in the fault: same SLIs, bounds and abort rules in both', async () => {
    const [holds, aborts] = await Promise.all(DEMO_PLANS.map((p) => loadPlan(join(ROOT, p.file), p.file)));
    expect(aborts!.plan.hypothesis).toEqual(holds!.plan.hypothesis);
    expect(aborts!.plan.abort).toEqual(holds!.plan.abort);
  });

  it('have Prometheus variants that load as valid plans with PromQL in place of every scrape', async () => {
    for (const p of DEMO_PLANS) {
      const fixture = await loadPlan(join(ROOT, p.file), p.file);
      const file = join(dir, `${fixture.plan.id}.prometheus.yaml`);
      writeFileSync(file, prometheusVariantOf(join(ROOT, p.file)));
      const variant = await loadPlan(file, file);
      const h = variant.plan.hypothesis;
      expect(h.requests?.prometheus).toMatch(/http_requests_total/);
      expect(h.requests?.scrape).toBeUndefined();
      for (const s of [...h.slis, ...(h.expect ?? [])]) {
        expect(s.prometheus, s.name).toBeTruthy();
        expect(s.scrape, s.name).toBeUndefined();
      }
      // Bounds, abort rules and the fault are exactly the fixture's.
      const strip = (x: typeof h.slis) => x.map(({ scrape: _s, prometheus: _p, ...rest }) => rest);
      expect(strip(h.slis)).toEqual(strip(fixture.plan.hypothesis.slis));
      expect(variant.plan.abort).toEqual(fixture.plan.abort);
      expect(variant.plan.fis).toEqual(fixture.plan.fis);
      expect(readFileSync(file, 'utf8')).not.toContain('yaml-language-server');
    }
  });

  it('refuses to write a variant when a scrape SLI has no PromQL, naming the file and the SLI', () => {
    const text = readFileSync(join(ROOT, DEMO_PLANS[0]!.file), 'utf8');
    expect(() => prometheusVariant(text, 'x.yaml', { requests: 'sum(up)', error_ratio: 'sum(up)' })).toThrow(
      /x\.yaml: p95_latency_s reads a scrape source, but the demo has no PromQL/,
    );
  });
});

describe('GITHUB_OUTPUT parsing', () => {
  it('reads back what @actions/core wrote, multi-line values included', () => {
    const file = join(dir, 'output.txt');
    writeFileSync(file, '');
    const saved = process.env.GITHUB_OUTPUT;
    process.env.GITHUB_OUTPUT = file;
    try {
      core.setOutput('verdict', 'aborted');
      core.setOutput('reason', 'p95 0.7 > 0.5\nfor 3 measurements');
      core.setOutput('budget-remaining', '');
    } finally {
      if (saved === undefined) delete process.env.GITHUB_OUTPUT;
      else process.env.GITHUB_OUTPUT = saved;
    }
    expect(parseOutputFile(readFileSync(file, 'utf8'))).toEqual({
      verdict: 'aborted',
      reason: 'p95 0.7 > 0.5\nfor 3 measurements',
      'budget-remaining': '',
    });
  });
});

describe('selfCommand', () => {
  it('starts another subcommand with the same Node, loader flags and entry, minus debugger flags', () => {
    const cmd = selfCommand(
      ['/usr/bin/node', '/repo/src/cli/index.ts', 'demo'],
      [
        '--require',
        '/repo/node_modules/tsx/dist/preflight.cjs',
        '--inspect=9229',
        '--import',
        'file:///l.mjs',
      ],
      '/usr/bin/node',
    );
    expect(cmd).toEqual({
      command: '/usr/bin/node',
      args: [
        '--require',
        '/repo/node_modules/tsx/dist/preflight.cjs',
        '--import',
        'file:///l.mjs',
        '/repo/src/cli/index.ts',
      ],
    });
  });

  it('runs the bundle as `node dist/cli.js` when there are no loader flags', () => {
    expect(selfCommand(['/n', '/pkg/dist/cli.js', 'demo'], [], '/n')).toEqual({
      command: '/n',
      args: ['/pkg/dist/cli.js'],
    });
  });
});
