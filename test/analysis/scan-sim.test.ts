/**
 * Issue 6: `scan` on a journal from a simulated run reports the thresholds the scenario implies. The journal
 * comes from the real engine (`chaos-gate simulate`), not a hand-made object.
 */
import { describe, expect, it } from 'vitest';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { main } from '../../src/cli/main.js';

async function cli(args: string[]): Promise<{ code: number; out: string }> {
  const out: string[] = [];
  const code = await main(args, {
    out: (t) => out.push(t),
    err: (t) => out.push(t),
    tty: false,
    env: {},
    cwd: process.cwd(),
  });
  return { code, out: out.join('\n') };
}

describe('scan over a simulated run', () => {
  it('finds the success-ratio threshold the deviated-breach scenario implies', async () => {
    // The scenario: success_ratio baseline 0.9997 with noise 0.0001, falling to 0.9991 one second after
    // injection — a drop of 0.0006. So: the baseline is 0.9997 within the noise; margins below the drop
    // falsify the experiment, margins above it do not; margin 0 has control false fails (noise puts some
    // control windows under their own mean), and the smallest margin above the noise (0.02 % = 0.0002) has none.
    const journal = path.join(mkdtempSync(path.join(tmpdir(), 'cg-scan-')), 'journal.json');
    const sim = await cli([
      'simulate',
      'fixtures/sim-plans/checkout.yaml',
      '--scenario',
      'fixtures/scenarios/deviated-breach.yaml',
      '--journal',
      journal,
    ]);
    expect(sim.code).toBe(1);

    const scan = await cli([
      'scan',
      journal,
      '--sli',
      'success_ratio',
      '--margins',
      '0,0.02,0.05,0.1',
      '--json',
    ]);
    expect(scan.code).toBe(0);
    const r = JSON.parse(scan.out) as {
      baseline: number;
      margins: { margin: number; falseFails: number; falsified: number; firstFalsified: number | null }[];
      chosenMargin: number | null;
      aborts: { k: number; abortWindow: number | null }[];
    };
    expect(Math.abs(r.baseline - 0.9997)).toBeLessThanOrEqual(0.0001);
    const byMargin = new Map(r.margins.map((m) => [Number(m.margin.toFixed(6)), m]));
    expect(byMargin.get(0)?.falseFails).toBeGreaterThan(0);
    for (const m of [0.0002, 0.0005]) {
      expect(byMargin.get(m)?.falseFails).toBe(0);
      expect(byMargin.get(m)?.falsified).toBeGreaterThan(0);
      // The effect starts 1 s after injection: the first 1 s experiment window already shows it.
      expect(byMargin.get(m)?.firstFalsified).toBe(1);
    }
    expect(byMargin.get(0.001)).toMatchObject({ falseFails: 0, falsified: 0, firstFalsified: null });
    expect(r.chosenMargin).toBeCloseTo(0.0002, 9);
    // At the chosen margin every k aborts at the k-th window: the breach is continuous from window 1.
    expect(r.aborts.map((a) => a.abortWindow)).toEqual([1, 2, 3, 4]);
  });

  it('carries the suggested hypothesis in --json for a held run, as the text report does', async () => {
    const journal = path.join(mkdtempSync(path.join(tmpdir(), 'cg-scan-')), 'journal.json');
    const sim = await cli([
      'simulate',
      'fixtures/sim-plans/checkout.yaml',
      '--scenario',
      'fixtures/scenarios/held.yaml',
      '--journal',
      journal,
    ]);
    expect(sim.code).toBe(0);
    const scan = await cli(['scan', journal, '--json']);
    expect(scan.code).toBe(0);
    const r = JSON.parse(scan.out) as { suggestion?: { slis: { sli: string; tolerance: unknown }[] | null } };
    expect(Array.isArray(r.suggestion?.slis)).toBe(true);
    expect(r.suggestion?.slis?.length).toBeGreaterThan(0);
    for (const x of r.suggestion?.slis ?? []) expect(typeof x.sli).toBe('string');
  });
});
