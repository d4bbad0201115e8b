/**
 * `chaos-gate scan <file>`: calibrate a hypothesis threshold over a recorded control and experiment
 * run (docs/design/analysis.md#scan). Reads one file, prints tables or JSON, touches nothing.
 */
import { resolve } from 'node:path';
import { loadScanInput, ScanInputError } from '../../analysis/input.js';
import { scanJournal, scanRequestLog, ScanError, type ScanReport } from '../../analysis/scan.js';
import { formatScanText } from '../../analysis/scan-text.js';
import { parseFlags, UsageError, type CliCommand } from '../command.js';
import { exitCodesHelp } from '../exit-codes.js';

/** Exit code for unreadable input (docs/design/verdicts.md). */
const EXIT_UNREADABLE = 2;

const usage = `Usage: chaos-gate scan <file> [--window N | --window-seconds S] [--margins 0,5,10,20]
                       [--k 1..4] [--planned-share X] [--sli NAME] [--json]

Calibrates a hypothesis threshold over a recorded run without rerunning anything (docs/analysis.md).
<file> is a chaos-gate journal (steady-state measurements are the control run, fault and recovery
measurements the experiment run) or a request log:
  { "WINDOW": 40, "EXPERIMENT_START": 200, "control": [...], "experiment": [...] }
with records { "request": <index>, "tagged": <bool>, "result": "full" | "degraded" }.

Options:
  --window N           window size in requests (request log; overrides WINDOW) or in measurements (journal)
  --window-seconds S   journal: window length in seconds, by the measurements' times, at least the
                       measurement interval (default: the interval, one measurement per window)
  --margins LIST       share margins in percent, comma-separated (default 0,5,10,20)
  --k SPEC             consecutive falsified windows for an abort: 1..4 or 1,2,3 (default 1..4)
  --planned-share X    planned blast radius: a fraction (0.1) or a percentage (10%)
  --sli NAME           journal only: use this ratio SLI's value as the full share instead of the bounds
  --json               print {baseline, windows, margins, chosenMargin, totalDamage, aborts, blastRadius}
                       and, for a journal, suggestion (settle, tolerance and bound per SLI)
  -h, --help           show this help

${exitCodesHelp('scan')}`;

function parseNumber(flag: string, text: string): number {
  const value = Number(text);
  if (text.trim() === '' || !Number.isFinite(value))
    throw new UsageError(`${flag} ${text}: expected a number`);
  return value;
}

/** `0,5,10,20` → fractions [0, 0.05, 0.1, 0.2]. */
export function parseMargins(text: string): number[] {
  const margins = text.split(',').map((part) => parseNumber('--margins', part.replace(/%$/, '')));
  for (const m of margins) {
    if (m < 0 || m > 100)
      throw new UsageError(`--margins ${text}: ${m} is not a percentage between 0 and 100`);
  }
  return [...new Set(margins)].map((m) => m / 100);
}

/** `1..4` → [1, 2, 3, 4]; `1,3` → [1, 3]. */
export function parseKs(text: string): number[] {
  const range = /^\s*(\d+)\s*\.\.\s*(\d+)\s*$/.exec(text);
  const ks = range
    ? Array.from(
        { length: Math.max(0, Number(range[2]) - Number(range[1]) + 1) },
        (_, i) => Number(range[1]) + i,
      )
    : text.split(',').map((part) => parseNumber('--k', part));
  if (ks.length === 0 || ks.some((k) => !Number.isInteger(k) || k < 1)) {
    throw new UsageError(`--k ${text}: expected whole numbers ≥ 1, as a range (1..4) or a list (1,2,3)`);
  }
  return [...new Set(ks)];
}

/** `0.1` or `10%` → 0.1. */
export function parsePlannedShare(text: string): number {
  const share = text.trim().endsWith('%')
    ? parseNumber('--planned-share', text.trim().slice(0, -1)) / 100
    : parseNumber('--planned-share', text);
  if (!(share > 0 && share <= 1)) {
    throw new UsageError(`--planned-share ${text}: expected a share in (0, 1] or a percentage such as 10%`);
  }
  return share;
}

export const scan: CliCommand = {
  name: 'scan',
  usage,
  async run(argv, io) {
    const parsed = parseFlags(argv, {
      window: { type: 'string' },
      'window-seconds': { type: 'string' },
      margins: { type: 'string' },
      k: { type: 'string' },
      'planned-share': { type: 'string' },
      sli: { type: 'string' },
      json: { type: 'boolean', default: false },
    });
    const [file, ...extra] = parsed.positionals;
    if (file === undefined) throw new UsageError('missing the file argument (a journal or a request log)');
    if (extra.length > 0) throw new UsageError(`expected one file, got also: ${extra.join(' ')}`);
    const v = parsed.values;
    if (v.window !== undefined && v['window-seconds'] !== undefined) {
      throw new UsageError('--window and --window-seconds are alternatives: pass one');
    }
    const window = v.window === undefined ? undefined : parseNumber('--window', v.window);
    if (window !== undefined && !(Number.isInteger(window) && window >= 1)) {
      throw new UsageError(`--window ${v.window}: expected a whole number ≥ 1`);
    }
    const windowSeconds =
      v['window-seconds'] === undefined ? undefined : parseNumber('--window-seconds', v['window-seconds']);
    if (windowSeconds !== undefined && !(windowSeconds > 0)) {
      throw new UsageError(`--window-seconds ${v['window-seconds']}: expected a positive number of seconds`);
    }
    const options = {
      margins: v.margins === undefined ? undefined : parseMargins(v.margins),
      ks: v.k === undefined ? undefined : parseKs(v.k),
      plannedShare: v['planned-share'] === undefined ? undefined : parsePlannedShare(v['planned-share']),
    };

    let report: ScanReport;
    try {
      const input = await loadScanInput(resolve(io.cwd, file), file);
      if (input.kind === 'request-log') {
        if (windowSeconds !== undefined) {
          throw new UsageError(
            '--window-seconds needs a journal: request-log records carry no time; use --window N',
          );
        }
        if (v.sli !== undefined) throw new UsageError('--sli applies to journals only');
        report = scanRequestLog(input.log, { ...options, window });
      } else {
        if (options.plannedShare !== undefined) {
          io.err(
            'note: --planned-share is ignored for a journal (it does not record which requests were tagged)',
          );
        }
        report = scanJournal(input.journal, {
          ...options,
          windowSeconds,
          windowMeasurements: window,
          mode: v.sli === undefined ? 'bounds' : { sli: v.sli },
        });
      }
    } catch (error) {
      if (error instanceof ScanInputError || error instanceof ScanError) {
        // ScanInputError already names the file (and line); ScanError is about the content as a whole.
        io.err(`chaos-gate scan: ${error instanceof ScanError ? `${file}: ` : ''}${error.message}`);
        return EXIT_UNREADABLE;
      }
      throw error;
    }
    // For a journal, `--json` carries the suggested hypothesis beside the scan's result, as the text does.
    const json = report.suggestion ? { ...report.result, suggestion: report.suggestion } : report.result;
    io.out(v.json ? JSON.stringify(json, null, 2) : formatScanText(report));
    return 0;
  },
};
