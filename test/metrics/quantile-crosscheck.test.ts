/**
 * Cross-check: the same histogram buckets go to the scrape source's quantile (through the whole path:
 * HTTP, parser, selector, bucket increases, interpolation) and to a real Prometheus's histogram_quantile
 * over a scraped fixture. They must agree on every case, including the awkward ones.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ScrapeMetricSource } from '../../src/metrics/scrape/source.js';
import type { Query } from '../../src/metrics/source.js';
import {
  prometheusSkipReason,
  rawQuery,
  startPrometheus,
  waitForSeries,
  type PrometheusServer,
} from '../helpers/prometheus.js';
import { startTrafficServer, type TrafficServer } from '../helpers/traffic-server.js';

/** Case → series (extra labels and `le`) → cumulative count. */
const CASES: Record<string, { labels?: string; le: string; count: number }[]> = {
  // An ordinary latency histogram.
  typical: [
    { le: '0.025', count: 10 },
    { le: '0.05', count: 16 },
    { le: '0.1', count: 18 },
    { le: '0.25', count: 18 },
    { le: '0.5', count: 20 },
    { le: '+Inf', count: 20 },
  ],
  // Counts that decrease (buckets read while requests complete): made monotonic first.
  nonmonotonic: [
    { le: '0.1', count: 45 },
    { le: '0.5', count: 40 },
    { le: '1', count: 100 },
    { le: '+Inf', count: 100 },
  ],
  // Most observations above the highest finite bound: the tail returns that bound.
  overflow: [
    { le: '1', count: 50 },
    { le: '5', count: 60 },
    { le: '+Inf', count: 100 },
  ],
  // Negative and zero bounds: the first bucket's upper bound is returned as is.
  negative: [
    { le: '-1', count: 5 },
    { le: '0', count: 8 },
    { le: '2', count: 9 },
    { le: '+Inf', count: 10 },
  ],
  // No observations: NaN (no-data).
  empty: [
    { le: '1', count: 0 },
    { le: '+Inf', count: 0 },
  ],
  // An empty first bucket, where q = 0 divides zero by zero.
  emptyfirst: [
    { le: '0.1', count: 0 },
    { le: '0.2', count: 4 },
    { le: '+Inf', count: 4 },
  ],
  // Two series whose bounds are written differently (1 and 1.0): coalesced after summing by le.
  coalesced: [
    { labels: 'pod="a",', le: '1', count: 3 },
    { labels: 'pod="a",', le: '2', count: 6 },
    { labels: 'pod="a",', le: '+Inf', count: 7 },
    { labels: 'pod="b",', le: '1.0', count: 4 },
    { labels: 'pod="b",', le: '2.0', count: 4 },
    { labels: 'pod="b",', le: '+Inf', count: 9 },
  ],
  // Unsorted exposition order.
  unsorted: [
    { le: '+Inf', count: 30 },
    { le: '0.5', count: 12 },
    { le: '0.05', count: 3 },
    { le: '2', count: 29 },
  ],
};

const QUANTILES = [0, 0.01, 0.25, 0.5, 0.75, 0.9, 0.95, 0.99, 1];

function exposition(zero: boolean): string {
  const lines = ['# TYPE fixture_seconds histogram'];
  for (const [name, series] of Object.entries(CASES)) {
    for (const s of series) {
      lines.push(
        `fixture_seconds_bucket{${s.labels ?? ''}case="${name}",le="${s.le}"} ${zero ? 0 : s.count}`,
      );
    }
  }
  return lines.join('\n') + '\n';
}

function promValue(text: string): number {
  return text === '+Inf' ? Infinity : text === '-Inf' ? -Infinity : Number(text);
}

describe.skipIf(prometheusSkipReason !== undefined)(
  `scrape quantile agrees with Prometheus histogram_quantile${prometheusSkipReason ? ` (skipped: ${prometheusSkipReason})` : ''}`,
  () => {
    let server: TrafficServer;
    let prom: PrometheusServer;

    beforeAll(async () => {
      server = await startTrafficServer({ batch: [], buckets: [] });
      server.setFixture('/fixture', exposition(false));
      prom = await startPrometheus([{ name: 'fixture', target: server.target, path: '/fixture' }]);
      await waitForSeries(prom.url, 'fixture_seconds_bucket', Object.values(CASES).flat().length);
    });

    afterAll(async () => {
      await prom?.stop();
      await server?.close();
    });

    it('gives the same value (or the same NaN) for every case and quantile', async () => {
      const queries: Query[] = [];
      for (const name of Object.keys(CASES)) {
        for (const q of QUANTILES) {
          queries.push({
            name: `${name}@${q}`,
            spec: {
              scrape: {
                url: `${server.origin}/scrape`,
                quantile: { q, histogram: `fixture_seconds{case="${name}"}` },
              },
            },
          });
        }
      }
      const scrape = new ScrapeMetricSource({ env: {} });
      server.setFixture('/scrape', exposition(true));
      await scrape.read(queries, 0, 1000);
      server.setFixture('/scrape', exposition(false));
      const readings = await scrape.read(queries, 1000, 1000);

      const compared: string[] = [];
      for (const [i, query] of queries.entries()) {
        const [name, q] = query.name.split('@') as [string, string];
        const body = (await rawQuery(
          prom.url,
          `histogram_quantile(${q}, sum by (le) (fixture_seconds_bucket{case="${name}"}))`,
        )) as { data: { result: { value: [number, string] }[] } };
        const expected = promValue(body.data.result[0]?.value[1] ?? 'missing');
        const reading = readings[i];
        if (Number.isNaN(expected)) {
          expect(reading?.status, query.name).toBe('no-data');
        } else {
          expect(reading?.status, query.name).toBe('ok');
          expect(reading?.value, query.name).toBeCloseTo(expected, 12);
        }
        compared.push(query.name);
      }
      expect(compared).toHaveLength(Object.keys(CASES).length * QUANTILES.length);
    });
  },
);
