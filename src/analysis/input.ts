/**
 * Reading `scan` input: a chaos-gate journal or a request log (docs/design/analysis.md#scan). Validation names the file,
 * the line, the field, the value and what was expected; the line is looked up only when something is
 * wrong, so a valid multi-million-record log pays for one JSON.parse and one pass.
 */
import {
  DocumentError,
  formatIssue,
  formatPath,
  parseYamlDocument,
  type DocumentIssue,
  type DocumentOptions,
  type Position,
} from '../files/document.js';
import { readIssue } from '../files/load.js';
import { FileReadError, readFileBounded } from '../files/read.js';
import { errorMessage } from '../errors/message.js';
import { JournalError, parseJournal } from '../journal/read.js';
import type { Journal } from '../journal/types.js';
import type { RequestLog, RequestRecord } from './scan.js';

/**
 * Largest scan input read. `scan` is offline analysis of long runs (a 30-day journal of 10 s measurements
 * is under 100 MB as JSON); 256 MiB leaves room and stays well under V8's largest string (~512 MiB).
 */
export const MAX_SCAN_INPUT_BYTES = 256 * 1024 * 1024;

/** Bad scan input: the message names file, line, field, value and expectation (`issue` when located). */
export class ScanInputError extends Error {
  override name = 'ScanInputError';
  constructor(
    message: string,
    readonly issue?: DocumentIssue,
  ) {
    super(message);
  }
}

function scanFile(file: string): DocumentOptions {
  return { file, what: 'scan input', maxBytes: MAX_SCAN_INPUT_BYTES, limitName: 'MAX_SCAN_INPUT_BYTES' };
}

function located(issue: DocumentIssue): ScanInputError {
  return new ScanInputError(formatIssue(issue), issue);
}

/** Reads `path` (a regular file, capped while reading) and parses it; `file` names it in messages. */
export async function loadScanInput(path: string, file: string = path): Promise<ScanInput> {
  let text: string;
  try {
    text = (
      await readFileBounded(path, { what: 'scan input', maxBytes: MAX_SCAN_INPUT_BYTES, display: file })
    ).text;
  } catch (error) {
    if (error instanceof FileReadError) throw located(readIssue(error, scanFile(file)));
    throw error;
  }
  return parseScanInput(text, file);
}

export type ScanInput = { kind: 'journal'; journal: Journal } | { kind: 'request-log'; log: RequestLog };

type Path = (string | number)[];

/** Parses the text of `file` as a journal (`kind: "chaos-gate-journal"`) or a request log. */
export function parseScanInput(text: string, file: string): ScanInput {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    // NDJSON: a long run's journal, or the prefix a crashed run leaves (still worth scanning).
    if (looksLikeJournalRecords(text)) {
      try {
        return { kind: 'journal', journal: parseJournal(text, file) };
      } catch (journalError) {
        if (journalError instanceof JournalError) throw new ScanInputError(journalError.message);
        throw journalError;
      }
    }
    const message = errorMessage(error).replace(/\s+/g, ' ');
    const offset = /position (\d+)/.exec(message);
    const position = offset ? positionAtOffset(text, Number(offset[1])) : firstSyntaxError(text, file);
    throw located({
      file,
      ...(position ?? { line: 1, column: 1 }),
      field: '',
      expected: 'valid JSON',
      message: `not valid JSON (${message}); expected valid JSON`,
    });
  }
  const fail = (path: Path, value: unknown, expected: string): never => {
    throw located({
      file,
      ...positionOfPath(text, file, path),
      field: formatPath(path),
      ...(value === undefined ? {} : { value }),
      expected,
      message:
        value === undefined
          ? `required field is missing; expected ${expected}`
          : `${describe(value)} is not valid; expected ${expected}`,
    });
  };
  if (!isObject(data)) return fail([], data, 'a chaos-gate journal or a request log object');
  if (data['kind'] === 'chaos-gate-journal') return { kind: 'journal', journal: checkJournal(data, fail) };
  if ('control' in data || 'experiment' in data) return { kind: 'request-log', log: checkLog(data, fail) };
  return fail(
    [],
    data,
    'a chaos-gate journal ("kind": "chaos-gate-journal") or a request log ({ "WINDOW", "control", "experiment" })',
  );
}

type Fail = (path: Path, value: unknown, expected: string) => never;

function checkLog(data: Record<string, unknown>, fail: Fail): RequestLog {
  const window = data['WINDOW'];
  if (window !== undefined && !(Number.isInteger(window) && (window as number) >= 1)) {
    fail(['WINDOW'], window, 'a whole number of requests ≥ 1');
  }
  const start = data['EXPERIMENT_START'];
  if (start !== undefined && !(Number.isInteger(start) && (start as number) >= 0)) {
    fail(['EXPERIMENT_START'], start, 'the first request index of the fault window (a whole number ≥ 0)');
  }
  const runs = { control: [] as RequestRecord[], experiment: [] as RequestRecord[] };
  for (const run of ['control', 'experiment'] as const) {
    const records = data[run];
    if (!Array.isArray(records))
      return fail([run], records, 'an array of { "request", "tagged", "result" } records');
    for (let i = 0; i < records.length; i++) {
      const r: unknown = records[i];
      if (!isObject(r)) return fail([run, i], r, 'a { "request", "tagged", "result" } record');
      if (!(Number.isInteger(r['request']) && (r['request'] as number) >= 0)) {
        fail([run, i, 'request'], r['request'], 'the request index (a whole number ≥ 0)');
      }
      if (typeof r['tagged'] !== 'boolean') fail([run, i, 'tagged'], r['tagged'], 'true or false');
      if (r['result'] !== 'full' && r['result'] !== 'degraded')
        fail([run, i, 'result'], r['result'], '"full" or "degraded"');
    }
    runs[run] = records as RequestRecord[];
  }
  return {
    WINDOW: window as number | undefined,
    EXPERIMENT_START: start as number | undefined,
    control: runs.control,
    experiment: runs.experiment,
  };
}

const PHASES = new Set(['preflight', 'steady', 'fault', 'recovery']);

function checkJournal(data: Record<string, unknown>, fail: Fail): Journal {
  const measurements = data['measurements'];
  if (!Array.isArray(measurements)) return fail(['measurements'], measurements, 'an array of measurements');
  if (!Array.isArray(data['slis']))
    fail(['slis'], data['slis'], 'the array of SLI bounds of the journal header');
  if (!(typeof data['intervalMs'] === 'number' && data['intervalMs'] > 0)) {
    fail(['intervalMs'], data['intervalMs'], 'the measurement interval in milliseconds (> 0)');
  }
  for (let i = 0; i < measurements.length; i++) {
    const m: unknown = measurements[i];
    if (!isObject(m)) return fail(['measurements', i], m, 'a measurement object');
    if (typeof m['at'] !== 'number') fail(['measurements', i, 'at'], m['at'], 'a time in epoch milliseconds');
    if (typeof m['phase'] !== 'string' || !PHASES.has(m['phase'])) {
      fail(['measurements', i, 'phase'], m['phase'], 'one of preflight, steady, fault, recovery');
    }
    if (!isObject(m['slis'])) fail(['measurements', i, 'slis'], m['slis'], 'an object of SLI values');
    if (m['requests'] !== null && m['requests'] !== undefined && typeof m['requests'] !== 'number') {
      fail(['measurements', i, 'requests'], m['requests'], 'a request count or null');
    }
  }
  return data as unknown as Journal;
}

function looksLikeJournalRecords(text: string): boolean {
  try {
    const first: unknown = JSON.parse(text.trimStart().split('\n', 1)[0] ?? '');
    return isObject(first) && typeof first['record'] === 'string';
  } catch {
    return false;
  }
}

function isObject(x: unknown): x is Record<string, unknown> {
  return typeof x === 'object' && x !== null && !Array.isArray(x);
}

function describe(value: unknown): string {
  const text = JSON.stringify(value);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

/** Node 20's JSON.parse does not always say where it failed; yaml's parser (JSON is YAML) does. */
function firstSyntaxError(text: string, file: string): Position | undefined {
  try {
    parseYamlDocument(text, scanFile(file));
  } catch (error) {
    const first = error instanceof DocumentError ? error.issues[0] : undefined;
    if (first) return { line: first.line, column: first.column };
  }
  return undefined;
}

function positionAtOffset(text: string, offset: number): Position {
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < offset && i < text.length; i++) {
    if (text.charCodeAt(i) === 10) {
      line++;
      lineStart = i + 1;
    }
  }
  return { line, column: Math.min(offset, text.length) - lineStart + 1 };
}

/**
 * Where `path` (or its nearest written parent) is in the text, through the one loader (JSON is YAML).
 * Looked up only when something is wrong; text the loader refuses is pointed at from its start.
 */
function positionOfPath(text: string, file: string, path: Path): Position {
  try {
    const doc = parseYamlDocument(text, scanFile(file));
    return doc.locate(path) ?? doc.nearest(path);
  } catch {
    return { line: 1, column: 1 };
  }
}
