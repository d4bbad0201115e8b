/**
 * The scrape source over HTTP, against a loopback endpoint: what it asks for (Accept, extra headers),
 * the size limit on an exposition (declared and streamed), a body whose
 * characters straddle two chunks, and what a failed scrape does to the next window. Every failure is a
 * reading, never a rejection.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  MAX_ERROR_BODY_BYTES,
  MAX_EXPOSITION_BYTES,
  ScrapeMetricSource,
} from '../../src/metrics/scrape/source.js';
import type { Query } from '../../src/metrics/source.js';
import type { ScrapeSource as ScrapeSpec } from '../../src/plan/schema.js';

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

let server: Server;
let origin = '';
let handler: Handler = (_req, res) => res.writeHead(404).end();
const seen: IncomingMessage['headers'][] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    seen.push(req.headers);
    handler(req, res);
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
  seen.length = 0;
});

const q = (name: string, read: Omit<ScrapeSpec, 'url'>, url = `${origin}/metrics`): Query => ({
  name,
  spec: { scrape: { url, ...read } as ScrapeSpec },
});
const answer =
  (body: string, status = 200): Handler =>
  (_req, res) =>
    res.writeHead(status, { 'content-type': 'text/plain; version=0.0.4' }).end(body);

describe('what the scrape source asks for', () => {
  it('sends the Accept header Prometheus sends and the extra headers it is given', async () => {
    handler = answer('up 1\n');
    const src = new ScrapeMetricSource({
      headers: { authorization: 'Bearer scrape-token' },
      timeoutMs: 5_000,
    });
    const [r] = await src.read([q('up', { gauge: 'up' })], 0, 5_000);
    expect(r).toMatchObject({ status: 'ok', value: 1 });
    expect(seen[0]?.accept).toBe(
      'application/openmetrics-text;version=1.0.0,application/openmetrics-text;version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1',
    );
    expect(seen[0]?.authorization).toBe('Bearer scrape-token');
  });

  it('fetches a URL once however it is written, when it expands to the same address', async () => {
    handler = answer('up 1\n');
    const src = new ScrapeMetricSource({ env: { ORIGIN: origin }, timeoutMs: 5_000 });
    const readings = await src.read(
      [q('a', { gauge: 'up' }), q('b', { gauge: 'up' }, '${ORIGIN}/metrics')],
      0,
      5_000,
    );
    expect(readings.map((r) => r.value)).toEqual([1, 1]);
    expect(seen).toHaveLength(1);
  });

  it('answers a query of another kind with an error reading, and sends nothing when cancelled before it starts', async () => {
    handler = answer('up 1\n');
    const src = new ScrapeMetricSource({ timeoutMs: 5_000 });
    const [other] = await src.read([{ name: 'p', spec: { prometheus: 'up' } }], 0, 5_000);
    expect(other).toEqual({
      name: 'p',
      value: null,
      status: 'error',
      query: '',
      error: 'not a scrape query',
    });
    const aborted = new AbortController();
    aborted.abort();
    const [cancelled] = await src.read([q('a', { gauge: 'up' })], 0, 5_000, aborted.signal);
    expect(cancelled).toMatchObject({
      status: 'error',
      error: `${origin}/metrics: cancelled before it answered`,
    });
    expect(seen).toHaveLength(0);
  });
});

describe('what comes back', () => {
  it('quotes the start of an HTTP error body with the status', async () => {
    handler = answer(`down for maintenance ${'.'.repeat(300)}`, 503);
    const [r] = await new ScrapeMetricSource({ timeoutMs: 5_000 }).read([q('a', { gauge: 'up' })], 0, 5_000);
    expect(r?.error).toBe(
      `${origin}/metrics: HTTP 503 Service Unavailable: ${`down for maintenance ${'.'.repeat(300)}`.slice(0, 200)}`,
    );
  });

  it(`reads no more than ${MAX_ERROR_BODY_BYTES} bytes of an error page, however large it is`, async () => {
    let sent = 0;
    handler = (_req, res) => {
      res.writeHead(500, { 'content-type': 'text/html' });
      const block = 'e'.repeat(64 * 1024);
      // 200 MB offered, written only as fast as the client reads.
      const pump = (): void => {
        while (!res.destroyed && sent < 200 * 1024 * 1024) {
          sent += block.length;
          if (!res.write(block)) return void res.once('drain', pump);
        }
        if (!res.destroyed) res.end();
      };
      pump();
    };
    const [r] = await new ScrapeMetricSource({ timeoutMs: 10_000 }).read(
      [q('a', { gauge: 'up' })],
      0,
      10_000,
    );
    expect(r).toMatchObject({ status: 'error', value: null });
    expect(r?.error).toBe(`${origin}/metrics: HTTP 500 Internal Server Error: ${'e'.repeat(200)}`);
    await expect.poll(() => sent, { timeout: 2_000 }).toBeGreaterThan(0);
    expect(sent).toBeLessThan(50 * 1024 * 1024);
  });

  it('says why it could not connect', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(closed.address() as AddressInfo).port}/metrics`;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const [r] = await new ScrapeMetricSource({ timeoutMs: 5_000 }).read(
      [q('a', { gauge: 'up' }, url)],
      0,
      5_000,
    );
    expect(r?.status).toBe('error');
    expect(r?.error).toMatch(new RegExp(`^${url}: fetch failed \\(.*ECONNREFUSED.*\\)$`));
  });

  it('reads an empty answer as an exposition without series', async () => {
    handler = (_req, res) => res.writeHead(204).end();
    const [r] = await new ScrapeMetricSource({ timeoutMs: 5_000 }).read([q('a', { gauge: 'up' })], 0, 5_000);
    expect(r).toMatchObject({ status: 'no-data', error: 'no series match up' });
  });

  it('decodes a character split across two chunks of the body', async () => {
    const body = Buffer.from('city{name="Zürich"} 7\n', 'utf8');
    const split = body.indexOf(0xc3) + 1; // between the two bytes of ü
    handler = (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.write(body.subarray(0, split));
      setTimeout(() => res.end(body.subarray(split)), 20);
    };
    const [r] = await new ScrapeMetricSource({ timeoutMs: 5_000 }).read(
      [q('a', { gauge: 'city{name="Zürich"}' })],
      0,
      5_000,
    );
    expect(r).toMatchObject({ status: 'ok', value: 7 });
  });
});

describe(`expositions of at most ${MAX_EXPOSITION_BYTES} bytes`, () => {
  // (An exposition of exactly the limit is not read here: 32 MiB per run is too slow for mutation testing.)
  /** One comment line of exactly `bytes` bytes, then nothing: a valid, empty exposition. */
  const comment = (bytes: number) => `#${'x'.repeat(bytes - 2)}\n`;

  it('refuses a larger one by its declared length, without reading it', async () => {
    handler = (_req, res) => {
      res.writeHead(200, {
        'content-type': 'text/plain',
        'content-length': String(MAX_EXPOSITION_BYTES + 1),
      });
      res.write('up 1\n'); // and never the rest
    };
    const [r] = await new ScrapeMetricSource({ timeoutMs: 10_000 }).read(
      [q('a', { gauge: 'up' })],
      0,
      10_000,
    );
    expect(r).toMatchObject({
      status: 'error',
      error: `${origin}/metrics: exposition of ${MAX_EXPOSITION_BYTES + 1} bytes exceeds ${MAX_EXPOSITION_BYTES}`,
    });
  });

  it('refuses a larger one that declares no length once it passes the limit', async () => {
    const body = comment(MAX_EXPOSITION_BYTES + 1);
    handler = (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end(body);
    };
    const [r] = await new ScrapeMetricSource({ timeoutMs: 10_000 }).read(
      [q('a', { gauge: 'up' })],
      0,
      10_000,
    );
    expect(r).toMatchObject({
      status: 'error',
      error: `${origin}/metrics: exposition exceeds ${MAX_EXPOSITION_BYTES} bytes`,
    });
  });
});

describe('a failed scrape between two good ones', () => {
  it('keeps the older snapshot, so the next window stretches back to it', async () => {
    const src = new ScrapeMetricSource({ timeoutMs: 5_000 });
    const read = (at: number) => src.read([q('rps', { rate: 'req_total' })], at, 5_000);
    handler = answer('req_total 100\n');
    expect((await read(0))[0]?.status).toBe('no-data');
    handler = answer('boom', 500);
    expect((await read(1_000))[0]?.status).toBe('error');
    handler = answer('req_total 130\n');
    // 30 requests over the 3 s since the last good scrape.
    expect((await read(3_000))[0]).toMatchObject({ status: 'ok', value: 10 });
  });
});
