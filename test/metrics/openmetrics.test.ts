/**
 * OpenMetrics 1.0 conformance of the scrape source's exposition parser. The valid expositions are the
 * specification's own examples (section named in each case; a fragment gets the `# EOF` every exposition
 * ends with); the malformed ones break a rule the specification states. Served as
 * `application/openmetrics-text` they are held to it; the Prometheus text format keeps Prometheus's leniency.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ExpositionError, parseExposition, type Exposition } from '../../src/metrics/scrape/exposition.js';
import { ScrapeMetricSource } from '../../src/metrics/scrape/source.js';
import type { ScrapeSource as ScrapeSpec } from '../../src/plan/schema.js';

const SRC = 'http://127.0.0.1:9100/metrics';

const om = (lines: string[]): string => `${lines.join('\n')}\n`;
const parseOm = (text: string): Exposition => parseExposition(text, SRC, 'openmetrics');

function omError(text: string): ExpositionError {
  try {
    parseOm(text);
  } catch (error) {
    if (error instanceof ExpositionError) return error;
    throw error;
  }
  throw new Error(`expected the OpenMetrics exposition to be refused:\n${text}`);
}

/** The specification's valid examples, by the section that shows them. */
const SPEC_VALID: [string, string[]][] = [
  [
    'Overall Structure: the complete exposition',
    [
      '# TYPE acme_http_router_request_seconds summary',
      '# UNIT acme_http_router_request_seconds seconds',
      "# HELP acme_http_router_request_seconds Latency though all of ACME's HTTP request router.",
      'acme_http_router_request_seconds_sum{path="/api/v1",method="GET"} 9036.32',
      'acme_http_router_request_seconds_count{path="/api/v1",method="GET"} 807283.0',
      'acme_http_router_request_seconds_created{path="/api/v1",method="GET"} 1605281325.0',
      'acme_http_router_request_seconds_sum{path="/api/v2",method="POST"} 479.3',
      'acme_http_router_request_seconds_count{path="/api/v2",method="POST"} 34.0',
      'acme_http_router_request_seconds_created{path="/api/v2",method="POST"} 1605281325.0',
      '# TYPE go_goroutines gauge',
      '# HELP go_goroutines Number of goroutines that currently exist.',
      'go_goroutines 69',
      '# TYPE process_cpu_seconds counter',
      '# UNIT process_cpu_seconds seconds',
      '# HELP process_cpu_seconds Total user and system CPU time spent in seconds.',
      'process_cpu_seconds_total 4.20072246e+06',
      '# EOF',
    ],
  ],
  [
    'MetricFamily metadata: a unit that is a suffix',
    ['# TYPE foo_seconds counter', '# UNIT foo_seconds seconds', '# EOF'],
  ],
  ['MetricFamily metadata: no unit', ['# TYPE foo_seconds counter', '# EOF']],
  [
    'MetricFamily metadata: HELP with escapes',
    [
      '# TYPE foo_seconds counter',
      '# UNIT foo_seconds seconds',
      '# HELP foo_seconds Some text and \\n some \\" escaping',
      '# EOF',
    ],
  ],
  ['Metric: a sample without labels', ['bar_seconds_count 0', '# EOF']],
  ['Metric: an empty label set', ['bar_seconds_count{} 0', '# EOF']],
  ['Metric: escaped label values', ['bar_seconds_count{a="x",b="escaping\\" example \\n "} 0', '# EOF']],
  [
    'MetricPoint: several points per metric',
    [
      '# TYPE foo_seconds summary',
      '# UNIT foo_seconds seconds',
      'foo_seconds_count{a="bb"} 0 123',
      'foo_seconds_sum{a="bb"} 0 123',
      'foo_seconds_count{a="bb"} 0 456',
      'foo_seconds_sum{a="bb"} 0 456',
      'foo_seconds_count{a="ccc"} 0 123',
      'foo_seconds_sum{a="ccc"} 0 123',
      'foo_seconds_count{a="ccc"} 0 456',
      'foo_seconds_sum{a="ccc"} 0 456',
      '# EOF',
    ],
  ],
  ['Gauge: no labels, no timestamp', ['# TYPE foo gauge', 'foo 17.0', '# EOF']],
  ['Gauge: two metrics', ['# TYPE foo gauge', 'foo{a="bb"} 17.0', 'foo{a="ccc"} 17.0', '# EOF']],
  ['Gauge: a family with no metrics', ['# TYPE foo gauge', '# EOF']],
  ['Gauge: a label and a timestamp', ['# TYPE foo gauge', 'foo{a="b"} 17.0 1520879607.789', '# EOF']],
  ['Gauge: a timestamp', ['# TYPE foo gauge', 'foo 17.0 1520879607.789', '# EOF']],
  ['Gauge: two points', ['# TYPE foo gauge', 'foo 17.0 123', 'foo 18.0 456', '# EOF']],
  ['Counter: a total', ['# TYPE foo counter', 'foo_total 17.0', '# EOF']],
  ['Counter: a total with a timestamp', ['# TYPE foo counter', 'foo_total 17.0 1520879607.789', '# EOF']],
  [
    'Counter: a total and created',
    ['# TYPE foo counter', 'foo_total 17.0', 'foo_created 1520430000.123', '# EOF'],
  ],
  [
    'Counter: a total and created with timestamps',
    [
      '# TYPE foo counter',
      'foo_total 17.0 1520879607.789',
      'foo_created 1520430000.123 1520879607.789',
      '# EOF',
    ],
  ],
  [
    'StateSet: three states',
    ['# TYPE foo stateset', 'foo{foo="a"} 0', 'foo{foo="bb"} 1', 'foo{foo="ccc"} 0', '# EOF'],
  ],
  [
    'StateSet: an entity label',
    [
      '# TYPE foo stateset',
      'foo{entity="controller",foo="a"} 1.0',
      'foo{entity="controller",foo="bb"} 0.0',
      'foo{entity="controller",foo="ccc"} 0.0',
      'foo{entity="replica",foo="a"} 1.0',
      'foo{entity="replica",foo="bb"} 0.0',
      'foo{entity="replica",foo="ccc"} 1.0',
      '# EOF',
    ],
  ],
  ['Info: no labels', ['# TYPE foo info', 'foo_info{name="pretty name",version="8.2.7"} 1', '# EOF']],
  [
    'Info: an entity label',
    [
      '# TYPE foo info',
      'foo_info{entity="controller",name="pretty name",version="8.2.7"} 1.0',
      'foo_info{entity="replica",name="prettier name",version="8.1.9"} 1.0',
      '# EOF',
    ],
  ],
  [
    'Summary: sum, count and created',
    ['# TYPE foo summary', 'foo_count 17.0', 'foo_sum 324789.3', 'foo_created 1520430000.123', '# EOF'],
  ],
  [
    'Summary: two quantiles',
    ['# TYPE foo summary', 'foo{quantile="0.95"} 123.7', 'foo{quantile="0.99"} 150.0', '# EOF'],
  ],
  [
    'Histogram: twelve buckets with atypical le values',
    [
      '# TYPE foo histogram',
      'foo_bucket{le="0.0"} 0',
      'foo_bucket{le="1e-05"} 0',
      'foo_bucket{le="0.0001"} 5',
      'foo_bucket{le="0.1"} 8',
      'foo_bucket{le="1.0"} 10',
      'foo_bucket{le="10.0"} 11',
      'foo_bucket{le="100000.0"} 11',
      'foo_bucket{le="1e+06"} 15',
      'foo_bucket{le="1e+23"} 16',
      'foo_bucket{le="1.1e+23"} 17',
      'foo_bucket{le="+Inf"} 17',
      'foo_count 17',
      'foo_sum 324789.3',
      'foo_created 1520430000.123',
      '# EOF',
    ],
  ],
  [
    'Histogram: exemplars (as the specification prints it, two spaces before the created value)',
    [
      '# TYPE foo histogram',
      'foo_bucket{le="0.01"} 0',
      'foo_bucket{le="0.1"} 8 # {} 0.054',
      'foo_bucket{le="1"} 11 # {trace_id="KOO5S4vxi0o"} 0.67',
      'foo_bucket{le="10"} 17 # {trace_id="oHg5SJYRHA0"} 9.8 1520879607.789',
      'foo_bucket{le="+Inf"} 17',
      'foo_count 17',
      'foo_sum 324789.3',
      'foo_created  1520430000.123',
      '# EOF',
    ],
  ],
  [
    'GaugeHistogram: buckets, gcount and gsum',
    [
      '# TYPE foo gaugehistogram',
      'foo_bucket{le="0.01"} 20.0',
      'foo_bucket{le="0.1"} 25.0',
      'foo_bucket{le="1"} 34.0',
      'foo_bucket{le="10"} 34.0',
      'foo_bucket{le="+Inf"} 42.0',
      'foo_gcount 42.0',
      'foo_gsum 3289.3',
      '# EOF',
    ],
  ],
  ['Unknown: a value', ['# TYPE foo unknown', 'foo 42.23', '# EOF']],
];

describe('OpenMetrics: every valid exposition of the specification parses', () => {
  it.each(SPEC_VALID)('%s', (_section, lines) => {
    const exp = parseOm(om(lines));
    expect(exp.format).toBe('openmetrics');
    expect(exp.samples).toHaveLength(lines.filter((l) => !l.startsWith('#')).length);
  });

  it('reads the values, timestamps, exemplars and metadata of the examples', () => {
    const [, complete] = SPEC_VALID[0] as [string, string[]];
    const exp = parseOm(om(complete));
    expect(exp.families.get('acme_http_router_request_seconds')).toEqual({
      name: 'acme_http_router_request_seconds',
      type: 'summary',
      unit: 'seconds',
      help: "Latency though all of ACME's HTTP request router.",
    });
    expect(exp.samples.find((s) => s.name === 'process_cpu_seconds_total')?.value).toBe(4200722.46);

    const exemplars = parseOm(
      om((SPEC_VALID.find(([s]) => s.startsWith('Histogram: exemplars')) ?? ['', []])[1]),
    );
    expect(exemplars.samples.map((s) => s.exemplar)).toEqual([
      undefined,
      { labels: {}, value: 0.054 },
      { labels: { trace_id: 'KOO5S4vxi0o' }, value: 0.67 },
      { labels: { trace_id: 'oHg5SJYRHA0' }, value: 9.8, timestampMs: 1520879607789 },
      undefined,
      undefined,
      undefined,
      undefined,
    ]);
    expect(exemplars.samples.at(-1)?.value).toBe(1520430000.123);

    const help = parseOm(
      om(['# TYPE foo_seconds counter', '# HELP foo_seconds Some text and \\n some \\" escaping', '# EOF']),
    );
    expect(help.families.get('foo_seconds')?.help).toBe('Some text and \n some " escaping');
  });

  it('reads \\\\, \\" and \\n in label values and keeps any other backslash pair, such as \\z, as written', () => {
    const exp = parseOm(om(['m{a="x\\zy",b="\\\\a",c="\\a",d="q\\"\\nr"} 1', '# EOF']));
    expect(exp.samples[0]?.labels).toEqual({ a: 'x\\zy', b: '\\a', c: '\\a', d: 'q"\nr' });
  });

  it('reads numbers as the ABNF writes them: case-insensitive Inf, NaN, exponents, leading zeros', () => {
    const exp = parseOm(
      om(['a 0042', 'b +Inf', 'c -infinity', 'd NaN', 'e 1.89e-7', 'f 1.', 'g .5', 'h 1E3', 'i -0', '# EOF']),
    );
    expect(exp.samples.map((s) => s.value)).toEqual([
      42,
      Infinity,
      -Infinity,
      NaN,
      1.89e-7,
      1,
      0.5,
      1000,
      -0,
    ]);
  });

  it('treats an empty UNIT or HELP as absent', () => {
    const exp = parseOm(om(['# TYPE foo counter', '# UNIT foo ', '# HELP foo ', 'foo_total 1', '# EOF']));
    expect(exp.families.get('foo')).toEqual({ name: 'foo', type: 'counter' });
  });
});

/** Expositions the specification rules out, each with the line and the words of the refusal. */
const SPEC_INVALID: [string, string[], number, string][] = [
  ['no # EOF', ['a_total 1'], 1, 'does not end with # EOF'],
  ['a line after # EOF', ['# EOF', 'a 1'], 2, 'content after # EOF'],
  ['an empty line after # EOF', ['a 1', '# EOF', ''], 3, 'content after # EOF'],
  ['an empty line', ['a 1', '', 'b 2', '# EOF'], 2, 'an empty line'],
  ['a carriage return', ['a 1\r', '# EOF'], 1, 'a carriage return'],
  ['a comment line', ['# just a comment', 'a 1', '# EOF'], 1, 'OpenMetrics has no comment lines'],
  ['metadata with two spaces', ['#  TYPE a gauge', '# EOF'], 1, 'OpenMetrics has no comment lines'],
  ['a blank inside braces', ['a{x="1", y="2"} 1', '# EOF'], 1, 'a blank inside braces'],
  ['a trailing comma in a label set', ['a{x="1",} 1', '# EOF'], 1, 'a trailing comma'],
  [
    'a space between name and labels',
    ['a {x="1"} 1', '# EOF'],
    1,
    'a space between the metric name and its labels',
  ],
  ['a tab between tokens', ['a\t1', '# EOF'], 1, "found '\t'"],
  [
    'an exemplar without a space after #',
    ['# TYPE a counter', 'a_total 1 #{x="1"} 1', '# EOF'],
    2,
    "expected ' {' after '#'",
  ],
  [
    'a type OpenMetrics does not have',
    ['# TYPE a untyped', 'a 1', '# EOF'],
    1,
    "'untyped' is not an OpenMetrics type",
  ],
  ['a second TYPE line', ['# TYPE a gauge', '# TYPE a gauge', '# EOF'], 2, 'second # TYPE line for a'],
  [
    'a second UNIT line',
    ['# TYPE a_s gauge', '# UNIT a_s s', '# UNIT a_s s', '# EOF'],
    3,
    'second # UNIT line for a_s',
  ],
  ['metadata after the samples', ['# TYPE a gauge', 'a 1', '# HELP a late', '# EOF'], 3, 'after its samples'],
  // MetricFamily metadata: "An invalid example, where the unit is not a suffix on the name".
  [
    'a UNIT that is not a suffix of the name',
    ['# TYPE foo counter', '# UNIT foo seconds', '# EOF'],
    2,
    "unit 'seconds' is not a suffix",
  ],
  [
    'a unit on an info family',
    ['# TYPE foo_bytes info', '# UNIT foo_bytes bytes', '# EOF'],
    2,
    'a info has no unit',
  ],
  [
    'a counter sample without _total',
    ['# TYPE foo counter', 'foo 1', '# EOF'],
    2,
    'foo is not a sample name of counter foo; expected foo_total, foo_created',
  ],
  [
    'families interleaved',
    ['# TYPE a gauge', 'a 1', '# TYPE b gauge', 'b 1', 'a 2', '# EOF'],
    5,
    'a belongs to gauge a, which ended at line 2',
  ],
  [
    'a family name that clashes with a sample name (Suffixes)',
    ['# TYPE foo counter', 'foo_total 1', '# TYPE foo_created gauge', 'foo_created 1', '# EOF'],
    3,
    'family foo_created clashes with counter foo',
  ],
  // MetricPoint: "An incorrect example where Metrics are interleaved".
  [
    'metrics interleaved',
    [
      '# TYPE foo_seconds summary',
      '# UNIT foo_seconds seconds',
      'foo_seconds_count{a="bb"} 0 123',
      'foo_seconds_count{a="ccc"} 0 123',
      'foo_seconds_count{a="bb"} 0 456',
      'foo_seconds_count{a="ccc"} 0 456',
      '# EOF',
    ],
    5,
    'continues after another metric',
  ],
  // MetricPoint: "An incorrect example where MetricPoints are interleaved".
  [
    'MetricPoints interleaved',
    [
      '# TYPE foo_seconds summary',
      '# UNIT foo_seconds seconds',
      'foo_seconds_count{a="bb"} 0 123',
      'foo_seconds_count{a="bb"} 0 456',
      'foo_seconds_sum{a="bb"} 0 123',
      'foo_seconds_sum{a="bb"} 0 456',
      '# EOF',
    ],
    5,
    'continues after another of its points',
  ],
  [
    'a series twice without timestamps',
    ['# TYPE a gauge', 'a 1', 'a 2', '# EOF'],
    3,
    'appears twice without timestamps',
  ],
  [
    'timestamps that do not increase',
    ['# TYPE a gauge', 'a 1 456', 'a 2 123', '# EOF'],
    3,
    'does not come after',
  ],
  [
    'a NaN counter total',
    ['# TYPE a counter', 'a_total NaN', '# EOF'],
    2,
    "a counter's total is never NaN or negative",
  ],
  [
    'a negative counter total',
    ['# TYPE a counter', 'a_total -1', '# EOF'],
    2,
    "a counter's total is never NaN or negative",
  ],
  [
    'histogram buckets out of order',
    ['# TYPE h histogram', 'h_bucket{le="1"} 1', 'h_bucket{le="0.5"} 1', 'h_bucket{le="+Inf"} 1', '# EOF'],
    3,
    'buckets are sorted by le',
  ],
  [
    'histogram buckets that are not cumulative',
    ['# TYPE h histogram', 'h_bucket{le="0.5"} 5', 'h_bucket{le="1"} 3', 'h_bucket{le="+Inf"} 5', '# EOF'],
    3,
    'buckets are cumulative',
  ],
  [
    'a histogram without +Inf',
    ['# TYPE h histogram', 'h_bucket{le="1"} 1', '# EOF'],
    2,
    'no le="+Inf" bucket',
  ],
  [
    'a _count that is not the +Inf bucket',
    ['# TYPE h histogram', 'h_bucket{le="+Inf"} 5', 'h_count 4', 'h_sum 1', '# EOF'],
    3,
    'h_count is 4 but the +Inf bucket counts 5',
  ],
  [
    'a _sum without _count',
    ['# TYPE h histogram', 'h_bucket{le="+Inf"} 5', 'h_sum 1', '# EOF'],
    3,
    'has h_sum but no h_count',
  ],
  ['a bucket without le', ['# TYPE h histogram', 'h_bucket 5', '# EOF'], 2, 'a bucket without an le label'],
  [
    'a bucket with a fractional count',
    ['# TYPE h histogram', 'h_bucket{le="+Inf"} 1.5', '# EOF'],
    2,
    'a count is a whole number',
  ],
  [
    'a sum beside negative buckets',
    ['# TYPE h histogram', 'h_bucket{le="-1"} 1', 'h_bucket{le="+Inf"} 2', 'h_count 2', 'h_sum 1', '# EOF'],
    5,
    'a histogram with negative buckets has no sum',
  ],
  [
    'a quantile above 1',
    ['# TYPE s summary', 's{quantile="1.5"} 3', '# EOF'],
    2,
    'quantile="1.5" is not a quantile',
  ],
  [
    'an info sample that is not 1',
    ['# TYPE i info', 'i_info{v="1"} 2', '# EOF'],
    2,
    'an info sample is always 1',
  ],
  [
    'a state that is not 0 or 1',
    ['# TYPE st stateset', 'st{st="a"} 2', '# EOF'],
    2,
    'a state is 1 (true) or 0 (false)',
  ],
  [
    'an exemplar on a gauge',
    ['# TYPE g gauge', 'g 1 # {t="x"} 1', '# EOF'],
    2,
    "exemplars sit on a counter's _total",
  ],
  [
    'an exemplar with more than 128 characters of labels',
    ['# TYPE c counter', `c_total 1 # {trace_id="${'x'.repeat(125)}"} 1`, '# EOF'],
    2,
    'exemplar labels of 133 characters',
  ],
  [
    'an exemplar above its bucket',
    ['# TYPE h histogram', 'h_bucket{le="1"} 1 # {} 2', 'h_bucket{le="+Inf"} 1', '# EOF'],
    2,
    'is above its bucket',
  ],
  [
    'a timestamp that is not a number',
    ['a 1 soon', '# EOF'],
    1,
    "timestamp 'soon' is not a number of seconds",
  ],
  ['a trailing space', ['a 1 ', '# EOF'], 1, 'a space at the end of the line'],
];

describe('OpenMetrics: the malformed expositions the specification rules out are refused', () => {
  it.each(SPEC_INVALID)('%s', (_what, lines, line, fragment) => {
    const error = omError(om(lines));
    expect(error.line).toBe(line);
    expect(error.message.startsWith(`${SRC}:${line}: `)).toBe(true);
    expect(error.message).toContain(fragment);
  });

  it('refuses a byte order mark', () => {
    expect(omError('\uFEFFa 1\n# EOF\n').message).toContain('a byte order mark');
  });
});

describe('the Prometheus text format keeps its leniency', () => {
  it.each([
    ['a comment and blank lines', '# a comment\n\nm 1\n\n'],
    ['CRLF line ends', 'm 1\r\nn 2\r\n'],
    ['blanks inside braces and a trailing comma', 'm{ a = "1" , b="2", } 1\n'],
    ['tabs between tokens', 'm\t1\t1712345678000\n'],
    ['untyped', '# TYPE m untyped\nm 1\n'],
    ['a counter sample without _total', '# TYPE foo counter\nfoo 1\n'],
    [
      'buckets out of order and without +Inf',
      '# TYPE h histogram\nh_bucket{le="1"} 5\nh_bucket{le="0.5"} 3\n',
    ],
    ['interleaved families', '# TYPE a gauge\na 1\n# TYPE b gauge\nb 1\na 2\n'],
    ['# EOF as a comment, with content after it', 'a 1\n# EOF\nb 2\n'],
    ['an unknown escape', 'm{a="x\\zy"} 1\n'],
  ])('accepts %s', (_what, text) => {
    const exp = parseExposition(text, SRC, 'text');
    expect(exp.format).toBe('text');
    expect(exp.samples.length).toBeGreaterThan(0);
  });

  it('keeps an unknown escape as written, as Prometheus does', () => {
    expect(parseExposition('m{a="x\\zy"} 1\n', SRC, 'text').samples[0]?.labels).toEqual({ a: 'x\\zy' });
  });
});

describe('the scrape source applies the format the endpoint declares', () => {
  let server: Server;
  let origin = '';
  const bodies = new Map<string, { type: string; body: string }>();
  beforeAll(async () => {
    server = createServer((req, res) => {
      const b = bodies.get(req.url ?? '');
      if (!b) {
        res.writeHead(404).end();
        return;
      }
      res.writeHead(200, { 'content-type': b.type }).end(b.body);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const read = async (path: string) => {
    const source = new ScrapeMetricSource({ env: { ORIGIN: origin }, timeoutMs: 2000 });
    const spec = { url: `\${ORIGIN}${path}`, gauge: 'jobs_in_queue' } as ScrapeSpec;
    const [reading] = await source.read([{ name: 'q', spec: { scrape: spec } }], 0, 1000);
    return reading;
  };
  // A gauge, and a counter sample without its _total: fine for Prometheus, refused by OpenMetrics.
  const body = '# TYPE jobs_in_queue gauge\njobs_in_queue 3\n# TYPE jobs counter\njobs 7\n# EOF\n';

  it('refuses a malformed exposition served as application/openmetrics-text, naming url:line', async () => {
    bodies.set('/om', { type: 'application/openmetrics-text; version=1.0.0; charset=utf-8', body });
    const reading = await read('/om');
    expect(reading).toMatchObject({ status: 'error', value: null });
    expect(reading?.error).toBe(
      `${origin}/om:4: jobs is not a sample name of counter jobs; expected jobs_total, jobs_created`,
    );
  });

  it('reads the same text served as text/plain with Prometheus leniency', async () => {
    bodies.set('/text', { type: 'text/plain; version=0.0.4; charset=utf-8', body });
    expect(await read('/text')).toMatchObject({ status: 'ok', value: 3 });
  });
});
