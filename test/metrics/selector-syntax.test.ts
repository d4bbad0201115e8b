/**
 * The PromQL selector syntax the scrape source reads, to the character: where blanks and a trailing
 * comma may go, every string escape PromQL has (Go's), raw strings, which metric a selector names, and
 * errors that name the column and what was expected there.
 */
import { describe, expect, it } from 'vitest';
import {
  anchoredRegex,
  parseSelector,
  selectorMatches,
  SelectorError,
  withMetric,
} from '../../src/metrics/scrape/selector.js';

/** The value the selector's one label matcher compares with. */
const valueOf = (text: string): string => parseSelector(`m{a=${text}}`).matchers[1]?.value ?? '';

function errorOf(text: string): string {
  try {
    parseSelector(text);
  } catch (error) {
    expect(error).toBeInstanceOf(SelectorError);
    return (error as Error).message;
  }
  throw new Error(`expected '${text}' to be refused`);
}

describe('selector layout', () => {
  it('allows blanks around every token and a trailing comma', () => {
    const s = parseSelector('  m \t{ a = "1" , b !~ "x" , }  ');
    expect(s.metric).toBe('m');
    expect(s.matchers.map((m) => [m.name, m.op, m.value])).toEqual([
      ['__name__', '=', 'm'],
      ['a', '=', '1'],
      ['b', '!~', 'x'],
    ]);
    expect(s.text).toBe('  m \t{ a = "1" , b !~ "x" , }  ');
  });

  it('reads each operator, the two-character ones before =', () => {
    const ops = parseSelector('m{a="1",b!="2",c=~"3",d!~"4"}')
      .matchers.slice(1)
      .map((m) => m.op);
    expect(ops).toEqual(['=', '!=', '=~', '!~']);
    expect(parseSelector('m{a=~"x"}').matchers[1]?.re?.source).toBe('x');
    expect(parseSelector('m{a="x"}').matchers[1]?.re).toBeUndefined();
  });

  it('accepts names with colons and digits, and an empty brace pair after a name', () => {
    expect(parseSelector('job:rate5m:sum').metric).toBe('job:rate5m:sum');
    expect(parseSelector('m{}').matchers).toEqual([{ name: '__name__', op: '=', value: 'm' }]);
    expect(parseSelector('{_a1="x"}').matchers[0]?.name).toBe('_a1');
  });

  it.each([
    ['m{a="1"', "selector 'm{a=\"1\"': expected ',' or '}' at column 8, found the end"],
    ['m{a="1" b="2"}', "expected ',' or '}' at column 9, found 'b'"],
    ['m{a}', "expected one of =, !=, =~, !~ at column 4, found '}'"],
    ['m{="1"}', "expected a label name at column 3, found '='"],
    ['m{a=1}', "expected a quoted string at column 5, found '1'"],
    ['m{a="1"}}', "expected the end of the selector at column 9, found '}'"],
    ['{', 'expected a label name at column 2, found the end'],
    ['  ', "expected a metric name or '{' at column 3, found the end"],
    ['9m', "expected a metric name or '{' at column 1, found '9'"],
    ['m{a="open}', 'expected a closed string at column 5'],
  ])('refuses %j naming the column', (text, message) => {
    expect(errorOf(text)).toContain(message);
  });

  it('refuses a selector every series would match, however it is written', () => {
    for (const text of ['{}', '{a=""}', '{a=~".*"}', '{a!="x"}', '{a!~"x"}', '{a=~"x|"}']) {
      expect(errorOf(text), text).toBe(
        `selector '${text}' must contain at least one matcher that does not match the empty string`,
      );
    }
    expect(parseSelector('{a=~".+"}').metric).toBeUndefined();
    expect(parseSelector('{a!=""}').matchers).toHaveLength(1);
  });
});

describe('strings', () => {
  it('reads the simple escapes of double- and single-quoted strings', () => {
    expect(valueOf('"\\a\\b\\f\\n\\r\\t\\v\\\\\\"\\\'"')).toBe('\x07\b\f\n\r\t\v\\"\'');
    expect(valueOf("'it\\'s \"quoted\"'")).toBe('it\'s "quoted"');
  });

  it('reads \\x, \\u and \\U code points', () => {
    expect(valueOf('"\\x41\\x7a"')).toBe('Az');
    expect(valueOf('"\\u00e9t\\u00C9"')).toBe('étÉ');
    expect(valueOf('"\\U0001F600!"')).toBe('\u{1F600}!');
  });

  it('keeps backslashes and quotes of the other kind in a raw string', () => {
    expect(valueOf('`C:\\new\\x41"`')).toBe('C:\\new\\x41"');
  });

  it.each([
    // The column is that of the first hex digit, or of the character after the backslash.
    ['m{a="\\x4"}', "expected 2 hex digits after \\x at column 8, found '4'"],
    ['m{a="\\x4g"}', "expected 2 hex digits after \\x at column 8, found '4'"],
    ['m{a="\\u00e"}', "expected 4 hex digits after \\u at column 8, found '0'"],
    ['m{a="\\U0001F60"}', "expected 8 hex digits after \\U at column 8, found '0'"],
    ['m{a="\\q"}', "expected a valid escape at column 7, found 'q'"],
    ['m{a="\\', 'expected a valid escape at column 7, found the end'],
  ])('refuses the escape in %j', (text, message) => {
    expect(errorOf(text)).toContain(message);
  });
});

describe('matching', () => {
  it('anchors regexes at both ends and lets . match a newline, as Prometheus does', () => {
    const re = anchoredRegex('a.c');
    expect(re.test('abc')).toBe(true);
    expect(re.test('a\nc')).toBe(true);
    expect(re.test('xabc')).toBe(false);
    expect(re.test('abcx')).toBe(false);
    expect(anchoredRegex('a|b').test('ab')).toBe(false);
  });

  it("refuses Perl-only syntax with RE2's reason, without its prefix", () => {
    expect(() => anchoredRegex('(?=x)')).toThrow(SelectorError);
    let message = '';
    try {
      anchoredRegex('a(');
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message.startsWith('invalid regular expression "a(" (RE2 syntax, as Prometheus): ')).toBe(true);
    expect(message).not.toContain('error parsing regexp: ');
  });

  it('treats an absent label as empty for every operator', () => {
    const m = (sel: string) => selectorMatches(parseSelector(sel), 'm', { present: 'x' });
    expect(m('m{absent=""}')).toBe(true);
    expect(m('m{absent!="x"}')).toBe(true);
    expect(m('m{absent=~"x?"}')).toBe(true);
    expect(m('m{absent!~"x?"}')).toBe(false);
    expect(m('m{present!~"x?"}')).toBe(false);
    expect(m('m{present!~"y"}')).toBe(true);
  });

  it('names the metric only by name or by __name__="…"', () => {
    expect(parseSelector('{__name__="up", job="x"}').metric).toBe('up');
    expect(parseSelector('{__name__=~"up|down"}').metric).toBeUndefined();
    expect(parseSelector('{__name__!="up", job="x"}').metric).toBeUndefined();
    expect(selectorMatches(parseSelector('{__name__=~"up|down"}'), 'down', {})).toBe(true);
    expect(selectorMatches(parseSelector('{__name__=~"up|down"}'), 'sideways', {})).toBe(false);
  });

  it('swaps the metric name and keeps every other matcher', () => {
    const s = withMetric(parseSelector('lat{__name__=~"l.*", pod="a"}'), 'lat_bucket');
    expect(s.metric).toBe('lat_bucket');
    expect(s.text).toBe('lat{__name__=~"l.*", pod="a"}');
    expect(s.matchers.map((m) => `${m.name}${m.op}${m.value}`)).toEqual([
      '__name__=lat_bucket',
      '__name__=~l.*',
      'pod=a',
    ]);
    expect(selectorMatches(s, 'lat_bucket', { pod: 'a' })).toBe(true);
    expect(selectorMatches(s, 'lat', { pod: 'a' })).toBe(false);
  });
});
