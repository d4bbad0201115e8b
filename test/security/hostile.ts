/**
 * Hostile strings for the untrusted-text tests, and two readers that judge output the way its consumer
 * does: the GitHub runner's workflow-command parser (what it would execute from a line of stdout) and a
 * structural reading of Markdown (what a value could add to the layout around it).
 */

/** Payloads that steer a reader if written raw: workflow commands, mentions, HTML, Markdown blocks. */
export const PAYLOADS = [
  '::add-mask::hunter2',
  '::error file=.github/workflows/deploy.yml,line=1,title=Deploy approved::all good',
  '::stop-commands::cg-token',
  '  ::warning::indented command',
  '\u0085::notice::after a NEL',
  '##[error]legacy error',
  '##[add-mask]hunter2',
  'text before ##[set-output name=verdict]held',
  '##vso[task.setvariable variable=x]1',
  '@octo-org/sre please approve',
  'cc @mallory',
  'fixes #12',
  '</details><details open><summary>pwned</summary>',
  '<img src=x onerror=alert(1)>',
  '<!-- hidden --> <script>alert(1)</script> </script>',
  '# heading',
  '> quoted',
  '- list item',
  '1. ordered',
  '| cell | cell |',
  '```\ncode fence',
  '~~~',
  '[click](javascript:alert(1))',
  '![img](https://evil.example/x.png)',
  '**bold** _em_ ~~strike~~ $x^2$',
  '\\| escaped pipe \\',
  '`code` ``double``',
  '\u001b[31mred\u001b[0m',
  '&lt;img&gt; &#64;team',
];

/** Line breaks of every kind a payload can arrive behind. */
export const BREAKS = ['\n', '\r\n', '\r', '\u2028', '\n\n'];

/**
 * Every payload alone and behind each kind of line break after some text, so the payload is at the
 * start of a line of the raw value. Deterministic: the same cases in every run.
 */
export function hostileStrings(): string[] {
  const out = new Set<string>();
  for (const p of PAYLOADS) {
    out.add(p);
    for (const b of BREAKS) out.add(`ordinary text${b}${p}`);
  }
  out.add(PAYLOADS.join('\n'));
  return [...out];
}

/** A workflow command as the runner's parser finds it in one line (`actions/runner` ActionCommand). */
export interface ParsedCommand {
  command: string;
  properties: string;
  data: string;
}

/** .NET `char.IsWhiteSpace`, which the runner's `TrimStart` uses. */
const DOTNET_SPACE = /^[\s\u0085]*/u;

/**
 * What the runner would execute from one line: the `::cmd props::data` form after its leading white
 * space, else the legacy `##[cmd props]data` anywhere in the line. Any command name counts (the runner
 * only acts on registered ones, but every name is a potential one).
 */
export function parseRunnerLine(line: string): ParsedCommand | undefined {
  const trimmed = line.replace(DOTNET_SPACE, '');
  if (trimmed.startsWith('::')) {
    const end = trimmed.indexOf('::', 2);
    if (end > 2) {
      const info = trimmed.slice(2, end);
      const space = info.indexOf(' ');
      return {
        command: space < 0 ? info : info.slice(0, space),
        properties: space < 0 ? '' : info.slice(space + 1),
        data: trimmed.slice(end + 2),
      };
    }
  }
  const legacy = line.indexOf('##[');
  if (legacy >= 0) {
    const rb = line.indexOf(']', legacy);
    if (rb > legacy + 3) {
      const info = line.slice(legacy + 3, rb);
      const space = info.indexOf(' ');
      return {
        command: space < 0 ? info : info.slice(0, space),
        properties: space < 0 ? '' : info.slice(space + 1),
        data: line.slice(rb + 1),
      };
    }
  }
  return undefined;
}

/** Splits stdout as the runner does: CR, LF and CRLF each end a line. */
export function runnerLines(text: string): string[] {
  return text.split(/\r\n|\r|\n/);
}

/** Pipes that separate table cells in a Markdown line: unescaped `|` (an even run of backslashes before). */
export function cellSeparators(line: string): number {
  let count = 0;
  for (let i = 0; i < line.length; i++) {
    if (line[i] !== '|') continue;
    let slashes = 0;
    for (let j = i - 1; j >= 0 && line[j] === '\\'; j--) slashes++;
    if (slashes % 2 === 0) count++;
  }
  return count;
}

/**
 * The layout of Markdown, line by line: what each line starts (heading, quote, table row with its cell
 * count, list item, fence, HTML, blank, paragraph). Two renderings with the same shape have the same
 * structure, whatever text fills them.
 */
export function markdownShape(markdown: string): string[] {
  return markdown.split('\n').map((line) => {
    const t = line.trimStart();
    if (t === '') return 'blank';
    if (/^(`{3,}|~{3,})/.test(t)) return 'fence';
    if (/^#{1,6}(\s|$)/.test(t)) return `heading${/^#+/.exec(t)![0].length}`;
    if (t.startsWith('>')) return `quote${/^>\s*(#+\s|- |\|)/.test(t) ? '+block' : ''}`;
    if (t.startsWith('|')) return `row${cellSeparators(t)}`;
    if (/^([-+*]|\d+[.)])\s/.test(t)) return 'list';
    if (t.startsWith('<')) return `html:${/^<\/?[a-z]+/i.exec(t)?.[0] ?? t.slice(0, 4)}`;
    return 'text';
  });
}

/** Raw HTML a Markdown renderer would pass on: `<` before a letter, `/`, `!` or `?`. */
export const RAW_HTML = /<[A-Za-z/!?]/g;
/** A GitHub mention: `@` right before a name, not after a word character. */
export const MENTION = /(^|[^\w`])@[A-Za-z0-9]/g;
/** A GitHub issue reference. */
export const REFERENCE = /(^|[^\w&])#\d/g;

/**
 * The Markdown outside code: fenced blocks and code spans removed (a backslash-escaped backtick opens
 * none). GitHub renders their content literally and finds no mention or reference in them (its filters
 * skip `code` and `pre`).
 */
export function outsideCode(markdown: string): string {
  return markdown
    .replace(/^(`{3,}|~{3,})[^\n]*\n[\s\S]*?^\1[`~]*$/gm, '')
    .replace(/(?<![`\\])(`+)(?!`)[^\n]*?(?<!`)\1(?!`)/g, '');
}
