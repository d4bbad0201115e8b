import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { afterAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import type { CliIo } from '../../src/cli/command.js';

const dir = mkdtempSync(join(tmpdir(), 'chaos-gate-cli-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function cli(args: string[], tty = false): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const io: CliIo = {
    out: (t) => void out.push(t),
    err: (t) => void err.push(t),
    tty,
    env: {},
    cwd: process.cwd(),
  };
  const code = await main(args, io);
  return { code, out: out.join('\n'), err: err.join('\n') };
}

describe('chaos-gate simulate', () => {
  it.each([
    ['held', 0],
    ['aborted-rule', 1],
    ['inconclusive-blind', 1],
    ['failed-fis', 1],
  ])('exits per verdict: %s → %i, and prints JSON', async (scenario, code) => {
    const r = await cli([
      'simulate',
      'fixtures/sim-plans/checkout.yaml',
      '--scenario',
      `fixtures/scenarios/${scenario}.yaml`,
      '--json',
    ]);
    expect(r.code).toBe(code);
    const json = JSON.parse(r.out) as { verdict: string; exitCode: number };
    expect(json.exitCode).toBe(code);
    expect(scenario.startsWith(json.verdict)).toBe(true);
  });

  it('exits 2 with refused when the plan breaks a static rule, and starts nothing', async () => {
    const plan = readFileSync('fixtures/sim-plans/checkout.yaml', 'utf8').replace(
      'maxActionDuration: 60s',
      'maxActionDuration: 10s',
    );
    const path = join(dir, 'too-long.yaml');
    writeFileSync(path, plan);
    const r = await cli(['simulate', path, '--scenario', 'fixtures/scenarios/held.yaml', '--json']);
    expect(r.code).toBe(2);
    expect(JSON.parse(r.out)).toMatchObject({ verdict: 'refused', experimentId: null });
  });

  it('exits 2 naming file:line:col for a bad scenario', async () => {
    const path = join(dir, 'bad-scenario.yaml');
    writeFileSync(path, 'metrics:\n  p95: { baseline: high }\n');
    const r = await cli(['simulate', 'fixtures/sim-plans/checkout.yaml', '--scenario', path]);
    expect(r.code).toBe(2);
    expect(r.err).toContain(`${path}:2:20: metrics.p95.baseline:`);
  });

  it('prints one progress line per measurement on a terminal', async () => {
    const r = await cli(
      ['simulate', 'fixtures/sim-plans/checkout.yaml', '--scenario', 'fixtures/scenarios/held.yaml'],
      true,
    );
    const ticks = r.out
      .split('\n')
      .filter((l) => /^\s+(?:[+-]\d+\.\d|steady \d+\.\d)s\s+(steady|fault|recovery)\s/.test(l));
    expect(ticks).toHaveLength(5 + 20 + 2);
    expect(r.out).toMatch(
      /\+1\.0s {2}fault {5}success_ratio 0\.99\d+ ok {2}p95_latency_s 0\.\d+ ok {2}breaker_open 1 seen {2}req \d+/,
    );
  });
});

describe('chaos-gate report', () => {
  it('renders the journal written by simulate, and a crashed prefix of it', async () => {
    const journal = join(dir, 'run.journal.json');
    const sim = await cli([
      'simulate',
      'fixtures/sim-plans/checkout.yaml',
      '--scenario',
      'fixtures/scenarios/aborted-rule.yaml',
      '--journal',
      journal,
    ]);
    expect(sim.code).toBe(1);
    const full = await cli(['report', journal, '--markdown']);
    expect(full.code).toBe(0);
    expect(full.out).toMatch(/^## 🛑 aborted — /);
    expect(full.out).toContain(
      'https://eu-west-1.console.aws.amazon.com/fis/home?region=eu-west-1#ExperimentDetails:ExperimentId=',
    );

    // Rebuild the NDJSON a killed process would leave: the records up to some point, the last one cut.
    const final = JSON.parse(readFileSync(journal, 'utf8')) as Record<string, unknown> & {
      measurements: unknown[];
      events: unknown[];
    };
    const { measurements, events, ...header } = final;
    const lines = [
      JSON.stringify({
        record: 'header',
        ...header,
        verdict: undefined,
        reason: undefined,
        exitCode: undefined,
        complete: undefined,
      }),
      ...events.slice(0, 3).map((e) => JSON.stringify({ record: 'event', ...(e as object) })),
      ...measurements.slice(0, 4).map((m) => JSON.stringify({ record: 'measurement', ...(m as object) })),
    ];
    const crashed = join(dir, 'crashed.journal');
    writeFileSync(crashed, lines.join('\n') + '\n{"record":"measurement","at":17');
    const prefix = await cli(['report', crashed]);
    expect(prefix.code).toBe(0);
    expect(prefix.out).toMatch(/^## ⚠️ unfinished — /);
  });

  it('exits 2 for an unreadable journal', async () => {
    const r = await cli(['report', join(dir, 'missing.json')]);
    expect(r.code).toBe(2);
    expect(r.err).toContain('cannot read the journal');
  });
});
