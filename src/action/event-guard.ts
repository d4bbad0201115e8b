/**
 * The first thing both action entries do: read the event payload through the bounded loader. The GitHub
 * toolkit (`@actions/github`) parses `GITHUB_EVENT_PATH` when its module loads, with no size cap and no
 * error handling, so an unreadable payload must be caught before that module is imported — which is why
 * the entries load the rest of the action with a dynamic import after this check.
 */
import { readFileBoundedSync } from '../files/read.js';
import { MAX_EVENT_PAYLOAD_BYTES } from './context.js';
import { errorMessage } from '../errors/message.js';

/**
 * Why the event payload cannot be read as JSON at all (missing, not a regular file, too large, not
 * JSON), or undefined when it can or there is none. A payload that parses but is the wrong shape is
 * left to the trust check, which refuses it with outputs and a check-run-free exit.
 */
export function unreadableEvent(env: Record<string, string | undefined>): string | undefined {
  const path = env.GITHUB_EVENT_PATH;
  if (!path) return undefined;
  try {
    JSON.parse(readFileBoundedSync(path, { what: 'event payload', maxBytes: MAX_EVENT_PAYLOAD_BYTES }).text);
    return undefined;
  } catch (error) {
    return errorMessage(error);
  }
}

/** The workflow command line a refusal prints: one error annotation, no stack trace. */
export function eventRefusal(reason: string): string {
  const text = `the event payload cannot be read (${reason}): nothing was run, since a fork's code cannot be ruled out`;
  return `::error title=chaos-gate%3A refused::${text.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A')}\n`;
}
