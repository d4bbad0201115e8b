/**
 * A parser for what a `/metrics` endpoint serves: the Prometheus text format (0.0.4) and OpenMetrics 1.0.
 * It is written as a character scanner rather than with regexes because label values may contain commas,
 * braces, `#` and escaped quotes, and because a busy endpoint serves tens of thousands of lines per scrape.
 * Every error names `source:line` so a user can open the exposition and find the problem.
 *
 * The two formats differ in strictness. The Prometheus text format is read with Prometheus's own
 * leniency: blank lines, `#` comments, spaces and a trailing comma inside braces, `\r\n`, `untyped`. An
 * exposition served as `application/openmetrics-text` is held to the OpenMetrics 1.0 specification: its
 * ABNF line by line (no blank line, no comment, no carriage return, nothing after `# EOF`, labels without
 * spaces) and the rules above it in `openmetrics.ts` (families, suffixes, units, buckets, exemplars).
 * Both read a label value's `\\`, `\"` and `\n` escapes, and keep any other backslash pair as written
 * (`\z` is a backslash and a z): the ABNF's `BS normal-char`, and what Prometheus itself does.
 */
import { OpenMetricsChecker, OpenMetricsViolation } from './openmetrics.js';
import type { Exemplar, Labels, Sample } from './sample.js';

/** The metric types `# TYPE` may name (Prometheus text format and OpenMetrics together). */
export const METRIC_TYPES = [
  'counter',
  'gauge',
  'histogram',
  'gaugehistogram',
  'summary',
  'untyped',
  'unknown',
  'stateset',
  'info',
] as const;
export type MetricType = (typeof METRIC_TYPES)[number];

export type ExpositionFormat = 'text' | 'openmetrics';

export type { Exemplar, Labels, Sample } from './sample.js';

/** Metadata from `# TYPE`, `# HELP` and `# UNIT` lines, keyed by family name. */
export interface Family {
  name: string;
  type?: MetricType;
  help?: string;
  unit?: string;
}

/** A parsed exposition. */
export interface Exposition {
  format: ExpositionFormat;
  samples: Sample[];
  families: Map<string, Family>;
}

/** A malformed exposition; the message is `source:line: what is wrong`. */
export class ExpositionError extends Error {
  override name = 'ExpositionError';
  constructor(
    readonly source: string,
    readonly line: number,
    readonly detail: string,
  ) {
    super(`${source}:${line}: ${detail}`);
  }
}

/** The media type OpenMetrics endpoints answer with. */
export const OPENMETRICS_CONTENT_TYPE = 'application/openmetrics-text';

/**
 * Picks the format from the Content-Type header the endpoint answered with; only without one does the
 * `# EOF` marker OpenMetrics requires decide. A `text/plain` body is the Prometheus text format, in which
 * `# EOF` is a comment.
 */
export function detectFormat(text: string, contentType?: string | null): ExpositionFormat {
  const type = contentType?.trim().toLowerCase() ?? '';
  if (type.includes(OPENMETRICS_CONTENT_TYPE)) return 'openmetrics';
  if (type !== '') return 'text';
  let end = text.length;
  while (end > 0 && /\s/.test(text[end - 1] ?? '')) end--;
  return text.slice(Math.max(0, end - 5), end) === '# EOF' ? 'openmetrics' : 'text';
}

const NUMBER_RE = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;
const INT_RE = /^-?\d+$/;

/**
 * Parses a sample value as Prometheus does (Go's ParseFloat): decimals, exponents, `NaN`, `±Inf`.
 * Returns undefined for anything else so the caller can name the line.
 */
export function parseSampleValue(token: string): number | undefined {
  if (NUMBER_RE.test(token)) return Number(token);
  switch (token.toLowerCase()) {
    case 'nan':
      return NaN;
    case 'inf':
    case '+inf':
    case 'infinity':
    case '+infinity':
      return Infinity;
    case '-inf':
    case '-infinity':
      return -Infinity;
    default:
      return undefined;
  }
}

function isNameStart(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || c === 95 || c === 58;
}
function isNameChar(c: number): boolean {
  return isNameStart(c) || (c >= 48 && c <= 57);
}
function isLabelStart(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || c === 95;
}
function isLabelChar(c: number): boolean {
  return isLabelStart(c) || (c >= 48 && c <= 57);
}
function isBlank(c: number): boolean {
  return c === 32 || c === 9;
}

/** Scans one line; throws `LineError` (converted to `ExpositionError` with the line number by the caller). */
class LineError extends Error {}

class LineScanner {
  pos = 0;
  /** `strict`: OpenMetrics' ABNF (no blanks inside braces, no trailing comma). */
  constructor(
    readonly s: string,
    readonly strict = false,
  ) {}

  get done(): boolean {
    return this.pos >= this.s.length;
  }
  peek(): number {
    return this.s.charCodeAt(this.pos);
  }
  skipBlanks(): void {
    while (this.pos < this.s.length && isBlank(this.s.charCodeAt(this.pos))) this.pos++;
  }
  metricName(): string {
    const start = this.pos;
    if (this.done || !isNameStart(this.peek())) {
      throw new LineError(`expected a metric name at column ${this.pos + 1}, found ${this.describeHere()}`);
    }
    while (!this.done && isNameChar(this.peek())) this.pos++;
    return this.s.slice(start, this.pos);
  }
  labelName(): string {
    const start = this.pos;
    if (this.done || !isLabelStart(this.peek())) {
      throw new LineError(`expected a label name at column ${this.pos + 1}, found ${this.describeHere()}`);
    }
    while (!this.done && isLabelChar(this.peek())) this.pos++;
    return this.s.slice(start, this.pos);
  }
  expect(ch: string): void {
    if (this.s.charCodeAt(this.pos) !== ch.charCodeAt(0)) {
      throw new LineError(`expected '${ch}' at column ${this.pos + 1}, found ${this.describeHere()}`);
    }
    this.pos++;
  }
  /**
   * A double-quoted label value. `\\`, `\"` and `\n` are escapes; any other backslash pair stays as
   * written (OpenMetrics' `BS normal-char`, Prometheus's own reading).
   */
  labelValue(): string {
    const open = this.pos;
    this.expect('"');
    let out = '';
    let chunk = this.pos;
    while (this.pos < this.s.length) {
      const c = this.s.charCodeAt(this.pos);
      if (c === 34) {
        out += this.s.slice(chunk, this.pos);
        this.pos++;
        return out;
      }
      if (c === 92) {
        out += this.s.slice(chunk, this.pos);
        const next = this.s[this.pos + 1];
        if (next === undefined) break;
        if (next === '\\') out += '\\';
        else if (next === '"') out += '"';
        else if (next === 'n') out += '\n';
        else out += `\\${next}`;
        this.pos += 2;
        chunk = this.pos;
        continue;
      }
      this.pos++;
    }
    throw new LineError(`label value opened at column ${open + 1} is not closed`);
  }
  /**
   * `{name="value",...}`. The text format tolerates blanks between tokens and a trailing comma;
   * OpenMetrics (`strict`) has neither.
   */
  labelSet(): Labels {
    const labels: Labels = {};
    const blanks = (): void => {
      if (!this.strict) this.skipBlanks();
      else if (isBlank(this.peek()))
        throw new LineError(
          `a blank inside braces at column ${this.pos + 1}; OpenMetrics label sets have none`,
        );
    };
    this.expect('{');
    blanks();
    while (!this.done && this.s.charCodeAt(this.pos) !== 125 /* } */) {
      const name = this.labelName();
      blanks();
      this.expect('=');
      blanks();
      const value = this.labelValue();
      if (labels[name] !== undefined) throw new LineError(`label '${name}' appears twice`);
      labels[name] = value;
      blanks();
      const c = this.s.charCodeAt(this.pos);
      if (c === 44 /* , */) {
        this.pos++;
        blanks();
        if (this.strict && this.s.charCodeAt(this.pos) === 125) {
          throw new LineError(
            `a trailing comma before '}' at column ${this.pos}; OpenMetrics label sets have none`,
          );
        }
      } else if (c !== 125) {
        throw new LineError(`expected ',' or '}' at column ${this.pos + 1}, found ${this.describeHere()}`);
      }
    }
    this.expect('}');
    return labels;
  }
  token(): string {
    const start = this.pos;
    while (!this.done && !isBlank(this.peek())) this.pos++;
    return this.s.slice(start, this.pos);
  }
  describeHere(): string {
    return this.done ? 'the end of the line' : `'${this.s[this.pos]}'`;
  }
}

function parseTimestamp(token: string, format: ExpositionFormat): number {
  if (format === 'text') {
    // The text format writes milliseconds as an integer.
    if (!INT_RE.test(token))
      throw new LineError(`timestamp '${token}' is not an integer number of milliseconds`);
    return Number(token);
  }
  // OpenMetrics writes seconds, possibly with a fraction.
  const seconds = parseSampleValue(token);
  if (seconds === undefined || !Number.isFinite(seconds)) {
    throw new LineError(`timestamp '${token}' is not a number of seconds`);
  }
  return seconds * 1000;
}

/** A sample line of the Prometheus text format: blanks (spaces, tabs) of any length between tokens. */
function parseSampleLine(line: string, lineNo: number, format: ExpositionFormat): Sample {
  const sc = new LineScanner(line);
  const name = sc.metricName();
  let afterLabels = sc.pos;
  sc.skipBlanks();
  let labels: Labels = {};
  if (sc.s[sc.pos] === '{') {
    labels = sc.labelSet();
    afterLabels = sc.pos;
  }
  sc.skipBlanks();
  if (sc.pos === afterLabels && !sc.done) {
    throw new LineError(`expected a blank before the value at column ${sc.pos + 1}`);
  }
  if (sc.done) throw new LineError(`sample '${name}' has no value`);
  const valueToken = sc.token();
  const value = parseSampleValue(valueToken);
  if (value === undefined) throw new LineError(`value '${valueToken}' is not a number (nor NaN, +Inf, -Inf)`);
  const sample: Sample = { name, labels, value, line: lineNo };
  sc.skipBlanks();
  if (!sc.done && sc.s[sc.pos] !== '#') sample.timestampMs = parseTimestamp(sc.token(), format);
  sc.skipBlanks();
  if (!sc.done && sc.s[sc.pos] === '#') {
    sc.pos++;
    sc.skipBlanks();
    sample.exemplar = parseExemplar(sc, format);
  }
  sc.skipBlanks();
  if (!sc.done) throw new LineError(`unexpected text after the sample at column ${sc.pos + 1}`);
  return sample;
}

function parseExemplar(sc: LineScanner, format: ExpositionFormat): Exemplar {
  if (sc.s[sc.pos] !== '{')
    throw new LineError(`expected an exemplar label set after '#' at column ${sc.pos + 1}`);
  const labels = sc.labelSet();
  sc.skipBlanks();
  const valueToken = sc.token();
  const value = parseSampleValue(valueToken);
  if (value === undefined) throw new LineError(`exemplar value '${valueToken}' is not a number`);
  const exemplar: Exemplar = { labels, value };
  sc.skipBlanks();
  if (!sc.done) exemplar.timestampMs = parseTimestamp(sc.token(), format === 'text' ? 'openmetrics' : format);
  return exemplar;
}

/**
 * A sample line of OpenMetrics: `name{labels} value [timestamp] [# {labels} value [timestamp]]`, labels
 * right after the name, tokens separated by spaces (the ABNF's `SP`; a run of them is read as one, as the
 * specification's own exemplar example has `foo_created  1520430000.123`), no tab, nothing after.
 */
function parseOpenMetricsSample(line: string, lineNo: number): Sample {
  const sc = new LineScanner(line, true);
  const name = sc.metricName();
  const labels: Labels = sc.s[sc.pos] === '{' ? sc.labelSet() : {};
  const space = (what: string): void => {
    if (sc.peek() !== 32) {
      throw new LineError(
        sc.done
          ? `sample '${name}' has no ${what}`
          : `expected a space before the ${what} at column ${sc.pos + 1}, found ${sc.describeHere()}`,
      );
    }
    while (sc.peek() === 32) sc.pos++;
    if (sc.done) throw new LineError(`a space at the end of the line; expected the ${what}`);
  };
  const token = (): string => {
    const start = sc.pos;
    while (!sc.done && sc.peek() !== 32) sc.pos++;
    const t = sc.s.slice(start, sc.pos);
    if (t.includes('\t')) throw new LineError(`a tab in '${t}'; OpenMetrics separates tokens with spaces`);
    return t;
  };
  space('value');
  if (sc.s[sc.pos] === '{') {
    throw new LineError(
      `a space between the metric name and its labels at column ${name.length + 1}; OpenMetrics writes name{labels}`,
    );
  }
  const valueToken = token();
  const value = parseSampleValue(valueToken);
  if (value === undefined) throw new LineError(`value '${valueToken}' is not a number (nor NaN, +Inf, -Inf)`);
  const sample: Sample = { name, labels, value, line: lineNo };
  if (sc.done) return sample;
  space('timestamp or exemplar');
  if (sc.s[sc.pos] !== '#') {
    sample.timestampMs = parseTimestamp(token(), 'openmetrics');
    if (sc.done) return sample;
    space('exemplar');
  }
  if (sc.s[sc.pos] !== '#') throw new LineError(`unexpected text after the sample at column ${sc.pos + 1}`);
  sc.pos++;
  if (!sc.s.startsWith(' {', sc.pos)) {
    throw new LineError(`expected ' {' after '#' at column ${sc.pos + 1}: an exemplar is '# {labels} value'`);
  }
  sc.pos++;
  const exemplar: Exemplar = { labels: sc.labelSet(), value: 0 };
  space('exemplar value');
  const exemplarToken = token();
  const exemplarValue = parseSampleValue(exemplarToken);
  if (exemplarValue === undefined) throw new LineError(`exemplar value '${exemplarToken}' is not a number`);
  exemplar.value = exemplarValue;
  if (!sc.done) {
    space('exemplar timestamp');
    exemplar.timestampMs = parseTimestamp(token(), 'openmetrics');
  }
  if (!sc.done) throw new LineError(`unexpected text after the exemplar at column ${sc.pos + 1}`);
  sample.exemplar = exemplar;
  return sample;
}

/**
 * Reverses the escapes `# HELP` text may carry: `\\` and `\n` in both formats, `\"` in OpenMetrics (its
 * `escaped-string`); any other backslash pair stays as written.
 */
function unescapeHelp(text: string, format: ExpositionFormat): string {
  const re = format === 'openmetrics' ? /\\(\\|n|")/g : /\\(\\|n)/g;
  return text.replace(re, (_m, c: string) => (c === 'n' ? '\n' : c));
}

function family(families: Map<string, Family>, name: string): Family {
  let f = families.get(name);
  if (!f) {
    f = { name };
    families.set(name, f);
  }
  return f;
}

function checkMetricName(name: string): void {
  if (!isNameStart(name.charCodeAt(0)) || ![...name].every((c) => isNameChar(c.charCodeAt(0)))) {
    throw new LineError(`'${name}' is not a valid metric name`);
  }
}

/** A `#` line of the text format: HELP and TYPE are metadata, anything else (UNIT, EOF included) a comment. */
function parseMetadata(line: string, families: Map<string, Family>): void {
  // `# KEYWORD name rest`: anything else after `#` is a comment.
  const m = /^#[ \t]+(HELP|TYPE|UNIT)[ \t]+(\S+)(?:[ \t]+(.*))?$/.exec(line);
  if (!m) {
    if (/^#[ \t]+(HELP|TYPE|UNIT)[ \t]*$/.test(line)) throw new LineError('metadata line names no metric');
    return;
  }
  const keyword = m[1] as 'HELP' | 'TYPE' | 'UNIT';
  const name = m[2] ?? '';
  const rest = (m[3] ?? '').trimEnd();
  checkMetricName(name);
  const f = family(families, name);
  if (keyword === 'TYPE') {
    if (!(METRIC_TYPES as readonly string[]).includes(rest)) {
      throw new LineError(
        `unknown metric type '${rest}' for ${name} (expected one of ${METRIC_TYPES.join(', ')})`,
      );
    }
    if (f.type !== undefined) throw new LineError(`second TYPE line for ${name}`);
    f.type = rest as MetricType;
  } else if (keyword === 'HELP') {
    if (f.help !== undefined) throw new LineError(`second HELP line for ${name}`);
    f.help = unescapeHelp(rest, 'text');
  } else {
    f.unit = rest;
  }
}

/**
 * A `#` line of OpenMetrics: exactly `# TYPE name type`, `# HELP name text` or `# UNIT name unit` (one
 * space each); OpenMetrics has no comments. `# EOF` is handled by the caller.
 */
function parseOpenMetricsMetadata(
  line: string,
  lineNo: number,
  families: Map<string, Family>,
  checker: OpenMetricsChecker,
): void {
  const m = /^# (HELP|TYPE|UNIT) ([^ ]+)(?: (.*))?$/.exec(line);
  if (!m) {
    throw new LineError(
      `'${line.length > 40 ? `${line.slice(0, 39)}…` : line}' is not '# TYPE', '# HELP', '# UNIT' or '# EOF'; OpenMetrics has no comment lines`,
    );
  }
  const keyword = m[1] as 'HELP' | 'TYPE' | 'UNIT';
  const name = m[2] ?? '';
  const rest = m[3] ?? '';
  checkMetricName(name);
  if (keyword === 'TYPE' && rest === '') throw new LineError(`# TYPE ${name} names no type`);
  checker.metadata(keyword, name, rest, lineNo);
  const f = family(families, name);
  if (keyword === 'TYPE') f.type = rest as MetricType;
  // "MetricFamily metadata": an empty UNIT or HELP is as if the line were absent.
  else if (keyword === 'HELP' && rest !== '') f.help = unescapeHelp(rest, 'openmetrics');
  else if (keyword === 'UNIT' && rest !== '') f.unit = rest;
}

/**
 * Parses an exposition. `source` (usually the URL) prefixes every error as `source:line`. The format is
 * taken from `format` when given, else detected from the `# EOF` marker. An OpenMetrics exposition is
 * checked against the specification in full; a Prometheus text one as leniently as Prometheus reads it.
 */
export function parseExposition(text: string, source: string, format?: ExpositionFormat): Exposition {
  const fmt = format ?? detectFormat(text);
  return fmt === 'openmetrics' ? parseOpenMetrics(text, source) : parseText(text, source);
}

function parseText(text: string, source: string): Exposition {
  const samples: Sample[] = [];
  const families = new Map<string, Family>();
  let lineNo = 0;
  let start = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  const len = text.length;
  while (start < len) {
    let end = text.indexOf('\n', start);
    if (end === -1) end = len;
    lineNo++;
    let line = text.slice(start, end);
    start = end + 1;
    if (line.endsWith('\r')) line = line.slice(0, -1);
    try {
      if (line.length === 0 || (isBlank(line.charCodeAt(0)) && /^[ \t]*$/.test(line))) continue;
      if (line.charCodeAt(0) === 35 /* # */) {
        parseMetadata(line, families);
        continue;
      }
      samples.push(parseSampleLine(isBlank(line.charCodeAt(0)) ? line.trimStart() : line, lineNo, 'text'));
    } catch (error) {
      if (error instanceof LineError) throw new ExpositionError(source, lineNo, error.message);
      throw error;
    }
  }
  return { format: 'text', samples, families };
}

function parseOpenMetrics(text: string, source: string): Exposition {
  const samples: Sample[] = [];
  const families = new Map<string, Family>();
  const checker = new OpenMetricsChecker();
  let lineNo = 0;
  let start = 0;
  let sawEof = false;
  const len = text.length;
  if (text.charCodeAt(0) === 0xfeff) {
    throw new ExpositionError(source, 1, 'a byte order mark; OpenMetrics expositions start without one');
  }
  try {
    while (start < len) {
      let end = text.indexOf('\n', start);
      if (end === -1) end = len;
      lineNo++;
      const line = text.slice(start, end);
      start = end + 1;
      // `exposition = metricset HASH SP eof [ LF ]`: not even an empty line may follow.
      if (sawEof) throw new LineError('content after # EOF');
      if (line.includes('\r'))
        throw new LineError('a carriage return; OpenMetrics lines end with a line feed alone');
      if (line === '') throw new LineError('an empty line; OpenMetrics expositions have none');
      if (line.charCodeAt(0) === 35 /* # */) {
        if (line === '# EOF') {
          sawEof = true;
          checker.finish();
        } else {
          parseOpenMetricsMetadata(line, lineNo, families, checker);
        }
        continue;
      }
      const sample = parseOpenMetricsSample(line, lineNo);
      checker.sample(sample);
      samples.push(sample);
    }
  } catch (error) {
    if (error instanceof LineError) throw new ExpositionError(source, lineNo, error.message);
    if (error instanceof OpenMetricsViolation) throw new ExpositionError(source, error.line, error.message);
    throw error;
  }
  if (!sawEof) {
    throw new ExpositionError(source, Math.max(lineNo, 1), 'OpenMetrics exposition does not end with # EOF');
  }
  return { format: 'openmetrics', samples, families };
}
