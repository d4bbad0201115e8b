import { describe, expect, it } from 'vitest';
import {
  PROMETHEUS_ENV,
  parseHeaderLine,
  prometheusOptionsFrom,
  readAll,
  type MetricSources,
} from '../../src/metrics/index.js';
import { SecretRegistry } from '../../src/security/redact.js';
import {
  PrometheusSource,
  interpretResult,
  promDuration,
  substituteWindow,
} from '../../src/metrics/prometheus/source.js';
import type { MetricSource, Query, Reading } from '../../src/metrics/source.js';

describe('Prometheus helpers', () => {
  it('substitutes [$window] (and subquery ranges) with the tick window', () => {
    expect(substituteWindow('rate(x[$window]) / rate(y[$window])', 10_000)).toBe(
      'rate(x[10s]) / rate(y[10s])',
    );
    expect(substituteWindow('max_over_time(rate(x[1m])[$window:1s])', 1500)).toBe(
      'max_over_time(rate(x[1m])[1500ms:1s])',
    );
    expect(substituteWindow('x{a="$window"}', 1000)).toBe('x{a="$window"}');
    expect(promDuration(60_000)).toBe('60s');
  });

  it('redacts every secret, longest first', () => {
    const registry = new SecretRegistry();
    for (const s of ['abc12345', 'abc12345678', '']) registry.add(s);
    expect(registry.redact('token abc12345 and abc12345678 and abc')).toBe('token *** and *** and abc');
  });

  it('reads a scalar and a single-sample vector, and +Inf as no data, not a value', () => {
    expect(interpretResult('a', 'q', { resultType: 'scalar', result: [1, '0.5'] })).toMatchObject({
      status: 'ok',
      value: 0.5,
    });
    expect(
      interpretResult('a', 'q', { resultType: 'vector', result: [{ metric: {}, value: [1, '+Inf'] }] }),
    ).toEqual({
      name: 'a',
      query: 'q',
      status: 'no-data',
      value: null,
      error: "the query's value is +Inf, not a finite number",
    });
    expect(interpretResult('a', 'q', { resultType: 'string', result: [1, 'x'] }).status).toBe('error');
  });

  it('lists at most five label sets of a multi-series result', () => {
    const result = Array.from({ length: 7 }, (_, i) => ({
      metric: { pod: `p${i}` },
      value: [1, '1'] as [number, string],
    }));
    const r = interpretResult('a', 'q', { resultType: 'vector', result });
    expect(r.error).toContain('returned 7 series');
    expect(r.error).toContain('{pod="p4"} and 2 more');
    expect(r.error).not.toContain('p5');
  });

  it('refuses contradictory auth and non-http URLs at construction, naming the option', () => {
    expect(
      () =>
        new PrometheusSource({
          url: 'http://p:9090',
          bearerToken: 't',
          basicAuth: { username: 'u', password: 'p' },
        }),
    ).toThrow('give only one of bearer token, basic auth and SigV4');
    expect(() => new PrometheusSource({ url: 'ftp://p' })).toThrow('its scheme is ftp, not http or https');
    expect(() => new PrometheusSource({ url: 'not a url' })).toThrow(
      "prometheus-url 'not a url': it is not a valid URL",
    );
  });

  it('resolves options from flags over the environment and collects secrets', () => {
    const env = {
      [PROMETHEUS_ENV.url]: 'http://env:9090',
      [PROMETHEUS_ENV.headers]: 'X-Scope-OrgID: tenant-1\n',
      [PROMETHEUS_ENV.bearerToken]: 'tok',
    };
    const options = prometheusOptionsFrom({ url: 'http://flag:9090', headers: ['X-Extra: 2'] }, env);
    expect(options).toEqual({
      url: 'http://flag:9090',
      headers: { 'X-Scope-OrgID': 'tenant-1', 'X-Extra': '2' },
      bearerToken: 'tok',
    });
    expect(prometheusOptionsFrom({}, {})).toBeUndefined();
    expect(
      prometheusOptionsFrom(
        {},
        { [PROMETHEUS_ENV.url]: 'http://a', [PROMETHEUS_ENV.sigv4Region]: 'eu-west-1' },
      )?.sigv4,
    ).toEqual({
      region: 'eu-west-1',
      service: 'aps',
    });
    const source = new PrometheusSource(options ?? { url: '' });
    expect([...source.secrets()].sort()).toEqual(['2', 'tenant-1', 'tok']);
  });

  it('never quotes a header value in a header error', () => {
    expect(parseHeaderLine(' X-A :  v: w ')).toEqual(['X-A', 'v: w']);
    expect(() => parseHeaderLine('Bad Header: secret-value')).toThrow(
      "Prometheus header 'Bad Header' is not 'Name: value'",
    );
    expect(() => parseHeaderLine('Bad Header: secret-value')).not.toThrow('secret-value');
    expect(() => parseHeaderLine('secret-value')).toThrow("'(no name)'");
  });
});

describe('readAll', () => {
  it('hands each source its own queries and returns readings in query order, erroring kinds without a source', async () => {
    const seen: string[][] = [];
    const fake: MetricSource = {
      kind: 'scrape',
      read: async (queries) => {
        seen.push(queries.map((q) => q.name));
        return queries.map((q): Reading => ({ name: q.name, value: 1, status: 'ok', query: 'scrape' }));
      },
    };
    const sources: MetricSources = { scrape: fake };
    const queries: Query[] = [
      { name: 'a', spec: { prometheus: 'up' } },
      { name: 'b', spec: { scrape: { url: 'u', gauge: 'g' } } },
      { name: 'c', spec: { scrape: { url: 'u', gauge: 'h' } } },
    ];
    const readings = await readAll(sources, queries, 0, 1000);
    expect(readings.map((r) => [r.name, r.status])).toEqual([
      ['a', 'error'],
      ['b', 'ok'],
      ['c', 'ok'],
    ]);
    expect(readings[0]?.error).toContain('no Prometheus URL configured');
    expect(seen).toEqual([['b', 'c']]);
  });
});
