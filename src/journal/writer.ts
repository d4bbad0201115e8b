/**
 * Journal writers. While a run goes, every record is appended as one NDJSON line (header, events,
 * measurements, updates, final), so a crash leaves a readable prefix. At the end the file is replaced
 * atomically (write + rename) by the final `Journal` JSON. `readJournal` accepts either form.
 */
import { closeSync, mkdirSync, openSync, renameSync, writeFileSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { redactDeep } from '../security/redact.js';
import type { Journal, JournalEvent, JournalHeader, Measurement, Verdict } from './types.js';
import type { Judgement } from './judgement.js';

/** Fields learned while the run goes (experiment id, targets, timings, budget). */
export type JournalPatch = Partial<
  Pick<Journal, 'experimentId' | 'templateId' | 'resolvedTargets' | 'timings' | 'budget'>
>;

/** The closing record. */
export interface JournalFinal {
  verdict: Verdict;
  reason: string;
  exitCode: number;
  /** The evidence behind the verdict, computed once by the engine (src/journal/judgement.ts). */
  judgement?: Judgement;
}

/** One NDJSON line of an in-progress journal. */
export type JournalRecord =
  | ({ record: 'header' } & JournalHeader)
  | ({ record: 'event' } & JournalEvent)
  | ({ record: 'measurement' } & Measurement)
  | ({ record: 'update' } & JournalPatch)
  | ({ record: 'final' } & JournalFinal);

/** What the engine writes to. */
export interface JournalWriter {
  /** Starts the journal; called once, before anything else. */
  begin(header: JournalHeader): void;
  event(event: JournalEvent): void;
  measurement(measurement: Measurement): void;
  update(patch: JournalPatch): void;
  /** Writes the final record and the final JSON; returns the complete journal. */
  finish(final: JournalFinal): Promise<Journal>;
  /** The journal as recorded so far. */
  snapshot(): Journal;
}

/** Applies one record to a journal under construction (shared by writers and the prefix reader). */
export function applyRecord(journal: Journal | undefined, record: JournalRecord): Journal {
  if (record.record === 'header') {
    const { record: _r, ...header } = record;
    return {
      ...header,
      verdict: null,
      reason: null,
      exitCode: null,
      measurements: [],
      events: [],
      timings: { startedAt: header.startedAt },
      complete: false,
    };
  }
  if (!journal) throw new Error(`a '${record.record}' record before the header`);
  switch (record.record) {
    case 'event': {
      const { record: _r, ...event } = record;
      journal.events.push(event);
      break;
    }
    case 'measurement': {
      const { record: _r, ...measurement } = record;
      journal.measurements.push(measurement);
      break;
    }
    case 'update': {
      const { record: _r, timings, ...rest } = record;
      Object.assign(journal, rest);
      if (timings) journal.timings = { ...journal.timings, ...timings };
      break;
    }
    case 'final':
      journal.verdict = record.verdict;
      journal.reason = record.reason;
      journal.exitCode = record.exitCode;
      if (record.judgement) journal.judgement = record.judgement;
      journal.complete = true;
      break;
  }
  return journal;
}

/** Keeps the journal in memory and hands each record to `append` as an NDJSON line. */
abstract class RecordingWriter implements JournalWriter {
  private journal: Journal | undefined;

  protected abstract append(line: string): void;
  protected abstract close(journal: Journal): Promise<void>;

  private write(record: JournalRecord): void {
    // The one redactor (SPEC §11): no registered secret reaches the journal — the NDJSON lines, the final
    // JSON, or the reports rendered from the journal this writer hands back.
    const safe = redactDeep(record);
    this.journal = applyRecord(this.journal, safe);
    this.append(JSON.stringify(safe) + '\n');
  }

  begin(header: JournalHeader): void {
    if (this.journal) throw new Error('journal already begun');
    this.write({ record: 'header', ...header });
  }
  event(event: JournalEvent): void {
    this.write({ record: 'event', ...event });
  }
  measurement(measurement: Measurement): void {
    this.write({ record: 'measurement', ...measurement });
  }
  update(patch: JournalPatch): void {
    this.write({ record: 'update', ...patch });
  }
  async finish(final: JournalFinal): Promise<Journal> {
    this.write({ record: 'final', ...final });
    const journal = this.snapshot();
    await this.close(journal);
    return journal;
  }
  snapshot(): Journal {
    if (!this.journal) throw new Error('journal not begun');
    return this.journal;
  }
}

/**
 * Writes to a file. Appends are synchronous on purpose: a record is on disk before the engine acts on
 * the next tick, so SIGKILL loses at most the line being written.
 */
export class FileJournalWriter extends RecordingWriter {
  private fd: number | undefined;

  constructor(readonly path: string) {
    super();
  }

  protected append(line: string): void {
    if (this.fd === undefined) {
      mkdirSync(dirname(this.path), { recursive: true });
      this.fd = openSync(this.path, 'w');
    }
    writeSync(this.fd, line);
  }

  protected async close(journal: Journal): Promise<void> {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
    const tmp = `${this.path}.${process.pid}.tmp`;
    writeFileSync(tmp, JSON.stringify(journal, null, 2) + '\n');
    renameSync(tmp, this.path);
  }
}

/** Keeps every NDJSON line and the final JSON in memory (tests, and runs without a journal path). */
export class MemoryJournalWriter extends RecordingWriter {
  readonly lines: string[] = [];
  finalJson: string | undefined;

  protected append(line: string): void {
    this.lines.push(line);
  }
  protected async close(journal: Journal): Promise<void> {
    this.finalJson = JSON.stringify(journal, null, 2) + '\n';
  }
  /** The file content as it would be on disk now (NDJSON until finished). */
  text(): string {
    return this.finalJson ?? this.lines.join('');
  }
}
