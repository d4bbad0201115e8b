/** Reads a journal file: the final JSON, or the NDJSON prefix a crashed run left behind. */
import { FileReadError, readFileBoundedSync } from '../files/read.js';
import { applyRecord, type JournalRecord } from './writer.js';
import type { Journal } from './types.js';
import { judge, judgeInputOf } from './judgement.js';

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
 * Parses journal text. A last line cut short by a crash is dropped; any other bad line is an error.
 * A prefix without a final record has `complete: false` and a null verdict.
 */
export function parseJournal(text: string, source = 'journal'): Journal {
  if (text.trim() === '') throw new JournalError(`${source}: empty journal`);
  try {
    const whole: unknown = JSON.parse(text);
    if (isFinalForm(whole)) return withJudgement(whole);
  } catch {
    // Not a single JSON document: an NDJSON prefix.
  }
  const lines = text.split('\n');
  let journal: Journal | undefined;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]?.trim() ?? '';
    if (line === '') continue;
    let record: JournalRecord;
    try {
      record = JSON.parse(line) as JournalRecord;
    } catch {
      const isLast = lines.slice(i + 1).every((l) => l.trim() === '');
      if (isLast && journal) break; // the line being written when the process died
      throw new JournalError(`${source}:${i + 1}: not a JSON record (expected one journal record per line)`);
    }
    if (typeof record !== 'object' || record === null || typeof record.record !== 'string') {
      throw new JournalError(
        `${source}:${i + 1}: field 'record' missing (expected header, event, measurement, …)`,
      );
    }
    if (!journal && record.record !== 'header') {
      throw new JournalError(`${source}:${i + 1}: the first record is '${record.record}', expected 'header'`);
    }
    if (record.record === 'header' && record.kind !== 'chaos-gate-journal') {
      throw new JournalError(`${source}:${i + 1}: kind '${String(record.kind)}' is not a chaos-gate journal`);
    }
    journal = applyRecord(journal, record);
  }
  if (!journal) throw new JournalError(`${source}: no journal header`);
  return withJudgement(journal);
}

/**
 * Largest journal read. A 15-minute run at 1 s with a dozen SLIs writes a few MB; 256 MiB leaves room for
 * runs of a day while bounding what `report` and `scan` hold in memory.
 */
export const MAX_JOURNAL_BYTES = 256 * 1024 * 1024;

/** Reads and parses a journal file (a regular file, capped: src/files/read.ts). */
export function readJournal(path: string): Journal {
  let text: string;
  try {
    text = readFileBoundedSync(path, { what: 'journal', maxBytes: MAX_JOURNAL_BYTES }).text;
  } catch (error) {
    if (!(error instanceof FileReadError)) throw error;
    throw new JournalError(`${path}: cannot read the journal: ${error.reason}; expected ${error.expected}`);
  }
  return parseJournal(text, path);
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
