/**
 * The Prometheus source against a real Prometheus server scraping scripted traffic (see
 * test/helpers/traffic-server.ts for why the error ratio and p95 are exact whatever the scrape timing).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { incidentOpen } from '../../src/metrics/incidents.js';
import { PrometheusSource, substituteWindow } from '../../src/metrics/prometheus/source.js';
import { signRequest, type AwsCredentials } from '../../src/metrics/prometheus/sigv4.js';
import type { Query } from '../../src/metrics/source.js';
import {
  prometheusSkipReason,
  rawQuery,
  startPrometheus,
  waitForSeries,
  type PrometheusServer,
} from '../helpers/prometheus.js';
import { STANDARD_SCRIPT, startTrafficServer, type TrafficServer } from '../helpers/traffic-server.js';

const ERROR_RATIO =
  'sum(rate(app_requests_total{outcome="error"}[$window])) / sum(rate(app_requests_total[$window]))';
const P95 = 'histogram_quantile(0.95, sum by (le) (rate(app_request_duration_seconds_bucket[$window])))';
const WINDOW_MS = 5_000;

const pq = (name: string, prometheus: string): Query => ({ name, spec: { prometheus } });

/** What a gateway saw of one request. */
interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

/** A local server in front of Prometheus: `decide` answers (status, body) or lets the request through. */
interface Gateway {
  origin: string;
  seen: Seen[];
  close(): Promise<void>;
}

async function startGateway(
  upstream: string,
  decide: (seen: Seen) => Promise<{ status: number; body: string } | 'forward' | 'hang'>,
): Promise<Gateway> {
  const seen: Seen[] = [];
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const s: Seen = {
        method: req.method ?? 'GET',
        url: req.url ?? '/',
        headers: req.headers,
        body: Buffer.concat(chunks).toString(),
      };
      seen.push(s);
      void decide(s).then(async (verdict) => {
        if (verdict === 'hang') return;
        if (verdict !== 'forward') {
          res.writeHead(verdict.status, { 'content-type': 'application/json' }).end(verdict.body);
          return;
        }
        const init: RequestInit = { method: s.method };
        if (s.method === 'POST') {
          init.body = s.body;
          init.headers = { 'content-type': 'application/x-www-form-urlencoded' };
        }
        // An AMP workspace path prefix maps onto the plain Prometheus API.
        const up = await fetch(`${upstream}${s.url.replace(/^\/workspaces\/[^/]+/, '')}`, init);
        res.writeHead(up.status, { 'content-type': 'application/json' }).end(await up.text());
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    seen,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

describe.skipIf(prometheusSkipReason !== undefined)(
  `Prometheus source against a real Prometheus${prometheusSkipReason ? ` (skipped: ${prometheusSkipReason})` : ''}`,
  () => {
    let traffic: TrafficServer;
    let prom: PrometheusServer;
    let source: PrometheusSource;
    const gateways: Gateway[] = [];

    beforeAll(async () => {
      traffic = await startTrafficServer({ ...STANDARD_SCRIPT, startBatches: 3600 });
      prom = await startPrometheus([{ name: 'traffic', target: traffic.target }]);
      source = new PrometheusSource({ url: prom.url, timeoutMs: 5000 });
      // Twelve 1 s scrapes: enough samples for the 10 s request-rate window below.
      await waitForSeries(
        prom.url,
        'count_over_time(app_requests_total{outcome="ok"}[12s]) >= 11',
        1,
        40_000,
      );
    });

    afterAll(async () => {
      await Promise.all(gateways.map((g) => g.close()));
      await prom?.stop();
      await traffic?.close();
    });

    async function gateway(decide: Parameters<typeof startGateway>[1]): Promise<Gateway> {
      const g = await startGateway(prom.url, decide);
      gateways.push(g);
      return g;
    }

    it('reads the error ratio the traffic implies (5 %) with $window substituted', async () => {
      const [r] = await source.read([pq('error_ratio', ERROR_RATIO)], Date.now(), WINDOW_MS);
      // Both counters come from the same scrapes, so rate()'s extrapolation factor cancels in the ratio,
      // and every increase is a whole number of identical batches: the ratio is exactly 5/100.
      expect(r?.status).toBe('ok');
      expect(r?.value).toBeCloseTo(0.05, 9);
      expect(r?.query).toBe(substituteWindow(ERROR_RATIO, WINDOW_MS));
      expect(r?.query).toContain('[5s]');
    });

    it('reads the p95 from histogram_quantile as the traffic implies (0.375 s)', async () => {
      const [r] = await source.read([pq('p95', P95)], Date.now(), WINDOW_MS);
      // Every bucket's rate is scaled by the same extrapolation factor, and histogram_quantile is
      // invariant under scaling all buckets, so the p95 is that of one batch: 0.25 + 0.25 × 5/10.
      expect(r?.status).toBe('ok');
      expect(r?.value).toBeCloseTo(0.375, 9);
    });

    it('reads the request rate within the bound that rate() extrapolation implies', async () => {
      const at = Date.now();
      const windowMs = 10_000;
      const [r] = await source.read([pq('rps', 'sum(rate(app_requests_total[$window]))')], at, windowMs);
      const raw = (await rawQuery(prom.url, 'app_requests_total{outcome="ok"}[10s]', at)) as {
        data: { result: { values: [number, string][] }[] };
      };
      const stamps = (raw.data.result[0]?.values ?? []).map(([t]) => t);
      const s = (stamps[stamps.length - 1] ?? 0) - (stamps[0] ?? 0);
      const lag = (await rawQuery(
        prom.url,
        'max_over_time(scrape_duration_seconds{job="traffic"}[10s])',
        at,
      )) as {
        data: { result: { value: [number, string] }[] };
      };
      const d = Number(lag.data.result[0]?.value[1]);
      // Derivation. Over the sampled interval s (first to last sample in the window) the counters rose by
      // N·m, m whole batches: the number of server-second boundaries between the two scrapes, so
      // s − 1 − d < m < s + 1 + d, where d bounds how late a scrape read the counters after its timestamp
      // (the scrape duration). rate() scales Δ/s by the extrapolated interval X, s ≤ X ≤ W, and divides by W.
      // Hence N·(s − 1 − d)/W < rate < N·(s + 1 + d)/s.
      const N = STANDARD_SCRIPT.batch.length;
      const W = windowMs / 1000;
      expect(s).toBeGreaterThan(5);
      expect(r?.status).toBe('ok');
      expect(r?.value).toBeGreaterThan((N * (s - 1 - d)) / W);
      expect(r?.value).toBeLessThan((N * (s + 1 + d)) / s);
    });

    it('evaluates at the tick time sent as time=', async () => {
      const at = Date.now() - 30_000;
      const [r] = await source.read([pq('t', 'time()')], at, WINDOW_MS);
      expect(r?.value).toBeCloseTo(at / 1000, 3);
    });

    it('maps an empty vector and NaN to no-data', async () => {
      const [empty, nan] = await source.read(
        [pq('empty', 'sum(rate(app_requests_total{outcome="timeout"}[$window]))'), pq('nan', '0/0')],
        Date.now(),
        WINDOW_MS,
      );
      expect(empty).toMatchObject({ status: 'no-data', value: null, error: 'empty result' });
      expect(nan).toMatchObject({ status: 'no-data', value: null });
    });

    it('reports several series as an error naming the query and each label set', async () => {
      const [r] = await source.read([pq('multi', 'app_requests_total')], Date.now(), WINDOW_MS);
      expect(r?.status).toBe('error');
      expect(r?.error).toContain("query 'app_requests_total' returned 2 series");
      expect(r?.error).toContain(`outcome="error"`);
      expect(r?.error).toContain(`outcome="ok"`);
      expect(r?.error).toContain(`job="traffic"`);
    });

    it("carries Prometheus's own error type and message for bad PromQL and failed execution", async () => {
      const bad = 'sum(rate(app_requests_total[5s])';
      const failing = 'app_requests_total / on() app_requests_total';
      const [parse, exec] = await source.read([pq('bad', bad), pq('exec', failing)], Date.now(), WINDOW_MS);
      const rawParse = (await rawQuery(prom.url, bad)) as { errorType: string; error: string };
      const rawExec = (await rawQuery(prom.url, failing)) as { errorType: string; error: string };
      expect(rawParse.errorType).toBe('bad_data');
      expect(parse).toMatchObject({ status: 'error', value: null });
      expect(parse?.error).toBe(`Prometheus bad_data: ${rawParse.error} (HTTP 400)`);
      expect(rawExec.errorType).toBe('execution');
      expect(exec?.error).toBe(`Prometheus execution: ${rawExec.error} (HTTP 422)`);
    });

    it('sends bearer, basic and custom-header auth, and redacts secrets from readings', async () => {
      const token = 's3cr3t-token-value';
      const g = await gateway(async (s) =>
        s.headers.authorization === `Bearer ${token}` && s.headers['x-scope-orgid'] === 'tenant-7'
          ? 'forward'
          : { status: 401, body: `unauthorized: got ${s.headers.authorization ?? 'nothing'}` },
      );
      const good = new PrometheusSource({
        url: g.origin,
        bearerToken: token,
        headers: { 'X-Scope-OrgID': 'tenant-7' },
      });
      const [ok] = await good.read([pq('ratio', ERROR_RATIO)], Date.now(), WINDOW_MS);
      expect(ok?.value).toBeCloseTo(0.05, 9);

      const wrong = new PrometheusSource({
        url: g.origin,
        bearerToken: 'wrong-token-123',
        headers: { 'X-Scope-OrgID': 'tenant-7' },
      });
      const [denied] = await wrong.read(
        [pq('ratio', `${ERROR_RATIO} # wrong-token-123`)],
        Date.now(),
        WINDOW_MS,
      );
      expect(denied?.status).toBe('error');
      expect(denied?.error).toContain('HTTP 401');
      expect(denied?.error).toContain('unauthorized: got Bearer ***');
      expect(JSON.stringify(denied)).not.toContain('wrong-token-123');

      const basic = await gateway(async (s) =>
        s.headers.authorization === `Basic ${Buffer.from('grafana:pa55word').toString('base64')}`
          ? 'forward'
          : { status: 401, body: '{"status":"error","errorType":"auth","error":"bad credentials"}' },
      );
      const viaUrl = new PrometheusSource({
        url: basic.origin.replace('http://', 'http://grafana:pa55word@'),
      });
      const [b] = await viaUrl.read([pq('p95', P95)], Date.now(), WINDOW_MS);
      expect(b?.value).toBeCloseTo(0.375, 9);
      expect(viaUrl.url).not.toContain('pa55word');
      const [refused] = await new PrometheusSource({
        url: basic.origin,
        basicAuth: { username: 'grafana', password: 'nope-nope' },
      }).read([pq('p95', P95)], Date.now(), WINDOW_MS);
      expect(refused?.error).toBe('Prometheus auth: bad credentials (HTTP 401)');
    });

    it('signs requests with SigV4 for Amazon Managed Prometheus, verifiably', async () => {
      const credentials: AwsCredentials = {
        accessKeyId: 'AKIDEXAMPLE',
        secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY',
        sessionToken: 'session-token-example',
      };
      const verify = async (s: Seen, secret: string): Promise<boolean> => {
        const auth = String(s.headers.authorization ?? '');
        const signed = /SignedHeaders=([^,]+)/.exec(auth)?.[1]?.split(';') ?? [];
        const amzDate = String(s.headers['x-amz-date'] ?? '');
        const m = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(amzDate);
        if (!m || !auth.includes('/us-east-1/aps/aws4_request')) return false;
        const date = new Date(Date.UTC(+m[1]!, +m[2]! - 1, +m[3]!, +m[4]!, +m[5]!, +m[6]!));
        const headers: Record<string, string> = {};
        for (const h of signed) if (h !== 'host') headers[h] = String(s.headers[h]);
        const url = new URL(s.url, `http://${String(s.headers.host)}`);
        const again = await signRequest(
          { method: s.method, url, headers, body: s.method === 'POST' ? s.body : undefined },
          {
            region: 'us-east-1',
            service: 'aps',
            credentials: { ...credentials, secretAccessKey: secret },
            signingDate: date,
          },
        );
        return again['authorization'] === auth;
      };
      const checks: boolean[] = [];
      const negative: boolean[] = [];
      const g = await gateway(async (s) => {
        const valid = await verify(s, credentials.secretAccessKey);
        checks.push(valid);
        negative.push(await verify(s, 'not-the-secret'));
        return valid
          ? 'forward'
          : { status: 403, body: '{"status":"error","errorType":"auth","error":"bad signature"}' };
      });
      const amp = new PrometheusSource({
        url: `${g.origin}/workspaces/ws-1234`,
        sigv4: { region: 'us-east-1', service: 'aps', credentials: async () => credentials },
      });
      const long = `${ERROR_RATIO} + 0 * (${Array.from({ length: 60 }, () => 'sum(app_requests_total)').join(' + ')})`;
      const readings = await amp.read([pq('ratio', ERROR_RATIO), pq('long', long)], Date.now(), WINDOW_MS);
      expect(g.seen.map((s) => s.method).sort()).toEqual(['GET', 'POST']);
      expect(g.seen.every((s) => s.url.startsWith('/workspaces/ws-1234/api/v1/query'))).toBe(true);
      expect(g.seen.every((s) => s.headers['x-amz-security-token'] === 'session-token-example')).toBe(true);
      expect(checks).toEqual([true, true]);
      expect(negative).toEqual([false, false]);
      expect(readings.map((r) => r.value)).toEqual([expect.closeTo(0.05, 9), expect.closeTo(0.05, 9)]);
    });

    it('runs the queries of one tick concurrently', async () => {
      // Each query is held until all three are in flight (or 2 s have passed): concurrent queries all
      // arrive, however busy the machine; queries sent one after another never overlap.
      let inFlight = 0;
      let peak = 0;
      let release: () => void = () => undefined;
      const allIn = new Promise<void>((r) => (release = r));
      const g = await gateway(async () => {
        inFlight++;
        peak = Math.max(peak, inFlight);
        if (inFlight === 3) release();
        await Promise.race([allIn, new Promise((r) => setTimeout(r, 2000))]);
        inFlight--;
        return 'forward';
      });
      const src = new PrometheusSource({ url: g.origin });
      const readings = await src.read(
        [pq('a', ERROR_RATIO), pq('b', P95), pq('c', 'time()')],
        Date.now(),
        WINDOW_MS,
      );
      expect(readings.map((r) => r.status)).toEqual(['ok', 'ok', 'ok']);
      expect(peak).toBe(3);
    });

    it('retries a 503 within the tick and then reads the value', async () => {
      let calls = 0;
      const g = await gateway(async () =>
        ++calls === 1
          ? { status: 503, body: '{"status":"error","errorType":"unavailable","error":"overloaded"}' }
          : 'forward',
      );
      const [r] = await new PrometheusSource({ url: g.origin }).read(
        [pq('ratio', ERROR_RATIO)],
        Date.now(),
        WINDOW_MS,
      );
      expect(calls).toBe(2);
      expect(r?.value).toBeCloseTo(0.05, 9);
    });

    it('gives up on a hanging server with an error, retrying only while the deadline allows', async () => {
      const g = await gateway(async () => 'hang');
      const [r] = await new PrometheusSource({ url: g.origin, timeoutMs: 200 }).read(
        [pq('x', 'up')],
        Date.now(),
        1_000,
      );
      expect(r).toMatchObject({ status: 'error', value: null });
      // The error names the wait that ran out: an attempt's 200 ms, or, when a loaded machine lets the 1 s
      // window close first, the window; never more.
      const waited = Number(/^Prometheus timed out: no answer within (\d+) ms$/.exec(r?.error ?? '')?.[1]);
      expect(waited, r?.error).toBeGreaterThan(0);
      expect(waited, r?.error).toBeLessThanOrEqual(1_000);
      // 3 attempts of 200 ms plus 50 + 100 ms of backoff fit in the 1 s window, never a 4th; on a loaded
      // machine the window may close during the third, but a retry always happened.
      expect(g.seen.length).toBeGreaterThanOrEqual(2);
      expect(g.seen.length).toBeLessThanOrEqual(3);

      const h = await gateway(async () => 'hang');
      const [cut] = await new PrometheusSource({ url: h.origin, timeoutMs: 60_000 }).read(
        [pq('x', 'up')],
        Date.now(),
        400,
      );
      // The per-request timeout is cut to what is left of the 400 ms tick, not the configured 60 s.
      const ms = Number(/within (\d+) ms/.exec(cut?.error ?? '')?.[1]);
      expect(cut?.status).toBe('error');
      expect(ms).toBeGreaterThan(0);
      expect(ms).toBeLessThanOrEqual(400);
      expect(h.seen).toHaveLength(1);
    });

    it('says an incident is open when the query returns series, closed when empty, open when unknown', async () => {
      const open = await incidentOpen('app_requests_total{outcome="error"} > 0', source, Date.now());
      expect(open.open).toBe(true);
      expect(open.detail).toContain('1 series: {__name__="app_requests_total"');
      const closed = await incidentOpen('app_requests_total{outcome="paged"}', source, Date.now());
      expect(closed).toEqual({ open: false, detail: 'no series' });
      const unknown = await incidentOpen('sum(', source, Date.now());
      expect(unknown.open).toBe(true);
      expect(unknown.error).toContain('bad_data');
    });
  },
);
