/**
 * The Prometheus text format to the character: which names, values and timestamps a line may carry,
 * what `#` lines mean, and how the format is told from OpenMetrics. Each refusal names `source:line`.
 */
import { describe, expect, it } from 'vitest';
import {
  detectFormat,
  ExpositionError,
  parseExposition,
  parseSampleValue,
} from '../../src/metrics/scrape/exposition.js';

const SRC = 'http://app:9100/metrics';
const text = (...lines: string[]) => parseExposition(`${lines.join('\n')}\n`, SRC, 'text');

function refusal(body: string, format: 'text' | 'openmetrics' = 'text'): ExpositionError {
  try {
    parseExposition(body, SRC, format);
  } catch (error) {
    if (error instanceof ExpositionError) return error;
    throw error;
  }
  throw new Error(`expected the exposition to be refused:\n${body}`);
}

describe('format detection', () => {
  it('trusts a declared content type, whatever its case and blanks', () => {
    expect(detectFormat('a 1\n', '  Application/OpenMetrics-Text; version=1.0.0 ')).toBe('openmetrics');
    expect(detectFormat('a 1\n# EOF\n', 'TEXT/PLAIN')).toBe('text');
    expect(detectFormat('a 1\n# EOF\n', 'application/json')).toBe('text');
  });

  it('without one, looks for # EOF at the very end, after trailing blanks', () => {
    expect(detectFormat('a 1\n# EOF')).toBe('openmetrics');
    expect(detectFormat('a 1\n# EOF\n\n \t')).toBe('openmetrics');
    expect(detectFormat('# EOF', '')).toBe('openmetrics');
    expect(detectFormat('# EOF\na 1\n')).toBe('text');
    expect(detectFormat('a 1\n# EOFX\n')).toBe('text');
    expect(detectFormat('EOF')).toBe('text');
    expect(detectFormat('')).toBe('text');
    expect(detectFormat('x', null)).toBe('text');
  });

  it('detects the format itself when the caller gives none', () => {
    expect(parseExposition('a 1\n# EOF\n', SRC).format).toBe('openmetrics');
    expect(parseExposition('a 1\n', SRC).format).toBe('text');
  });
});

describe('sample values', () => {
  it.each([
    ['1', 1],
    ['-1', -1],
    ['+3', 3],
    ['5.', 5],
    ['.5', 0.5],
    ['1e3', 1000],
    ['1E-3', 0.001],
    ['-2.5e+2', -250],
    ['NaN', NaN],
    ['nan', NaN],
    ['Inf', Infinity],
    ['+inf', Infinity],
    ['Infinity', Infinity],
    ['+Infinity', Infinity],
    ['-Inf', -Infinity],
    ['-infinity', -Infinity],
  ])('reads %j', (token, value) => {
    expect(parseSampleValue(token)).toBe(value);
  });

  it.each(['', '.', 'e3', '1e', '1.2.3', '--1', '0x1f', 'Inff', ' 1', 'one'])('refuses %j', (token) => {
    expect(parseSampleValue(token)).toBeUndefined();
  });
});

describe('sample lines', () => {
  it('reads names with colons, label names without, and blanks of any length between tokens', () => {
    const exp = text('job:rate5m:sum{_a9="x"}\t \t2.5 \t 1700000000000   ', '   indented 1');
    expect(exp.samples).toEqual([
      { name: 'job:rate5m:sum', labels: { _a9: 'x' }, value: 2.5, timestampMs: 1700000000000, line: 1 },
      { name: 'indented', labels: {}, value: 1, line: 2 },
    ]);
  });

  it('reads a negative integer timestamp as milliseconds, and a text-format exemplar in seconds', () => {
    const exp = text('a 1 -5', 'b_total 3 # {trace_id="t1"} 0.5 1700000000.25', 'c_total 4 1000 # {} 1');
    expect(exp.samples[0]?.timestampMs).toBe(-5);
    expect(exp.samples[1]?.exemplar).toEqual({
      labels: { trace_id: 't1' },
      value: 0.5,
      timestampMs: 1700000000250,
    });
    expect(exp.samples[1]?.timestampMs).toBeUndefined();
    expect(exp.samples[2]).toMatchObject({ timestampMs: 1000, exemplar: { labels: {}, value: 1 } });
  });

  it.each([
    ['m{a="1"}2', 'expected a blank before the value at column 9'],
    ['m{a:b="1"} 2', "expected '=' at column 4, found ':'"],
    ['m{a="1"} 2 # {t="x"} v', "exemplar value 'v' is not a number"],
    ['m{a="1"} 2 # {t="x"} 1 soon', "timestamp 'soon' is not a number of seconds"],
    ['m{a="1"} 2 # {t="x"} 1 Inf', "timestamp 'Inf' is not a number of seconds"],
    ['m 2 1e3', "timestamp '1e3' is not an integer number of milliseconds"],
    ['m{a="1"', "expected ',' or '}' at column 8, found the end of the line"],
    ['m{', "expected '}' at column 3, found the end of the line"],
  ])('refuses %j naming the problem', (line, detail) => {
    const error = refusal(`ok 1\n${line}\n`);
    expect(error.line).toBe(2);
    expect(error.detail).toBe(detail);
    expect(error.message).toBe(`${SRC}:2: ${detail}`);
    expect(error.source).toBe(SRC);
  });
});

describe('# lines of the text format', () => {
  it('reads HELP (unescaping \\\\ and \\n only), TYPE and UNIT, and takes anything else for a comment', () => {
    const exp = text(
      '# HELP a Says \\"hi\\" \\\\ and\\nmore  ',
      '# TYPE a gauge   ',
      '# UNIT a seconds',
      '#TYPE b counter',
      '# EOF',
      '#',
      '# HELP b',
      'a 1',
    );
    expect(exp.families.get('a')).toEqual({
      name: 'a',
      help: 'Says \\"hi\\" \\ and\nmore',
      type: 'gauge',
      unit: 'seconds',
    });
    expect(exp.families.get('b')).toEqual({ name: 'b', help: '' });
    expect(exp.samples).toHaveLength(1);
  });

  it.each([
    ['# HELP', 'metadata line names no metric'],
    ['# TYPE \t', 'metadata line names no metric'],
    ['# TYPE 9a counter', "'9a' is not a valid metric name"],
    ['# TYPE a-b counter', "'a-b' is not a valid metric name"],
    [
      '# TYPE a',
      "unknown metric type '' for a (expected one of counter, gauge, histogram, gaugehistogram, summary, untyped, unknown, stateset, info)",
    ],
    ['# HELP a one\n# HELP a two', 'second HELP line for a'],
  ])('refuses %j', (lines, detail) => {
    const error = refusal(`${lines}\n`);
    expect(error.detail).toBe(detail);
  });

  it('skips a byte order mark, blank lines and carriage returns, and counts lines from 1', () => {
    const exp = parseExposition('\uFEFFa 1\r\n\r\n \t \nb 2', SRC, 'text');
    expect(exp.samples.map((s) => [s.name, s.line])).toEqual([
      ['a', 1],
      ['b', 4],
    ]);
    expect(refusal('\uFEFFa 1\n\nb x\n').line).toBe(3);
  });
});

describe('OpenMetrics lines', () => {
  const om = (...lines: string[]) =>
    parseExposition(`${[...lines, '# EOF'].join('\n')}\n`, SRC, 'openmetrics');

  it('reads HELP with \\" unescaped and keeps other pairs', () => {
    expect(om('# HELP a Says \\"hi\\" \\z', '# TYPE a gauge', 'a 1').families.get('a')?.help).toBe(
      'Says "hi" \\z',
    );
  });

  it('accepts # EOF without a final newline, and nothing else after it', () => {
    expect(parseExposition('a 1\n# EOF', SRC, 'openmetrics').samples).toHaveLength(1);
    expect(refusal('a 1\n# EOF\n\n', 'openmetrics').line).toBe(3);
  });

  it.each([
    [['# TYPE a'], 1, '# TYPE a names no type'],
    [['# TYPE 1a gauge'], 1, "'1a' is not a valid metric name"],
    [['a'], 1, "sample 'a' has no value"],
    [['a 1 2 3'], 1, 'unexpected text after the sample at column 7'],
    [['a 1 2 #x'], 1, "expected ' {' after '#' at column 8: an exemplar is '# {labels} value'"],
    [['# TYPE a counter', 'a_total 1 # {t="x"}'], 2, "sample 'a_total' has no exemplar value"],
    [['# TYPE a counter', 'a_total 1 # {t="x"} 1 2 3'], 2, 'unexpected text after the exemplar at column 24'],
    [['# TYPE a counter', 'a_total 1 # {t="x"} z'], 2, "exemplar value 'z' is not a number"],
    [['a 1\t'], 1, "a tab in '1\t'; OpenMetrics separates tokens with spaces"],
    [['a  '], 1, 'a space at the end of the line; expected the value'],
    [
      [`# ${'x'.repeat(60)}`],
      1,
      `'# ${'x'.repeat(37)}…' is not '# TYPE', '# HELP', '# UNIT' or '# EOF'; OpenMetrics has no comment lines`,
    ],
  ])('refuses %j at line %i', (lines, line, detail) => {
    const error = refusal(`${[...lines, '# EOF'].join('\n')}\n`, 'openmetrics');
    expect(error.line).toBe(line);
    expect(error.detail).toBe(detail);
  });

  it('refuses an empty exposition for lacking # EOF, at line 1', () => {
    expect(refusal('', 'openmetrics').message).toBe(
      `${SRC}:1: OpenMetrics exposition does not end with # EOF`,
    );
  });
});

describe('name characters', () => {
  it('takes letters a–z and A–Z, _ and : to start a metric name, and digits after the first character', () => {
    const names = ['a', 'z', 'A', 'Z', '_', ':', 'a0', 'z9', 'Az_:09'];
    const exp = text(...names.map((n) => `${n} 1`));
    expect(exp.samples.map((s) => s.name)).toEqual(names);
  });

  it.each([
    ['`a 1', "expected a metric name at column 1, found '`'"],
    ['{a 1', "expected a metric name at column 1, found '{'"],
    ['@a 1', "expected a metric name at column 1, found '@'"],
    ['[a 1', "expected a metric name at column 1, found '['"],
    ['0a 1', "expected a metric name at column 1, found '0'"],
    ['a/ 1', 'expected a blank before the value at column 2'],
    ['a; 1', 'expected a blank before the value at column 2'],
  ])('refuses %j', (line, detail) => {
    expect(refusal(`${line}\n`).detail).toBe(detail);
  });

  it('takes letters and _ to start a label name, digits after, and no colon', () => {
    const exp = text('m{a="1",z="2",A="3",Z="4",_="5",a0="6",b9="7"} 1');
    expect(Object.keys(exp.samples[0]?.labels ?? {})).toEqual(['a', 'z', 'A', 'Z', '_', 'a0', 'b9']);
    expect(refusal('m{:a="1"} 1\n').detail).toBe("expected a label name at column 3, found ':'");
    expect(refusal('m{9="1"} 1\n').detail).toBe("expected a label name at column 3, found '9'");
    expect(refusal('m{`="1"} 1\n').detail).toBe("expected a label name at column 3, found '`'");
    expect(refusal('m{[="1"} 1\n').detail).toBe("expected a label name at column 3, found '['");
    expect(refusal('m{{="1"} 1\n').detail).toBe("expected a label name at column 3, found '{'");
    expect(refusal('m{é="1"} 1\n').detail).toBe("expected a label name at column 3, found 'é'");
    expect(refusal('m{a/="1"} 1\n').detail).toBe("expected '=' at column 4, found '/'");
  });
});

describe('columns and leniency of the text format', () => {
  it('allows blanks between the name and its labels', () => {
    expect(text('m \t{a="1"} 2').samples[0]).toMatchObject({ name: 'm', labels: { a: '1' }, value: 2 });
  });

  it('allows trailing blanks after an exemplar timestamp', () => {
    expect(text('c_total 1 # {t="x"} 1 1700000000 \t').samples[0]?.exemplar?.timestampMs).toBe(1700000000000);
  });

  it.each([
    ['m{a="x', 'label value opened at column 5 is not closed'],
    ['m 1 2 3', 'unexpected text after the sample at column 7'],
    ['m 1 # trace', "expected an exemplar label set after '#' at column 7"],
    ['m{a="1"} 2 # {t="x"} 1 2 3', 'unexpected text after the sample at column 26'],
  ])('names the column in %j', (line, detail) => {
    expect(refusal(`${line}\n`).detail).toBe(detail);
  });

  it('reads "## HELP", "# HELPER" and a form feed after the name as comments', () => {
    const exp = text('## HELP a x', '# HELPER a x', '# TYPE\fa gauge', '# HELP b\fc', 'a 1');
    expect(exp.families.size).toBe(0);
  });

  it('allows several blanks after # and between the keyword, the name and the text', () => {
    const exp = text('#  \tHELP \t a \t  the help', '#\tTYPE a\t gauge', 'a 1');
    expect(exp.families.get('a')).toEqual({ name: 'a', help: 'the help', type: 'gauge' });
  });

  it('keeps a number with several digits after the point', () => {
    expect(parseSampleValue('.25')).toBe(0.25);
    expect(parseSampleValue('-.125e1')).toBe(-1.25);
  });
});

describe('columns and words of OpenMetrics refusals', () => {
  const refuse = (...lines: string[]) => refusal(`${[...lines, '# EOF'].join('\n')}\n`, 'openmetrics');

  it.each([
    [['a{x="1", y="2"} 1'], 'a blank inside braces at column 9; OpenMetrics label sets have none'],
    [['a{x="1"}1'], "expected a space before the value at column 9, found '1'"],
    [
      ['a {x="1"} 1'],
      'a space between the metric name and its labels at column 2; OpenMetrics writes name{labels}',
    ],
    [['a x'], "value 'x' is not a number (nor NaN, +Inf, -Inf)"],
    [['a 1 '], 'a space at the end of the line; expected the timestamp or exemplar'],
    [['a 1 2 '], 'a space at the end of the line; expected the exemplar'],
    [
      ['# TYPE c counter', 'c_total 1 # {t="x"} 1 '],
      'a space at the end of the line; expected the exemplar timestamp',
    ],
    [
      ['## HELP a x'],
      "'## HELP a x' is not '# TYPE', '# HELP', '# UNIT' or '# EOF'; OpenMetrics has no comment lines",
    ],
  ])('%j', (lines, detail) => {
    expect(refuse(...lines).detail).toBe(detail);
  });

  it('quotes a bad # line whole up to 40 characters, and its first 39 and … beyond', () => {
    const forty = `# ${'x'.repeat(38)}`;
    const fortyOne = `# ${'x'.repeat(39)}`;
    expect(refuse(forty).detail).toBe(
      `'${forty}' is not '# TYPE', '# HELP', '# UNIT' or '# EOF'; OpenMetrics has no comment lines`,
    );
    expect(refuse(fortyOne).detail).toBe(
      `'${fortyOne.slice(0, 39)}…' is not '# TYPE', '# HELP', '# UNIT' or '# EOF'; OpenMetrics has no comment lines`,
    );
  });

  it('keeps an exemplar after a timestamp, and a HELP without text', () => {
    const exp = parseExposition(
      '# TYPE c counter\n# HELP c\nc_total 1 2 # {t="x"} 1\n# EOF\n',
      SRC,
      'openmetrics',
    );
    expect(exp.samples[0]).toMatchObject({ timestampMs: 2000, exemplar: { labels: { t: 'x' }, value: 1 } });
    expect(exp.families.get('c')).toEqual({ name: 'c', type: 'counter' });
  });
});
