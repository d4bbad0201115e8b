/**
 * What an error means for the process, carried by the error itself (k6's `errext` idea): an error that
 * ends a command with a known exit code and verdict says so in an `exit` field, and front doors read it
 * here — never from a list of classes. Exit codes (docs/architecture.md, "Errors and exit codes"):
 * 0 held or pass, 1 the verdict is not held (or anything unexpected), 2 bad input or a setting. Bad input
 * a user must fix (a setting, a flag; errors/bad-input.ts) ends `failed` with exit 2, found before anything
 * was sent; a plan, policy, catalog or scenario file that cannot be used (files/issue.ts, DocumentError
 * and its subclasses) is `refused` with exit 2, nothing touched.
 *
 * Also the one walk along an error's cause chain (`findCause`): a wrapped error keeps its cause.
 */

/** Exit code of bad input: an unusable file, setting or flag. */
export const EXIT_BAD_INPUT = 2;

/** The verdict a front door reports for an error that ends the run before anything was sent. */
export type ErrorVerdict = 'refused' | 'failed';

/** How an error ends the process. */
export interface ExitMeaning {
  readonly code: number;
  readonly verdict: ErrorVerdict;
}

/** A file that cannot be used: refused, exit 2. */
export const REFUSED_INPUT: ExitMeaning = Object.freeze({ code: EXIT_BAD_INPUT, verdict: 'refused' });
/** A setting or flag that is missing or unusable: failed, exit 2. */
export const BAD_SETTING: ExitMeaning = Object.freeze({ code: EXIT_BAD_INPUT, verdict: 'failed' });

/** An error that says how the process ends. */
export interface HasExit {
  readonly exit: ExitMeaning;
}

function hasExit(error: unknown): error is HasExit {
  const exit = (error as { exit?: unknown } | null | undefined)?.exit as Partial<ExitMeaning> | undefined;
  return typeof exit?.code === 'number' && (exit.verdict === 'refused' || exit.verdict === 'failed');
}

/**
 * How `error` ends the process, when it says (duck-typed, so an error from another copy of a module
 * counts too); undefined for any other error, which front doors treat as unexpected (exit 1). Only the
 * error itself is asked, not its causes: an error wrapped with context is the wrapper's to describe.
 */
export function exitOf(error: unknown): ExitMeaning | undefined {
  return hasExit(error) ? error.exit : undefined;
}

/** Longest cause chain walked: far more than any wrapping here makes, and no loop can hang the walk. */
const MAX_CAUSE_DEPTH = 8;

/** The first error in `error`'s cause chain (itself first) that `match` accepts. */
export function findCause<T>(error: unknown, match: (e: unknown) => e is T): T | undefined {
  for (
    let e: unknown = error, depth = 0;
    e && depth < MAX_CAUSE_DEPTH;
    e = (e as { cause?: unknown }).cause, depth++
  ) {
    if (match(e)) return e;
  }
  return undefined;
}
