/**
 * A local `/metrics` endpoint with scripted, exactly known traffic, for tests against a real Prometheus.
 *
 * Traffic arrives in whole batches, one per second of the server's own clock: each batch is `perBatch`
 * requests whose outcomes and latencies are fixed by the script. Because a scrape sees only whole batches,
 * the increase between any two scrapes is an exact multiple of one batch: the error ratio and every
 * bucket's share are exactly the script's, whatever the scrape timing. The counters start at
 * `startBatches` batches so rate()'s extrapolation is never clamped at zero (Prometheus limits the
 * extrapolation of a counter whose first sample is close to zero).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request of the per-batch script. */
export interface ScriptedRequest {
  latencySeconds: number;
  error: boolean;
}

/** What the server serves. */
export interface TrafficScript {
  /** One batch: the requests that arrive each second. */
  batch: readonly ScriptedRequest[];
  /** Histogram bucket bounds (ascending, finite; +Inf is added). */
  buckets: readonly number[];
  /** Batches already counted at start. */
  startBatches?: number;
}

/** A running traffic server. */
export interface TrafficServer {
  /** `http://127.0.0.1:<port>` */
  origin: string;
  /** `127.0.0.1:<port>`, as a Prometheus target. */
  target: string;
  /** Batches counted so far (whole seconds since start plus `startBatches`). */
  batches(): number;
  /** Serves `text` at `path` (e.g. a fixed histogram for the cross-check), as Prometheus text format. */
  setFixture(path: string, text: string): void;
  /** Requests answered for `path` so far. */
  hits(path: string): number;
  close(): Promise<void>;
}

/** Default latency buckets (seconds), the usual client-library set. */
export const DEFAULT_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10] as const;

/**
 * The standard script: 100 requests per second, every 20th an error (5 %), latencies 50 × 20 ms,
 * 30 × 40 ms, 10 × 80 ms and 10 × 300 ms. Over the default buckets the p95 is 0.375 by hand: rank 95
 * falls 5 of 10 observations into (0.25, 0.5], i.e. 0.25 + 0.25 × 5/10.
 */
export const STANDARD_SCRIPT: TrafficScript = {
  batch: Array.from({ length: 100 }, (_, i) => ({
    error: i % 20 === 0,
    latencySeconds: i < 50 ? 0.02 : i < 80 ? 0.04 : i < 90 ? 0.08 : 0.3,
  })),
  buckets: DEFAULT_BUCKETS,
};

function formatBound(b: number): string {
  return b === Infinity ? '+Inf' : String(b);
}

/** The exposition after `n` batches. */
export function renderTraffic(script: TrafficScript, n: number): string {
  const ok = script.batch.filter((r) => !r.error).length * n;
  const errors = script.batch.filter((r) => r.error).length * n;
  const lines = [
    '# HELP app_requests_total Requests served, by outcome.',
    '# TYPE app_requests_total counter',
    `app_requests_total{outcome="ok"} ${ok}`,
    `app_requests_total{outcome="error"} ${errors}`,
    '# HELP app_request_duration_seconds Request latency.',
    '# TYPE app_request_duration_seconds histogram',
  ];
  const bounds = [...script.buckets, Infinity];
  for (const b of bounds) {
    const count = script.batch.filter((r) => r.latencySeconds <= b).length * n;
    lines.push(`app_request_duration_seconds_bucket{le="${formatBound(b)}"} ${count}`);
  }
  const sum = script.batch.reduce((acc, r) => acc + r.latencySeconds, 0) * n;
  lines.push(`app_request_duration_seconds_sum ${sum}`);
  lines.push(`app_request_duration_seconds_count ${script.batch.length * n}`);
  return lines.join('\n') + '\n';
}

/** Starts the server on 127.0.0.1 with an ephemeral port. */
export async function startTrafficServer(script: TrafficScript): Promise<TrafficServer> {
  const started = Date.now();
  const fixtures = new Map<string, string>();
  const hits = new Map<string, number>();
  const batches = (): number => (script.startBatches ?? 0) + Math.floor((Date.now() - started) / 1000);
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    const fixture = fixtures.get(path);
    hits.set(path, (hits.get(path) ?? 0) + 1);
    if (path === '/metrics') {
      res.writeHead(200, { 'content-type': 'text/plain; version=0.0.4' });
      res.end(renderTraffic(script, batches()));
    } else if (fixture !== undefined) {
      res.writeHead(200, { 'content-type': 'text/plain; version=0.0.4' });
      res.end(fixture);
    } else {
      res.writeHead(404).end('not found');
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    target: `127.0.0.1:${port}`,
    batches,
    setFixture: (path, text) => fixtures.set(path, text),
    hits: (path) => hits.get(path) ?? 0,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
