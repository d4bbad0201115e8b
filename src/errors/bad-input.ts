import { BAD_SETTING, type HasExit } from './exit.js';

/**
 * Input a user must fix — a setting, a flag, a file — as opposed to a failure of chaos-gate or of a
 * service. Front doors print the message alone (no stack trace) and exit 2 (docs/design/verdicts.md: unreadable input).
 * The message names what was read, the value (never a secret) and what is expected.
 */
export class BadInputError extends Error implements HasExit {
  override name = 'BadInputError';
  /** `failed` with exit 2 (errors/exit.ts). */
  readonly exit = BAD_SETTING;
}

/** True for a {@link BadInputError}, also one from another copy of this module (matched by name). */
export function isBadInput(error: unknown): error is BadInputError {
  return error instanceof BadInputError || (error instanceof Error && error.name === 'BadInputError');
}
