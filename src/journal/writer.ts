/**
 * Journal writers. While a run goes, every record is appended as one NDJSON line (header, events,
 * measurements, updates, final), so a crash leaves a readable prefix. At the end of a short run (at
 * most {@link MAX_DOCUMENT_READINGS} readings) the file is replaced atomically (write + rename) by the
 * final `Journal` JSON, as it always was. A long run's journal stays NDJSON: its last line
 * is the bounded `final` record (verdict, judgement, timings, summary), and nothing is ever serialised
 * whole. `readJournal` accepts every form (docs/journal.md).
 *
 * In memory the writer holds the events, a bounded sample of the measurements and every measurement as
 * compact columns (about 17 bytes a reading), which the judgement reads.
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
import {
  allMeasurements,
  attachMeasurements,
  MeasurementDigest,
  type MeasurementSummary,
} from './columns.js';

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

/**
 * The `final` line of a streamed journal: the closing record with what a reader needs without the lines
 * before it — the run's timings and ids and the summary of every measurement. Bounded in size.
 */
export type JournalFinalRecord = JournalFinal &
  JournalPatch & { summary?: MeasurementSummary; finishedAt?: number };

/** One NDJSON line of an in-progress journal. */
export type JournalRecord =
  | ({ record: 'header' } & JournalHeader)
  | ({ record: 'event' } & JournalEvent)
  | ({ record: 'measurement' } & Measurement)
  | ({ record: 'update' } & JournalPatch)
  | ({ record: 'final' } & JournalFinalRecord);

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

/**
 * Builds a journal from its records (shared by the writers and the readers). Measurements go to a
 * {@link MeasurementDigest}: the journal object holds a bounded sample of them, and — when the sample
 * leaves some out — the summary of all of them and their columns (`allMeasurements`).
 */
export class JournalBuilder {
  private journal: Journal | undefined;
  private digest: MeasurementDigest | undefined;
  /** Measurements counted at the last `journal()`, to rebuild the view only when something came in. */
  private viewAt = -1;

  /** Applies one record; throws when anything but a header comes first. */
  apply(record: JournalRecord): void {
    if (record.record === 'header') {
      const { record: _r, ...header } = record;
      this.journal = {
        ...header,
        verdict: null,
        reason: null,
        exitCode: null,
        measurements: [],
        events: [],
        timings: { startedAt: header.startedAt },
        complete: false,
      };
      this.digest = new MeasurementDigest(
        {
          slis: (header.slis ?? []).map((s) => s.name),
          expectations: (header.expectations ?? []).map((e) => e.name),
        },
        { intervalMs: header.intervalMs, keepAll: true },
      );
      this.viewAt = -1;
      return;
    }
    const journal = this.journal;
    if (!journal) throw new Error(`a '${record.record}' record before the header`);
    switch (record.record) {
      case 'event': {
        const { record: _r, ...event } = record;
        journal.events.push(event);
        break;
      }
      case 'measurement': {
        const { record: _r, ...measurement } = record;
        this.digest?.add(measurement);
        break;
      }
      case 'update': {
        const { record: _r, timings, ...rest } = record;
        Object.assign(journal, rest);
        if (timings) journal.timings = { ...journal.timings, ...timings };
        break;
      }
      case 'final': {
        // The summary is recomputed from the lines themselves; the one written is for other readers.
        const { record: _r, verdict, reason, exitCode, judgement, timings, summary: _s, ...rest } = record;
        const { finishedAt: _f, ...patch } = rest;
        Object.assign(journal, patch);
        if (timings) journal.timings = { ...journal.timings, ...timings };
        journal.verdict = verdict;
        journal.reason = reason;
        journal.exitCode = exitCode;
        if (judgement) journal.judgement = judgement;
        journal.complete = true;
        break;
      }
    }
  }

  /** True once a header came. */
  get begun(): boolean {
    return this.journal !== undefined;
  }

  /** True when the journal object leaves measurements out (a long run). */
  get sampled(): boolean {
    return this.digest?.sampled ?? false;
  }

  /** The summary of every measurement so far. */
  summary(): MeasurementSummary | undefined {
    return this.digest?.summary();
  }

  /** The journal as built so far (the same object each time, its measurement view brought up to date). */
  result(): Journal {
    const journal = this.journal;
    if (!journal) throw new Error('journal not begun');
    const digest = this.digest;
    const count = digest?.columns?.length ?? 0;
    if (digest && count !== this.viewAt) {
      this.viewAt = count;
      journal.measurements = digest.kept();
      if (digest.sampled) {
        journal.summary = digest.summary();
        if (digest.columns) attachMeasurements(journal, digest.columns);
      }
    }
    return journal;
  }
}

/**
 * Readings (measurements × SLIs and expectations) up to which a finished journal is rewritten as one
 * JSON document, the form earlier versions always wrote: about 18 MB pretty-printed. A longer run's
 * journal stays NDJSON and ends with the bounded final record (docs/journal.md).
 */
export const MAX_DOCUMENT_READINGS = 100_000;

/** True when `journal` is small enough to end as one JSON document. */
function fitsOneDocument(journal: Journal): boolean {
  const series = journal.slis.length + (journal.expectations?.length ?? 0);
  return allMeasurements(journal).length * Math.max(1, series) <= MAX_DOCUMENT_READINGS;
}

/** The single-document form: every measurement (from the columns when the object keeps a sample). */
function documentText(journal: Journal): string {
  const all = allMeasurements(journal);
  if (Array.isArray(all)) return JSON.stringify(journal, null, 2) + '\n';
  const { summary: _s, ...rest } = journal;
  return JSON.stringify({ ...rest, measurements: [...all] }, null, 2) + '\n';
}

/** Keeps the journal in memory and hands each record to `append` as an NDJSON line. */
abstract class RecordingWriter implements JournalWriter {
  private readonly builder = new JournalBuilder();

  protected abstract append(line: string): void;
  /**
   * Ends the file. `whole`: every measurement is in `journal`, so the file may be replaced by the final
   * JSON document; otherwise the final record already appended ends it.
   */
  protected abstract close(journal: Journal, whole: boolean): Promise<void>;
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
    // The one redactor (docs/design/principles.md#security): no registered secret reaches the journal — the NDJSON lines, the final
    // JSON, or the reports rendered from the journal this writer hands back.
    const safe = redactDeep(record);
    this.builder.apply(safe);
    if (this.failed !== undefined) return;
    try {
      this.append(JSON.stringify(safe) + '\n');
    } catch (error) {
      this.fail(error);
    }
  }

  begin(header: JournalHeader): void {
    if (this.builder.begun) throw new Error('journal already begun');
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
    const whole = fitsOneDocument(this.snapshot());
    if (whole) this.write({ record: 'final', ...final });
    else {
      // A long run: the last line says everything a reader needs without the ones before it.
      const j = this.snapshot();
      const summary = this.builder.summary();
      this.write({
        record: 'final',
        ...final,
        timings: j.timings,
        ...(j.experimentId !== undefined ? { experimentId: j.experimentId } : {}),
        ...(j.templateId !== undefined ? { templateId: j.templateId } : {}),
        ...(j.resolvedTargets !== undefined ? { resolvedTargets: j.resolvedTargets } : {}),
        ...(j.budget !== undefined ? { budget: j.budget } : {}),
        ...(summary ? { summary } : {}),
      });
    }
    const journal = this.snapshot();
    // The whole journal is tried even after an append failed: space may have come back, and a complete
    // file is worth more than the prefix. A failure here is remembered like any other.
    try {
      await this.close(journal, whole);
    } catch (error) {
      this.fail(error);
    }
    return journal;
  }
  snapshot(): Journal {
    return this.builder.result();
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

  protected async close(journal: Journal, whole: boolean): Promise<void> {
    if (this.fd !== undefined) {
      const fd = this.fd;
      this.fd = undefined;
      try {
        this.fs.close(fd);
      } catch {
        // The replace below decides whether the journal is on disk.
      }
    }
    if (whole) this.fs.replace(this.path, documentText(journal));
  }
}

/** Keeps every NDJSON line and the final JSON in memory (tests, and runs without a journal path). */
export class MemoryJournalWriter extends RecordingWriter {
  readonly lines: string[] = [];
  finalJson: string | undefined;

  protected append(line: string): void {
    this.lines.push(line);
  }
  protected async close(journal: Journal, whole: boolean): Promise<void> {
    if (whole) this.finalJson = documentText(journal);
  }
  /** The file content as it would be on disk now (NDJSON until finished). */
  text(): string {
    return this.finalJson ?? this.lines.join('');
  }
}
