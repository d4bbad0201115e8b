import { describe, expect, it } from 'vitest';
import { SelectorError, parseSelector, selectorMatches } from '../../src/metrics/scrape/selector.js';

const match = (sel: string, name: string, labels: Record<string, string> = {}): boolean =>
  selectorMatches(parseSelector(sel), name, labels);

describe('PromQL selectors for the scrape source', () => {
  it('matches by metric name alone', () => {
    expect(match('http_requests_total', 'http_requests_total', { code: '200' })).toBe(true);
    expect(match('http_requests_total', 'http_requests_created')).toBe(false);
  });

  it('applies =, !=, =~ and !~ to labels', () => {
    const labels = { code: '503', route: '/pay' };
    expect(match('m{code="503"}', 'm', labels)).toBe(true);
    expect(match('m{code!="503"}', 'm', labels)).toBe(false);
    expect(match('m{code=~"5.."}', 'm', labels)).toBe(true);
    expect(match('m{code!~"5..", route="/pay"}', 'm', labels)).toBe(false);
    expect(match("m{route=~'/p.*'}", 'm', labels)).toBe(true);
  });

  it('anchors regexes fully, as Prometheus does: 5.. matches 503 but not 1500', () => {
    expect(match('m{code=~"5.."}', 'm', { code: '1500' })).toBe(false);
    expect(match('m{code=~"5.."}', 'm', { code: '5000' })).toBe(false);
    expect(match('m{code=~"2..|5.."}', 'm', { code: '200' })).toBe(true);
  });

  it('treats a missing label as the empty string', () => {
    expect(match('m{zone=""}', 'm', {})).toBe(true);
    expect(match('m{zone!=""}', 'm', {})).toBe(false);
    expect(match('m{zone=~"a|"}', 'm', {})).toBe(true);
  });

  it('selects by __name__ and unescapes quoted values', () => {
    expect(match('{__name__=~"http_.*_total", path="a\\"b"}', 'http_x_total', { path: 'a"b' })).toBe(true);
    expect(parseSelector('{__name__="up"}').metric).toBe('up');
    expect(match('m{path=`C:\\dir`}', 'm', { path: 'C:\\dir' })).toBe(true);
  });

  it.each([
    ['m{code=~"("}', 'invalid regular expression'],
    ['m{code="5"', "expected ',' or '}'"],
    ['m{code~"5"}', 'one of =, !=, =~, !~'],
    ['{job=~".*"}', 'at least one matcher that does not match the empty string'],
    ['m{a="1"} extra', 'the end of the selector'],
    ['', "a metric name or '{'"],
  ])('refuses %j with a message naming the problem', (text, fragment) => {
    expect(() => parseSelector(text)).toThrow(SelectorError);
    expect(() => parseSelector(text)).toThrow(fragment);
  });
});
