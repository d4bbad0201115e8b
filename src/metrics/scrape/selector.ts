/**
 * PromQL instant-vector selectors (`http_requests_total{code=~"5..", route!="/health"}`) for the scrape
 * source. The semantics follow Prometheus: a missing label equals the empty string, and regular
 * expressions are RE2, fully anchored, so `code=~"5.."` matches `503` but not `1500`.
 */
import { RE2JS } from 're2js';
import type { Labels } from './exposition.js';

export type MatchOp = '=' | '!=' | '=~' | '!~';

/** A compiled label regex: full-match test of a value (RE2 semantics, linear time). */
export interface LabelRegex {
  /** True when the whole value matches. */
  test(value: string): boolean;
  /** The pattern as written in the selector. */
  readonly source: string;
}

/** One label matcher; `__name__` matches the metric name. */
export interface Matcher {
  name: string;
  op: MatchOp;
  value: string;
  /** The anchored regex for `=~` and `!~`. */
  re?: LabelRegex;
}

/** A parsed selector. */
export interface Selector {
  /** The selector as written. */
  text: string;
  /** The metric name, when it is given by name or by an `__name__="…"` equality matcher. */
  metric?: string;
  matchers: Matcher[];
}

/** A selector that does not parse; the message names the column and what was expected. */
export class SelectorError extends Error {
  override name = 'SelectorError';
}

const NAME_RE = /[a-zA-Z_:][a-zA-Z0-9_:]*/y;
const LABEL_RE = /[a-zA-Z_][a-zA-Z0-9_]*/y;
const BLANKS_RE = /\s*/y;

/**
 * Compiles a label regex as Prometheus does (`labels.NewFastRegexMatcher`: `^(?s:` + re + `)$` since
 * Prometheus 3.0): RE2 syntax and semantics, fully anchored, `.` matching a newline too. RE2 matches in
 * time linear in the value, so a pattern such as `(a+)+$` cannot stall a tick the way a backtracking
 * JavaScript `RegExp` can; Perl-only syntax (backreferences, lookaround) is refused as Prometheus
 * refuses it.
 */
export function anchoredRegex(source: string): LabelRegex {
  let re: RE2JS;
  try {
    re = RE2JS.compile(`^(?s:${source})$`);
  } catch (error) {
    const detail = (error as Error).message.replace(/^error parsing regexp: /, '');
    throw new SelectorError(`invalid regular expression "${source}" (RE2 syntax, as Prometheus): ${detail}`);
  }
  return { source, test: (value) => re.matches(value) };
}

const SIMPLE_ESCAPES: Record<string, string> = {
  a: '\x07',
  b: '\b',
  f: '\f',
  n: '\n',
  r: '\r',
  t: '\t',
  v: '\v',
  '\\': '\\',
  '"': '"',
  "'": "'",
};

class Cursor {
  pos = 0;
  constructor(readonly s: string) {}
  blanks(): void {
    BLANKS_RE.lastIndex = this.pos;
    BLANKS_RE.exec(this.s);
    this.pos = BLANKS_RE.lastIndex;
  }
  take(re: RegExp): string | undefined {
    re.lastIndex = this.pos;
    const m = re.exec(this.s);
    if (!m) return undefined;
    this.pos = re.lastIndex;
    return m[0];
  }
  fail(expected: string): never {
    const found = this.pos >= this.s.length ? 'the end' : `'${this.s[this.pos]}'`;
    throw new SelectorError(
      `selector '${this.s}': expected ${expected} at column ${this.pos + 1}, found ${found}`,
    );
  }
  /** A PromQL string: "…" or '…' with Go escapes, or `…` raw. */
  string(): string {
    const quote = this.s[this.pos];
    if (quote !== '"' && quote !== "'" && quote !== '`') this.fail('a quoted string');
    const open = this.pos++;
    let out = '';
    while (this.pos < this.s.length) {
      const c = this.s[this.pos++] as string;
      if (c === quote) return out;
      if (c === '\\' && quote !== '`') {
        const e = this.s[this.pos++] ?? '';
        const simple = SIMPLE_ESCAPES[e];
        if (simple !== undefined) out += simple;
        else if (e === 'x' || e === 'u' || e === 'U') {
          const width = e === 'x' ? 2 : e === 'u' ? 4 : 8;
          const hex = this.s.slice(this.pos, this.pos + width);
          if (!new RegExp(`^[0-9a-fA-F]{${width}}$`).test(hex)) this.fail(`${width} hex digits after \\${e}`);
          out += String.fromCodePoint(parseInt(hex, 16));
          this.pos += width;
        } else {
          this.pos--;
          this.fail('a valid escape');
        }
        continue;
      }
      out += c;
    }
    this.pos = open;
    return this.fail('a closed string');
  }
}

/** Parses `name`, `name{matchers}` or `{matchers}`. Throws `SelectorError` naming the column. */
export function parseSelector(text: string): Selector {
  const cur = new Cursor(text);
  cur.blanks();
  const matchers: Matcher[] = [];
  const metric = cur.take(NAME_RE);
  if (metric !== undefined) matchers.push({ name: '__name__', op: '=', value: metric });
  cur.blanks();
  if (cur.s[cur.pos] === '{') {
    cur.pos++;
    cur.blanks();
    while (cur.s[cur.pos] !== '}') {
      const name = cur.take(LABEL_RE) ?? cur.fail('a label name');
      cur.blanks();
      const op = (cur.take(/=~|!~|!=|=/y) ?? cur.fail('one of =, !=, =~, !~')) as MatchOp;
      cur.blanks();
      const value = cur.string();
      const matcher: Matcher = { name, op, value };
      if (op === '=~' || op === '!~') matcher.re = anchoredRegex(value);
      matchers.push(matcher);
      cur.blanks();
      if (cur.s[cur.pos] === ',') {
        cur.pos++;
        cur.blanks();
      } else if (cur.s[cur.pos] !== '}') cur.fail("',' or '}'");
    }
    cur.pos++;
    cur.blanks();
  } else if (metric === undefined) {
    cur.fail("a metric name or '{'");
  }
  if (cur.pos < cur.s.length) cur.fail('the end of the selector');
  // Prometheus refuses selectors that would match every series (e.g. `{job=~".*"}`).
  if (!matchers.some((m) => !matchesValue(m, ''))) {
    throw new SelectorError(
      `selector '${text}' must contain at least one matcher that does not match the empty string`,
    );
  }
  const named = matchers.find((m) => m.name === '__name__' && m.op === '=');
  const selector: Selector = { text, matchers };
  if (named) selector.metric = named.value;
  return selector;
}

function matchesValue(m: Matcher, value: string): boolean {
  switch (m.op) {
    case '=':
      return value === m.value;
    case '!=':
      return value !== m.value;
    case '=~':
      return (m.re as LabelRegex).test(value);
    case '!~':
      return !(m.re as LabelRegex).test(value);
  }
}

/** True when a series (metric name + labels) matches every matcher of the selector. */
export function selectorMatches(selector: Selector, name: string, labels: Labels): boolean {
  for (const m of selector.matchers) {
    const value = m.name === '__name__' ? name : (labels[m.name] ?? '');
    if (!matchesValue(m, value)) return false;
  }
  return true;
}

/** The same selector with its metric name replaced (e.g. `latency{…}` → `latency_bucket{…}`). */
export function withMetric(selector: Selector, metric: string): Selector {
  const matchers = selector.matchers.filter((m) => !(m.name === '__name__' && m.op === '='));
  return {
    text: selector.text,
    metric,
    matchers: [{ name: '__name__', op: '=', value: metric }, ...matchers],
  };
}
