/**
 * Text that did not come from chaos-gate's own code (a Prometheus error body, an FIS reason, a plan's
 * title, an event message quoting any of them) must never steer the runner that reads our stdout.
 *
 * GitHub's runner reads stdout line by line (CR, LF and CRLF all end a line) and treats a line as a
 * workflow command in two forms:
 * - `::name props::data` when the line starts with `::` after leading whitespace (`::add-mask::`,
 *   `::error file=…::`, `::stop-commands::token`, which silences every later command of the step,
 *   our own failure annotation included);
 * - the legacy `##[name props]data`, found anywhere in the line, not only at its start.
 * Azure Pipelines (`##vso[…]`) and TeamCity (`##teamcity[…]`) read the same `##…[` shape anywhere,
 * which matters for the CLI run in other CI systems.
 *
 * Two functions, one rule:
 * - {@link forLog} for an untrusted value placed inside one of our lines: it stays on that line (line
 *   breaks and other control characters are written as `\n`, `\r`, `\u001b`…, so it cannot end our
 *   line, start its own or move the terminal's cursor) and carries no command marker.
 * - {@link logLines} at the sinks (the action's `core.info` and the CLI's stdout/stderr): every line of
 *   whatever is written loses its command markers, so text that reached a sink without `forLog` still
 *   cannot issue a command. Our own commands (groups, annotations) go through `@actions/core`'s
 *   `startGroup`/`error`/…, which escape their data and properties, never through these sinks.
 *
 * A marker is broken by a zero-width space (U+200B): after `#` in `##[`, before the leading `::`. The
 * runner's leading-whitespace trim (.NET `TrimStart`) does not remove it, so the line no longer starts
 * with `::`, and the text reads as written. No per-run `::stop-commands::` wrapping: a crash between
 * the stop and its resume token would leave our own verdict annotation unprocessed — exactly the
 * effect the attack wants.
 */

/** The character that breaks a command marker without changing what a reader sees. */
export const ZERO_WIDTH_SPACE = '\u200b';

/**
 * `::` at the start of a line, after the whitespace the runner trims: .NET's white space, which is
 * JavaScript's `\s` plus NEL (U+0085).
 */
const LEADING_COMMAND = /^([\s\u0085]*)::/u;
/** `##[`, `##vso[`, `##teamcity[`…: legacy and other CI systems' commands, anywhere in a line. */
const HASH_COMMAND = /#(?=#[A-Za-z]*\[)/g;
/**
 * What `forLog` spells out: C0 controls but tab, DEL, C1 controls (NEL U+0085 included) and the
 * Unicode line and paragraph separators — everything a reader, a terminal or a line splitter could
 * take as the end of a line or a control sequence.
 */
// eslint-disable-next-line no-control-regex
const CONTROL = /\r\n|[\u0000-\u0008\u000a-\u001f\u007f-\u009f\u2028\u2029]/g;

const NAMED: Record<string, string> = { '\r\n': '\\r\\n', '\n': '\\n', '\r': '\\r' };

function spell(c: string): string {
  return NAMED[c] ?? `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;
}

/** One line with its command markers broken (the line has no line break in it). */
function defuseLine(line: string): string {
  return line
    .replace(HASH_COMMAND, `#${ZERO_WIDTH_SPACE}`)
    .replace(LEADING_COMMAND, `$1${ZERO_WIDTH_SPACE}::`);
}

/**
 * An untrusted value as it may appear inside one of our log lines: on one line, without control
 * characters, and unable to start or carry a workflow command wherever in the line it is placed.
 */
export function forLog(text: string): string {
  return defuseLine(String(text).replace(CONTROL, spell));
}

/**
 * Text about to be written to stdout or stderr, line by line: each line keeps its place and its
 * content but loses its command markers. The line breaks of the text are kept (our own multi-line
 * messages stay multi-line); only `forLog` folds an untrusted value onto one line.
 */
export function logLines(text: string): string {
  return String(text)
    .split(/(\r\n|\r|\n)/)
    .map((part, i) => (i % 2 === 1 ? part : defuseLine(part)))
    .join('');
}

/** True when a line would be read by the runner as a workflow command (tests and guards). */
export function isWorkflowCommand(line: string): boolean {
  return /^[\s\u0085]*::/u.test(line) || /##[A-Za-z]*\[/.test(line);
}
