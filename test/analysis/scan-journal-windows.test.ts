/**
 * Issue 12.5: `scan` on a journal windows the measurements by their true times. Ticks are taken when
 * the timer fires, so a real run's measurements are 992–1031 ms apart at a 1 s interval; the default
 * window (the journal's interval) must still hold exactly one measurement each, and only time nobody
 * measured may show as an empty window.
 *
 * The two journals under fixtures/analysis/ were written by `chaos-gate demo --out-dir …` against the
 * sandbox (the scrape path, real timers), unedited.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseScanInput } from '../../src/analysis/input.js';
import { scanJournal, ScanError } from '../../src/analysis/scan.js';
import { scan } from '../../src/cli/commands/scan.js';
import type { Journal, Measurement, Phase } from '../../src/journal/types.js';

const HOLDS = 'fixtures/analysis/demo-holds.journal.json';
const ABORTS = 'fixtures/analysis/demo-aborts.journal.json';

function readJournal(file: string): Journal {
  const input = parseScanInput(readFileSync(file, 'utf8'), file);
  if (input.kind !== 'journal') throw new Error(`${file} is not a journal`);
  return input.journal;
}

/** Gaps in ms between consecutive measurements of one phase. */
function gaps(journal: Journal, phase: Phase): number[] {
  const at = journal.measurements.filter((m) => m.phase === phase).map((m) => m.at);
  return at.slice(1).map((t, i) => t - at[i]!);
}

async function runScan(args: string[]): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await scan.run(args, {
    out: (t) => out.push(t),
    err: (t) => err.push(t),
    tty: false,
    env: {},
    cwd: process.cwd(),
  });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

describe('scan over a real demo journal', () => {
  it('the fixtures carry real timer jitter: gaps both under and over the 1 s interval', () => {
    // Without this the tests below could not tell the fixed windowing from the old one.
    for (const file of [HOLDS, ABORTS]) {
      const j = readJournal(file);
      expect(j.intervalMs).toBe(1000);
      const all = [...gaps(j, 'steady'), ...gaps(j, 'fault')];
      expect(all.some((g) => g < 1000)).toBe(true);
      expect(all.some((g) => g > 1000)).toBe(true);
      expect(all.every((g) => Math.abs(g - 1000) < 100)).toBe(true);
    }
  });

  it('held run: one window per measurement, none empty, nothing falsified', () => {
    const j = readJournal(HOLDS);
    const count = (p: Phase): number => j.measurements.filter((m) => m.phase === p).length;
    expect([count('steady'), count('fault'), count('recovery')]).toEqual([5, 17, 1]);

    const { result, context } = scanJournal(j);
    expect(result.windows).toEqual({ control: 5, experiment: 18 });
    expect(context.emptyWindows).toEqual({ control: 0, experiment: 0 });
    expect(context.window).toBe('1 s');
    expect(result.baseline).toBe(1);
    expect(result.margins.map((m) => m.falsified)).toEqual([0, 0, 0, 0]);
    expect(result.chosenMargin).toBe(0);
    expect(result.totalDamage).toBe(0);
    expect(result.aborts.map((a) => a.abortWindow)).toEqual([null, null, null, null]);
  });

  it('aborted run: 5 control and 6 experiment windows; the breach windows are falsified with their request counts', () => {
    // Fault measurements: ok (608 req), then breaches with 56, 96, 100 requests; the abort stops the
    // fault, and recovery measures a breach (300 req, 2.5 s after the last fault tick) then ok (100 req).
    const j = readJournal(ABORTS);
    const { result, context } = scanJournal(j);
    expect(result.windows).toEqual({ control: 5, experiment: 6 });
    expect(context.emptyWindows).toEqual({ control: 0, experiment: 0 });
    expect(context.damageUnit).toBe('requests');
    expect(result.baseline).toBe(1);
    expect(result.margins[0]).toEqual({ margin: 0, falseFails: 0, falsified: 4, firstFalsified: 2 });
    expect(result.chosenMargin).toBe(0);
    // Damage: 56 + 96 + 100 + 300 = 552 degraded requests.
    expect(result.totalDamage).toBe(552);
    expect(result.aborts).toEqual([
      { k: 1, abortWindow: 2, damage: 56, costOverK1: 0 },
      { k: 2, abortWindow: 3, damage: 152, costOverK1: 96 },
      { k: 3, abortWindow: 4, damage: 252, costOverK1: 196 },
      { k: 4, abortWindow: 5, damage: 552, costOverK1: 496 },
    ]);
  });

  it('longer windows group consecutive ticks and never span the fault → recovery change', () => {
    // Held: 5 steady → 3 windows of 2 s (2, 2, 1); 17 fault → 9; 1 recovery → 1.
    expect(scanJournal(readJournal(HOLDS), { windowSeconds: 2 }).result.windows).toEqual({
      control: 3,
      experiment: 10,
    });
    // Aborted: 4 fault → 2; 2 recovery → 1.
    const aborts = scanJournal(readJournal(ABORTS), { windowSeconds: 2 });
    expect(aborts.result.windows).toEqual({ control: 3, experiment: 3 });
    expect(aborts.context.emptyWindows).toEqual({ control: 0, experiment: 0 });
  });

  it('the CLI reports the demo journal as measurable, with no empty-window line', async () => {
    const { code, out } = await runScan([ABORTS]);
    expect(code).toBe(0);
    expect(out).toContain('windows: 5 control, 6 experiment');
    expect(out).not.toContain('nothing measurable');
    expect(out).toContain('chosen margin: 0%');
  });
});

// A journal with measurements at explicit offsets (ms) from t0: every SLI ok unless listed in `bad`.
function timedJournal(ticks: { phase: Phase; ms: number; bad?: boolean }[]): Journal {
  const t0 = Date.UTC(2026, 0, 1, 12);
  const measurement = (tick: { phase: Phase; ms: number; bad?: boolean }): Measurement => ({
    at: t0 + tick.ms,
    phase: tick.phase,
    requests: 100,
    slis: {
      error_ratio: {
        value: tick.bad ? 0.5 : 0,
        status: tick.bad ? 'breach' : 'ok',
        bound: '<= 0.002',
        query: 'errors / total',
      },
    },
  });
  const journal: Journal = {
    kind: 'chaos-gate-journal',
    version: 1,
    runId: 'run-1',
    planId: 'p',
    planDigest: 'sha256:0',
    title: 't',
    service: 's',
    environment: 'staging',
    slis: [{ name: 'error_ratio', bound: '<= 0.002', steadyBound: '<= 0.0005', during: true }],
    abortRules: [{ sli: 'error_ratio', op: 'above', threshold: 0.01, forMs: 3000, count: 3 }],
    intervalMs: 1000,
    startedAt: t0,
    verdict: 'held',
    reason: 'scan input',
    exitCode: 0,
    measurements: ticks.map(measurement),
    events: [],
    timings: { startedAt: t0 },
    complete: true,
  };
  return journal;
}

const steady = (offsets: number[]): { phase: Phase; ms: number }[] =>
  offsets.map((ms) => ({ phase: 'steady', ms }));

describe('windows by true time', () => {
  it('jitter of a few ms either way keeps one measurement per default window', () => {
    // 999 and 1001 ms apart: flooring from the first tick put ticks 0 and 1 (at 999 ms) together.
    const j = timedJournal([
      ...steady([0, 999, 2000, 2998, 4003]),
      ...[6000, 6999, 8001, 9000].map((ms) => ({ phase: 'fault' as const, ms, bad: ms === 6999 })),
    ]);
    const { result, context } = scanJournal(j);
    expect(result.windows).toEqual({ control: 5, experiment: 4 });
    expect(context.emptyWindows).toEqual({ control: 0, experiment: 0 });
    expect(result.margins[0]?.firstFalsified).toBe(2);
  });

  it('a tick the engine missed (a 2 s gap) is an empty window that breaks a run of falsified windows', () => {
    const j = timedJournal([
      ...steady([0, 1000, 2000]),
      { phase: 'fault', ms: 5000, bad: true },
      { phase: 'fault', ms: 7001, bad: true }, // one tick missed between these two
      { phase: 'fault', ms: 8000, bad: true },
    ]);
    const { result, context } = scanJournal(j);
    expect(result.windows).toEqual({ control: 3, experiment: 4 });
    expect(context.emptyWindows).toEqual({ control: 0, experiment: 1 });
    // Windows: breach, empty, breach, breach → k=2 completes at window 4, k=3 never.
    expect(result.aborts.map((a) => a.abortWindow)).toEqual([1, 4, null, null]);
  });

  it('the gap while the fault was being stopped is not an empty window: recovery starts a new window', () => {
    const j = timedJournal([
      ...steady([0, 1000]),
      { phase: 'fault', ms: 3000 },
      { phase: 'fault', ms: 4000 },
      { phase: 'fault', ms: 5000 },
      { phase: 'recovery', ms: 7600 },
      { phase: 'recovery', ms: 8601 },
    ]);
    expect(scanJournal(j).result.windows).toEqual({ control: 2, experiment: 5 });
    expect(scanJournal(j).context.emptyWindows).toEqual({ control: 0, experiment: 0 });
    // 2 s windows: fault 3 → 2 windows (2 + 1); recovery 2 → 1, not merged with the last fault tick.
    expect(scanJournal(j, { windowSeconds: 2 }).result.windows).toEqual({ control: 1, experiment: 3 });
  });

  it('refuses a window shorter than the measurement interval, naming both', () => {
    const j = timedJournal([...steady([0, 1000]), { phase: 'fault', ms: 3000 }]);
    expect(() => scanJournal(j, { windowSeconds: 0.5 })).toThrow(ScanError);
    expect(() => scanJournal(j, { windowSeconds: 0.5 })).toThrow(
      "window 0.5 s is shorter than the journal's measurement interval 1 s; expected --window-seconds ≥ 1",
    );
  });
});
