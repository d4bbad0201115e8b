/**
 * The job summary's Mermaid chart reads at a glance (issue 15): time on a proportional axis (Mermaid's
 * xychart spreads a line's values evenly, so the measurements are resampled onto an even time grid over
 * a numeric axis), the bound and the abort threshold as named series, and the fault window shaded.
 */
import { describe, expect, it } from 'vitest';
import type { Journal, Measurement, Phase } from '../../src/journal/types.js';
import { chartGrid, renderSummary } from '../../src/report/markdown.js';

const T0 = Date.UTC(2026, 3, 1, 8);

function m(seconds: number, phase: Phase, value: number): Measurement {
  const fault = phase === 'fault';
  return {
    at: T0 + seconds * 1000,
    phase,
    requests: 800,
    slis: {
      p95_latency_s: {
        value,
        status: value > (fault ? 0.18 : 0.11) ? 'breach' : 'ok',
        bound: fault ? '<= 0.18' : '<= 0.11',
        query: 'q',
      },
    },
  };
}

/**
 * Uneven spacing on purpose: four steady readings a second apart 10 s before the injection, then a fault
 * read every second but with a 6 s gap, the stop at +9 s, and one recovery reading at +12 s.
 */
function journal(): Journal {
  const measurements = [
    m(-13, 'steady', 0.09),
    m(-12, 'steady', 0.09),
    m(-11, 'steady', 0.09),
    m(-10, 'steady', 0.09),
    m(1, 'fault', 0.1),
    m(2, 'fault', 0.62),
    m(8, 'fault', 0.3),
    m(12, 'recovery', 0.09),
  ];
  return {
    kind: 'chaos-gate-journal',
    version: 1,
    runId: 'r',
    planId: 'p',
    planDigest: 'd',
    title: 'Chart',
    service: 's',
    environment: 'staging',
    slis: [{ name: 'p95_latency_s', bound: '<= 0.18', steadyBound: '<= 0.11', during: true }],
    abortRules: [{ sli: 'p95_latency_s', op: 'above', threshold: 0.5, forMs: 3000, count: 3 }],
    intervalMs: 1000,
    startedAt: T0 - 20_000,
    verdict: 'deviated',
    reason: 'p95',
    exitCode: 1,
    measurements,
    events: [],
    timings: { injectedAt: T0, stoppedAt: T0 + 9_000 },
    complete: true,
  };
}

/** The chart's Mermaid lines, parsed: axis ranges and each series by title. */
function parse(md: string): {
  x: [number, number];
  y: [number, number];
  series: Map<string, { kind: string; values: number[] }>;
  note: string;
} {
  const block = md.slice(md.indexOf('```mermaid'), md.indexOf('```', md.indexOf('```mermaid') + 3));
  const range = (axis: string): [number, number] => {
    const r = new RegExp(`${axis} "[^"]*" (-?[\\d.]+) --> (-?[\\d.]+)`).exec(block);
    if (!r) throw new Error(`no numeric ${axis}:\n${block}`);
    return [Number(r[1]), Number(r[2])];
  };
  const series = new Map<string, { kind: string; values: number[] }>();
  for (const s of block.matchAll(/^ {2}(line|bar) "([^"]+)" \[([^\]]*)\]$/gm))
    series.set(s[2] ?? '', { kind: s[1] ?? '', values: (s[3] ?? '').split(', ').map(Number) });
  const after = md.slice(md.indexOf('```', md.indexOf('```mermaid') + 3));
  return { x: range('x-axis'), y: range('y-axis'), series, note: after.split('\n')[2] ?? '' };
}

describe('the summary chart', () => {
  it('puts every value at its time on a numeric axis: the k-th point is at min + k × step', () => {
    const chart = parse(renderSummary(journal()));
    expect(chart.x).toEqual([-13, 12]);
    const values = chart.series.get('p95_latency_s')?.values ?? [];
    expect(values).toHaveLength(12 + 13 + 1); // one per second from -13 to +12
    const valueAt = (t: number): number | undefined => values[t - chart.x[0]];
    expect(valueAt(-13)).toBe(0.09);
    expect(valueAt(1)).toBe(0.1);
    expect(valueAt(2)).toBe(0.62);
    // The gap from +3 s to +7 s repeats the last reading (and the note says so); +8 s is where it was read.
    expect(valueAt(5)).toBe(0.62);
    expect(valueAt(8)).toBe(0.3);
    expect(valueAt(12)).toBe(0.09);
    expect(chart.note).toContain('one point every 1.0 s');
    expect(chart.note).toContain('a step without a reading repeats the previous value');
  });

  it('draws the bound and the abort threshold as named series, the bound tighter in the steady state', () => {
    const chart = parse(renderSummary(journal()));
    const bound = chart.series.get('bound <= 0.18')?.values ?? [];
    expect(bound[0]).toBe(0.11);
    expect(bound[13 + 1]).toBe(0.18);
    const abort = chart.series.get('abort > 0.5')?.values ?? [];
    expect(new Set(abort)).toEqual(new Set([0.5]));
    expect(abort).toHaveLength(26);
    expect(chart.y[0]).toBeLessThan(0.09);
    expect(chart.y[1]).toBeGreaterThan(0.62);
    expect(chart.note).toContain('red: abort > 0.5 (abort threshold)');
  });

  it('shades the fault window, from the injection to the stop, with bars to the top of the axis', () => {
    const chart = parse(renderSummary(journal()));
    const bars = chart.series.get('fault window');
    expect(bars?.kind).toBe('bar');
    const inWindow = (bars?.values ?? []).flatMap((v, k) => (v === chart.y[1] ? [chart.x[0] + k] : []));
    expect(inWindow).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect((bars?.values ?? []).filter((v) => v !== chart.y[1]).every((v) => v === chart.y[0])).toBe(true);
    expect(chart.note).toContain('shaded: the fault window (+0.0 s to +9.0 s)');
  });

  it('writes numbers Mermaid parses (no exponents) and declares the fault window before the lines', () => {
    const j = journal();
    for (const x of j.measurements) x.slis.p95_latency_s!.value! /= 1e7;
    j.abortRules[0]!.threshold = 5e-8;
    const md = renderSummary(j);
    const block = md.slice(md.indexOf('```mermaid'), md.indexOf('```', md.indexOf('```mermaid') + 3));
    // Outside quoted titles, every number is digits and a point: the grammar has no exponent.
    expect(block.replace(/"[^"]*"/g, '""').replace(/%%\{.*\}%%/, '')).not.toMatch(/\de[-+]?\d/);
    const order = [...block.matchAll(/^ {2}(line|bar) "([^"]+)"/gm)].map((s) => s[2]);
    expect(order[0]).toBe('fault window');
  });

  it('chooses a grid step of at least the interval that keeps a long run within 61 points', () => {
    expect(chartGrid(-300, 900, 1)).toEqual({ from: -300, step: 20, count: 61 });
    expect(chartGrid(-4.5, 3.2, 0.5)).toEqual({ from: -4.5, step: 0.5, count: 17 });
    expect(chartGrid(0, 0, 1)).toEqual({ from: 0, step: 1, count: 2 });
  });
});
