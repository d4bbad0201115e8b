/**
 * Label regexes in linear time with Prometheus semantics (issue 14.5): the scrape source compiles `=~`
 * and `!~` with RE2 (re2js), fully anchored as Prometheus anchors them, and agrees with a real Prometheus
 * on which series a selector matches.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SelectorError, parseSelector, selectorMatches } from '../../src/metrics/scrape/selector.js';
import {
  prometheusSkipReason,
  rawQuery,
  startPrometheus,
  waitForSeries,
  type PrometheusServer,
} from '../helpers/prometheus.js';

const match = (sel: string, value: string): boolean => selectorMatches(parseSelector(sel), 'm', { v: value });

describe('RE2 label regexes', () => {
  it('matches a pattern that makes a backtracking engine explode, without backtracking', () => {
    // `(a|a)*b` on 64 a's is 2^64 paths for a backtracking engine (JavaScript RegExp would never return).
    const value = 'a'.repeat(64);
    expect(match('m{v=~"(a|a)*b"}', value)).toBe(false);
    expect(match('m{v=~"(a+)+"}', value)).toBe(true);
    expect(match('m{v!~"(x+x+)+y"}', 'x'.repeat(5_000))).toBe(true);
  });

  it('anchors the whole alternation: a|b does not match ab', () => {
    expect(match('m{v=~"a|b"}', 'ab')).toBe(false);
    expect(match('m{v=~"a|b"}', 'b')).toBe(true);
  });

  it('speaks RE2 syntax: POSIX classes, Unicode classes, inline flags', () => {
    expect(match('m{v=~"[[:digit:]]{3}"}', '503')).toBe(true);
    expect(match('m{v=~"\\\\pL+"}', 'Zürich')).toBe(true);
    expect(match('m{v=~"(?i)get"}', 'GET')).toBe(true);
  });

  it('lets . match a newline, as Prometheus 3 compiles ^(?s:…)$', () => {
    expect(match('m{v=~"a.b"}', 'a\nb')).toBe(true);
  });

  it('refuses Perl-only syntax as Prometheus does: backreferences and lookaround', () => {
    expect(() => parseSelector('m{v=~"(a)\\\\1"}')).toThrow(SelectorError);
    expect(() => parseSelector('m{v=~"(?=a)a"}')).toThrow(
      /invalid regular expression "\(\?=a\)a" \(RE2 syntax, as Prometheus\)/,
    );
  });
});

/** Label values chosen to tell anchoring, alternation and classes apart (no newlines: Prometheus 2 is installed). */
const VALUES = ['200', '201', '503', '1500', '5000', 'GET', 'get', 'ab', 'a', 'b', 'Zürich', 'x-y_z', ''];
const REGEXES = ['5..', '2..|5..', 'a|b', '(?i)get', '[[:digit:]]+', '\\pL+', '.*', 'x-.*', '[^0-9]+', '.+'];

describe.skipIf(prometheusSkipReason !== undefined)('agrees with a real Prometheus', () => {
  let prom: PrometheusServer;
  let server: Server;

  beforeAll(async () => {
    const exposition = VALUES.map((v, i) => `m{id="${i}",v=${JSON.stringify(v)}} 1`).join('\n') + '\n';
    server = createServer((_req, res) =>
      res.writeHead(200, { 'content-type': 'text/plain' }).end(exposition),
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    prom = await startPrometheus([{ name: 'labels', target: `127.0.0.1:${port}` }]);
    await waitForSeries(prom.url, 'm', VALUES.length);
  }, 60_000);

  afterAll(async () => {
    await prom?.stop();
    await new Promise<void>((resolve) => server?.close(() => resolve()));
  });

  for (const re of REGEXES) {
    for (const op of ['=~', '!~'] as const) {
      it(`selects the same series as Prometheus for v${op}"${re}"`, async () => {
        const selector = `m{v${op}${JSON.stringify(re)}}`;
        const body = (await rawQuery(prom.url, selector)) as {
          data: { result: { metric: Record<string, string> }[] };
        };
        const theirs = body.data.result.map((r) => r.metric.id).sort();
        const parsed = parseSelector(selector);
        const ours = VALUES.flatMap((v, i) =>
          selectorMatches(parsed, 'm', v === '' ? { id: String(i) } : { id: String(i), v })
            ? [String(i)]
            : [],
        ).sort();
        expect(ours).toEqual(theirs);
      });
    }
  }
});
