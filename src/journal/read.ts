/**
 * Reads a journal: the single final JSON document of a short run (or of an older version), or the NDJSON
 * lines of a long run or of a prefix a crashed run left behind (docs/journal.md).
 *
 * NDJSON is read a chunk and a line at a time: memory holds the events, a bounded sample of the
 * measurements and every measurement as compact columns (src/journal/columns.ts), never the text.
 * A single JSON document must be parsed whole, so it stays capped at {@link MAX_JOURNAL_BYTES}.
 */
import { StringDecoder } from 'node:string_decoder';
import { FileReadError, readFileChunksSync } from '../files/read.js';
import { JournalBuilder, type JournalRecord } from './writer.js';
import type { Journal } from './types.js';
import { judge, judgeInputOf } from './judgement.js';
import { attachMeasurements, MAX_KEPT_MEASUREMENTS, MeasurementDigest } from './columns.js';

/** An unreadable journal: names the file and, for NDJSON, the line. */
export class JournalError extends Error {
  override name = 'JournalError';
}

function isFinalForm(value: unknown): value is Journal {
  if (typeof value !== 'object' || value === null) return false;
  const o = value as Record<string, unknown>;
  return o.kind === 'chaos-gate-journal' && !('record' in o) && Array.isArray(o.measurements);
}

/**
 * Largest single-document journal read (it is parsed whole). A 15-minute run at 1 s with a dozen SLIs
 * writes a few MB; runs long enough to come near this are written as NDJSON, which has no such cap.
 */
export const MAX_JOURNAL_BYTES = 256 * 1024 * 1024;

/** Largest NDJSON journal read: 12 h × 60 SLIs at 1 s writes about 0.4 GiB. */
export const MAX_STREAMED_JOURNAL_BYTES = 16 * 1024 * 1024 * 1024;

/** Longest NDJSON line: the final record of a long run is about 1 MB; a measurement a few kB. */
export const MAX_JOURNAL_LINE_BYTES = 64 * 1024 * 1024;

/**
 * Parses NDJSON journal lines as they come. A last line cut short by a crash is dropped; any other bad
 * line is an error naming its number. A prefix without a final record has `complete: false`.
 */
export class JournalLineReader {
  private readonly builder = new JournalBuilder();
  private line = 0;
  /** A line that did not parse: an error unless nothing but blank lines follows it. */
  private bad: number | undefined;

  constructor(private readonly source: string) {}

  /** One line (without its newline). */
  feed(text: string): void {
    this.line++;
    const line = text.trim();
    if (line === '') return;
    if (this.bad !== undefined) throw this.notRecord(this.bad);
    let record: JournalRecord;
    try {
      record = JSON.parse(line) as JournalRecord;
    } catch {
      this.bad = this.line;
      return;
    }
    const at = `${this.source}:${this.line}`;
    if (typeof record !== 'object' || record === null || typeof record.record !== 'string') {
      throw new JournalError(`${at}: field 'record' missing (expected header, event, measurement, …)`);
    }
    if (!this.builder.begun && record.record !== 'header') {
      throw new JournalError(`${at}: the first record is '${record.record}', expected 'header'`);
    }
    if (record.record === 'header' && record.kind !== 'chaos-gate-journal') {
      throw new JournalError(`${at}: kind '${String(record.kind)}' is not a chaos-gate journal`);
    }
    if (record.record === 'measurement' && (typeof record.slis !== 'object' || record.slis === null)) {
      throw new JournalError(`${at}: measurement without 'slis' (expected an object of readings)`);
    }
    this.builder.apply(record);
  }

  private notRecord(line: number): JournalError {
    return new JournalError(
      `${this.source}:${line}: not a JSON record (expected one journal record per line)`,
    );
  }

  /** The journal read; throws when there was none. */
  end(): Journal {
    // The line being written when the process died: dropped, once a header came before it.
    if (this.bad !== undefined && !this.builder.begun) throw this.notRecord(this.bad);
    if (!this.builder.begun) throw new JournalError(`${this.source}: no journal header`);
    return withJudgement(this.builder.result());
  }
}

/** A whole-document journal; a long one keeps a sample in `measurements` and the rest as columns. */
function fromDocument(journal: Journal): Journal {
  if (journal.measurements.length > MAX_KEPT_MEASUREMENTS) {
    const digest = new MeasurementDigest(
      {
        slis: (journal.slis ?? []).map((s) => s.name),
        expectations: (journal.expectations ?? []).map((e) => e.name),
      },
      { intervalMs: journal.intervalMs, keepAll: true },
    );
    for (const m of journal.measurements) digest.add(m);
    journal.measurements = digest.kept();
    journal.summary = digest.summary();
    if (digest.columns) attachMeasurements(journal, digest.columns);
  }
  return withJudgement(journal);
}

/** Parses journal text (either form). */
export function parseJournal(text: string, source = 'journal'): Journal {
  if (text.trim() === '') throw new JournalError(`${source}: empty journal`);
  try {
    const whole: unknown = JSON.parse(text);
    if (isFinalForm(whole)) return fromDocument(whole);
  } catch {
    // Not a single JSON document: NDJSON.
  }
  const reader = new JournalLineReader(source);
  for (const line of text.split('\n')) reader.feed(line);
  return reader.end();
}

/** Reads a journal file (a regular file: src/files/read.ts), NDJSON a chunk at a time. */
export function readJournal(path: string): Journal {
  const decoder = new StringDecoder('utf8');
  const state: { mode: 'unknown' | 'lines' | 'document'; pending: string } = { mode: 'unknown', pending: '' };
  /** The text of a single-document journal, kept only in that mode. */
  const document: string[] = [];
  let documentBytes = 0;
  const lines = new JournalLineReader(path);
  const keep = (text: string): void => {
    documentBytes += Buffer.byteLength(text);
    if (documentBytes > MAX_JOURNAL_BYTES)
      throw new JournalError(
        `${path}: cannot read the journal: it is a single JSON document larger than ${MAX_JOURNAL_BYTES} bytes; expected at most that, or NDJSON`,
      );
    document.push(text);
  };
  const onText = (text: string): void => {
    if (state.mode === 'document') return keep(text);
    const buffer = state.pending + text;
    let start = 0;
    let nl = buffer.indexOf('\n', start);
    while (nl >= 0) {
      const line = buffer.slice(start, nl);
      if (state.mode === 'unknown' && line.trim() !== '') {
        // NDJSON starts with a header record on a line of its own; anything else is one JSON document.
        state.mode = isRecordLine(line) ? 'lines' : 'document';
        if (state.mode === 'document') {
          state.pending = '';
          return keep(buffer);
        }
      }
      lines.feed(line);
      start = nl + 1;
      nl = buffer.indexOf('\n', start);
    }
    state.pending = buffer.slice(start);
    if (state.pending.length > MAX_JOURNAL_LINE_BYTES)
      throw new JournalError(
        `${path}: a journal line is longer than ${MAX_JOURNAL_LINE_BYTES} bytes; expected one record per line`,
      );
  };
  try {
    readFileChunksSync(path, { what: 'journal', maxBytes: MAX_STREAMED_JOURNAL_BYTES }, (chunk) =>
      onText(decoder.write(chunk)),
    );
  } catch (error) {
    if (!(error instanceof FileReadError)) throw error;
    throw new JournalError(`${path}: cannot read the journal: ${error.reason}; expected ${error.expected}`);
  }
  onText(decoder.end());
  if (state.mode === 'lines') {
    if (state.pending !== '') lines.feed(state.pending);
    return lines.end();
  }
  return parseJournal(document.join('') + state.pending, path);
}

function isRecordLine(line: string): boolean {
  try {
    const v: unknown = JSON.parse(line);
    return typeof v === 'object' && v !== null && 'record' in v;
  } catch {
    return false;
  }
}

/**
 * A finished journal written before the engine stored its judgement gets one on read, computed once by
 * the engine's own function; its verdict and reason stay those the run decided.
 */
function withJudgement(journal: Journal): Journal {
  if (journal.judgement || !journal.complete || journal.verdict === null || journal.reason === null)
    return journal;
  const judgement = judge(judgeInputOf(journal));
  judgement.verdict = journal.verdict;
  judgement.reason = journal.reason;
  journal.judgement = judgement;
  return journal;
}
