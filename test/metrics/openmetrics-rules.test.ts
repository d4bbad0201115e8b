/**
 * The OpenMetrics 1.0 rules above the line syntax, at their edges: a limit exactly met is accepted and
 * one past it refused (exemplar label length, a bucket's bound, equal counts), each rule applies to the
 * types and suffixes it names and no others, and each refusal names the line it is found on.
 */
import { describe, expect, it } from 'vitest';
import { ExpositionError, parseExposition } from '../../src/metrics/scrape/exposition.js';

const SRC = 'http://app:9100/metrics';
const om = (lines: string[]) => parseExposition(`${[...lines, '# EOF'].join('\n')}\n`, SRC, 'openmetrics');

function refusal(lines: string[]): { line: number; detail: string } {
  try {
    om(lines);
  } catch (error) {
    if (error instanceof ExpositionError) return { line: error.line, detail: error.detail };
    throw error;
  }
  throw new Error(`expected the exposition to be refused:\n${lines.join('\n')}`);
}

describe('limits met exactly are accepted, one past them refused', () => {
  const exemplar = (chars: number) => [
    '# TYPE c counter',
    `c_total 1 # {t="${'x'.repeat(chars - 1)}"} 1`, // the name `t` is one character
  ];

  it('exemplar labels of 128 characters, names and values together, counted in code points', () => {
    expect(om(exemplar(128)).samples[0]?.exemplar?.labels['t']).toHaveLength(127);
    expect(refusal(exemplar(129))).toEqual({
      line: 2,
      detail: 'exemplar labels of 129 characters; expected at most 128 (names and values together)',
    });
    // 127 emoji are 254 UTF-16 units but 127 code points.
    expect(om(['# TYPE c counter', `c_total 1 # {t="${'😀'.repeat(127)}"} 1`]).samples).toHaveLength(1);
  });

  it("an exemplar value equal to its bucket's le, not above it", () => {
    const lines = (v: number) => [
      '# TYPE h histogram',
      `h_bucket{le="0.5"} 1 # {} ${v}`,
      'h_bucket{le="+Inf"} 1',
    ];
    expect(om(lines(0.5)).samples).toHaveLength(2);
    expect(refusal(lines(0.51))).toEqual({
      line: 2,
      detail: "exemplar value 0.51 is above its bucket's le=0.5",
    });
  });

  it('a bucket counting as many as the one below it, not fewer; each bound once', () => {
    const buckets = (a: number, b: number, le2 = '1') => [
      '# TYPE h histogram',
      `h_bucket{le="0.5"} ${a}`,
      `h_bucket{le="${le2}"} ${b}`,
      `h_bucket{le="+Inf"} ${b}`,
    ];
    expect(om(buckets(3, 3)).samples).toHaveLength(3);
    expect(refusal(buckets(3, 2)).detail).toBe(
      'bucket le="1" counts 2, fewer than the 3 of le="0.5" below it; buckets are cumulative',
    );
    expect(refusal(buckets(3, 3, '0.50'))).toEqual({
      line: 3,
      detail: 'bucket le="0.50" after le="0.5" in h{}; buckets are sorted by le, each bound once',
    });
  });

  it('counts of 0 and whole numbers; never negative or fractional', () => {
    expect(om(['# TYPE h histogram', 'h_bucket{le="+Inf"} 0', 'h_count 0', 'h_sum 0']).samples).toHaveLength(
      3,
    );
    expect(refusal(['# TYPE h histogram', 'h_bucket{le="+Inf"} -1']).detail).toBe(
      'h_bucket{le="+Inf"} -1: a count is a whole number, never negative or NaN',
    );
    expect(refusal(['# TYPE h histogram', 'h_bucket{le="+Inf"} 2', 'h_count 2.5', 'h_sum 1']).detail).toBe(
      'h_count{} 2.5: a count is a whole number, never negative or NaN',
    );
    expect(refusal(['# TYPE s summary', 's_count NaN']).detail).toBe(
      's_count{} NaN: a count is a whole number, never negative or NaN',
    );
  });

  it('quantiles from 0 to 1 inclusive, with values from 0 up', () => {
    expect(om(['# TYPE s summary', 's{quantile="0"} 0', 's{quantile="1"} 5']).samples).toHaveLength(2);
    expect(refusal(['# TYPE s summary', 's{quantile="-0.1"} 1']).detail).toBe(
      's{quantile="-0.1"} 1: quantile="-0.1" is not a quantile; expected quantile="<0 to 1>"',
    );
    expect(refusal(['# TYPE s summary', 's{quantile="NaN"} 1']).detail).toContain('is not a quantile');
    expect(refusal(['# TYPE s summary', 's 1']).detail).toBe(
      's{} 1: quantile="" is not a quantile; expected quantile="<0 to 1>"',
    );
    expect(refusal(['# TYPE s summary', 's{quantile="0.5"} -1']).detail).toBe(
      's{quantile="0.5"} -1: a quantile value is never negative',
    );
  });

  it('a counter total of 0; a sum of 0; a gauge histogram gsum below 0', () => {
    expect(om(['# TYPE c counter', 'c_total 0']).samples).toHaveLength(1);
    expect(
      om([
        '# TYPE g gaugehistogram',
        'g_bucket{le="-1"} 1',
        'g_bucket{le="+Inf"} 1',
        'g_gcount 1',
        'g_gsum -3',
      ]).samples,
    ).toHaveLength(4);
    expect(refusal(['# TYPE h histogram', 'h_bucket{le="+Inf"} 1', 'h_count 1', 'h_sum -0.5']).detail).toBe(
      "h_sum{} -0.5: a histogram's sum is never NaN or negative",
    );
    expect(refusal(['# TYPE s summary', 's_count 1', 's_sum -1']).detail).toBe(
      "s_sum{} -1: a summary's sum is never NaN or negative",
    );
    expect(
      refusal(['# TYPE g gaugehistogram', 'g_bucket{le="+Inf"} 1', 'g_gcount 1', 'g_gsum NaN']).detail,
    ).toBe("g_gsum{} NaN: a gauge histogram's gsum is never NaN");
  });
});

describe('each rule applies to the types and suffixes it names', () => {
  it('le only on buckets, quantile only on quantile samples', () => {
    expect(refusal(['# TYPE h histogram', 'h_bucket{le="+Inf"} 1', 'h_count{le="1"} 1']).detail).toBe(
      'h_count{le="1"} 1: only the _bucket samples of histogram h carry le',
    );
    expect(refusal(['# TYPE s summary', 's_count{quantile="0.5"} 1']).detail).toBe(
      's_count{quantile="0.5"} 1: only the quantile samples of summary s carry quantile',
    );
    expect(refusal(['# TYPE h histogram', 'h_bucket{le="fast"} 1']).detail).toBe(
      'h_bucket{le="fast"} 1: le="fast" is not a number; expected a bound such as 0.5 or +Inf',
    );
    expect(refusal(['# TYPE h histogram', 'h_bucket{le="NaN"} 1']).detail).toContain('is not a number');
    // A gauge or an unknown-type sample may carry any label and any value.
    expect(om(['# TYPE g gauge', 'g{le="x",quantile="7"} -5', 'u{le="y"} NaN']).samples).toHaveLength(2);
  });

  it('a stateset sample carries its state label, with 0 or 1', () => {
    expect(refusal(['# TYPE st stateset', 'st{other="a"} 1'])).toEqual({
      line: 2,
      detail: 'st{other="a"} 1: a state sample carries the label st="<state>"',
    });
    expect(om(['# TYPE st stateset', 'st{st="a"} 0', 'st{st="b"} 1']).samples).toHaveLength(2);
  });

  it('exemplars on counter totals and histogram buckets only', () => {
    expect(refusal(['# TYPE c counter', 'c_created 1 # {} 1']).detail).toContain('exemplar on c_created');
    expect(refusal(['# TYPE h histogram', 'h_bucket{le="+Inf"} 1', 'h_count 1 # {} 1']).detail).toContain(
      'exemplar on h_count',
    );
    expect(
      om(['# TYPE g gaugehistogram', 'g_bucket{le="+Inf"} 1 # {} 7', 'g_gcount 1', 'g_gsum 1']).samples,
    ).toHaveLength(3);
    expect(refusal(['# TYPE s summary', 's_count 1 # {} 1']).detail).toContain('exemplar on s_count');
  });

  it('a gauge histogram names its count and sum _gcount and _gsum', () => {
    expect(refusal(['# TYPE g gaugehistogram', 'g_bucket{le="+Inf"} 2', 'g_gcount 3', 'g_gsum 1'])).toEqual({
      line: 3,
      detail: 'g_gcount is 3 but the +Inf bucket counts 2; expected them equal',
    });
    expect(refusal(['# TYPE g gaugehistogram', 'g_bucket{le="+Inf"} 2', 'g_gcount 2'])).toEqual({
      line: 3,
      detail: 'g{} has g_gcount but no g_gsum; expected both or neither',
    });
    expect(refusal(['# TYPE g gaugehistogram', 'g_bucket{le="1"} 2'])).toEqual({
      line: 2,
      detail: 'gaugehistogram g{} has no le="+Inf" bucket; expected one counting every event',
    });
  });

  it('checks each histogram point when the next one starts, not only at # EOF', () => {
    expect(
      refusal(['# TYPE h histogram', 'h_bucket{pod="a",le="1"} 1', 'h_bucket{pod="b",le="+Inf"} 1']),
    ).toEqual({
      line: 2,
      detail: 'histogram h{pod="a"} has no le="+Inf" bucket; expected one counting every event',
    });
    expect(
      refusal([
        '# TYPE h histogram',
        'h_bucket{le="+Inf"} 1 1',
        'h_bucket{le="+Inf"} 2 2',
        'h_count 1 2',
        'h_sum 1 2',
      ]),
    ).toEqual({ line: 4, detail: 'h_count is 1 but the +Inf bucket counts 2; expected them equal' });
    expect(refusal(['# TYPE h histogram', 'h_bucket{le="1"} 1', '# TYPE g gauge', 'g 1']).line).toBe(2);
  });

  it('allows a _count without buckets below 0 and a sum, and a negative bucket without a sum', () => {
    expect(om(['# TYPE h histogram', 'h_bucket{le="-1"} 1', 'h_bucket{le="+Inf"} 1']).samples).toHaveLength(
      2,
    );
    expect(
      om(['# TYPE h histogram', 'h_bucket{le="0"} 1', 'h_bucket{le="+Inf"} 1', 'h_count 1', 'h_sum 0'])
        .samples,
    ).toHaveLength(4);
  });
});

describe('families and their metadata', () => {
  it('refuses metadata of a family that already ended, naming where it ended', () => {
    expect(refusal(['# TYPE a gauge', 'a 1', '# TYPE b gauge', '# HELP a late'])).toEqual({
      line: 4,
      detail: "# HELP a after family a ended (line 2); a family's lines are not interleaved with another's",
    });
  });

  it('refuses a second HELP, a unit with bad characters and a unit on a stateset', () => {
    expect(refusal(['# HELP a one', '# HELP a two'])).toEqual({
      line: 2,
      detail: 'second # HELP line for a; expected at most one',
    });
    expect(refusal(['# TYPE a_s gauge', '# UNIT a_s s-1']).detail).toBe(
      "unit 's-1' has characters a metric name may not; expected letters, digits, _ and :",
    );
    expect(refusal(['# TYPE st_x stateset', '# UNIT st_x x']).detail).toBe(
      "stateset st_x has unit 'x'; a stateset has no unit",
    );
    expect(om(['# TYPE a_s:x gauge', '# UNIT a_s:x s:x']).families.get('a_s:x')?.unit).toBe('s:x');
  });

  it('checks a unit given before the type against the type that follows', () => {
    expect(refusal(['# UNIT i_b b', '# TYPE i_b info'])).toEqual({
      line: 2,
      detail: "info i_b has unit 'b'; a info has no unit",
    });
  });

  it("refuses a type whose sample names are another family's name", () => {
    expect(refusal(['# TYPE foo_total gauge', '# TYPE foo counter'])).toEqual({
      line: 2,
      detail:
        "counter foo would name samples foo_total, which is family foo_total (line 1); family names must not clash with another family's sample names",
    });
    // A gauge's only sample name is its own: no clash with a family named after a suffix.
    expect(om(['# TYPE foo_total gauge', '# TYPE foo gauge']).families.size).toBe(2);
  });

  it("refuses a sample that is a known family's name but not one of its sample names", () => {
    expect(refusal(['# TYPE h histogram', 'h 1'])).toEqual({
      line: 2,
      detail: 'h is not a sample name of histogram h; expected h_bucket, h_count, h_sum, h_created',
    });
    expect(refusal(['# TYPE i info', 'i 1']).detail).toBe(
      'i is not a sample name of info i; expected i_info',
    );
  });

  it('opens an unknown-typed family for a sample with no metadata, which then owns that name', () => {
    const exp = om(['x 1', 'y 2']);
    expect(exp.samples.map((s) => s.name)).toEqual(['x', 'y']);
    expect(refusal(['x 1', 'y 2', 'x 3']).detail).toBe(
      "x belongs to unknown x, which ended at line 1; a family's samples are not interleaved with another's",
    );
  });

  it('allows a repeated series only with a later timestamp', () => {
    expect(om(['# TYPE g gauge', 'g 1 10', 'g 2 10.001']).samples).toHaveLength(2);
    expect(refusal(['# TYPE g gauge', 'g 1 10', 'g 2 10'])).toEqual({
      line: 3,
      detail: 'g{} at 10 does not come after its sample at 10; MetricPoints have increasing timestamps',
    });
    expect(refusal(['# TYPE g gauge', 'g 1 10', 'g 2']).detail).toBe(
      'g{} appears twice without timestamps; a series has one sample per MetricPoint',
    );
    expect(refusal(['# TYPE g gauge', 'g 1', 'g 2 10']).detail).toBe(
      'g{} appears twice without timestamps; a series has one sample per MetricPoint',
    );
  });
});

describe('numbers in labels and messages', () => {
  it('reads le and quantile values as the specification writes floats', () => {
    const exp = om([
      '# TYPE h histogram',
      'h_bucket{le="-Infinity"} 0',
      'h_bucket{le=".25"} 1',
      'h_bucket{le="1e2"} 2',
      'h_bucket{le="1.5e+3"} 3',
      'h_bucket{le="+Infinity"} 3',
    ]);
    expect(exp.samples).toHaveLength(5);
    expect(
      refusal(['# TYPE h histogram', 'h_bucket{le="-Infinity"} 0', 'h_bucket{le="-inf"} 0']).detail,
    ).toBe('bucket le="-inf" after le="-Infinity" in h{}; buckets are sorted by le, each bound once');
    expect(om(['# TYPE s summary', 's{quantile=".5"} 1', 's{quantile="1e-1"} 1']).samples).toHaveLength(2);
    expect(refusal(['# TYPE s summary', 's{quantile="nan"} 1']).detail).toContain(
      'quantile="nan" is not a quantile',
    );
  });

  it('writes infinities as +Inf and -Inf in what it quotes', () => {
    expect(refusal(['# TYPE c counter', 'c_total -Inf']).detail).toBe(
      "c_total{} -Inf: a counter's total is never NaN or negative",
    );
    expect(refusal(['# TYPE h histogram', 'h_bucket{le="+Inf"} +Inf']).detail).toBe(
      'h_bucket{le="+Inf"} +Inf: a count is a whole number, never negative or NaN',
    );
  });
});

describe('metrics and points are keyed by their labels, whatever their order', () => {
  it('reads one histogram point from buckets whose labels are written in different orders', () => {
    expect(
      om([
        '# TYPE h histogram',
        'h_bucket{a="1",le="1"} 1',
        'h_bucket{le="+Inf",a="1"} 2',
        'h_count{a="1"} 2',
        'h_sum{a="1"} 3',
      ]).samples,
    ).toHaveLength(4);
  });

  it('keys a summary metric without quantile and a stateset metric without its state label', () => {
    expect(
      refusal([
        '# TYPE s summary',
        's{a="x",quantile="0.5"} 1',
        's{a="y",quantile="0.5"} 1',
        's{a="x",quantile="0.9"} 2',
      ]),
    ).toEqual({
      line: 4,
      detail: 's{a="x"} continues after another metric of s; the samples of a metric are contiguous',
    });
    expect(
      refusal(['# TYPE st stateset', 'st{e="1",st="a"} 1', 'st{e="2",st="a"} 0', 'st{e="1",st="b"} 0']),
    ).toEqual({
      line: 4,
      detail: 'st{e="1"} continues after another metric of st; the samples of a metric are contiguous',
    });
    // A gauge keys its metric by every label.
    expect(
      om(['# TYPE g gauge', 'g{quantile="1"} 1', 'g{quantile="2"} 1', 'g{le="1"} 1']).samples,
    ).toHaveLength(3);
  });

  it('does not count a histogram _created as its sum', () => {
    expect(om(['# TYPE h histogram', 'h_bucket{le="+Inf"} 1', 'h_created 1700000000']).samples).toHaveLength(
      2,
    );
  });

  it('names the _sum line when a point has a _sum but no _count, wherever the sum is', () => {
    expect(refusal(['# TYPE h histogram', 'h_sum 1', 'h_bucket{le="+Inf"} 5'])).toEqual({
      line: 2,
      detail: 'h{} has h_sum but no h_count; expected both or neither',
    });
  });
});
