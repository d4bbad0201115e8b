/**
 * The one way chaos-gate writes a file it is told to write: the journal, the HTML report, and any other
 * output a user names. The twin of read.ts, for the same reason: a path comes from a workflow input or a
 * committed file, and a committed symlink must not turn "write the journal" into "overwrite a file of the
 * runner's".
 *
 * - The path must lie inside one of the allowed roots (the workspace, the runner's temp directory),
 *   judged on the path as written *and* on the real paths of the roots, never by following the path.
 * - No symlink is followed: every component below the root is checked with `lstat` before anything is
 *   created, and the file itself is opened with `O_NOFOLLOW`, so a link planted in between fails the open.
 * - What is refused is refused before anything is created or truncated: a {@link FileWriteError} names
 *   the output, the value and what would have been accepted.
 */
import {
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  mkdirSync,
  openSync,
  realpathSync,
  renameSync,
  rmSync,
  writeSync,
  type Stats,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';
import { describeOsError } from './read.js';

/** Opened for writing, created when absent, never through a final symlink. */
const WRITE_FLAGS = constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | (constants.O_NOFOLLOW ?? 0);

/** Why an output path was refused. */
export type FileWriteProblem = 'outside-roots' | 'symlink' | 'not-a-file' | 'unwritable';

/** An output that was not written; the message names the output, the value and the expectation. */
export class FileWriteError extends Error {
  override name = 'FileWriteError';
  constructor(
    readonly problem: FileWriteProblem,
    /** The path as the user wrote it. */
    readonly file: string,
    readonly reason: string,
    what: string,
    readonly expected: string,
  ) {
    super(`cannot write the ${what} ${file}: ${reason}; expected ${expected}`);
  }
}

export interface WriteOptions {
  /** What the file is, for messages: `journal (input journal-path)`, `report (--html)`, … */
  what: string;
  /** Directories the file must lie inside (the workspace; the runner's temp is added by {@link outputRoots}). */
  roots: readonly string[];
  /** The path as the user wrote it (messages); defaults to the path. */
  display?: string | undefined;
}

/**
 * The allowed roots of an output: the workspace, the runner's temp directory (`RUNNER_TEMP`) and the OS's
 * temp directory (`os.tmpdir()`, where a local run or a test writes).
 */
export function outputRoots(
  workspace: string,
  env: Record<string, string | undefined> = process.env,
): string[] {
  const candidates = [workspace, env.RUNNER_TEMP ?? '', tmpdir()];
  return [...new Set(candidates.filter((r) => r !== '').map((r) => resolve(r)))];
}

function isInside(path: string, dir: string): boolean {
  const rel = relative(dir, path);
  return rel !== '' && !rel.startsWith('..') && !isAbsolute(rel);
}

function expectation(o: WriteOptions): string {
  return `a regular file (no symlink on the way) inside ${o.roots.join(' or ')}`;
}

function fail(o: WriteOptions, path: string, problem: FileWriteProblem, reason: string): FileWriteError {
  return new FileWriteError(problem, o.display ?? path, reason, o.what, expectation(o));
}

function lstatOrUndefined(path: string): Stats | undefined {
  try {
    return lstatSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/** The root (as written, and its real path) that `path` lies inside, with the components below it. */
function placeIn(path: string, o: WriteOptions): { root: string; parts: string[] } | undefined {
  for (const written of o.roots) {
    const candidates = [resolve(written)];
    try {
      candidates.push(realpathSync(written));
    } catch {
      // A root that does not exist yet is judged as written.
    }
    for (const root of candidates)
      if (isInside(path, root)) return { root, parts: relative(root, path).split(sep) };
  }
  return undefined;
}

/**
 * Checks an output path without touching anything: inside a root, no component below the root a symlink,
 * the file itself absent or a regular file. Returns the absolute path to write. Throws {@link FileWriteError}.
 */
export function confineOutput(path: string, o: WriteOptions): string {
  const abs = resolve(path);
  const place = placeIn(abs, o);
  if (!place) throw fail(o, path, 'outside-roots', `${abs} is outside the allowed directories`);
  let at = place.root;
  for (const [i, part] of place.parts.entries()) {
    at = join(at, part);
    let stat: Stats | undefined;
    try {
      stat = lstatOrUndefined(at);
    } catch (error) {
      throw fail(o, path, 'unwritable', `${at}: ${describeOsError(error)}`);
    }
    if (stat === undefined) break; // created below, by us
    if (stat.isSymbolicLink())
      throw fail(o, path, 'symlink', `${at} is a symlink, and outputs never follow one`);
    const last = i === place.parts.length - 1;
    if (!last && !stat.isDirectory()) throw fail(o, path, 'not-a-file', `${at} is not a directory`);
    if (last && !stat.isFile()) throw fail(o, path, 'not-a-file', `it exists and is not a regular file`);
  }
  return abs;
}

/** Creates the missing directories of a confined path one by one, refusing a symlink planted meanwhile. */
function makeParents(abs: string, o: WriteOptions, display: string): void {
  const place = placeIn(abs, o);
  if (!place) throw fail(o, display, 'outside-roots', `${abs} is outside the allowed directories`);
  // The root itself is ours to trust (the workspace, the runner's temp): created when absent.
  mkdirSync(place.root, { recursive: true });
  let at = place.root;
  for (const part of place.parts.slice(0, -1)) {
    at = join(at, part);
    const stat = lstatOrUndefined(at);
    if (stat === undefined) mkdirSync(at);
    else if (stat.isSymbolicLink())
      throw fail(o, display, 'symlink', `${at} is a symlink, and outputs never follow one`);
    else if (!stat.isDirectory()) throw fail(o, display, 'not-a-file', `${at} is not a directory`);
  }
}

/**
 * Opens a confined output for writing (created, truncated), its directories created as needed; returns
 * the descriptor. The open itself refuses a final symlink (`O_NOFOLLOW`), and the descriptor is checked
 * to be a regular file.
 */
export function openOutput(path: string, o: WriteOptions): number {
  const abs = confineOutput(path, o);
  const display = o.display ?? path;
  let fd: number;
  try {
    makeParents(abs, o, display);
    fd = openSync(abs, WRITE_FLAGS, 0o644);
  } catch (error) {
    if (error instanceof FileWriteError) throw error;
    throw fail(o, display, 'unwritable', describeOsError(error));
  }
  if (!fstatSync(fd).isFile()) {
    closeSync(fd);
    throw fail(o, display, 'not-a-file', 'it is not a regular file');
  }
  return fd;
}

/**
 * Writes all of `data` to `fd`: a write may take fewer bytes than given (a file-size limit, a disk that
 * fills), and the rest is written again, so the shortfall surfaces as the next write's error (ENOSPC,
 * EFBIG) instead of a silently cut file.
 */
export function writeAll(fd: number, data: string | Uint8Array): void {
  const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
  let offset = 0;
  while (offset < bytes.length) offset += writeSync(fd, bytes, offset, bytes.length - offset);
}

/**
 * Writes a whole confined output atomically: a temporary file beside it (opened the same way), then a
 * rename over the target, so a reader sees the old content or the new, never half.
 */
export function writeOutput(path: string, data: string, o: WriteOptions): string {
  const abs = confineOutput(path, o);
  const tmp = `${abs}.${process.pid}.tmp`;
  const fd = openOutput(tmp, { ...o, display: o.display ?? path });
  try {
    writeAll(fd, data);
  } catch (error) {
    closeSync(fd);
    rmSync(tmp, { force: true });
    throw fail(o, o.display ?? path, 'unwritable', describeOsError(error));
  }
  closeSync(fd);
  // The target itself is checked again just before the rename: a symlink planted there would be
  // replaced, not followed (rename never follows), so nothing outside is touched either way.
  confineOutput(abs, o);
  renameSync(tmp, abs);
  return abs;
}
