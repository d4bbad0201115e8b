import { describe, expect, it } from 'vitest';
import {
  ExpositionError,
  detectFormat,
  parseExposition,
  parseSampleValue,
} from '../../src/metrics/scrape/exposition.js';

const SRC = 'http://127.0.0.1:9100/metrics';

function errorOf(text: string, format?: 'text' | 'openmetrics'): ExpositionError {
  try {
    parseExposition(text, SRC, format);
  } catch (error) {
    if (error instanceof ExpositionError) return error;
    throw error;
  }
  throw new Error('expected an ExpositionError');
}

describe('exposition parser', () => {
  it('reads names, labels, values and metadata of the Prometheus text format', () => {
    const text = [
      '# HELP http_requests_total Requests served.\\nSecond line with \\\\ backslash.',
      '# TYPE http_requests_total counter',
      'http_requests_total{code="200",route="/pay"} 1027',
      'http_requests_total{code="500",route="/pay",} 3 1712345678000',
      'up 1',
    ].join('\n');
    const exp = parseExposition(text, SRC);
    expect(exp.format).toBe('text');
    expect(exp.samples).toHaveLength(3);
    expect(exp.samples[0]).toMatchObject({
      name: 'http_requests_total',
      labels: { code: '200', route: '/pay' },
      value: 1027,
      line: 3,
    });
    expect(exp.samples[1]?.timestampMs).toBe(1712345678000);
    expect(exp.samples[2]).toMatchObject({ name: 'up', labels: {}, value: 1 });
    expect(exp.families.get('http_requests_total')).toEqual({
      name: 'http_requests_total',
      type: 'counter',
      help: 'Requests served.\nSecond line with \\ backslash.',
    });
  });

  it('unescapes \\\\, \\" and \\n in label values and keeps commas, braces and # inside them', () => {
    const exp = parseExposition('m{path="C:\\\\dir\\\\x",msg="say \\"hi\\"\\nbye",odd="a,b}{#c"} 2\n', SRC);
    expect(exp.samples[0]?.labels).toEqual({ path: 'C:\\dir\\x', msg: 'say "hi"\nbye', odd: 'a,b}{#c' });
  });

  it('parses NaN, +Inf, -Inf and exponents as values', () => {
    const exp = parseExposition('a NaN\nb +Inf\nc -Inf\nd 1.5e-3\ne -0\nf Inf\n', SRC);
    const values = exp.samples.map((s) => s.value);
    expect(Number.isNaN(values[0])).toBe(true);
    expect(values.slice(1)).toEqual([Infinity, -Infinity, 0.0015, -0, Infinity]);
    expect(parseSampleValue('0x10')).toBeUndefined();
    expect(parseSampleValue('1_000')).toBeUndefined();
  });

  it('reads OpenMetrics: # EOF, # UNIT, _created lines, float-second timestamps and exemplars', () => {
    const text = [
      '# TYPE rpc_duration_seconds histogram',
      '# UNIT rpc_duration_seconds seconds',
      '# HELP rpc_duration_seconds RPC latency.',
      'rpc_duration_seconds_bucket{le="0.1"} 8 # {trace_id="abc123"} 0.067 1712345678.25',
      'rpc_duration_seconds_bucket{le="+Inf"} 10 # {trace_id="def"} 1.5',
      'rpc_duration_seconds_count 10',
      'rpc_duration_seconds_sum 3.2',
      'rpc_duration_seconds_created 1712340000.5',
      '# TYPE jobs counter',
      'jobs_total 4 1712345678.5',
      'jobs_created 1712340000',
      '# EOF',
    ].join('\n');
    const exp = parseExposition(text, SRC);
    expect(exp.format).toBe('openmetrics');
    expect(exp.families.get('rpc_duration_seconds')).toMatchObject({ type: 'histogram', unit: 'seconds' });
    expect(exp.samples[0]?.exemplar).toEqual({
      labels: { trace_id: 'abc123' },
      value: 0.067,
      timestampMs: 1712345678250,
    });
    expect(exp.samples[1]?.exemplar).toEqual({ labels: { trace_id: 'def' }, value: 1.5 });
    expect(exp.samples.find((s) => s.name === 'rpc_duration_seconds_created')?.value).toBe(1712340000.5);
    expect(exp.samples.find((s) => s.name === 'jobs_total')?.timestampMs).toBe(1712345678500);
    expect(exp.samples).toHaveLength(7);
  });

  it('detects OpenMetrics from the content type or the # EOF marker', () => {
    expect(detectFormat('a 1\n', 'application/openmetrics-text; version=1.0.0; charset=utf-8')).toBe(
      'openmetrics',
    );
    expect(detectFormat('a 1\n# EOF\n')).toBe('openmetrics');
    expect(detectFormat('a 1\n', 'text/plain; version=0.0.4')).toBe('text');
    // The declared type decides: in the text format `# EOF` is a comment.
    expect(detectFormat('a 1\n# EOF\n', 'text/plain; version=0.0.4')).toBe('text');
  });

  it('refuses OpenMetrics without # EOF and content after it, naming url:line', () => {
    expect(errorOf('a_total 1\n', 'openmetrics').message).toBe(
      `${SRC}:1: OpenMetrics exposition does not end with # EOF`,
    );
    expect(errorOf('a 1\n# EOF\nb 2\n', 'openmetrics').message).toBe(`${SRC}:3: content after # EOF`);
  });

  it.each([
    ['m{a="1" 2\n', 1, "expected ',' or '}' at column 9"],
    ['ok 1\nm{a="x\\', 2, 'is not closed'],
    ['ok 1\nok 2\nm{a="open} 1\n', 3, 'is not closed'],
    ['m{a="1",a="2"} 1\n', 1, "label 'a' appears twice"],
    ['m abc\n', 1, "value 'abc' is not a number"],
    ['m 1 12.5\n', 1, "timestamp '12.5' is not an integer number of milliseconds"],
    ['m\n', 1, "sample 'm' has no value"],
    ['9m 1\n', 1, 'expected a metric name at column 1'],
    ['m{1a="x"} 1\n', 1, 'expected a label name at column 3'],
    ['# TYPE m countr\nm 1\n', 1, "unknown metric type 'countr'"],
    ['# TYPE m counter\n# TYPE m gauge\n', 2, 'second TYPE line for m'],
    ['m 1 2 3\n', 1, 'unexpected text after the sample'],
    ['m 1 # trace\n', 1, "expected an exemplar label set after '#'"],
  ])('names url:line for a malformed line: %j', (text, line, fragment) => {
    const error = errorOf(text);
    expect(error.line).toBe(line);
    expect(error.message.startsWith(`${SRC}:${line}: `)).toBe(true);
    expect(error.message).toContain(fragment);
  });

  it('ignores blank lines, comments and Windows line endings', () => {
    const exp = parseExposition('# a comment\r\n\r\nm{a="b"} 3\r\n  \n', SRC);
    expect(exp.samples).toEqual([{ name: 'm', labels: { a: 'b' }, value: 3, line: 3 }]);
  });
});
