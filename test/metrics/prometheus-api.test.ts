/**
 * The Prometheus source's side of the HTTP API, against a loopback stand-in that answers what a real
 * server cannot be made to answer on demand (503, 429, a gateway's HTML page, a body without `data`):
 * how the request is built (GET or POST, path, `time=`, headers), which answers are retried and how
 * often, how answers become readings, and the incident check built on it. What a query *means* is
 * tested against a real Prometheus in prometheus.test.ts. Backoff sleeps on an injected clock, so
 * nothing here waits for real time.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { BadInputError } from '../../src/errors/bad-input.js';
import {
  DEFAULT_INCIDENT_BUDGET_MS,
  incidentOpen,
  prometheusIncidentCheck,
} from '../../src/metrics/incidents.js';
import {
  formatLabels,
  interpretResult,
  MAX_ATTEMPTS,
  MAX_GET_QUERY_CHARS,
  PrometheusSource,
  promDuration,
  RETRY_BASE_MS,
  substituteWindow,
  type PrometheusOptions,
  type QueryData,
} from '../../src/metrics/prometheus/source.js';
import type { Query } from '../../src/metrics/source.js';

/** One request as the stand-in received it. */
interface Received {
  method: string;
  path: string;
  params: URLSearchParams;
  headers: IncomingMessage['headers'];
  body: string;
}

interface Answer {
  status?: number;
  body: string;
  type?: string;
}

const received: Received[] = [];
/** How the stand-in answers the n-th request (0-based) of the current test. */
let answer: (n: number, req: Received) => Answer = () => ({ body: '{}' });
let server: Server;
let origin = '';

beforeAll(async () => {
  server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://stand-in');
      const r: Received = {
        method: req.method ?? '',
        path: url.pathname,
        params: url.searchParams,
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      received.push(r);
      const a = answer(received.length - 1, r);
      res.writeHead(a.status ?? 200, { 'content-type': a.type ?? 'application/json' }).end(a.body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(
  () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
);
beforeEach(() => {
  received.length = 0;
  answer = () => ({ body: '{}' });
});

const success = (data: QueryData, warnings?: string[]): string =>
  JSON.stringify({ status: 'success', data, ...(warnings ? { warnings } : {}) });
const vector = (...series: [Record<string, string>, string][]): string =>
  success({ resultType: 'vector', result: series.map(([metric, v]) => ({ metric, value: [1, v] })) });
const ONE = vector([{}, '0.25']);
/** The `time=` a request asked for, in seconds, which a real Prometheus stamps its answer with. */
const timeOf = (req: Received): number =>
  Number(req.params.get('time') ?? new URLSearchParams(req.body).get('time'));

/** A clock whose sleeps return at once and are recorded; `now` is real time plus what was slept. */
function recordingClock(): { slept: number[]; now: () => number; sleep: (ms: number) => Promise<void> } {
  const slept: number[] = [];
  return {
    slept,
    now: () => Date.now() + slept.reduce((a, b) => a + b, 0),
    sleep: (ms: number) => {
      slept.push(ms);
      return Promise.resolve();
    },
  };
}

const pq = (name: string, promql = 'sum(rate(x[$window]))'): Query => ({
  name,
  spec: { prometheus: promql },
});

function source(options: Partial<PrometheusOptions> = {}): PrometheusSource {
  return new PrometheusSource({ url: origin, clock: recordingClock(), ...options });
}

describe('the request the Prometheus source sends', () => {
  it('is a GET of <base>/api/v1/query with the window substituted and time= in seconds to the millisecond', async () => {
    answer = (_n, req) => ({
      body: success({ resultType: 'vector', result: [{ metric: {}, value: [timeOf(req), '0.25'] }] }),
    });
    const [r] = await source({ url: `${origin}/prom` }).read([pq('a')], 1_712_345_678_123, 2_000);
    expect(r).toMatchObject({ name: 'a', status: 'ok', value: 0.25, query: 'sum(rate(x[2s]))' });
    expect(received).toHaveLength(1);
    const [req] = received;
    expect(req?.method).toBe('GET');
    expect(req?.path).toBe('/prom/api/v1/query');
    expect(req?.params.get('query')).toBe('sum(rate(x[2s]))');
    expect(req?.params.get('time')).toBe('1712345678.123');
    expect(req?.headers.accept).toBe('application/json');
    expect(req?.body).toBe('');
  });

  it(`stays on GET up to ${MAX_GET_QUERY_CHARS} encoded characters and sends a longer query as a POST form`, async () => {
    answer = () => ({ body: ONE });
    // `query=<q>&time=1.000` is the query plus 17 characters.
    const atLimit = 'a'.repeat(MAX_GET_QUERY_CHARS - 17);
    const overLimit = 'a'.repeat(MAX_GET_QUERY_CHARS - 16);
    await source().read([pq('at', atLimit)], 1_000, 2_000);
    await source().read([pq('over', overLimit)], 1_000, 2_000);
    expect(received.map((r) => r.method)).toEqual(['GET', 'POST']);
    const post = received[1] as Received;
    expect(post.headers['content-type']).toBe('application/x-www-form-urlencoded');
    expect([...post.params]).toEqual([]);
    const form = new URLSearchParams(post.body);
    expect(form.get('query')).toBe(overLimit);
    expect(form.get('time')).toBe('1.000');
  });

  it('uses the method the options force, whatever the length', async () => {
    answer = () => ({ body: ONE });
    await source({ method: 'POST' }).read([pq('a', 'up')], 1_000, 2_000);
    await source({ method: 'GET' }).read([pq('b', 'a'.repeat(3 * MAX_GET_QUERY_CHARS))], 1_000, 2_000);
    expect(received.map((r) => [r.method, r.body === '' ? 'no body' : 'body'])).toEqual([
      ['POST', 'body'],
      ['GET', 'no body'],
    ]);
  });

  it('sends extra headers, a bearer token, or basic auth from the options or the URL', async () => {
    answer = () => ({ body: ONE });
    const basic = (u: string, p: string) => `Basic ${Buffer.from(`${u}:${p}`).toString('base64')}`;
    await source({ headers: { 'X-Scope-OrgID': 'tenant-1' }, bearerToken: 'bearer-token-1234' }).read(
      [pq('a')],
      1_000,
      2_000,
    );
    await source({ basicAuth: { username: 'reader', password: 'basic-pass-1234' } }).read(
      [pq('b')],
      1_000,
      2_000,
    );
    const withUser = source({ url: `http://reader:url%2Fpass-1234@127.0.0.1:${new URL(origin).port}/` });
    expect(withUser.url).toBe(`${origin}/`);
    await withUser.read([pq('c')], 1_000, 2_000);
    expect(received[0]?.headers['x-scope-orgid']).toBe('tenant-1');
    expect(received[0]?.headers.authorization).toBe('Bearer bearer-token-1234');
    expect(received[1]?.headers.authorization).toBe(basic('reader', 'basic-pass-1234'));
    expect(received[2]?.headers.authorization).toBe(basic('reader', 'url/pass-1234'));
  });

  it('refuses credentials in the URL together with basic auth, naming both', () => {
    const make = () =>
      new PrometheusSource({
        url: 'http://u:secret-pass-1@prom:9090',
        basicAuth: { username: 'u', password: 'other-pass-1' },
      });
    expect(make).toThrow(BadInputError);
    expect(make).toThrow('prometheus-url carries user:password and basic auth is also given; use one');
  });

  it('signs with SigV4 when a region is set: the credentials in the Authorization header, the session token sent', async () => {
    answer = () => ({ body: ONE });
    const src = source({
      sigv4: {
        region: 'eu-west-1',
        credentials: () =>
          Promise.resolve({
            accessKeyId: 'AKIASTANDIN0000001',
            secretAccessKey: 'standin-secret-key-0001',
            sessionToken: 'standin-session-token-0001',
          }),
      },
    });
    const [r] = await src.read([pq('a')], 1_000, 5_000);
    expect(r?.status).toBe('ok');
    const headers = received[0]?.headers ?? {};
    expect(headers.authorization).toMatch(
      /^AWS4-HMAC-SHA256 Credential=AKIASTANDIN0000001\/\d{8}\/eu-west-1\/aps\/aws4_request, SignedHeaders=[^,]*host[^,]*, Signature=[0-9a-f]{64}$/,
    );
    expect(headers['x-amz-security-token']).toBe('standin-session-token-0001');
    expect(headers['x-amz-date']).toMatch(/^\d{8}T\d{6}Z$/);
    // The secrets it signed with are redacted from then on.
    expect(src.secrets()).toEqual(
      expect.arrayContaining(['standin-secret-key-0001', 'standin-session-token-0001']),
    );
  });

  it('does not retry a SigV4 credentials failure and sends nothing', async () => {
    let asked = 0;
    const src = source({
      sigv4: {
        region: 'eu-west-1',
        credentials: () => {
          asked++;
          return Promise.reject(new Error('no credentials in the chain'));
        },
      },
    });
    const [r] = await src.read([pq('a')], 1_000, 5_000);
    expect(r).toMatchObject({ status: 'error', error: 'no credentials in the chain' });
    expect(asked).toBe(1);
    expect(received).toHaveLength(0);
  });

  it('sends nothing when the budget or window leaves no time, or the signal has already aborted', async () => {
    const [noBudget] = await source({ budgetMs: 0 }).read([pq('a')], 1_000, 5_000);
    const [noWindow] = await source({ budgetMs: 5_000 }).read([pq('b')], 1_000, 0);
    const aborted = new AbortController();
    aborted.abort();
    const [cancelled] = await source().read([pq('c')], 1_000, 5_000, aborted.signal);
    const deadline = 'Prometheus timed out: the deadline passed before the query was sent';
    expect(noBudget).toMatchObject({ status: 'error', error: deadline });
    expect(noWindow).toMatchObject({ status: 'error', error: deadline });
    expect(cancelled).toMatchObject({ status: 'error', error: 'cancelled before Prometheus answered' });
    expect(received).toHaveLength(0);
  });

  it('answers a query of another kind with an error reading, in order, without sending it', async () => {
    answer = () => ({ body: ONE });
    const readings = await source().read(
      [pq('a'), { name: 'b', spec: { scrape: { url: 'http://x/metrics', gauge: 'up' } } }],
      1_000,
      2_000,
    );
    expect(readings.map((r) => [r.name, r.status, r.error])).toEqual([
      ['a', 'ok', undefined],
      ['b', 'error', 'not a Prometheus query'],
    ]);
    expect(received).toHaveLength(1);
  });
});

describe('retries', () => {
  const overloaded = (status: number): Answer => ({
    status,
    body: JSON.stringify({ status: 'error', errorType: 'unavailable', error: 'overloaded' }),
  });

  it.each([429, 502, 503, 504])('retries HTTP %i and reads the answer that follows', async (status) => {
    answer = (n) => (n === 0 ? overloaded(status) : { body: ONE });
    const clock = recordingClock();
    const [r] = await source({ clock }).read([pq('a')], 1_000, 5_000);
    expect(r).toMatchObject({ status: 'ok', value: 0.25 });
    expect(received).toHaveLength(2);
    expect(clock.slept).toEqual([RETRY_BASE_MS]);
  });

  it(`gives up after ${MAX_ATTEMPTS} attempts, doubling the backoff, with the last answer's error`, async () => {
    answer = () => overloaded(503);
    const clock = recordingClock();
    const [r] = await source({ clock }).read([pq('a')], 1_000, 5_000);
    expect(received).toHaveLength(MAX_ATTEMPTS);
    expect(clock.slept).toEqual([RETRY_BASE_MS, 2 * RETRY_BASE_MS]);
    expect(r).toMatchObject({
      status: 'error',
      value: null,
      error: 'Prometheus unavailable: overloaded (HTTP 503)',
    });
  });

  it.each([400, 422, 500])('does not retry HTTP %i: the query itself is wrong', async (status) => {
    answer = () => ({
      status,
      body: JSON.stringify({ status: 'error', errorType: 'bad_data', error: 'parse error at char 4' }),
    });
    const clock = recordingClock();
    const [r] = await source({ clock }).read([pq('a')], 1_000, 5_000);
    expect(r?.error).toBe(`Prometheus bad_data: parse error at char 4 (HTTP ${status})`);
    expect(received).toHaveLength(1);
    expect(clock.slept).toEqual([]);
  });

  it('does not sleep a backoff that would reach the deadline', async () => {
    // The stand-in's answer moves the source's clock to 50 ms before the deadline: the 50 ms backoff
    // would end exactly at it, so the query stops after one attempt.
    const start = Date.now();
    let offset = 0;
    const windowMs = 10_000;
    answer = () => {
      offset = windowMs - RETRY_BASE_MS;
      return overloaded(503);
    };
    const clock = recordingClock();
    const src = source({ clock, now: () => start + offset });
    const [r] = await src.read([pq('a')], 1_000, windowMs);
    expect(r?.error).toBe('Prometheus unavailable: overloaded (HTTP 503)');
    expect(received).toHaveLength(1);
    expect(clock.slept).toEqual([]);
  });

  it('retries when the server cannot be reached, and says so', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const clock = recordingClock();
    const [r] = await new PrometheusSource({ url: `http://127.0.0.1:${port}`, clock }).read(
      [pq('a')],
      1_000,
      5_000,
    );
    expect(r?.status).toBe('error');
    expect(r?.error).toContain(`cannot reach Prometheus at http://127.0.0.1:${port}/: `);
    expect(clock.slept).toEqual([RETRY_BASE_MS, 2 * RETRY_BASE_MS]);
  });
});

describe('answers that are not a query result', () => {
  it("quotes the start of a body that is not JSON (a gateway's page) with the HTTP status", async () => {
    const page = `<html>${'x'.repeat(300)}</html>`;
    answer = () => ({ status: 502, body: page, type: 'text/html' });
    const [r] = await source().read([pq('a')], 1_000, 5_000);
    expect(r?.error).toBe(`HTTP 502 Bad Gateway from Prometheus (not JSON): ${page.slice(0, 200)}`);
  });

  it('reads a success without data as no data saying so, and quotes an error without errorType', async () => {
    answer = (n) =>
      n === 0
        ? { body: JSON.stringify({ status: 'success' }) }
        : { status: 400, body: JSON.stringify({ status: 'error', error: 'bad query' }) };
    const [noData] = await source().read([pq('a')], 1_000, 5_000);
    const [plain] = await source().read([pq('b')], 1_000, 5_000);
    expect(noData).toMatchObject({
      status: 'no-data',
      value: null,
      error: 'malformed answer: Prometheus said success, but `data` is not an object',
    });
    expect(plain).toMatchObject({ status: 'error', error: 'Prometheus bad query (HTTP 400)' });
  });

  it('refuses a success body on an HTTP error status', async () => {
    answer = () => ({ status: 500, body: ONE });
    const [r] = await source().read([pq('a')], 1_000, 5_000);
    expect(r?.status).toBe('error');
    expect(r?.error).toContain('(HTTP 500)');
  });

  it('refuses an instant answer with warnings as partial, and keeps infos with the data', async () => {
    answer = () => ({ body: success({ resultType: 'scalar', result: [1, '2'] }, ['partial response']) });
    expect(await source().instant('up', 1_000, Date.now() + 5_000)).toEqual({
      ok: false,
      noData: true,
      error: 'partial answer: Prometheus warned: partial response',
    });
    answer = () => ({
      body: JSON.stringify({
        status: 'success',
        data: { resultType: 'scalar', result: [1, '2'] },
        infos: ['PromQL info: metric might not be a counter'],
      }),
    });
    expect(await source().instant('up', 1_000, Date.now() + 5_000)).toEqual({
      ok: true,
      data: { resultType: 'scalar', result: [1, '2'] },
      infos: ['PromQL info: metric might not be a counter'],
    });
  });

  it('redacts a token the server echoes back in its error', async () => {
    answer = (_n, req) => ({
      status: 400,
      body: JSON.stringify({ status: 'error', error: `bad header ${req.headers.authorization ?? ''}` }),
    });
    const [r] = await source({ bearerToken: 'echoed-token-98765' }).read([pq('a')], 1_000, 5_000);
    expect(r?.error).toBe('Prometheus bad header Bearer *** (HTTP 400)');
  });
});

describe('how a result becomes a reading', () => {
  const read = (data: QueryData) => interpretResult('a', 'q', data);
  const series = (n: number) =>
    read({
      resultType: 'vector',
      result: Array.from({ length: n }, (_, i) => ({ metric: { pod: `p${i}` }, value: [1, '1'] })),
    });

  it('reads Inf, +Inf, -Inf, NaN and a value that is no number as no data saying what came', () => {
    const scalar = (v: string) => read({ resultType: 'scalar', result: [1, v] });
    const nonFinite = (what: string) => ({
      name: 'a',
      value: null,
      status: 'no-data',
      query: 'q',
      error: `the query's value is ${what}, not a finite number`,
    });
    expect(scalar('Inf')).toEqual(nonFinite('+Inf'));
    expect(scalar('+Inf')).toEqual(nonFinite('+Inf'));
    expect(scalar('-Inf')).toEqual(nonFinite('-Inf'));
    expect(scalar('NaN')).toEqual(nonFinite('NaN'));
    expect(scalar('')).toMatchObject({ status: 'no-data', error: 'the query returned "", not a number' });
    expect(scalar('0x1g')).toMatchObject({
      status: 'no-data',
      error: 'the query returned "0x1g", not a number',
    });
    expect(scalar('-0.5')).toMatchObject({ status: 'ok', value: -0.5 });
  });

  it('reads an empty vector as no data and a range vector as an error naming the fix', () => {
    expect(read({ resultType: 'vector', result: [] })).toEqual({
      name: 'a',
      value: null,
      status: 'no-data',
      query: 'q',
      error: 'empty result',
    });
    expect(read({ resultType: 'matrix', result: [] })).toMatchObject({ status: 'error', value: null });
    expect(read({ resultType: 'matrix', result: [] }).error).toBe(
      "query 'q' returned a range vector; wrap it in a function such as rate(…[$window])",
    );
    expect(read({ resultType: 'string', result: [1, 's'] }).error).toBe("query 'q' returned a string");
  });

  it('lists exactly five series without a remainder, and summarises a sixth', () => {
    expect(series(5).error).toBe(
      "query 'q' returned 5 series where one is expected (aggregate with sum, max, …): " +
        '{pod="p0"}, {pod="p1"}, {pod="p2"}, {pod="p3"}, {pod="p4"}',
    );
    expect(series(6).error).toMatch(/\{pod="p4"\} and 1 more$/);
    expect(series(2)).toMatchObject({ status: 'error', value: null });
  });

  it('formats label sets sorted by name, as PromQL prints them', () => {
    expect(formatLabels({ route: '/pay', code: '500', a: 'x"y' })).toBe(
      '{a="x\\"y", code="500", route="/pay"}',
    );
    expect(formatLabels({})).toBe('{}');
  });

  it('writes the window as whole seconds or milliseconds, never below 1 ms', () => {
    expect(promDuration(1_000)).toBe('1s');
    expect(promDuration(1_500)).toBe('1500ms');
    expect(promDuration(999.6)).toBe('1s');
    expect(promDuration(999.4)).toBe('999ms');
    expect(promDuration(0)).toBe('1ms');
    expect(promDuration(-5)).toBe('1ms');
  });

  it('substitutes [$window] and [$window:step] only', () => {
    expect(substituteWindow('a[$window] b[$window:5s] c[$windows] d{w="[$window"}', 2_000)).toBe(
      'a[2s] b[2s:5s] c[$windows] d{w="[$window"}',
    );
  });
});

describe('the incident check over Prometheus', () => {
  const ALERTS = 'ALERTS{alertstate="firing", severity="page"}';
  const alerts = (n: number) =>
    vector(
      ...Array.from({ length: n }, (_, i): [Record<string, string>, string] => [{ alertname: `A${i}` }, '1']),
    );

  it('is closed with no series and open with the series listed, at most five', async () => {
    const src = source();
    answer = (n) => ({ body: alerts([0, 1, 5, 6][n] ?? 0) });
    expect(await incidentOpen(ALERTS, src, 1_000)).toEqual({ open: false, detail: 'no series' });
    expect(await incidentOpen(ALERTS, src, 1_000)).toEqual({
      open: true,
      detail: '1 series: {alertname="A0"}',
    });
    const five = await incidentOpen(ALERTS, src, 1_000);
    expect(five.detail).toBe(
      '5 series: {alertname="A0"}, {alertname="A1"}, {alertname="A2"}, {alertname="A3"}, {alertname="A4"}',
    );
    const six = await incidentOpen(ALERTS, src, 1_000);
    expect(six).toMatchObject({ open: true });
    expect(six.detail).toMatch(/^6 series: .*\{alertname="A4"\} and 1 more$/);
    expect(received.map((r) => [r.params.get('query'), r.params.get('time')])).toEqual(
      Array(4).fill([ALERTS, '1.000']),
    );
  });

  it('reads a scalar as open when it is a number other than 0', async () => {
    const src = source();
    const scalarIs = async (v: string) => {
      answer = () => ({ body: success({ resultType: 'scalar', result: [1, v] }) });
      return incidentOpen('vector(1)', src, 1_000);
    };
    expect(await scalarIs('0')).toEqual({ open: false, detail: 'scalar 0' });
    expect(await scalarIs('2')).toEqual({ open: true, detail: 'scalar 2' });
    expect(await scalarIs('-1')).toEqual({ open: true, detail: 'scalar -1' });
    expect(await scalarIs('NaN')).toEqual({ open: false, detail: 'scalar NaN' });
  });

  it('fails closed: a range vector or an unanswered query counts as an open incident, with the reason', async () => {
    const src = source();
    answer = () => ({ body: success({ resultType: 'matrix', result: [] }) });
    const matrix = await incidentOpen('ALERTS[5m]', src, 1_000);
    const why = "incident query 'ALERTS[5m]' returned a matrix; expected an instant vector";
    expect(matrix).toEqual({ open: true, detail: why, error: why });
    answer = () => ({ status: 400, body: JSON.stringify({ status: 'error', error: 'parse error' }) });
    expect(await incidentOpen('ALERTS{', src, 1_000)).toEqual({
      open: true,
      detail: 'cannot tell whether an incident is open: Prometheus parse error (HTTP 400)',
      error: 'Prometheus parse error (HTTP 400)',
    });
  });

  it('gives a query its budget (10 s unless told) and the caller signal', async () => {
    expect(DEFAULT_INCIDENT_BUDGET_MS).toBe(10_000);
    answer = () => ({ body: alerts(0) });
    const src = source();
    const check = prometheusIncidentCheck(ALERTS, src);
    expect(check.describe).toBe(ALERTS);
    expect(await check.check(1_000)).toEqual({ open: false, detail: 'no series' });
    // No budget: the query is never sent, and the check fails closed.
    const spent = await prometheusIncidentCheck(ALERTS, src, 0).check(1_000);
    expect(spent).toMatchObject({ open: true, error: expect.stringContaining('deadline passed') });
    expect(await incidentOpen(ALERTS, src, 1_000, { budgetMs: 0 })).toMatchObject({ open: true });
    const aborted = new AbortController();
    aborted.abort();
    expect(await check.check(1_000, aborted.signal)).toMatchObject({
      open: true,
      error: 'cancelled before Prometheus answered',
    });
    expect(received).toHaveLength(1);
  });
});
