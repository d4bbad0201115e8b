/**
 * The one way chaos-gate reads a file it is told to read (docs/design/principles.md#security): the plan, the policy, the
 * scenario, the event payload, and every path a plan names (the service catalog, anything added later).
 *
 * - The path is resolved with `realpath` (symlinks followed) *before* anything is opened; with a
 *   `workspace`, a path that lands outside it (`../`, an absolute path, a symlink pointing out) is refused
 *   without the file being opened.
 * - The file is opened non-blocking and without following a final symlink, then checked on its open
 *   descriptor: only a regular file is read (a FIFO, a device such as /dev/zero or a directory is refused,
 *   and a FIFO cannot hang the open).
 * - The size cap is enforced while reading, never trusted from `stat`: at most `maxBytes + 1` bytes are
 *   ever read, so a file that grows, or lies about its size, is still cut off.
 */
import { closeSync, constants, fstatSync, openSync, readSync, realpathSync, type Stats } from 'node:fs';
import { open, realpath } from 'node:fs/promises';
import { isAbsolute, relative, resolve } from 'node:path';

/** Bytes read per call; small enough that a capped read wastes little. */
const CHUNK_BYTES = 64 * 1024;

/**
 * `O_NONBLOCK` so opening a FIFO returns at once instead of waiting for a writer; `O_NOFOLLOW` so the
 * resolved path cannot have become a symlink in between. Both are 0 where the platform lacks them.
 */
const OPEN_FLAGS = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0) | (constants.O_NOFOLLOW ?? 0);

/** Why a file was not read. */
export type FileReadProblem = 'missing' | 'outside-workspace' | 'not-a-file' | 'too-large' | 'unreadable';

/** A file that was not read; the message names the file, what it is and what was expected. */
export class FileReadError extends Error {
  override name = 'FileReadError';
  constructor(
    readonly problem: FileReadProblem,
    /** The file as the user wrote it. */
    readonly file: string,
    /** What would have been accepted, e.g. `a regular file of at most 262144 bytes inside the workspace`. */
    readonly expected: string,
    /** Why it was not read, e.g. `it is a FIFO (named pipe)`. */
    readonly reason: string,
    what: string,
  ) {
    super(`cannot read the ${what} ${file}: ${reason}; expected ${expected}`);
  }
}

export interface ReadOptions {
  /** What the file is, for messages: `plan file`, `policy file`, `service catalog`, … */
  what: string;
  /** Largest file accepted (bytes). */
  maxBytes: number;
  /** When set, the file must resolve (after realpath) inside this directory. */
  workspace?: string | undefined;
  /** The file as the user wrote it (messages); defaults to the path. */
  display?: string | undefined;
}

/** A file that was read, with the path it resolved to. */
export interface FileText {
  text: string;
  /** The real path that was read. */
  path: string;
}

function expectation(o: ReadOptions): string {
  return `a regular file of at most ${o.maxBytes} bytes${o.workspace ? ' inside the workspace' : ''}`;
}

function kindOf(stat: Stats): string {
  if (stat.isDirectory()) return 'a directory';
  if (stat.isFIFO()) return 'a FIFO (named pipe)';
  if (stat.isCharacterDevice()) return 'a character device';
  if (stat.isBlockDevice()) return 'a block device';
  if (stat.isSocket()) return 'a socket';
  return 'not a regular file';
}

function isInside(path: string, dir: string): boolean {
  const rel = relative(dir, path);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
}

/** Why a file could not be opened or read, in words (`it does not exist`), never Node's `ENOENT: …`. */
export function describeOsError(error: unknown): string {
  const e = error as NodeJS.ErrnoException;
  switch (e.code) {
    case 'ENOENT':
      return 'it does not exist';
    case 'EACCES':
    case 'EPERM':
      return 'permission denied';
    case 'ELOOP':
      return 'it is a symlink loop, or became a symlink while being opened';
    case 'ENOTDIR':
      return 'a component of the path is not a directory';
    case 'EISDIR':
      return 'it is a directory';
    case 'EMFILE':
    case 'ENFILE':
      return 'too many files are open';
    default:
      // Node's text starts with the code (`EIO: i/o error, read`): keep the words after it.
      return (e.message ?? String(error)).replace(/^[A-Z]+: /, '').replace(/, \w+ '?[^']*'?$/, '');
  }
}

function fail(o: ReadOptions, path: string, problem: FileReadProblem, why: string): FileReadError {
  return new FileReadError(problem, o.display ?? path, expectation(o), why, o.what);
}

function checkWorkspace(o: ReadOptions, path: string, real: string, workspace: string | undefined): void {
  if (workspace === undefined || isInside(real, workspace)) return;
  const via = real === resolve(path) ? '' : ` (${o.display ?? path} resolves to ${real})`;
  throw fail(
    o,
    path,
    'outside-workspace',
    `it is outside the workspace ${workspace}${via}; a plan may name only files of its own repository`,
  );
}

function checkRegular(o: ReadOptions, path: string, stat: Stats): void {
  if (!stat.isFile()) throw fail(o, path, 'not-a-file', `it is ${kindOf(stat)}`);
}

function tooLarge(o: ReadOptions, path: string): FileReadError {
  return fail(o, path, 'too-large', `it is larger than ${o.maxBytes} bytes`);
}

/** Reads a file under the rules above. Throws {@link FileReadError}; never reads past `maxBytes + 1`. */
export async function readFileBounded(path: string, o: ReadOptions): Promise<FileText> {
  let real: string;
  let workspace: string | undefined;
  try {
    workspace = o.workspace === undefined ? undefined : await realpath(o.workspace);
    real = await realpath(path);
  } catch (error) {
    throw fail(o, path, 'missing', describeOsError(error));
  }
  checkWorkspace(o, path, real, workspace);
  let handle;
  try {
    handle = await open(real, OPEN_FLAGS);
  } catch (error) {
    throw fail(o, path, 'unreadable', describeOsError(error));
  }
  try {
    checkRegular(o, path, await handle.stat());
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      const buffer = Buffer.alloc(Math.min(CHUNK_BYTES, o.maxBytes + 1 - total));
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, null);
      if (bytesRead === 0) break;
      chunks.push(buffer.subarray(0, bytesRead));
      total += bytesRead;
      if (total > o.maxBytes) throw tooLarge(o, path);
    }
    return { text: Buffer.concat(chunks).toString('utf8'), path: real };
  } catch (error) {
    if (error instanceof FileReadError) throw error;
    throw fail(o, path, 'unreadable', describeOsError(error));
  } finally {
    await handle.close();
  }
}

/** Opens `path` under the rules above (resolved, confined, a regular file); returns its descriptor. */
function openCheckedSync(path: string, o: ReadOptions): { fd: number; real: string } {
  let real: string;
  let workspace: string | undefined;
  try {
    workspace = o.workspace === undefined ? undefined : realpathSync(o.workspace);
    real = realpathSync(path);
  } catch (error) {
    throw fail(o, path, 'missing', describeOsError(error));
  }
  checkWorkspace(o, path, real, workspace);
  let fd: number;
  try {
    fd = openSync(real, OPEN_FLAGS);
  } catch (error) {
    throw fail(o, path, 'unreadable', describeOsError(error));
  }
  try {
    checkRegular(o, path, fstatSync(fd));
  } catch (error) {
    closeSync(fd);
    throw error;
  }
  return { fd, real };
}

/**
 * Reads a file under the rules above in chunks, handing each to `onChunk` as it is read, so a large file
 * is never held whole. `maxBytes` caps the total read. Errors `onChunk` throws pass through unchanged.
 */
export function readFileChunksSync(
  path: string,
  o: ReadOptions & { chunkBytes?: number },
  onChunk: (chunk: Buffer) => void,
): { path: string; bytes: number } {
  const { fd, real } = openCheckedSync(path, o);
  let total = 0;
  try {
    const buffer = Buffer.alloc(o.chunkBytes ?? 1024 * 1024);
    for (;;) {
      let bytesRead: number;
      try {
        bytesRead = readSync(fd, buffer, 0, Math.min(buffer.length, o.maxBytes + 1 - total), null);
      } catch (error) {
        throw fail(o, path, 'unreadable', describeOsError(error));
      }
      if (bytesRead === 0) break;
      total += bytesRead;
      if (total > o.maxBytes) throw tooLarge(o, path);
      onChunk(buffer.subarray(0, bytesRead));
    }
    return { path: real, bytes: total };
  } finally {
    closeSync(fd);
  }
}

/** {@link readFileBounded} for synchronous callers (the event payload, read once at start). */
export function readFileBoundedSync(path: string, o: ReadOptions): FileText {
  const { fd, real } = openCheckedSync(path, o);
  try {
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      const buffer = Buffer.alloc(Math.min(CHUNK_BYTES, o.maxBytes + 1 - total));
      const bytesRead = readSync(fd, buffer, 0, buffer.length, null);
      if (bytesRead === 0) break;
      chunks.push(buffer.subarray(0, bytesRead));
      total += bytesRead;
      if (total > o.maxBytes) throw tooLarge(o, path);
    }
    return { text: Buffer.concat(chunks).toString('utf8'), path: real };
  } catch (error) {
    if (error instanceof FileReadError) throw error;
    throw fail(o, path, 'unreadable', describeOsError(error));
  } finally {
    closeSync(fd);
  }
}

/**
 * Resolves a path a plan names: relative to the plan file's directory, and confined to the workspace.
 * The returned reader is what preflight gets instead of the file system.
 */
export type PlanFileReader = (pathInPlan: string, what: string, maxBytes: number) => Promise<FileText>;

/** A {@link PlanFileReader} for a plan in `planDir`, confined to `workspace`. */
export function planFileReader(planDir: string, workspace: string): PlanFileReader {
  return (pathInPlan, what, maxBytes) =>
    readFileBounded(isAbsolute(pathInPlan) ? pathInPlan : resolve(planDir, pathInPlan), {
      what,
      maxBytes,
      workspace,
      display: pathInPlan,
    });
}
