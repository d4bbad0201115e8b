import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseScanInput, ScanInputError } from '../../src/analysis/input.js';
import {
  analyseWindows,
  scanJournal,
  scanRequestLog,
  type RequestLog,
  type ScanResult,
} from '../../src/analysis/scan.js';
import { parseKs, parseMargins, parsePlannedShare, scan } from '../../src/cli/commands/scan.js';
import type { CliIo } from '../../src/cli/command.js';
import type { Journal, Measurement, Phase } from '../../src/journal/types.js';

const FIXTURE = 'fixtures/analysis/request-log.json';
const GOLDEN = 'fixtures/analysis/request-log.scan.txt';

// The fixture, by hand (WINDOW 10, EXPERIMENT_START 20):
// control full counts per window 10, 9, 10, 9, 10 → shares 1, .9, 1, .9, 1 → baseline 0.96.
// experiment full counts 10, 9, 8, 6, 9, 7, 5, 10; tagged-and-degraded 0, 0, 2, 4, 1, 2, 5, 0 (window 6
// also has one untagged degraded request, which is not damage) → total damage 14.
// Thresholds 0.96 − m: m=0 → .96 (control .9, .9 fail: 2; experiment 2,3,4,5,6,7: 6, first 2);
// m=5 % → .91 (same); m=10 % → .86 (control 0; experiment 3,4,6,7: 4, first 3); m=20 % → .76
// (control 0; experiment 4,6,7: 3, first 4). Chosen: 10 %.
// At 10 %: falsified windows 3, 4, 6, 7 → k=1 fires at 3 (damage 2), k=2 at 4 (2+4 = 6, +4),
// k=3 and k=4 never (14, +12). Fault window: requests 20..79 = 60, tagged 3+5+2+4+6+0 = 20 → 1/3;
// planned 10 % → ×3.333333.
const EXPECTED: ScanResult = {
  baseline: 0.96,
  windows: { control: 5, experiment: 8 },
  margins: [
    { margin: 0, falseFails: 2, falsified: 6, firstFalsified: 2 },
    { margin: 0.05, falseFails: 2, falsified: 6, firstFalsified: 2 },
    { margin: 0.1, falseFails: 0, falsified: 4, firstFalsified: 3 },
    { margin: 0.2, falseFails: 0, falsified: 3, firstFalsified: 4 },
  ],
  chosenMargin: 0.1,
  totalDamage: 14,
  aborts: [
    { k: 1, abortWindow: 3, damage: 2, costOverK1: 0 },
    { k: 2, abortWindow: 4, damage: 6, costOverK1: 4 },
    { k: 3, abortWindow: null, damage: 14, costOverK1: 12 },
    { k: 4, abortWindow: null, damage: 14, costOverK1: 12 },
  ],
  blastRadius: {
    faultWindowRequests: 60,
    tagged: 20,
    measuredShare: 0.333333,
    plannedShare: 0.1,
    multiplier: 3.333333,
  },
};

function loadFixture(): RequestLog {
  const input = parseScanInput(readFileSync(FIXTURE, 'utf8'), FIXTURE);
  if (input.kind !== 'request-log') throw new Error('fixture is not a request log');
  return input.log;
}

function io(): CliIo & { stdout: string[]; stderr: string[] } {
  const stdout: string[] = [];
  const stderr: string[] = [];
  return {
    out: (t) => stdout.push(t),
    err: (t) => stderr.push(t),
    tty: false,
    env: {},
    cwd: process.cwd(),
    stdout,
    stderr,
  };
}

const tmp = mkdtempSync(join(tmpdir(), 'cg-scan-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('scan over a request log', () => {
  it('computes the baseline, margin table, chosen margin, abort table and blast radius derived by hand', () => {
    expect(scanRequestLog(loadFixture(), { plannedShare: 0.1 }).result).toEqual(EXPECTED);
  });

  it('counts as damage only requests that were tagged and degraded', () => {
    const log: RequestLog = {
      WINDOW: 2,
      control: [
        { request: 0, tagged: false, result: 'full' },
        { request: 1, tagged: false, result: 'full' },
      ],
      experiment: [
        { request: 0, tagged: false, result: 'degraded' },
        { request: 1, tagged: true, result: 'degraded' },
        { request: 2, tagged: true, result: 'full' },
        { request: 3, tagged: true, result: 'degraded' },
      ],
    };
    // Windows: [untagged degraded, tagged degraded] and [tagged full, tagged degraded]: damage 1 + 1.
    const { result } = scanRequestLog(log);
    expect(result.totalDamage).toBe(2);
    expect(result.aborts[0]).toEqual({ k: 1, abortWindow: 1, damage: 1, costOverK1: 0 });
    expect(result.aborts[1]).toEqual({ k: 2, abortWindow: 2, damage: 2, costOverK1: 1 });
  });

  it('without EXPERIMENT_START the whole experiment run is the fault window; without --planned-share no multiplier', () => {
    const { EXPERIMENT_START: _ignored, ...log } = loadFixture();
    expect(scanRequestLog(log).result.blastRadius).toEqual({
      faultWindowRequests: 80,
      tagged: 20,
      measuredShare: 0.25,
      plannedShare: null,
      multiplier: null,
    });
  });

  it('--window overrides WINDOW and orders records by request index', () => {
    const log = loadFixture();
    const shuffled: RequestLog = { ...log, experiment: [...log.experiment].reverse() };
    // Windows of 20: control 19/20, 19/20, 10/10 → mean (0.95 + 0.95 + 1) / 3.
    const { result } = scanRequestLog(shuffled, { window: 20 });
    expect(result.windows).toEqual({ control: 3, experiment: 4 });
    expect(result.baseline).toBeCloseTo((0.95 + 0.95 + 1) / 3, 6);
    expect(result.totalDamage).toBe(14);
  });

  it('reports no chosen margin and no abort table when every margin falsifies the control', () => {
    const { result } = scanRequestLog(loadFixture(), { margins: [0, 0.05] });
    expect(result.chosenMargin).toBeNull();
    expect(result.aborts).toEqual([]);
    expect(result.totalDamage).toBe(14);
  });

  it('does not falsify a window exactly at baseline − margin despite floating-point error', () => {
    // baseline 0.95 − 0.05 = 0.8999999999999999: a share of exactly 0.9 holds.
    const control = { share: Float64Array.from([0.95, 0.95]), damage: new Float64Array(2) };
    const experiment = { share: Float64Array.from([0.9, 0.89]), damage: Float64Array.from([1, 2]) };
    const result = analyseWindows(control, experiment, { margins: [0.05], ks: [1] });
    expect(result.margins[0]).toEqual({ margin: 0.05, falseFails: 0, falsified: 1, firstFalsified: 2 });
  });
});

describe('scan input', () => {
  it('names the file, line, field, value and expectation for a bad record', () => {
    const text = readFileSync(FIXTURE, 'utf8').replace(
      '{"request": 3, "tagged": false, "result": "full"}',
      '{"request": 3, "tagged": false, "result": "ok"}',
    );
    // The 4th control record sits on line 8 of the fixture.
    expect(() => parseScanInput(text, 'log.json')).toThrow(
      'log.json:8:47: control[3].result: "ok" is not valid; expected "full" or "degraded"',
    );
  });

  it('names a missing field and a non-array run', () => {
    expect(() =>
      parseScanInput('{"control": [{"request": 0, "result": "full"}], "experiment": []}', 'x.json'),
    ).toThrow('x.json:1:14: control[0].tagged: required field is missing; expected true or false');
    expect(() => parseScanInput('{"control": [], "experiment": 5}', 'x.json')).toThrow(
      /^x\.json:1:31: experiment: 5 is not valid; expected an array/,
    );
  });

  it('reports invalid JSON with its line', () => {
    expect(() => parseScanInput('{\n "control": [\n  1,,\n]}', 'bad.json')).toThrow(ScanInputError);
    expect(() => parseScanInput('{\n "control": [\n  1,,\n]}', 'bad.json')).toThrow(
      /^bad\.json:3:\d+: not valid JSON \(.*\); expected valid JSON$/,
    );
  });

  it('parses --margins, --k and --planned-share', () => {
    expect(parseMargins('0,5,10,20')).toEqual([0, 0.05, 0.1, 0.2]);
    expect(parseKs('1..4')).toEqual([1, 2, 3, 4]);
    expect(parseKs('2,5')).toEqual([2, 5]);
    expect(parsePlannedShare('10%')).toBe(0.1);
    expect(parsePlannedShare('0.25')).toBe(0.25);
    expect(() => parseKs('0..2')).toThrow(/whole numbers ≥ 1/);
    expect(() => parsePlannedShare('3')).toThrow(/share in \(0, 1\]/);
    expect(() => parseMargins('5,abc')).toThrow(/--margins abc: expected a number/);
  });
});

// A hand-made journal of a simulated Redis-partition run (docs/design/principles.md#the-plan-file fixture plan): 1 s interval, 1000
// requests per tick, steady state ≥ 99.95 % success, p95 ≤ 180 ms during the fault.
function journal(
  steady: { success: number; p95: number }[],
  fault: { success: number; p95: number }[],
): Journal {
  const t0 = Date.UTC(2025, 0, 1, 12);
  const measurement = (phase: Phase, i: number, v: { success: number; p95: number }): Measurement => ({
    at: t0 + i * 1000,
    t: i - steady.length,
    phase,
    requests: 1000,
    slis: {
      success_ratio: {
        value: v.success,
        status: v.success >= 0.998 ? 'ok' : 'breach',
        bound: '>= 0.998',
        query: 'sum(rate(ok[1s])) / sum(rate(all[1s]))',
      },
      p95_latency_s: {
        value: v.p95,
        status: v.p95 <= 0.18 ? 'ok' : 'breach',
        bound: '<= 0.18',
        query: 'histogram_quantile(0.95, ...)',
      },
    },
  });
  return {
    kind: 'chaos-gate-journal',
    version: 1,
    runId: 'run-1',
    planId: 'redis-partition',
    planDigest: 'sha256:0',
    title: 'Redis partition',
    service: 'checkout',
    environment: 'staging',
    slis: [
      { name: 'success_ratio', bound: '>= 0.998', steadyBound: '>= 0.9995', during: true },
      { name: 'p95_latency_s', bound: '<= 0.18', steadyBound: '<= 0.11', during: true },
    ],
    abortRules: [{ sli: 'p95_latency_s', op: 'above', threshold: 0.5, forMs: 3000, count: 3 }],
    intervalMs: 1000,
    startedAt: t0,
    verdict: 'deviated',
    reason: 'success_ratio 0.985 < 0.998',
    exitCode: 1,
    measurements: [
      ...steady.map((v, i) => measurement('steady', i, v)),
      ...fault.map((v, i) => measurement('fault', steady.length + i, v)),
    ],
    events: [{ at: t0 + steady.length * 1000, type: 'inject', message: 'injected' }],
    timings: { startedAt: t0, injectedAt: t0 + steady.length * 1000 },
    complete: true,
  };
}

describe('scan over a journal', () => {
  const ok = { success: 0.9995, p95: 0.1 };
  const bad = { success: 0.99, p95: 0.3 };

  it('bounds mode: steady state is the control, fault measurements the experiment, damage the degraded requests', () => {
    // Control: 10 ok measurements, 5 s windows → 2 windows of share 1 → baseline 1.
    // Experiment: 20 measurements in 4 windows of 5: breaches 0, 2, 5, 1 → shares 1, .6, 0, .8.
    // m=0/5/10 %: windows 2, 3, 4 falsified (first 2); m=20 %: .6 and 0 (.8 is not < .8) → 2.
    // Chosen 0 %. k=1 → window 2: 2 × 1000 = 2000; k=2 → 3: +5000 = 7000; k=3 → 4: 8000; k=4 never: 8000.
    const fault = [...Array(5).fill(ok), bad, ok, bad, ok, ok, ...Array(5).fill(bad), ok, ok, bad, ok, ok];
    const report = scanJournal(journal(Array(10).fill(ok), fault), { windowSeconds: 5 });
    expect(report.context.damageUnit).toBe('requests');
    expect(report.result).toEqual({
      baseline: 1,
      windows: { control: 2, experiment: 4 },
      margins: [
        { margin: 0, falseFails: 0, falsified: 3, firstFalsified: 2 },
        { margin: 0.05, falseFails: 0, falsified: 3, firstFalsified: 2 },
        { margin: 0.1, falseFails: 0, falsified: 3, firstFalsified: 2 },
        { margin: 0.2, falseFails: 0, falsified: 2, firstFalsified: 2 },
      ],
      chosenMargin: 0,
      totalDamage: 8000,
      aborts: [
        { k: 1, abortWindow: 2, damage: 2000, costOverK1: 0 },
        { k: 2, abortWindow: 3, damage: 7000, costOverK1: 5000 },
        { k: 3, abortWindow: 4, damage: 8000, costOverK1: 6000 },
        { k: 4, abortWindow: null, damage: 8000, costOverK1: 6000 },
      ],
      blastRadius: null,
    });
  });

  it('ratio mode reports the success threshold the simulated scenario implies', () => {
    // Control success 0.9995, 0.9993, 0.9997, 0.9995 → baseline 0.9995. Experiment 0.9996, 0.998,
    // 0.990, 0.985, 0.9992, 0.9995. m=0 → threshold 0.9995: control 0.9993 is a false fail; experiment
    // windows 2, 3, 4, 5 falsified. m=0.05 % → 0.999: no false fail, experiment 2, 3, 4 → chosen: the
    // hypothesis "success ≥ 0.999". m=0.1 % → 0.9985: experiment 2 (0.998), 3, 4. Damage (1 − s) × 1000: 0.4, 2, 10, 15, 0.8, 0.5 → total 28.7;
    // k=1 at 2: 2.4; k=2 at 3: 12.4; k=3 at 4: 27.4; k=4 never: 28.7.
    const steady = [0.9995, 0.9993, 0.9997, 0.9995].map((success) => ({ success, p95: 0.1 }));
    const fault = [0.9996, 0.998, 0.99, 0.985, 0.9992, 0.9995].map((success) => ({ success, p95: 0.1 }));
    const { result } = scanJournal(journal(steady, fault), {
      mode: { sli: 'success_ratio' },
      margins: parseMargins('0,0.05,0.1'),
    });
    expect(result.baseline).toBe(0.9995);
    expect(result.margins.map((m) => [m.falseFails, m.falsified, m.firstFalsified])).toEqual([
      [1, 4, 2],
      [0, 3, 2],
      [0, 3, 2],
    ]);
    expect(result.chosenMargin).toBe(0.0005);
    expect(result.totalDamage).toBe(28.7);
    expect(result.aborts).toEqual([
      { k: 1, abortWindow: 2, damage: 2.4, costOverK1: 0 },
      { k: 2, abortWindow: 3, damage: 12.4, costOverK1: 10 },
      { k: 3, abortWindow: 4, damage: 27.4, costOverK1: 25 },
      { k: 4, abortWindow: null, damage: 28.7, costOverK1: 26.3 },
    ]);
  });

  it('leaves no-data measurements out of the shares instead of counting them as full', () => {
    const j = journal(Array(4).fill(ok), Array(4).fill(ok));
    for (const m of j.measurements.slice(4, 6)) {
      m.slis['success_ratio'] = { value: null, status: 'no-data', query: 'q' };
    }
    const report = scanJournal(j);
    expect(report.context.emptyWindows).toEqual({ control: 0, experiment: 2 });
    expect(report.result.margins[0]).toMatchObject({ falsified: 0, firstFalsified: null });
  });

  it('refuses a ratio SLI whose values are not ratios', () => {
    expect(() => scanJournal(journal([ok], [ok]), { mode: { sli: 'p95_latency_s' } })).not.toThrow();
    const j = journal([{ success: 0.9995, p95: 1.5 }], [ok]);
    expect(() => scanJournal(j, { mode: { sli: 'p95_latency_s' } })).toThrow(
      /value 1.5 .* is not a ratio in \[0, 1\]/,
    );
    expect(() => scanJournal(j, { mode: { sli: 'nope' } })).toThrow(/no SLI of that name/);
  });
});

describe('chaos-gate scan', () => {
  it('prints the text report matching the committed golden file', async () => {
    const out = io();
    expect(await scan.run([FIXTURE, '--planned-share', '10%'], out)).toBe(0);
    expect(out.stdout.join('\n') + '\n').toBe(readFileSync(GOLDEN, 'utf8'));
  });

  it('prints --json with exactly the documented keys', async () => {
    const out = io();
    expect(await scan.run([FIXTURE, '--planned-share', '0.1', '--json'], out)).toBe(0);
    const json = JSON.parse(out.stdout.join('\n')) as ScanResult;
    expect(Object.keys(json)).toEqual([
      'baseline',
      'windows',
      'margins',
      'chosenMargin',
      'totalDamage',
      'aborts',
      'blastRadius',
    ]);
    expect(json).toEqual(EXPECTED);
  });

  it('scans a journal file written by a run', async () => {
    const file = join(tmp, 'journal.json');
    const ok = { success: 0.9995, p95: 0.1 };
    writeFileSync(file, JSON.stringify(journal(Array(6).fill(ok), [ok, { success: 0.9, p95: 0.4 }, ok])));
    const out = io();
    expect(await scan.run([file, '--json', '--k', '1..2'], out)).toBe(0);
    const json = JSON.parse(out.stdout.join('\n')) as ScanResult;
    expect(json.windows).toEqual({ control: 6, experiment: 3 });
    expect(json.aborts).toEqual([
      { k: 1, abortWindow: 2, damage: 1000, costOverK1: 0 },
      { k: 2, abortWindow: null, damage: 1000, costOverK1: 0 },
    ]);
  });

  it('exits 2 naming the file and line for a bad record, and for --window-seconds on a request log', async () => {
    const file = join(tmp, 'bad.json');
    writeFileSync(
      file,
      '{\n  "WINDOW": 2,\n  "control": [\n    {"request": -1, "tagged": false, "result": "full"}\n  ],\n  "experiment": []\n}\n',
    );
    const out = io();
    expect(await scan.run([file], out)).toBe(2);
    expect(out.stderr.join('\n')).toContain(
      `${file}:4:17: control[0].request: -1 is not valid; expected the request index (a whole number ≥ 0)`,
    );
    await expect(scan.run([FIXTURE, '--window-seconds', '10'], io())).rejects.toThrow(
      /--window-seconds needs a journal/,
    );
  });
});
