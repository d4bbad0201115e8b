/**
 * A problem with a file the product reads, and the error that carries a file's problems: the wording
 * every loader shares (src/files/document.ts parses; this module only names). Apart from the parser so
 * that what only reports a problem — the action's exit path, which runs before a plan is loaded — does
 * not load the YAML library.
 */

import { REFUSED_INPUT, type HasExit } from '../errors/exit.js';

/** One step of a field path: a mapping key or a list index. */
export type PathSegment = string | number;

/** A position in a file's text, 1-based. */
export interface Position {
  line: number;
  column: number;
}

/** One problem with a file, located in it. Lines and columns are 1-based. */
export interface DocumentIssue {
  file: string;
  line: number;
  column: number;
  /** Field path such as `hypothesis.slis[1].max`; empty for problems with the file as a whole. */
  field: string;
  /** The offending value as read (undefined when the field is missing). */
  value?: unknown;
  /** What would have been accepted, e.g. `a duration such as 500ms, 5s, 2m, 1h or 30d`. */
  expected: string;
  /** One sentence naming the value and the expectation. */
  message: string;
}

/** `file:line:col: field: message`, the one-line form of an issue used by the CLI, logs and gates. */
export function formatIssue(issue: DocumentIssue): string {
  const field = issue.field === '' ? '' : `${issue.field}: `;
  return `${issue.file}:${issue.line}:${issue.column}: ${field}${issue.message}`;
}

/**
 * A file that cannot be used: `<file>: invalid <noun> (N issues)` and then one {@link formatIssue} line
 * per issue. Each kind of file has its subclass (`PlanError`, `PolicyError`, …) so callers can tell them apart.
 */
export class DocumentError extends Error implements HasExit {
  override name = 'DocumentError';
  /** Refused with exit 2, nothing touched (errors/exit.ts). */
  readonly exit = REFUSED_INPUT;
  constructor(
    readonly file: string,
    readonly issues: DocumentIssue[],
    /** What the file should have been, for the heading: `plan`, `policy`, `scenario`, … */
    noun = 'document',
  ) {
    super(
      `${file}: invalid ${noun} (${issues.length} ${issues.length === 1 ? 'issue' : 'issues'})\n` +
        issues.map(formatIssue).join('\n'),
    );
  }
}
