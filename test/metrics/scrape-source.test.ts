import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ScrapeSource as ScrapeSpec } from '../../src/plan/schema.js';
import { ScrapeMetricSource, expandEnv } from '../../src/metrics/scrape/source.js';
import type { Query } from '../../src/metrics/source.js';
import {
  STANDARD_SCRIPT as SCRIPT,
  renderTraffic,
  startTrafficServer,
  type TrafficServer,
} from '../helpers/traffic-server.js';

let server: TrafficServer;
beforeAll(async () => {
  server = await startTrafficServer(SCRIPT);
});
afterAll(async () => {
  await server.close();
});

const q = (name: string, scrape: Omit<ScrapeSpec, 'url'>, path = '/app'): Query => ({
  name,
  spec: { scrape: { ...scrape, url: `\${TRAFFIC_ORIGIN}${path}` } as ScrapeSpec },
});

function source(): ScrapeMetricSource {
  return new ScrapeMetricSource({ env: { TRAFFIC_ORIGIN: server.origin }, timeoutMs: 2000 });
}

const QUERIES: Query[] = [
  q('error_ratio', {
    ratio: { numerator: 'app_requests_total{outcome="error"}', denominator: 'app_requests_total' },
  }),
  q('p95', { quantile: { q: 0.95, histogram: 'app_request_duration_seconds' } }),
  q('requests', { increase: 'app_requests_total' }),
  q('rps', { rate: 'app_requests_total' }),
  q('errors', { increase: 'app_requests_total{outcome=~"err.*"}' }),
];

describe('scrape source', () => {
  it('primes on the first scrape (no-data), then measures the window between two scrapes', async () => {
    const src = source();
    server.setFixture('/app', renderTraffic(SCRIPT, 40));
    const first = await src.read(QUERIES, 10_000, 2000);
    expect(first.map((r) => r.status)).toEqual(['no-data', 'no-data', 'no-data', 'no-data', 'no-data']);
    expect(first[0]?.error).toContain('first scrape');

    server.setFixture('/app', renderTraffic(SCRIPT, 43));
    const second = await src.read(QUERIES, 12_000, 2000);
    const byName = Object.fromEntries(second.map((r) => [r.name, r]));
    expect(byName['error_ratio']).toMatchObject({ status: 'ok', value: 0.05 });
    expect(byName['p95']?.value).toBeCloseTo(0.375, 12);
    expect(byName['requests']?.value).toBe(300);
    expect(byName['rps']?.value).toBe(150); // 300 requests over the 2 s between the two reads
    expect(byName['errors']?.value).toBe(15);
    expect(byName['error_ratio']?.query).toBe(
      `\${TRAFFIC_ORIGIN}/app ratio(app_requests_total{outcome="error"} / app_requests_total)`,
    );
  });

  it('fetches each URL once per tick however many queries read it', async () => {
    const src = source();
    server.setFixture('/once', renderTraffic(SCRIPT, 1));
    const before = server.hits('/once');
    await src.read(
      QUERIES.map((x) => q(x.name, x.spec.scrape as ScrapeSpec, '/once')),
      0,
      1000,
    );
    expect(server.hits('/once') - before).toBe(1);
  });

  it('treats a lower counter value as a reset: the new value is the increase', async () => {
    const src = source();
    const counter = (ok: number, err: number): string =>
      `app_requests_total{outcome="ok"} ${ok}\napp_requests_total{outcome="error"} ${err}\n`;
    server.setFixture('/reset', counter(1000, 10));
    await src.read([q('n', { increase: 'app_requests_total' }, '/reset')], 0, 1000);
    server.setFixture('/reset', counter(30, 2)); // the process restarted and served 32 requests since
    const [n] = await src.read([q('n', { increase: 'app_requests_total' }, '/reset')], 1000, 1000);
    expect(n).toMatchObject({ status: 'ok', value: 32 });
  });

  it('detects a reset hidden by a higher value through a changed OpenMetrics _created sample', async () => {
    const src = source();
    const om = (value: number, created: number): string =>
      `# TYPE jobs counter\njobs_total ${value}\njobs_created ${created}\n# EOF\n`;
    server.setFixture('/om', om(100, 1700000000));
    await src.read([q('jobs', { increase: 'jobs_total' }, '/om')], 0, 1000);
    server.setFixture('/om', om(150, 1700000900));
    const [restarted] = await src.read([q('jobs', { increase: 'jobs_total' }, '/om')], 1000, 1000);
    expect(restarted?.value).toBe(150);
    server.setFixture('/om', om(170, 1700000900));
    const [steady] = await src.read([q('jobs', { increase: 'jobs_total' }, '/om')], 2000, 1000);
    expect(steady?.value).toBe(20);
  });

  it('is no-data when the denominator did not increase or no series match', async () => {
    const src = source();
    server.setFixture('/idle', renderTraffic(SCRIPT, 7));
    const queries = [
      QUERIES[0] as Query,
      q('typo', {
        ratio: { numerator: 'app_request_total{outcome="error"}', denominator: 'app_requests_total' },
      }),
    ].map((x) => q(x.name, x.spec.scrape as ScrapeSpec, '/idle'));
    await src.read(queries, 0, 1000);
    const [ratio, typo] = await src.read(queries, 1000, 1000);
    expect(ratio).toMatchObject({
      status: 'no-data',
      value: null,
      error: 'the denominator did not increase in the window',
    });
    expect(typo?.status).toBe('no-data');
    expect(typo?.error).toContain('no series match the numerator app_request_total{outcome="error"}');
  });

  it('reads a gauge as the sum of matching series without priming', async () => {
    const src = source();
    server.setFixture(
      '/gauge',
      'breaker_open{dep="redis"} 1\nbreaker_open{dep="db"} 0\nbreaker_open{dep="s3"} 1\n',
    );
    const [g] = await src.read([q('open', { gauge: 'breaker_open{dep!="db"}' }, '/gauge')], 0, 1000);
    expect(g).toMatchObject({ status: 'ok', value: 2 });
  });

  it('turns HTTP failures, malformed expositions and bad selectors into error readings', async () => {
    const src = source();
    server.setFixture('/broken', 'ok_metric 1\nbad{le="0.1" 3\n');
    const [missing, broken, badSel] = await src.read(
      [
        q('a', { increase: 'x' }, '/nope'),
        q('b', { increase: 'x' }, '/broken'),
        q('c', { increase: 'x{code=~"("}' }, '/gauge'),
      ],
      0,
      1000,
    );
    expect(missing?.status).toBe('error');
    expect(missing?.error).toContain('HTTP 404');
    expect(broken?.status).toBe('error');
    expect(broken?.error).toMatch(new RegExp(`^${server.origin}/broken:2: expected ',' or '}'`));
    expect(badSel?.error).toContain('invalid regular expression');
  });

  it('expands only the variables it is given (the plan’s declared env), naming a missing one', async () => {
    process.env.TRAFFIC_ORIGIN = 'http://from-the-runner-environment.invalid';
    const src = new ScrapeMetricSource({ env: {} });
    const [r] = await src.read([q('a', { increase: 'x' })], 0, 1000);
    delete process.env.TRAFFIC_ORIGIN;
    expect(r).toMatchObject({ status: 'error', value: null });
    expect(r?.error).toContain('${TRAFFIC_ORIGIN} is not a variable the plan declares');
    expect(r?.error).not.toContain('from-the-runner-environment');
    expect(expandEnv('http://${H}:${P}/m', { H: 'h', P: '9' })).toBe('http://h:9/m');
  });

  it('reports a quantile over a histogram with no +Inf bucket as an error', async () => {
    const src = source();
    const text = (n: number): string => `h_bucket{le="0.1"} ${n}\nh_bucket{le="1"} ${2 * n}\n`;
    server.setFixture('/noinf', text(1));
    await src.read([q('p', { quantile: { q: 0.5, histogram: 'h' } }, '/noinf')], 0, 1000);
    server.setFixture('/noinf', text(5));
    const [p] = await src.read([q('p', { quantile: { q: 0.5, histogram: 'h' } }, '/noinf')], 1000, 1000);
    expect(p).toMatchObject({ status: 'error', error: 'histogram h has no le="+Inf" bucket' });
  });
});
