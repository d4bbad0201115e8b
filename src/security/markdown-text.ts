/**
 * Text that did not come from chaos-gate's own code (a plan's title, service, owner or reasons, an
 * event message, an FIS reason, a Prometheus error, a target's tags) is data in every Markdown report:
 * the job summary, the check run's summary and text, the PR comment and the findings issue. Rendered
 * as written it could @-mention a team, link an issue (`#12` adds a reference to issue 12), inject HTML
 * (`<img onerror>`, `</details>`), start a heading, list, quote, fence or table row, or end the
 * `<details>` block and table it sits in. Our own Markdown (headings, tables, details) stays ours; only
 * the values placed in it pass through these functions:
 *
 * - {@link mdText}: a value as inline text, anywhere (paragraph, heading, quote, list item, table cell).
 *   Line breaks become spaces (a value never ends our line, row or quote); `&`, `<`, `>` and `|` become
 *   entities (no HTML, no cell split); every other character Markdown reads as punctuation is
 *   backslash-escaped, so it renders as itself; `@` and `#` before a name or number get a zero-width
 *   space after them. Backslash escapes do not stop GitHub's mentions and issue references (they are
 *   found in the rendered text, github/cmark-gfm#181); a character between `@` and the name does.
 * - {@link mdCell}: the same for a table cell (named for where it is used).
 * - {@link mdCode}: a value as inline code (ARNs, ids): a fence longer than any backtick run in it, line
 *   breaks as spaces. Code spans render their content literally (no HTML, no mention). A value with a
 *   `|` is written as {@link mdText} instead: inside a table, GitHub splits cells on a pipe even in code.
 * - {@link mdChartLabel}: a value inside a quoted Mermaid label.
 */

const ZERO_WIDTH_SPACE = '\u200b';

/** Line breaks and other control characters: a value stays on its line. */
// eslint-disable-next-line no-control-regex
const BREAKS = /\r\n|[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g;

/**
 * Backslash-escaped wherever they are: escapes, code, emphasis, strikethrough, links, images, task
 * lists and footnotes, GitHub's math. CommonMark lets any ASCII punctuation be backslash-escaped, and
 * the escape renders as the character itself.
 */
const ALWAYS = new Set(['\\', '`', '*', '~', '[', ']', '$']);

const ALPHANUMERIC = /[\p{L}\p{N}]/u;

/**
 * The escape of character `i` of `text`, or undefined when it is plain text here. Some characters are
 * syntax only next to certain others: `<` opens HTML or an autolink only before a letter, `/`, `!` or
 * `?` (so `<= 0.18` stays as written); `&` is an entity only before a letter or `#`; `_` inside a word
 * is never emphasis in GFM; `@`, `#` before a name or number become a mention or a reference.
 */
function escapeAt(text: string, i: number): string | undefined {
  const c = text[i]!;
  const before = text[i - 1] ?? '';
  const after = text[i + 1] ?? '';
  if (ALWAYS.has(c)) return `\\${c}`;
  switch (c) {
    case '|':
      // An entity, not `\|`: a pipe in a table cell of our own Markdown is escaped again (markdownCell).
      return '&#124;';
    case '<':
      return /[A-Za-z/!?]/.test(after) ? '&lt;' : undefined;
    case '&':
      return /[A-Za-z#]/.test(after) ? '&amp;' : undefined;
    case '_':
      return ALPHANUMERIC.test(before) && ALPHANUMERIC.test(after) ? undefined : '\\_';
    case '@':
    case '#':
      return /[\p{L}\p{N}_]/u.test(text.slice(i + 1, i + 3)) ? `${c}${ZERO_WIDTH_SPACE}` : undefined;
    default:
      return undefined;
  }
}

/** The inline escaping shared by every position: no HTML, no mention, no inline syntax, one line. */
function inline(text: string): string {
  const flat = String(text).replace(BREAKS, ' ');
  let out = '';
  for (let i = 0; i < flat.length; i++) out += escapeAt(flat, i) ?? flat[i];
  // Leading spaces would indent a value placed at a line start into a code block.
  return out.replace(/^ +/, '');
}

/**
 * What starts a block when it opens a line: a quote, a heading, a list item, a setext underline or
 * rule, an ordered list item (`1.`), a table row.
 */
const LINE_START = /^(?:[>#\-+=|]|\d{1,9}(?=[.)]))/;

/**
 * A value as inline Markdown text that renders as written and cannot change the layout around it,
 * wherever it is placed (at a line start too).
 */
export function mdText(text: string): string {
  return inline(text).replace(LINE_START, (m) => (/\d/.test(m) ? `${m}\\` : `\\${m}`));
}

/**
 * A value as the content of a Markdown table cell: {@link mdText} without the line-start escapes, which
 * a cell (always after `| `) does not need, so `>= 0.99` reads as written in the raw Markdown too.
 */
export function mdCell(text: string): string {
  return inline(text);
}

/** A value as inline code, or as {@link mdText} when it holds a `|` (which would split a table cell). */
export function mdCode(text: string): string {
  const flat = String(text).replace(BREAKS, ' ');
  if (flat.includes('|') || flat.trim() === '') return mdText(flat);
  const longest = Math.max(0, ...(flat.match(/`+/g) ?? []).map((run) => run.length));
  const fence = '`'.repeat(longest + 1);
  // CommonMark strips one space from each end of a code span, so a span that starts or ends with a
  // backtick (or a space) is padded.
  const pad = /^[` ]|[` ]$/.test(flat) ? ' ' : '';
  return `${fence}${pad}${flat}${pad}${fence}`;
}

/**
 * A value inside a quoted Mermaid label (`title "…"`, `line "…"`) in a fenced block: no quote to end
 * the label, no line break or backtick to end the diagram or its fence, no `%` for a `%%{init}%%`
 * directive. Mermaid escapes what it draws itself (and GitHub draws it in a sandboxed frame).
 */
export function mdChartLabel(text: string): string {
  return String(text)
    .replace(BREAKS, ' ')
    .replace(/["`%]/g, (c) => (c === '%' ? '％' : "'"));
}

/**
 * Text shown verbatim as a fenced code block (validation output, commands to copy): a fence longer
 * than any backtick run in the text, so no line of it can close the block early. Inside a fence
 * nothing is Markdown, HTML or a mention.
 */
export function mdCodeBlock(text: string, info = ''): string {
  const body = String(text).replace(/\r\n|\r/g, '\n');
  const longest = Math.max(0, ...(body.match(/`+/g) ?? []).map((run) => run.length));
  const fence = '`'.repeat(Math.max(3, longest + 1));
  return `${fence}${info}\n${body}\n${fence}`;
}
