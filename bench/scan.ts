/**
 * docs/design/targets.md: `scan` over 30 days of 10 s windows (259 200 windows) in ≤ 1 s. Builds a journal with a
 * 30-day control run and a 30-day experiment run of 10 s measurements in memory, then times
 * `scanJournal` (windowing + analysis) and, separately, the request-log path on the same number of
 * windows. Run standalone: `npx tsx bench/scan.ts`.
 */
import { pathToFileURL } from 'node:url';
import { scanJournal, scanRequestLog, type RequestRecord } from '../src/analysis/scan.js';
import type { Journal, Measurement } from '../src/journal/types.js';

/** 30 days of 10 s windows (docs/design/targets.md). */
export const WINDOWS = (30 * 24 * 3600) / 10;
/** The docs/design/targets.md target, in milliseconds. */
export const TARGET_MS = 1000;
/** Requests per window for the request-log variant: small, since 259 200 × N records must fit in memory. */
const REQUESTS_PER_WINDOW = 4;

export interface ScanBenchResult {
  windows: number;
  journalMs: number;
  requestLogMs: number;
  targetMs: number;
  pass: boolean;
}

/** A deterministic pseudo-random sequence, so every bench run scans the same data. */
function lcg(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

function syntheticJournal(windows: number): Journal {
  const random = lcg(42);
  const t0 = Date.UTC(2025, 0, 1);
  const measurements: Measurement[] = [];
  for (let i = 0; i < windows * 2; i++) {
    const fault = i >= windows;
    const bad = random() < (fault ? 0.05 : 0.001);
    measurements.push({
      at: t0 + i * 10_000,
      phase: fault ? 'fault' : 'steady',
      requests: 1000,
      slis: {
        success_ratio: {
          value: bad ? 0.99 : 0.9995,
          status: bad ? 'breach' : 'ok',
          bound: '>= 0.998',
          query: 'q',
        },
      },
    });
  }
  return {
    kind: 'chaos-gate-journal',
    version: 1,
    runId: 'bench',
    planId: 'bench',
    planDigest: 'sha256:bench',
    title: 'scan bench',
    service: 'bench',
    environment: 'bench',
    slis: [{ name: 'success_ratio', bound: '>= 0.998', steadyBound: '>= 0.998', during: true }],
    abortRules: [],
    intervalMs: 10_000,
    startedAt: t0,
    verdict: null,
    reason: null,
    exitCode: null,
    measurements,
    events: [],
    timings: {},
    complete: true,
  };
}

function syntheticRecords(windows: number, faultRate: number, seed: number): RequestRecord[] {
  const random = lcg(seed);
  const records: RequestRecord[] = new Array<RequestRecord>(windows * REQUESTS_PER_WINDOW);
  for (let i = 0; i < records.length; i++) {
    const tagged = random() < 0.1;
    records[i] = { request: i, tagged, result: tagged && random() < faultRate ? 'degraded' : 'full' };
  }
  return records;
}

/** Times both scan paths over `windows` windows per run; the best of `rounds` counts. */
export function benchScan(windows = WINDOWS, rounds = 3): ScanBenchResult {
  const journal = syntheticJournal(windows);
  const log = {
    WINDOW: REQUESTS_PER_WINDOW,
    control: syntheticRecords(windows, 0, 1),
    experiment: syntheticRecords(windows, 0.5, 2),
  };
  let journalMs = Infinity;
  let requestLogMs = Infinity;
  for (let r = 0; r < rounds; r++) {
    let start = performance.now();
    scanJournal(journal, { mode: { sli: 'success_ratio' } });
    journalMs = Math.min(journalMs, performance.now() - start);
    start = performance.now();
    scanRequestLog(log, { plannedShare: 0.1 });
    requestLogMs = Math.min(requestLogMs, performance.now() - start);
  }
  return {
    windows,
    journalMs,
    requestLogMs,
    targetMs: TARGET_MS,
    pass: Math.max(journalMs, requestLogMs) <= TARGET_MS,
  };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const result = benchScan();
  console.log(
    `scan over ${result.windows} windows per run: journal ${result.journalMs.toFixed(0)} ms, ` +
      `request log ${result.requestLogMs.toFixed(0)} ms (target ≤ ${result.targetMs} ms) — ${result.pass ? 'ok' : 'OVER TARGET'}`,
  );
  process.exitCode = result.pass ? 0 : 1;
}
