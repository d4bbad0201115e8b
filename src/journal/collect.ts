/**
 * Many journals at once, for the views across runs (`report --matrix`, `history`, a ladder's `requires`):
 * the journal files under the paths a user names, and each read through `readJournal` — the one reader,
 * whatever form a journal was written in. A file that is not a readable journal is listed with why, never
 * skipped in silence: a missing journal may be the one run that did not hold.
 */
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { JournalError, readJournal } from './read.js';
import type { Journal } from './types.js';
import { runEntry, type RunEntry } from './history.js';

/** File names taken as journals when a directory is walked (the action writes `journal.json`). */
const JOURNAL_FILE = /\.(?:json|ndjson|jsonl)$/i;

/** Directories deeper than this under a named one are not walked (artifact downloads nest two or three). */
const MAX_DEPTH = 8;

/** A named path that is not a journal, or a file that did not read as one. */
export interface UnreadJournal {
  file: string;
  error: string;
}

/** The journal files under `paths`: files as named, directories walked (sorted, so output is stable). */
export function journalFiles(paths: readonly string[]): { files: string[]; unread: UnreadJournal[] } {
  const files: string[] = [];
  const unread: UnreadJournal[] = [];
  const walk = (dir: string, depth: number): void => {
    const names = readdirSync(dir).sort();
    for (const name of names) {
      const path = join(dir, name);
      const s = statSync(path, { throwIfNoEntry: false });
      if (!s) continue;
      if (s.isDirectory() && depth < MAX_DEPTH) walk(path, depth + 1);
      else if (s.isFile() && JOURNAL_FILE.test(name)) files.push(path);
    }
  };
  for (const path of paths) {
    const s = statSync(path, { throwIfNoEntry: false });
    if (!s)
      unread.push({
        file: path,
        error: `${path}: no such file or directory; expected a journal file or a directory of them`,
      });
    else if (s.isDirectory()) walk(path, 0);
    else files.push(path);
  }
  return { files, unread };
}

/**
 * Calls `each` with every journal under `paths`, one at a time (a journal can be large: none is kept
 * here). Returns the files that did not read as journals, with the reader's message.
 */
export function forEachJournal(
  paths: readonly string[],
  each: (journal: Journal, file: string) => void,
): UnreadJournal[] {
  const { files, unread } = journalFiles(paths);
  for (const file of files) {
    let journal: Journal;
    try {
      journal = readJournal(file);
    } catch (error) {
      if (!(error instanceof JournalError)) throw error;
      unread.push({ file, error: error.message });
      continue;
    }
    each(journal, file);
  }
  return unread;
}

/** Every run under `paths` as the views across runs see it, and the files that are not readable journals. */
export function collectRuns(paths: readonly string[]): { entries: RunEntry[]; unread: UnreadJournal[] } {
  const entries: RunEntry[] = [];
  const bad: UnreadJournal[] = [];
  const unread = forEachJournal(paths, (journal, file) => {
    try {
      entries.push(runEntry(journal, file));
    } catch (error) {
      if (!(error instanceof JournalError)) throw error;
      bad.push({ file, error: error.message });
    }
  });
  return { entries, unread: [...unread, ...bad] };
}
