/**
 * Reads a YAML or JSON file the one way (src/files/read.ts: confined, regular files only, capped while
 * reading) and parses it the one way (src/files/document.ts). A file that cannot be read is an issue like
 * any other: `file:1:1: cannot read the <what>: <why>; expected <what would be read>`.
 */
import {
  DocumentError,
  oversizedIssue,
  parseYamlDocument,
  type DocumentIssue,
  type DocumentOptions,
  type ParsedDocument,
} from './document.js';
import { FileReadError, readFileBounded, readFileBoundedSync, type ReadOptions } from './read.js';

/** {@link DocumentOptions} for a file on disk: `file` defaults to the path, `workspace` confines it. */
export interface LoadOptions extends Omit<DocumentOptions, 'file'> {
  /** The file as the user wrote it (messages); defaults to the path. */
  file?: string | undefined;
  /** When set, the file must resolve inside this directory (docs/design/principles.md#security). */
  workspace?: string | undefined;
}

/** The issue of a file that was not read: where it is, why, and what would have been read. */
export function readIssue(error: FileReadError, o: DocumentOptions): DocumentIssue {
  if (error.problem === 'too-large') return oversizedIssue(o);
  return {
    file: o.file,
    line: 1,
    column: 1,
    field: '',
    value: o.file,
    expected: error.expected,
    message: `cannot read the ${o.what}: ${error.reason}; expected ${error.expected}`,
  };
}

function options(path: string, o: LoadOptions): { doc: DocumentOptions; read: ReadOptions } {
  const file = o.file ?? path;
  return {
    doc: { ...o, file },
    read: { what: o.what, maxBytes: o.maxBytes, workspace: o.workspace, display: file },
  };
}

function unread(error: unknown, doc: DocumentOptions): Error {
  if (!(error instanceof FileReadError)) return error as Error;
  const issues = [readIssue(error, doc)];
  return doc.error ? doc.error(doc.file, issues) : new DocumentError(doc.file, issues);
}

/** Reads and parses one YAML or JSON document. Throws the options' error (default `DocumentError`). */
export async function loadYamlDocument(path: string, o: LoadOptions): Promise<ParsedDocument> {
  const { doc, read } = options(path, o);
  let text: string;
  try {
    text = (await readFileBounded(path, read)).text;
  } catch (error) {
    throw unread(error, doc);
  }
  return parseYamlDocument(text, doc);
}

/** {@link loadYamlDocument} for synchronous callers (the scenario, the sandbox config). */
export function loadYamlDocumentSync(path: string, o: LoadOptions): ParsedDocument {
  const { doc, read } = options(path, o);
  let text: string;
  try {
    text = readFileBoundedSync(path, read).text;
  } catch (error) {
    throw unread(error, doc);
  }
  return parseYamlDocument(text, doc);
}
