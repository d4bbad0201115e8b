/**
 * Reading `scan` input: a chaos-gate journal or a request log (SPEC §9.1). Validation names the file,
 * the line, the field, the value and what was expected; the line is looked up only when something is
 * wrong, so a valid multi-million-record log pays for one JSON.parse and one pass.
 */
import { LineCounter, parseDocument } from 'yaml';
import { JournalError, parseJournal } from '../journal/read.js';
import type { Journal } from '../journal/types.js';
import type { RequestLog, RequestRecord } from './scan.js';

/** Bad scan input: the message already names file, line, field, value and expectation. */
export class ScanInputError extends Error {
  override name = 'ScanInputError';
}

export type ScanInput = { kind: 'journal'; journal: Journal } | { kind: 'request-log'; log: RequestLog };

type Path = (string | number)[];

/** Parses the text of `file` as a journal (`kind: "chaos-gate-journal"`) or a request log. */
export function parseScanInput(text: string, file: string): ScanInput {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    // A crashed run leaves an NDJSON journal prefix, which is still worth scanning.
    if (looksLikeJournalRecords(text)) {
      try {
        return { kind: 'journal', journal: parseJournal(text, file) };
      } catch (journalError) {
        if (journalError instanceof JournalError) throw new ScanInputError(journalError.message);
        throw journalError;
      }
    }
    const message = (error instanceof Error ? error.message : String(error)).replace(/\s+/g, ' ');
    const position = /position (\d+)/.exec(message);
    const line = position ? lineAtOffset(text, Number(position[1])) : firstSyntaxErrorLine(text);
    throw new ScanInputError(`${file}${line ? `:${line}` : ''}: not valid JSON (${message})`);
  }
  const fail = (path: Path, value: unknown, expected: string): never => {
    const line = lineOfPath(text, path);
    throw new ScanInputError(
      `${file}${line ? `:${line}` : ''}: ${formatPath(path)} is ${describe(value)}; expected ${expected}`,
    );
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
  if (value === undefined) return 'missing';
  const text = JSON.stringify(value);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

function formatPath(path: Path): string {
  if (path.length === 0) return 'the document';
  return path.map((p, i) => (typeof p === 'number' ? `[${p}]` : i === 0 ? p : `.${p}`)).join('');
}

/** Node 20's JSON.parse does not always say where it failed; yaml's parser (JSON is YAML) does. */
function firstSyntaxErrorLine(text: string): number | undefined {
  const doc = parseDocument(text, { lineCounter: new LineCounter() });
  return doc.errors[0]?.linePos?.[0].line;
}

function lineAtOffset(text: string, offset: number): number {
  let line = 1;
  for (let i = 0; i < offset && i < text.length; i++) if (text.charCodeAt(i) === 10) line++;
  return line;
}

/** The 1-based line of the deepest existing node on `path` (JSON is YAML, so yaml's positions serve). */
function lineOfPath(text: string, path: Path): number | undefined {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter });
  for (let depth = path.length; depth >= 0; depth--) {
    const node: unknown = depth === 0 ? doc.contents : doc.getIn(path.slice(0, depth), true);
    const range = (node as { range?: [number, number, number] } | null | undefined)?.range;
    if (range) return lineCounter.linePos(range[0]).line;
  }
  return undefined;
}
