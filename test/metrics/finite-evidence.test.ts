/**
 * The finite rule behind every source: an `ok` reading carrying NaN or ±Inf (a source that broke its
 * contract) is no-data wherever readings are gathered — `readAll` (what `chaos-gate measure` reads
 * through) and `statusOf` (its verdict per SLI) — while every other reading passes untouched.
 */
import { describe, expect, it } from 'vitest';
import { statusOf } from '../../src/engine/bounds.js';
import { readAll } from '../../src/metrics/index.js';
import { finiteOnly, type MetricSource, type Reading } from '../../src/metrics/source.js';

const ok = (value: number): Reading => ({ name: 'a', value, status: 'ok', query: 'q' });

describe('finiteOnly', () => {
  it.each([
    [-Infinity, '-Inf'],
    [Infinity, '+Inf'],
    [NaN, 'NaN'],
  ])('turns an ok %s into no-data saying what it was', (value, text) => {
    expect(finiteOnly(ok(value))).toEqual({
      name: 'a',
      value: null,
      status: 'no-data',
      query: 'q',
      error: `the source's value is ${text}, not a finite number`,
    });
  });

  it('keeps a finite ok reading, and a no-data or error reading with its own reason', () => {
    expect(finiteOnly(ok(0.25))).toEqual(ok(0.25));
    const stale: Reading = { name: 'a', value: null, status: 'no-data', query: 'q', error: 'stale: …' };
    expect(finiteOnly(stale)).toBe(stale);
    const failed: Reading = { name: 'a', value: null, status: 'error', query: 'q', error: 'HTTP 500' };
    expect(finiteOnly(failed)).toBe(failed);
  });
});

describe('readAll and statusOf', () => {
  it('never report a leaked -Inf as ok against a max bound', async () => {
    const leaky: MetricSource = {
      kind: 'scrape',
      read: (qs) => Promise.resolve(qs.map(() => ok(-Infinity))),
    };
    const [r] = await readAll(
      { scrape: leaky },
      [{ name: 'a', spec: { scrape: { url: 'http://x', gauge: 'g' } } as never }],
      0,
      1000,
    );
    expect(r).toMatchObject({ status: 'no-data', value: null });
    expect(statusOf(ok(-Infinity), { max: 0.5 })).toBe('no-data');
    expect(statusOf(ok(NaN), { min: 0.5 })).toBe('no-data');
    expect(statusOf(ok(0.4), { max: 0.5 })).toBe('ok');
    expect(statusOf(ok(0.6), { max: 0.5 })).toBe('breach');
  });
});
