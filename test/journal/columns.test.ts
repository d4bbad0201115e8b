/**
 * The compact store of every measurement and the bounded view of them (src/journal/columns.ts): what
 * goes in comes out, field for field; the sample stays bounded and keeps every phase's ends; the
 * summary's buckets stay within their budget and keep every extreme and every count.
 */
import { describe, expect, it } from 'vitest';
import {
  MAX_KEPT_MEASUREMENTS,
  MAX_SUMMARY_BUCKETS,
  MeasurementColumns,
  MeasurementDigest,
} from '../../src/journal/columns.js';
import type { Measurement, Phase, SliValue } from '../../src/journal/types.js';

/** A deterministic run: steady, fault, recovery; readings of every status, some without a value. */
function measurements(n: number): Measurement[] {
  const out: Measurement[] = [];
  for (let i = 0; i < n; i++) {
    const phase: Phase = i < n * 0.1 ? 'steady' : i < n * 0.9 ? 'fault' : 'recovery';
    const a: SliValue =
      i % 97 === 5
        ? { value: null, status: 'no-data', query: 'sum(up)', error: `empty result ${i % 3}` }
        : {
            value: 0.99 + ((i * 7919) % 1000) / 100_000 - (i === 1234 ? 0.5 : 0),
            status: i % 13 === 0 ? 'breach' : 'ok',
            bound: phase === 'fault' ? '>= 0.99' : '>= 0.995',
            query: 'sum(up)',
          };
    const m: Measurement = {
      at: 1_000_000 + i * 1000,
      windowMs: 1000,
      phase,
      requests: i % 50 === 0 ? null : 800 + (i % 7),
      slis: { a },
    };
    if (i % 11 !== 0) m.slis.b = { value: i, status: 'error', query: 'b', error: 'timeout' };
    if (phase === 'fault') m.expect = { open: { value: i % 2, status: i % 2 ? 'ok' : 'breach', query: 'o' } };
    out.push(m);
  }
  return out;
}

describe('MeasurementColumns', () => {
  it('gives back every measurement as it was added: values, nulls, statuses, bounds, queries, errors, expectations', () => {
    const ms = measurements(3000);
    const c = new MeasurementColumns();
    for (const m of ms) c.add(m);
    expect(c.length).toBe(ms.length);
    expect([...c]).toEqual(ms);
    expect(c.get(1234)).toEqual(ms[1234]);
    expect(() => c.get(3000)).toThrow(RangeError);
  });
});

describe('MeasurementDigest', () => {
  const ms = measurements(20_000);
  const d = new MeasurementDigest(
    { slis: ['a', 'b'], expectations: ['open'] },
    { intervalMs: 1000, keepAll: true },
  );
  for (const m of ms) d.add(m);
  const kept = d.kept();
  const summary = d.summary();

  it('keeps at most 1 000 whole measurements, in order, with the first and last of every phase', () => {
    expect(kept.length).toBeLessThanOrEqual(MAX_KEPT_MEASUREMENTS + 1);
    expect(kept.length).toBeGreaterThan(MAX_KEPT_MEASUREMENTS / 2);
    expect(kept.map((m) => m.at)).toEqual([...kept.map((m) => m.at)].sort((x, y) => x - y));
    for (const phase of ['steady', 'fault', 'recovery'] as const) {
      const all = ms.filter((m) => m.phase === phase);
      const some = kept.filter((m) => m.phase === phase);
      expect(some[0]).toBe(all[0]);
      expect(some.at(-1)).toBe(all.at(-1));
    }
    expect(d.sampled).toBe(true);
    expect(summary.kept).toBe(kept.length);
  });

  it('summarises every measurement within 400 buckets a series, keeping the extremes and the counts', () => {
    expect(summary.measurements).toBe(ms.length);
    expect(summary.phases).toEqual({
      preflight: 0,
      steady: ms.filter((m) => m.phase === 'steady').length,
      fault: ms.filter((m) => m.phase === 'fault').length,
      recovery: ms.filter((m) => m.phase === 'recovery').length,
    });
    expect(summary.lastSteadyAt).toBe(ms.filter((m) => m.phase === 'steady').at(-1)?.at);
    const a = summary.series.find((s) => s.name === 'a' && s.kind === 'sli');
    expect(a?.buckets.length).toBeLessThanOrEqual(MAX_SUMMARY_BUCKETS);
    const values = ms.flatMap((m) => (typeof m.slis.a?.value === 'number' ? [m.slis.a.value] : []));
    expect(Math.min(...(a?.buckets ?? []).map((b) => b[2] ?? Infinity))).toBe(Math.min(...values));
    expect(Math.max(...(a?.buckets ?? []).map((b) => b[3] ?? -Infinity))).toBe(Math.max(...values));
    const sum = (i: 1 | 4 | 5): number => (a?.buckets ?? []).reduce((n, b) => n + b[i], 0);
    expect(sum(1)).toBe(ms.length);
    expect(sum(4)).toBe(ms.filter((m) => m.slis.a?.status === 'breach').length);
    expect(sum(5)).toBe(ms.filter((m) => m.slis.a?.status === 'no-data').length);
    // A measurement without the series counts as no data for it.
    const b = summary.series.find((s) => s.name === 'b');
    expect((b?.buckets ?? []).reduce((n, x) => n + x[5], 0)).toBe(ms.length);
    for (const bucket of a?.buckets ?? []) expect((bucket[0] - 1_000_000) % summary.bucketMs).toBe(0);
  });

  it('keeps everything, and no summary is needed, while a run is short', () => {
    const short = new MeasurementDigest(
      { slis: ['a'], expectations: [] },
      { intervalMs: 1000, keepAll: false },
    );
    const few = measurements(MAX_KEPT_MEASUREMENTS);
    for (const m of few) short.add(m);
    expect(short.kept()).toEqual(few);
    expect(short.sampled).toBe(false);
    expect(short.columns).toBeUndefined();
  });
});
