/**
 * One clock for every report (issue 12.3): the Markdown summary, the check run, the PR comment, the
 * HTML replay data and the console lines print a measurement at the same offset from the injection.
 *
 * The journal below is the case that exposed the bug: the steady state was measured 17–13 s before
 * the injection (the dry run, gates and the FIS start took 12 s after it), while its `t` fields say
 * −4 … 0 — what an older engine computed against the *planned* injection time. Every renderer must
 * print −17 … −13 and ignore `t`.
 */
import { describe, expect, it } from 'vitest';
import { progressPrinter, journalProgressLines } from '../../src/report/progress.js';
import { offsetSeconds, timeOrigin } from '../../src/journal/format.js';
import type { Journal, JournalEvent, Measurement, Phase } from '../../src/journal/types.js';
import { checkRunPayload } from '../../src/report/check-run.js';
import { prComment } from '../../src/report/comment.js';
import { journalReplayData } from '../../src/report/html.js';
import { renderSummary } from '../../src/report/markdown.js';

const T0 = Date.UTC(2026, 2, 2, 9, 15);
/** Injection 20 s after the start; the steady state was measured at +3 … +7 s from the start. */
const INJECTED_AT = T0 + 20_000;
const STEADY_OFFSETS = [-17, -16, -15, -14, -13];
const FAULT_OFFSETS = [1, 2, 3];
const RECOVERY_OFFSETS = [5];
/** The printed offsets may differ from the true ones by rounding only. */
const TOLERANCE = 0.15;

function measurement(phase: Phase, at: number, staleT: number): Measurement {
  return {
    at,
    t: staleT,
    phase,
    requests: 800,
    slis: {
      success_ratio: {
        value: 0.9997,
        status: 'ok',
        bound: phase === 'fault' ? '>= 0.998' : '>= 0.9995',
        query: 'sum(rate(ok[1s])) / sum(rate(all[1s]))',
      },
    },
  };
}

/** A held run whose steady `t` fields carry the planned-injection offsets −4 … 0. */
function journal(): Journal {
  const measurements = [
    ...STEADY_OFFSETS.map((s, i) => measurement('steady', INJECTED_AT + s * 1000, i - 4)),
    ...FAULT_OFFSETS.map((s) => measurement('fault', INJECTED_AT + s * 1000, s)),
    ...RECOVERY_OFFSETS.map((s) => measurement('recovery', INJECTED_AT + s * 1000, s)),
  ];
  const events: JournalEvent[] = [
    { at: T0, type: 'run-started', message: 'run run-clock attempt 1 of plan redis-partition' },
    {
      at: INJECTED_AT - 12_500,
      type: 'steady-state',
      message: 'steady state held for 5.0 s (5 measurements)',
    },
    { at: INJECTED_AT, type: 'inject', message: 'experiment EXP1 started', data: { experimentId: 'EXP1' } },
    { at: INJECTED_AT + 4_000, type: 'fault-ended', message: 'fault ended (+4.0 s)' },
    { at: INJECTED_AT + 5_500, type: 'verdict', message: 'held: every SLI within bounds' },
  ];
  return {
    kind: 'chaos-gate-journal',
    version: 1,
    runId: 'run-clock',
    planId: 'redis-partition',
    planDigest: 'c0ffee5a1e2b3c4d',
    title: 'Clock check',
    service: 'payment-token-service',
    environment: 'staging',
    slis: [{ name: 'success_ratio', bound: '>= 0.998', steadyBound: '>= 0.9995', during: true }],
    abortRules: [],
    intervalMs: 1000,
    startedAt: T0,
    verdict: 'held',
    reason: 'every SLI within bounds',
    exitCode: 0,
    experimentId: 'EXP1',
    measurements,
    events,
    timings: {
      startedAt: T0,
      injectedAt: INJECTED_AT,
      stoppedAt: INJECTED_AT + 4_000,
      finishedAt: T0 + 25_500,
    },
    complete: true,
  };
}

/** Parses `-17.0`, `+3.0 s`, `+3.0s` into seconds. */
function seconds(text: string): number {
  const n = Number(text.replace(/\s*s$/, ''));
  if (!Number.isFinite(n)) throw new Error(`not an offset: ${JSON.stringify(text)}`);
  return n;
}

/** Asserts each printed offset is the expected true offset, in order, within rounding. */
function expectOffsets(printed: number[], expected: number[], where: string): void {
  expect(printed, where).toHaveLength(expected.length);
  printed.forEach((p, i) =>
    expect(Math.abs(p - (expected[i] ?? NaN)), `${where}[${i}]: ${p}`).toBeLessThanOrEqual(TOLERANCE),
  );
}

/** The first cells of the Markdown table rows whose phase cell is `phase`. */
function tableOffsets(markdown: string, phase: Phase): number[] {
  const rows = markdown.split('\n').filter((l) => new RegExp(`^\\| [^|]+ \\| ${phase} \\|`).test(l));
  return rows.map((l) => seconds(l.split('|')[1]?.trim() ?? ''));
}

describe('one clock for every report', () => {
  it('puts the origin at injectedAt and ignores the stale Measurement.t', () => {
    const j = journal();
    expect(timeOrigin(j)).toMatchObject({ at: INJECTED_AT, kind: 'injection' });
    expect(offsetSeconds(j, j.measurements[0]!.at)).toBe(-17);
  });

  it('prints the steady state at -17 … -13 s in the Markdown table and the Mermaid axis', () => {
    const md = renderSummary(journal());
    expectOffsets(tableOffsets(md, 'steady'), STEADY_OFFSETS, 'markdown table (steady)');
    expectOffsets(tableOffsets(md, 'fault'), FAULT_OFFSETS, 'markdown table (fault)');
    // The chart's numeric time axis spans exactly the measurements: -17 s to +5 s, a point per second.
    const lines = md.split('\n');
    expect(lines.find((l) => l.includes('x-axis'))).toBe('  x-axis "seconds from injection" -17 --> 5');
    const values = lines.find((l) => l.startsWith('  line "success_ratio"')) ?? '';
    expect(values.split(',')).toHaveLength(5 + 17 + 1);
  });

  it('prints the steady state at -17 … -13 s in the check run text and its timings', () => {
    const payload = checkRunPayload(journal(), { headSha: 'a'.repeat(40) });
    const measurementsTable = payload.output.text.slice(payload.output.text.indexOf('### Measurements'));
    expectOffsets(tableOffsets(measurementsTable, 'steady'), STEADY_OFFSETS, 'check-run measurements');
    expect(payload.output.summary).toContain('| steady state | -17.0 s to -13.0 s (5 measurements) |');
    expect(payload.output.summary).toContain('Times are seconds from the injection, negative before it.');
  });

  it('prints the steady-state span -17 … -13 s in the PR comment', () => {
    const body = prComment(journal());
    const row = /\| steady state \| ([-+]\d+\.\d s) to ([-+]\d+\.\d s) \(5 measurements\) \|/.exec(body);
    expect(row, body).not.toBeNull();
    expectOffsets([seconds(row?.[1] ?? ''), seconds(row?.[2] ?? '')], [-17, -13], 'comment span');
  });

  it('places the steady state at -17 … -13 s in the HTML replay data', () => {
    const data = journalReplayData(journal());
    const points = data.panels[0]?.series[0]?.points ?? [];
    expectOffsets(
      points.slice(0, STEADY_OFFSETS.length).map((p) => p[0]),
      STEADY_OFFSETS,
      'replay points (steady)',
    );
    expect(data.start).toBeCloseTo(-20, 5); // the run-started event, 20 s before the injection
    expect(data.subtitle).toContain('times in seconds from injection');
  });

  it('prints the steady state at -17 … -13 s in the console lines of a finished journal', () => {
    const lines = journalProgressLines(journal());
    const steady = lines
      .filter((l) => /^\s*\S+\s+steady\s/.test(l))
      .map((l) => seconds(l.trim().split(/\s+/)[0] ?? ''));
    expectOffsets(steady, STEADY_OFFSETS, 'console lines (steady)');
  });

  it('live, labels steady lines as time into the steady state and fault lines as offsets from the inject event', () => {
    const j = journal();
    const lines: string[] = [];
    const printer = progressPrinter((l) => lines.push(l));
    // Delivered in the engine's order: steady ticks, the inject event, fault and recovery ticks.
    const byTime = [
      ...j.measurements.map((m) => ({ at: m.at, tick: m })),
      ...j.events.map((e) => ({ at: e.at, event: e })),
    ].sort((a, b) => a.at - b.at);
    for (const item of byTime) {
      if ('tick' in item) printer.onTick(item.tick);
      else printer.onEvent(item.event);
    }
    const ticks = lines.filter((l) => !l.includes('»'));
    const steady = ticks.filter((l) => /\ssteady\s+success_ratio/.test(l));
    // Before the injection its time is unknown: the line says "steady", never a fake offset like -4.0s.
    expect(steady.map((l) => l.trim().split(/\s{2,}/)[0])).toEqual([
      'steady 0.0s',
      'steady 1.0s',
      'steady 2.0s',
      'steady 3.0s',
      'steady 4.0s',
    ]);
    const after = ticks.filter((l) => /\s(fault|recovery)\s+success_ratio/.test(l));
    expectOffsets(
      after.map((l) => seconds(l.trim().split(/\s+/)[0] ?? '')),
      [...FAULT_OFFSETS, ...RECOVERY_OFFSETS],
      'live console (fault, recovery)',
    );
  });
});

describe('the clock of a run that never injected', () => {
  it('counts from the last steady-state measurement, in every renderer alike', () => {
    const j = journal();
    j.measurements = j.measurements.filter((m) => m.phase === 'steady');
    j.timings = { startedAt: T0, finishedAt: T0 + 8_000 };
    j.events = j.events.filter((e) => e.type === 'run-started');
    j.verdict = 'not-run';
    j.reason = 'steady state broken before injection';
    j.exitCode = 1;
    const expected = [-4, -3, -2, -1, 0];
    expect(timeOrigin(j)).toMatchObject({ at: j.measurements[4]!.at, kind: 'last-steady' });

    const md = renderSummary(j);
    expect(md).toContain('x-axis "seconds from the last steady-state measurement"');
    expectOffsets(tableOffsets(md, 'steady'), expected, 'markdown (not injected)');
    const text = checkRunPayload(j, { headSha: 'a'.repeat(40) }).output.text;
    expectOffsets(
      tableOffsets(text.slice(text.indexOf('### Measurements')), 'steady'),
      expected,
      'check run',
    );
    expect(prComment(j)).toContain('| steady state | -4.0 s to +0.0 s (5 measurements) |');
    const points = journalReplayData(j).panels[0]?.series[0]?.points ?? [];
    expectOffsets(
      points.map((p) => p[0]),
      expected,
      'replay (not injected)',
    );
  });

  it('counts from the start of the run when nothing was measured either', () => {
    const j = journal();
    j.measurements = [];
    j.timings = { startedAt: T0 };
    j.events = [
      { at: T0, type: 'run-started', message: 'run started' },
      { at: T0 + 300, type: 'refused', message: 'no abort rules' },
    ];
    expect(timeOrigin(j)).toMatchObject({ at: T0, kind: 'start' });
    const text = checkRunPayload(j, { headSha: 'a'.repeat(40) }).output.text;
    expect(text).toContain('Nothing was injected or measured: times are seconds from the start of the run.');
    expect(text).toContain('| +0.3 s | refused | no abort rules |');
  });
});
