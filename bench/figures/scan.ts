/**
 * `scan` over 259 200 windows, from `bench/scan.ts`: each repetition builds the synthetic journal and
 * request log afresh and times one pass of each scan path.
 */
import { benchScan, TARGET_MS, WINDOWS } from '../scan.js';
import { measured, type FigureResult } from '../lib/stats.js';

/** One row per scan path, `repetitions` timed passes each. */
export function benchScanFigures(repetitions: number): FigureResult[] {
  const journal: number[] = [];
  const requestLog: number[] = [];
  for (let i = 0; i < repetitions; i++) {
    const r = benchScan(WINDOWS, 1);
    journal.push(r.journalMs);
    requestLog.push(r.requestLogMs);
  }
  const target = { max: TARGET_MS, text: `≤ ${TARGET_MS} ms` };
  return [
    measured(
      {
        id: 'scan-journal',
        figure: `scan over ${WINDOWS.toLocaleString('en-US')} windows (journal)`,
        unit: 'ms',
        method: 'bench/scan.ts scanJournal: 30 days of 10 s measurements per run, control + experiment',
      },
      journal,
      target,
    ),
    measured(
      {
        id: 'scan-request-log',
        figure: `scan over ${WINDOWS.toLocaleString('en-US')} windows (request log)`,
        unit: 'ms',
        method: 'bench/scan.ts scanRequestLog: the same number of windows from request records',
      },
      requestLog,
      target,
    ),
  ];
}
