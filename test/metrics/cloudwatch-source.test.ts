/**
 * The CloudWatch source reads complete periods only (issue 12.4), exercised through the real SDK client
 * against the sandbox's CloudWatch stand-in on loopback HTTP, with a fake clock and a publisher that
 * behaves like AWS ingestion: each second's figures become readable some time after the second ends.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { CloudWatchSourceImpl } from '../../src/metrics/cloudwatch/index.js';
import type { Query, Reading } from '../../src/metrics/source.js';
import type { CloudWatchSource } from '../../src/plan/schema.js';
import { startStandIn, type StandInHarness } from '../sandbox/cloudwatch-harness.js';

const S = 1000;
/** A whole minute: 5 s periods start at T0 + 0, 5, 10, … */
const T0 = Date.UTC(2026, 1, 1, 10, 0, 0);
const NS = 'Shop/Checkout';
const DIMS = { Service: 'checkout' };
const REQUESTS_PER_SECOND = 100;
const ERRORS_PER_SECOND = 1;
/** Each second has its own latency so that "which periods were read" shows in the value. */
const latencyOf = (second: number): number => 100 + (second % 7) * 10;

function metric(metricName: string, stat: string, extra: Partial<CloudWatchSource> = {}): CloudWatchSource {
  return { namespace: NS, metricName, dimensions: DIMS, stat, period: 5 * S, ...extra } as CloudWatchSource;
}

const requests = (extra: Partial<CloudWatchSource> = {}): Query => ({
  name: '__requests',
  spec: { cloudwatch: metric('RequestCount', 'Sum', extra) },
});

const errorRatio: Query = {
  name: 'error_ratio',
  spec: {
    cloudwatch: {
      expression: 'errors / requests',
      metrics: {
        errors: { namespace: NS, metricName: 'ErrorCount', dimensions: DIMS, stat: 'Sum' },
        requests: { namespace: NS, metricName: 'RequestCount', dimensions: DIMS, stat: 'Sum' },
      },
      period: 5 * S,
    },
  },
};

let h: StandInHarness;
let source: CloudWatchSourceImpl;
/** Seconds (ms since the epoch) published so far. */
let published: Set<number>;

beforeAll(async () => {
  h = await startStandIn(T0);
});
afterAll(async () => {
  await h.close();
});
afterEach(() => {
  h.exchanges.length = 0;
});

/**
 * A fresh stand-in per test would be cleaner, but one is enough when every test publishes into its own
 * stretch of time: `from` is where this test's traffic starts.
 */
function resetPublisher(): void {
  published = new Set();
  source = new CloudWatchSourceImpl(h.client);
}

/**
 * Moves the clock to `t`, first publishing every second in [from, …) whose figures have arrived by `t`:
 * a second's data is stamped at its start and becomes readable `lagMs` after the second ends.
 */
function advanceTo(t: number, from: number, lagMs: number): void {
  for (let second = from; second + S + lagMs <= t; second += S) {
    if (published.has(second)) continue;
    published.add(second);
    const put = (metricName: string, value: number) =>
      h.cw.putDatum({
        namespace: NS,
        metricName,
        dimensions: DIMS,
        value,
        timestamp: second,
        storageResolution: 1,
      });
    put('RequestCount', REQUESTS_PER_SECOND);
    put('ErrorCount', ERRORS_PER_SECOND);
    put('Latency', latencyOf(second / S));
  }
  h.clock.t = t;
}

/** The `[start, end)` a reading says it covers. */
function windowOf(r: Reading): { start: number; end: number } {
  const m = /over \[(\S+), (\S+)\)/.exec(r.query);
  if (!m?.[1] || !m[2]) throw new Error(`the reading does not record its window: ${r.query}`);
  return { start: Date.parse(m[1]), end: Date.parse(m[2]) };
}

async function readOne(q: Query, at: number, windowMs = S): Promise<Reading> {
  const [r] = await source.read([q], at, windowMs);
  if (!r) throw new Error('no reading');
  return r;
}

describe('CloudWatch readings cover complete periods', () => {
  it('reads every request of a 5 s period at any moment, when data arrives within the default 5 s allowance', async () => {
    resetPublisher();
    const from = T0;
    const lagMs = 3 * S;
    // Sample every 100 ms across four periods, once traffic has filled a period past the allowance.
    for (let at = from + 15 * S; at < from + 35 * S; at += 100) {
      advanceTo(at, from, lagMs);
      const r = await readOne(requests(), at);
      const label = `at +${at - from} ms: ${r.query}`;
      expect(r.status, label).toBe('ok');
      expect(r.value, label).toBe(5 * REQUESTS_PER_SECOND);
      const w = windowOf(r);
      expect(w.end - w.start, label).toBe(5 * S);
      expect(w.end % (5 * S), label).toBe(0);
      expect(w.end, label).toBeLessThanOrEqual(at - 5 * S);
      expect(w.end, label).toBeGreaterThan(at - 10 * S);
    }
  });

  it('sends the window as StartTime/EndTime of one GetMetricData call', async () => {
    resetPublisher();
    const at = T0 + 60 * S + 12_345;
    advanceTo(at, T0 + 60 * S, 0);
    h.exchanges.length = 0;
    await readOne(requests(), at);
    const calls = h.exchanges.filter((e) => e.operation === 'GetMetricData');
    expect(calls).toHaveLength(1);
    const body = JSON.parse(calls[0]?.requestBody ?? '{}') as { StartTime: number; EndTime: number };
    // 12.345 s past the minute − 5 s allowance = 7.345 s → the period 0–5 s past the minute.
    expect(body.StartTime * S).toBe(T0 + 60 * S);
    expect(body.EndTime * S).toBe(T0 + 65 * S);
  });

  it('misses requests when the allowance is shorter than the ingestion delay (why the allowance exists)', async () => {
    resetPublisher();
    const from = T0 + 2 * 60 * S;
    const lagMs = 3 * S;
    const tooShort: number[] = [];
    const enough: number[] = [];
    for (let at = from + 15 * S; at < from + 25 * S; at += 100) {
      advanceTo(at, from, lagMs);
      tooShort.push((await readOne(requests({ ingestionDelay: 0 }), at)).value ?? 0);
      // The period's last second arrives lag + 0 s after the period ends: an allowance of 3 s suffices.
      enough.push((await readOne(requests({ ingestionDelay: 3 * S }), at)).value ?? 0);
    }
    expect(Math.min(...tooShort)).toBeLessThan(0.85 * 5 * REQUESTS_PER_SECOND);
    expect(new Set(enough)).toEqual(new Set([5 * REQUESTS_PER_SECOND]));
  });

  it('reads the SLIs and the request count in one call over one window', async () => {
    resetPublisher();
    const from = T0 + 3 * 60 * S;
    const at = from + 17_500;
    advanceTo(at, from, 0);
    h.exchanges.length = 0;
    const latency: Query = { name: 'p95', spec: { cloudwatch: metric('Latency', 'Maximum') } };
    const readings = await source.read([requests(), errorRatio, latency], at, S);
    expect(h.exchanges.filter((e) => e.operation === 'GetMetricData')).toHaveLength(1);
    const windows = readings.map((r) => JSON.stringify(windowOf(r)));
    expect(new Set(windows).size).toBe(1);
    // 17.5 s − 5 s = 12.5 s → the period 5–10 s past `from`.
    expect(windowOf(readings[0] as Reading)).toEqual({ start: from + 5 * S, end: from + 10 * S });
    expect(readings.map((r) => [r.name, r.status, r.value])).toEqual([
      ['__requests', 'ok', 500],
      ['error_ratio', 'ok', ERRORS_PER_SECOND / REQUESTS_PER_SECOND],
      ['p95', 'ok', Math.max(...[5, 6, 7, 8, 9].map((k) => latencyOf((from + k * S) / S)))],
    ]);
    expect(readings[0]?.query).toContain('ingestion allowance 5s');
  });

  it('waits for the slowest query: a 60 s request count moves every reading to the complete minute', async () => {
    resetPublisher();
    const from = T0 + 4 * 60 * S;
    const at = from + 60 * S + 10 * S;
    advanceTo(at, from, 0);
    const readings = await source.read(
      [requests({ period: 60 * S, ingestionDelay: 5 * S }), errorRatio],
      at,
      S,
    );
    expect(readings.map((r) => windowOf(r))).toEqual([
      { start: from, end: from + 60 * S },
      // Metric math does not combine across periods: it reads the newest 5 s of that minute.
      { start: from + 55 * S, end: from + 60 * S },
    ]);
    expect(readings[0]?.value).toBe(60 * REQUESTS_PER_SECOND);
    expect(readings[1]?.query).toContain(
      'newest of 12 periods (metric math does not combine across periods)',
    );
  });

  it('combines the periods of a longer window where the statistic allows it', async () => {
    resetPublisher();
    const from = T0 + 6 * 60 * S;
    const at = from + 25 * S;
    advanceTo(at, from, 0);
    const latency = (stat: string): Query => ({ name: stat, spec: { cloudwatch: metric('Latency', stat) } });
    const [sum, max, min, avg] = await source.read(
      [requests(), latency('Maximum'), latency('Minimum'), latency('Average')],
      at,
      15 * S,
    );
    // 25 s − 5 s = 20 s → the window 5–20 s past `from`: three 5 s periods.
    const seconds = Array.from({ length: 15 }, (_, k) => latencyOf((from + (5 + k) * S) / S));
    expect(windowOf(sum as Reading)).toEqual({ start: from + 5 * S, end: from + 20 * S });
    expect(sum?.value).toBe(15 * REQUESTS_PER_SECOND);
    expect(sum?.query).toContain('3 periods added');
    expect(max?.value).toBe(Math.max(...seconds));
    expect(max?.query).toContain('highest');
    expect(min?.value).toBe(Math.min(...seconds));
    // An average of averages is not the window's average: only the newest period is read, and said so.
    const newest = seconds.slice(10);
    expect(avg?.value).toBeCloseTo(newest.reduce((a, b) => a + b, 0) / newest.length, 9);
    expect(windowOf(avg as Reading)).toEqual({ start: from + 15 * S, end: from + 20 * S });
    expect(avg?.query).toContain('newest of 3 periods (Average does not combine across periods)');
  });

  it('adds up the daily periods of a 28-day budget window, and nothing outside it', async () => {
    resetPublisher();
    const D = 24 * 3600 * S;
    const at = T0 + 7 * 60 * S + 42 * S;
    h.clock.t = at;
    // Default 2 min allowance for a 1-day period; a start 28 days back is rounded to 5 minutes.
    const end = T0 + 5 * 60 * S;
    const start = end - 28 * D;
    const put = (timestamp: number, value: number) =>
      h.cw.putDatum({ namespace: NS, metricName: 'BudgetTotal', dimensions: DIMS, value, timestamp });
    for (let day = 0; day < 28; day++) put(start + day * D + 3600 * S, 1000 + day);
    put(start - 3600 * S, 1e6); // before the window
    put(end + 60 * S, 1e6); // after it: inside the allowance, not yet complete
    const total: Query = {
      name: 'budget.total',
      spec: { cloudwatch: metric('BudgetTotal', 'Sum', { period: D }) },
    };
    const [r] = await source.read([total], at, 28 * D);
    expect(windowOf(r as Reading)).toEqual({ start, end });
    expect(r?.value).toBe(28 * 1000 + (27 * 28) / 2);
    expect(r?.query).toContain('28 periods added, ingestion allowance 2m');
  });

  it('is no-data, not zero, when the complete period holds no datapoint, and says so', async () => {
    resetPublisher();
    const from = T0 + 8 * 60 * S;
    // Traffic starts at `from`; 6 s later the newest complete period (before `from`) is empty.
    advanceTo(from + 6 * S, from, 0);
    const r = await readOne(requests(), from + 6 * S);
    expect(windowOf(r)).toEqual({ start: from - 5 * S, end: from });
    expect(r).toMatchObject({ status: 'no-data', value: null });
    expect(r.error).toBe(
      `no datapoints in [${new Date(from - 5 * S).toISOString()}, ${new Date(from).toISOString()})`,
    );
  });

  it('does not send a sub-minute period over a window older than its 3-hour retention, and says why', async () => {
    resetPublisher();
    h.exchanges.length = 0;
    const r = await readOne(requests(), T0 + 9 * 60 * S, 4 * 3600 * S);
    expect(r.status).toBe('error');
    // 4 h window + the 5 s allowance = 14405 s back.
    expect(r.error).toBe(
      'CloudWatch keeps sub-minute data only 3 hours; older data as 1-minute datapoints, so a period of 5 s cannot read a window that starts 14405 s back; use a multiple of 60 s',
    );
    expect(h.exchanges).toHaveLength(0);
  });

  it('keeps the window in the reading when the call fails', async () => {
    resetPublisher();
    const at = T0 + 10 * 60 * S;
    const bad: Query = { name: 'bad', spec: { cloudwatch: metric('Latency', 'NotAStatistic') } };
    const [r] = await source.read([bad], at, S);
    expect(r?.status).toBe('error');
    expect(r?.error).toMatch(/^GetMetricData failed: /);
    expect(windowOf(r as Reading)).toEqual({ start: at - 10 * S, end: at - 5 * S });
  });
});
