/**
 * Journal writers. While a run goes, every record is appended as one NDJSON line (header, events,
 * measurements, updates, final), so a crash leaves a readable prefix. At the end the file is replaced
 * atomically (write + rename) by the final `Journal` JSON. `readJournal` accepts either form.
 *
 * A write that fails (a full disk, a revoked permission) never throws into the engine: the record is
 * kept in memory, the failure is remembered and announced once (`onFailure`), and the engine, which asks
 * {@link JournalWriter.failure}, stops the fault and ends the run `failed`. A writer that throws from
 * `event()` would instead unwind the run mid-fault with nothing left able to journal the stop.
 */
import { closeSync, mkdirSync, openSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { openOutput, writeAll, writeOutput, type WriteOptions } from '../files/write.js';
import { errorMessage } from '../errors/message.js';
import { redactDeep } from '../security/redact.js';
import type { Journal, JournalEvent, JournalHeader, Measurement, Verdict } from './types.js';
import type { Judgement } from './judgement.js';

/** Fields learned while the run goes (experiment id, targets, timings, budget, cost). */
export type JournalPatch = Partial<
  Pick<Journal, 'experimentId' | 'templateId' | 'resolvedTargets' | 'timings' | 'budget' | 'cost'>
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
  /**
   * Why the journal could not be written (`ENOSPC: no space left on device` and the path), once a write
   * failed; undefined while every record reached its file. Writers that keep nothing on disk never fail.
   */
  failure?(): string | undefined;
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
  private failed: string | undefined;
  /** Called once, with the failure, when the first write fails. */
  onFailure: ((failure: string) => void) | undefined;

  failure(): string | undefined {
    return this.failed;
  }

  /** Remembers the first failure; later appends are not tried (the file's end is unknown). */
  protected fail(error: unknown): void {
    if (this.failed !== undefined) return;
    this.failed = this.describe(error);
    this.onFailure?.(this.failed);
  }

  protected describe(error: unknown): string {
    return errorMessage(error);
  }

  private write(record: JournalRecord): void {
    // The one redactor (SPEC §11): no registered secret reaches the journal — the NDJSON lines, the final
    // JSON, or the reports rendered from the journal this writer hands back.
    const safe = redactDeep(record);
    this.journal = applyRecord(this.journal, safe);
    if (this.failed !== undefined) return;
    try {
      this.append(JSON.stringify(safe) + '\n');
    } catch (error) {
      this.fail(error);
    }
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
    // The whole journal is tried even after an append failed: space may have come back, and a complete
    // file is worth more than the prefix. A failure here is remembered like any other.
    try {
      await this.close(journal);
    } catch (error) {
      this.fail(error);
    }
    return journal;
  }
  snapshot(): Journal {
    if (!this.journal) throw new Error('journal not begun');
    return this.journal;
  }
}

/** The file operations of a {@link FileJournalWriter} (tests inject failing ones: a full disk, EACCES). */
export interface JournalFileSystem {
  /** Opens the journal for appending (created, truncated); returns a descriptor. */
  open(path: string): number;
  append(fd: number, line: string): void;
  close(fd: number): void;
  /** Replaces the journal by `data` atomically. */
  replace(path: string, data: string): void;
}

/** Node's file system, confined to `confine`'s roots when given (files/write.ts: no symlink followed). */
export function journalFileSystem(confine?: WriteOptions): JournalFileSystem {
  return {
    open: (path) => {
      if (confine) return openOutput(path, confine);
      mkdirSync(dirname(path), { recursive: true });
      return openSync(path, 'w');
    },
    append: (fd, line) => writeAll(fd, line),
    close: (fd) => closeSync(fd),
    replace: (path, data) => {
      if (confine) {
        writeOutput(path, data, confine);
        return;
      }
      const tmp = `${path}.${process.pid}.tmp`;
      writeFileSync(tmp, data);
      renameSync(tmp, path);
    },
  };
}

/**
 * Writes to a file. Appends are synchronous on purpose: a record is on disk before the engine acts on
 * the next tick, so SIGKILL loses at most the line being written.
 */
export class FileJournalWriter extends RecordingWriter {
  private fd: number | undefined;
  private readonly fs: JournalFileSystem;

  constructor(
    readonly path: string,
    options: { confine?: WriteOptions | undefined; fs?: JournalFileSystem | undefined } = {},
  ) {
    super();
    this.fs = options.fs ?? journalFileSystem(options.confine);
  }

  protected override describe(error: unknown): string {
    return `cannot write the journal ${this.path}: ${errorMessage(error)}`;
  }

  protected append(line: string): void {
    this.fd ??= this.fs.open(this.path);
    this.fs.append(this.fd, line);
  }

  protected async close(journal: Journal): Promise<void> {
    if (this.fd !== undefined) {
      const fd = this.fd;
      this.fd = undefined;
      try {
        this.fs.close(fd);
      } catch {
        // The replace below decides whether the journal is on disk.
      }
    }
    this.fs.replace(this.path, JSON.stringify(journal, null, 2) + '\n');
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
