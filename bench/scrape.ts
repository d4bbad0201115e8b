/**
 * Parse throughput of the scrape source on a large exposition: a service with many routes, status
 * codes and pods exposing a request counter and a 12-bucket latency histogram (about 30 000 lines,
 * 2.4 MB), plus one window's SLI evaluation (ratio and p95) over two such scrapes. Run standalone:
 * `npx tsx bench/scrape.ts`.
 */
import { pathToFileURL } from 'node:url';
import { parseExposition } from '../src/metrics/scrape/exposition.js';
import { evaluateScrape, snapshotOf } from '../src/metrics/scrape/source.js';

/** Series dimensions of the synthetic service: 40 routes × 5 codes × 40 pods = 8 000 label sets. */
const ROUTES = 40;
const CODES = ['200', '201', '404', '500', '503'];
const PODS = 40;
const BUCKETS = ['0.005', '0.01', '0.025', '0.05', '0.1', '0.25', '0.5', '1', '2.5', '5', '10', '+Inf'];
/** Timed repetitions; the best run is reported, as the first pays for JIT warm-up. */
const RUNS = 5;

/** One synthetic exposition; `tick` shifts the counters so two scrapes differ. */
export function syntheticExposition(tick: number): string {
  const lines: string[] = [
    '# HELP http_requests_total Requests served.',
    '# TYPE http_requests_total counter',
  ];
  for (let r = 0; r < ROUTES; r++) {
    for (const code of CODES) {
      for (let p = 0; p < PODS; p++) {
        lines.push(
          `http_requests_total{route="/api/v1/r${r}",code="${code}",pod="web-${p}"} ${1000 * (r + 1) + tick * 7}`,
        );
      }
    }
  }
  lines.push(
    '# HELP http_request_duration_seconds Latency.',
    '# TYPE http_request_duration_seconds histogram',
  );
  for (let r = 0; r < ROUTES; r++) {
    for (let p = 0; p < PODS; p++) {
      const labels = `route="/api/v1/r${r}",pod="web-${p}"`;
      BUCKETS.forEach((le, i) => {
        lines.push(
          `http_request_duration_seconds_bucket{${labels},le="${le}"} ${(i + 1) * (100 + tick * 3)}`,
        );
      });
      lines.push(`http_request_duration_seconds_sum{${labels}} ${123.4 + tick}`);
      lines.push(`http_request_duration_seconds_count{${labels}} ${BUCKETS.length * (100 + tick * 3)}`);
    }
  }
  return lines.join('\n') + '\n';
}

/** Bench figures. */
export interface ScrapeBenchResult {
  lines: number;
  bytes: number;
  parseMs: number;
  linesPerSecond: number;
  megabytesPerSecond: number;
  /** Time to compute an error ratio and a p95 from two parsed scrapes. */
  evaluateMs: number;
}

/** Times parsing (best of `RUNS`) and one window's evaluation. */
export function benchScrape(): ScrapeBenchResult {
  const before = syntheticExposition(0);
  const after = syntheticExposition(1);
  const lines = after.split('\n').length - 1;
  const bytes = Buffer.byteLength(after);
  let parseMs = Infinity;
  let parsedAfter = parseExposition(after, 'bench');
  for (let i = 0; i < RUNS; i++) {
    const start = performance.now();
    parsedAfter = parseExposition(after, 'bench');
    parseMs = Math.min(parseMs, performance.now() - start);
  }
  const parsedBefore = parseExposition(before, 'bench');

  const before0 = snapshotOf(parsedBefore, 0);
  const after1 = snapshotOf(parsedAfter, 1000);
  let evaluateMs = Infinity;
  let ratio: ReturnType<typeof evaluateScrape> | undefined;
  let p95: ReturnType<typeof evaluateScrape> | undefined;
  for (let i = 0; i < RUNS; i++) {
    const start = performance.now();
    ratio = evaluateScrape(
      {
        url: 'bench',
        ratio: { numerator: 'http_requests_total{code=~"5.."}', denominator: 'http_requests_total' },
      },
      before0,
      after1,
    );
    p95 = evaluateScrape(
      { url: 'bench', quantile: { q: 0.95, histogram: 'http_request_duration_seconds{route="/api/v1/r3"}' } },
      before0,
      after1,
    );
    evaluateMs = Math.min(evaluateMs, performance.now() - start);
  }
  if (ratio?.status !== 'ok' || p95?.status !== 'ok') throw new Error('bench evaluation produced no value');

  return {
    lines,
    bytes,
    parseMs,
    linesPerSecond: lines / (parseMs / 1000),
    megabytesPerSecond: bytes / 1e6 / (parseMs / 1000),
    evaluateMs,
  };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const r = benchScrape();
  console.log(
    `scrape parse: ${r.lines} lines (${(r.bytes / 1e6).toFixed(1)} MB) in ${r.parseMs.toFixed(0)} ms — ` +
      `${Math.round(r.linesPerSecond).toLocaleString('en-US')} lines/s, ${r.megabytesPerSecond.toFixed(1)} MB/s; ` +
      `ratio + p95 over two scrapes in ${r.evaluateMs.toFixed(0)} ms`,
  );
}
