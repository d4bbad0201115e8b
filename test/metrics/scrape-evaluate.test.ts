/**
 * What the scrape source computes from two parsed scrapes, without HTTP (`evaluateScrape`): counter
 * increases and their resets, ratios, rates, gauges and histogram quantiles, and the no-data and error
 * readings each one gives when the window cannot answer.
 */
import { describe, expect, it } from 'vitest';
import { parseExposition } from '../../src/metrics/scrape/exposition.js';
import {
  describeScrape,
  evaluateScrape,
  snapshotOf,
  type Snapshot,
} from '../../src/metrics/scrape/source.js';
import type { ScrapeSource as ScrapeSpec } from '../../src/plan/schema.js';

const URL = 'http://app/metrics';

/** A snapshot of the Prometheus text `lines` taken at `at` ms. */
const snap = (at: number, ...lines: string[]): Snapshot =>
  snapshotOf(parseExposition(`${lines.join('\n')}\n`, URL, 'text'), at);
/** The same, served as OpenMetrics (`# EOF` added). */
const omSnap = (at: number, ...lines: string[]): Snapshot =>
  snapshotOf(parseExposition(`${[...lines, '# EOF'].join('\n')}\n`, URL, 'openmetrics'), at);

const spec = (s: Omit<ScrapeSpec, 'url'>): ScrapeSpec => ({ url: URL, ...s }) as ScrapeSpec;
const increase = (selector: string) => spec({ increase: selector });

describe('counter increases between two scrapes', () => {
  it('adds the increase of every matching series, a new series counting from zero', () => {
    const before = snap(0, 'req_total{code="200"} 100', 'req_total{code="500"} 4');
    const after = snap(
      1000,
      'req_total{code="200"} 130',
      'req_total{code="500"} 4',
      'req_total{code="503"} 2',
    );
    expect(evaluateScrape(increase('req_total'), before, after)).toEqual({ value: 32, status: 'ok' });
    expect(evaluateScrape(increase('req_total{code=~"5.."}'), before, after)).toEqual({
      value: 2,
      status: 'ok',
    });
  });

  it('reads an unchanged counter as 0, a lower one as a reset to its new value', () => {
    const before = snap(0, 'a_total 10', 'b_total 10');
    const after = snap(1000, 'a_total 10', 'b_total 9');
    expect(evaluateScrape(increase('a_total'), before, after)).toEqual({ value: 0, status: 'ok' });
    expect(evaluateScrape(increase('b_total'), before, after)).toEqual({ value: 9, status: 'ok' });
  });

  it('matches series by their whole label set, whatever the order the labels are written in', () => {
    const before = snap(0, 'req_total{a="1",b="2"} 10', 'req_total{a="1",b="3"} 50');
    const after = snap(1000, 'req_total{b="2",a="1"} 15', 'req_total{b="3",a="1"} 50');
    expect(evaluateScrape(increase('req_total'), before, after)).toEqual({ value: 5, status: 'ok' });
  });

  it('sees a restart hidden by a higher value in a changed _created, for _total, _count, _sum and _bucket', () => {
    const family = (total: number, created: number) => [
      '# TYPE jobs counter',
      `jobs_total ${total}`,
      `jobs_created ${created}`,
      '# TYPE lat histogram',
      `lat_bucket{le="1"} ${total}`,
      `lat_bucket{le="+Inf"} ${total}`,
      `lat_count ${total}`,
      `lat_sum ${total}`,
      `lat_created ${created}`,
    ];
    const before = omSnap(0, ...family(100, 1700000000));
    const restarted = omSnap(1000, ...family(150, 1700000500));
    const steady = omSnap(1000, ...family(150, 1700000000));
    for (const selector of ['jobs_total', 'lat_count', 'lat_sum', 'lat_bucket{le="1"}']) {
      expect(evaluateScrape(increase(selector), before, restarted), selector).toEqual({
        value: 150,
        status: 'ok',
      });
      expect(evaluateScrape(increase(selector), before, steady), selector).toEqual({
        value: 50,
        status: 'ok',
      });
    }
  });

  it('ignores _created when either scrape lacks it, and for a series that has none', () => {
    const before = snap(0, 'jobs_total 100', 'other_total 10');
    const withCreated = snap(1000, 'jobs_total 150', 'jobs_created 1700000500', 'other_total 12');
    expect(evaluateScrape(increase('jobs_total'), before, withCreated)).toEqual({ value: 50, status: 'ok' });
    const both = snap(0, 'jobs_total 100', 'jobs_created 1', 'other_total 10');
    const later = snap(1000, 'jobs_total 150', 'jobs_created 1', 'other_total 12');
    expect(evaluateScrape(increase('other_total'), both, later)).toEqual({ value: 2, status: 'ok' });
    // A gauge-like name with no counter suffix never looks up a _created.
    const g0 = snap(0, 'queue 5', 'queue_created 1');
    const g1 = snap(1000, 'queue 7', 'queue_created 2');
    expect(evaluateScrape(increase('queue'), g0, g1)).toEqual({ value: 2, status: 'ok' });
  });

  it('counts a series whose _created appears only now as continuing, not as restarted', () => {
    const before = snap(0, 'jobs_total 100', 'other_total 1', 'other_created 5');
    const after = snap(1000, 'jobs_total 150', 'jobs_created 9', 'other_total 2', 'other_created 5');
    expect(evaluateScrape(increase('jobs_total'), before, after)).toEqual({ value: 50, status: 'ok' });
  });

  it('divides the increase by the seconds between the scrapes for a rate', () => {
    const before = snap(10_000, 'req_total 100');
    expect(evaluateScrape(spec({ rate: 'req_total' }), before, snap(12_500, 'req_total 150'))).toEqual({
      value: 20,
      status: 'ok',
    });
    expect(evaluateScrape(spec({ rate: 'req_total' }), before, snap(10_000, 'req_total 150'))).toEqual({
      value: null,
      status: 'no-data',
      error: 'the two scrapes have the same time',
    });
    expect(evaluateScrape(spec({ rate: 'req_total' }), before, snap(9_000, 'req_total 150')).status).toBe(
      'no-data',
    );
  });

  it('is no-data on the first scrape and when no series match, naming the selector', () => {
    const now = snap(0, 'req_total 1');
    expect(evaluateScrape(increase('req_total'), undefined, now)).toEqual({
      value: null,
      status: 'no-data',
      error: 'first scrape: the window starts here and is measured at the next tick',
    });
    expect(evaluateScrape(increase('reqs_total'), now, now)).toEqual({
      value: null,
      status: 'no-data',
      error: 'no series match reqs_total',
    });
    expect(evaluateScrape(spec({ rate: 'reqs_total' }), now, now).error).toBe('no series match reqs_total');
  });

  it('reads a selector without a metric name across every metric', () => {
    const before = snap(0, 'a_total{job="x"} 1', 'b_total{job="x"} 1', 'c_total{job="y"} 1');
    const after = snap(1000, 'a_total{job="x"} 3', 'b_total{job="x"} 4', 'c_total{job="y"} 9');
    expect(evaluateScrape(increase('{job="x"}'), before, after)).toEqual({ value: 5, status: 'ok' });
  });

  it('is no-data when the increase is NaN or infinite', () => {
    const before = snap(0, 'x_total 1');
    expect(evaluateScrape(increase('x_total'), before, snap(1000, 'x_total NaN'))).toEqual({
      value: null,
      status: 'no-data',
      error: 'the value is NaN, not a finite number',
    });
    expect(evaluateScrape(increase('x_total'), before, snap(1000, 'x_total +Inf'))).toEqual({
      value: null,
      status: 'no-data',
      error: 'the value is +Inf, not a finite number',
    });
  });

  it('is no-data when a sample is stamped ahead of the scrape beyond the tolerance, or before the window', () => {
    const before = snap(10_000, 'x_total 1');
    // 12 s after the scrape at 20 s: from the future.
    expect(evaluateScrape(increase('x_total'), before, snap(20_000, 'x_total 5 32000'))).toEqual({
      value: null,
      status: 'no-data',
      error:
        'from the future: a sample is stamped 1970-01-01T00:00:32.000Z, 12.0 s after the scrape; tolerance 1.0 s',
    });
    // Stamped 1 s after the scrape: within the tolerance.
    expect(evaluateScrape(increase('x_total'), before, snap(20_000, 'x_total 5 21000'))).toEqual({
      value: 4,
      status: 'ok',
    });
    // Stamped at 5 s, before the window that opened at 10 s: the endpoint relays an old figure.
    expect(evaluateScrape(increase('x_total'), before, snap(20_000, 'x_total 5 5000'))).toEqual({
      value: null,
      status: 'no-data',
      error:
        "stale: a sample is stamped 1970-01-01T00:00:05.000Z, 15.0 s before the scrape, older than the reading's 10.0 s window",
    });
  });
});

describe('ratios', () => {
  const ratio = spec({ ratio: { numerator: 'req_total{code="500"}', denominator: 'req_total' } });
  const before = snap(0, 'req_total{code="200"} 90', 'req_total{code="500"} 10');

  it('divides the numerator increase by the denominator increase', () => {
    const after = snap(1000, 'req_total{code="200"} 180', 'req_total{code="500"} 20');
    expect(evaluateScrape(ratio, before, after)).toEqual({ value: 0.1, status: 'ok' });
  });

  it('is 0 when the numerator matched and did not move', () => {
    const after = snap(1000, 'req_total{code="200"} 190', 'req_total{code="500"} 10');
    expect(evaluateScrape(ratio, before, after)).toEqual({ value: 0, status: 'ok' });
  });

  it('is no-data when the denominator did not increase or a side matches nothing', () => {
    expect(evaluateScrape(ratio, before, before)).toEqual({
      value: null,
      status: 'no-data',
      error: 'the denominator did not increase in the window',
    });
    const noErrors = snap(1000, 'req_total{code="200"} 100');
    expect(evaluateScrape(ratio, snap(0, 'req_total{code="200"} 90'), noErrors)).toEqual({
      value: null,
      status: 'no-data',
      error: 'no series match the numerator req_total{code="500"}',
    });
    const other = snap(1000, 'x 1');
    expect(evaluateScrape(ratio, before, other).error).toBe('no series match the denominator req_total');
  });
});

describe('gauges', () => {
  it('sums the matching series of the current scrape, without a previous one', () => {
    const now = snap(0, 'queue{q="a"} 3', 'queue{q="b"} 4', 'queue_len 100');
    expect(evaluateScrape(spec({ gauge: 'queue' }), undefined, now)).toEqual({ value: 7, status: 'ok' });
    expect(evaluateScrape(spec({ gauge: 'queue{q="b"}' }), undefined, now)).toEqual({
      value: 4,
      status: 'ok',
    });
    expect(evaluateScrape(spec({ gauge: 'queue{q="c"}' }), undefined, now)).toEqual({
      value: null,
      status: 'no-data',
      error: 'no series match queue{q="c"}',
    });
    expect(evaluateScrape(spec({ gauge: 'g' }), undefined, snap(0, 'g NaN'))).toEqual({
      value: null,
      status: 'no-data',
      error: 'the gauge is NaN, not a finite number',
    });
    expect(evaluateScrape(spec({ gauge: 'g' }), undefined, snap(0, 'g -Inf'))).toEqual({
      value: null,
      status: 'no-data',
      error: 'the gauge is -Inf, not a finite number',
    });
    expect(evaluateScrape(spec({ gauge: 'g' }), undefined, snap(0, 'g -2.5'))).toEqual({
      value: -2.5,
      status: 'ok',
    });
  });
});

describe('histogram quantiles', () => {
  const hist = (at: number, le01: number, le1: number, inf: number, extra: string[] = []) =>
    snap(
      at,
      `lat_bucket{le="0.1"} ${le01}`,
      `lat_bucket{le="1"} ${le1}`,
      `lat_bucket{le="+Inf"} ${inf}`,
      ...extra,
    );

  it('interpolates in the increase of each bucket, whether the selector names the histogram or its _bucket', () => {
    const before = hist(0, 10, 20, 20);
    const after = hist(1000, 20, 40, 40); // 10 in (0, 0.1], 10 in (0.1, 1]
    for (const histogram of ['lat', 'lat_bucket']) {
      expect(evaluateScrape(spec({ quantile: { q: 0.5, histogram } }), before, after), histogram).toEqual({
        value: 0.1,
        status: 'ok',
      });
      expect(evaluateScrape(spec({ quantile: { q: 0.75, histogram } }), before, after).value).toBeCloseTo(
        0.55,
        12,
      );
    }
  });

  it('adds the buckets of every matching series by le, and keeps to the selector', () => {
    const two = (at: number, a: number, b: number) =>
      snap(
        at,
        `lat_bucket{pod="a",le="1"} ${a}`,
        `lat_bucket{pod="a",le="+Inf"} ${a}`,
        `lat_bucket{pod="b",le="1"} 0`,
        `lat_bucket{pod="b",le="+Inf"} ${b}`,
      );
    const before = two(0, 0, 0);
    const after = two(1000, 10, 10);
    // pod a: 10 at or below 1; pod b: 10 above 1. Together the median is the bound 1.
    expect(evaluateScrape(spec({ quantile: { q: 0.5, histogram: 'lat' } }), before, after).value).toBe(1);
    expect(
      evaluateScrape(spec({ quantile: { q: 0.5, histogram: 'lat{pod="a"}' } }), before, after).value,
    ).toBe(0.5);
    expect(
      evaluateScrape(spec({ quantile: { q: 0.9, histogram: 'lat{pod="b"}' } }), before, after).value,
    ).toBe(1);
  });

  it('reads le="Inf" as the +Inf bucket and ignores an le that is not a number', () => {
    const lines = (n: number) => [
      `lat_bucket{le="1"} ${n}`,
      `lat_bucket{le="Inf"} ${2 * n}`,
      `lat_bucket{le="x"} ${5 * n}`,
    ];
    const q = evaluateScrape(
      spec({ quantile: { q: 0.25, histogram: 'lat' } }),
      snap(0, ...lines(0)),
      snap(1, ...lines(10)),
    );
    expect(q).toEqual({ value: 0.5, status: 'ok' });
  });

  it('ignores a bucket series without an le label', () => {
    const lines = (n: number) => [
      `lat_bucket{le="1"} ${n}`,
      `lat_bucket{le="+Inf"} ${n}`,
      `lat_bucket ${3 * n}`,
    ];
    const q = evaluateScrape(
      spec({ quantile: { q: 0.5, histogram: 'lat' } }),
      snap(0, ...lines(0)),
      snap(1, ...lines(10)),
    );
    expect(q).toEqual({ value: 0.5, status: 'ok' });
  });

  it('is an error without a +Inf bucket, and no-data without observations or buckets', () => {
    const noInf = (n: number) => snap(n, `lat_bucket{le="1"} ${n}`);
    expect(evaluateScrape(spec({ quantile: { q: 0.5, histogram: 'lat' } }), noInf(0), noInf(5))).toEqual({
      value: null,
      status: 'error',
      error: 'histogram lat has no le="+Inf" bucket',
    });
    const idle = hist(0, 1, 2, 3);
    expect(evaluateScrape(spec({ quantile: { q: 0.5, histogram: 'lat' } }), idle, idle)).toEqual({
      value: null,
      status: 'no-data',
      error: 'no observations in the window',
    });
    expect(evaluateScrape(spec({ quantile: { q: 0.5, histogram: 'latency' } }), idle, idle)).toEqual({
      value: null,
      status: 'no-data',
      error: 'no bucket series match latency',
    });
  });

  it('refuses a histogram selector that does not name its metric', () => {
    const idle = hist(0, 1, 2, 3);
    expect(evaluateScrape(spec({ quantile: { q: 0.5, histogram: '{job="x"}' } }), idle, idle)).toEqual({
      value: null,
      status: 'error',
      error: `histogram selector '{job="x"}' must name the histogram metric`,
    });
  });
});

describe('the query as the journal shows it', () => {
  it('names the URL and what is read from it', () => {
    expect(describeScrape(spec({ ratio: { numerator: 'a', denominator: 'b' } }))).toBe(`${URL} ratio(a / b)`);
    expect(describeScrape(spec({ quantile: { q: 0.95, histogram: 'lat' } }))).toBe(
      `${URL} quantile(0.95, lat)`,
    );
    expect(describeScrape(spec({ increase: 'a_total' }))).toBe(`${URL} increase(a_total)`);
    expect(describeScrape(spec({ rate: 'a_total' }))).toBe(`${URL} rate(a_total)`);
    expect(describeScrape(spec({ gauge: 'g' }), 'http://other')).toBe('http://other gauge(g)');
  });

  it('refuses a spec that names nothing to read', () => {
    expect(evaluateScrape(spec({}), undefined, snap(0, 'a 1'))).toEqual({
      value: null,
      status: 'error',
      error: 'the scrape source names none of ratio, increase, rate, quantile, gauge',
    });
  });
});
