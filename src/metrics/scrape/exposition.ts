/**
 * A parser for what a `/metrics` endpoint serves: the Prometheus text format (0.0.4) and OpenMetrics 1.0.
 * It is written as a character scanner rather than with regexes because label values may contain commas,
 * braces, `#` and escaped quotes, and because a busy endpoint serves tens of thousands of lines per scrape.
 * Every error names `source:line` so a user can open the exposition and find the problem.
 */

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

/** Label name → value. A label that is absent is, as in Prometheus, the same as one with an empty value. */
export type Labels = Record<string, string>;

/** An OpenMetrics exemplar: `# {trace_id="…"} 0.42 1712345678.123` after a sample. */
export interface Exemplar {
  labels: Labels;
  value: number;
  /** Milliseconds since the epoch. */
  timestampMs?: number;
}

/** One sample line. */
export interface Sample {
  name: string;
  labels: Labels;
  value: number;
  /** Milliseconds since the epoch, when the line carries a timestamp. */
  timestampMs?: number;
  exemplar?: Exemplar;
  /** 1-based line in the exposition. */
  line: number;
}

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

/** Picks the format from a Content-Type header, falling back to the `# EOF` marker OpenMetrics requires. */
export function detectFormat(text: string, contentType?: string | null): ExpositionFormat {
  if (contentType?.toLowerCase().includes(OPENMETRICS_CONTENT_TYPE)) return 'openmetrics';
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
  constructor(readonly s: string) {}

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
  /** A double-quoted label value with the three escapes the formats allow: `\\`, `\"`, `\n`. */
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
        if (next === '\\') out += '\\';
        else if (next === '"') out += '"';
        else if (next === 'n') out += '\n';
        else {
          throw new LineError(
            `invalid escape '\\${next ?? ''}' in a label value at column ${this.pos + 1} (only \\\\, \\" and \\n are allowed)`,
          );
        }
        this.pos += 2;
        chunk = this.pos;
        continue;
      }
      this.pos++;
    }
    throw new LineError(`label value opened at column ${open + 1} is not closed`);
  }
  /** `{name="value",...}` with an optional trailing comma; blanks between tokens are tolerated. */
  labelSet(): Labels {
    const labels: Labels = {};
    this.expect('{');
    this.skipBlanks();
    while (!this.done && this.s.charCodeAt(this.pos) !== 125 /* } */) {
      const name = this.labelName();
      this.skipBlanks();
      this.expect('=');
      this.skipBlanks();
      const value = this.labelValue();
      if (labels[name] !== undefined) throw new LineError(`label '${name}' appears twice`);
      labels[name] = value;
      this.skipBlanks();
      const c = this.s.charCodeAt(this.pos);
      if (c === 44 /* , */) {
        this.pos++;
        this.skipBlanks();
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

/** Reverses the escapes `# HELP` text may carry (`\\` and `\n`). */
function unescapeHelp(text: string): string {
  return text.replace(/\\(\\|n)/g, (_m, c: string) => (c === 'n' ? '\n' : '\\'));
}

function family(families: Map<string, Family>, name: string): Family {
  let f = families.get(name);
  if (!f) {
    f = { name };
    families.set(name, f);
  }
  return f;
}

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
  if (!isNameStart(name.charCodeAt(0)) || ![...name].every((c) => isNameChar(c.charCodeAt(0)))) {
    throw new LineError(`'${name}' is not a valid metric name`);
  }
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
    f.help = unescapeHelp(rest);
  } else {
    f.unit = rest;
  }
}

/**
 * Parses an exposition. `source` (usually the URL) prefixes every error as `source:line`. The format is
 * taken from `format` when given, else detected from the `# EOF` marker.
 */
export function parseExposition(text: string, source: string, format?: ExpositionFormat): Exposition {
  const fmt = format ?? detectFormat(text);
  const samples: Sample[] = [];
  const families = new Map<string, Family>();
  let lineNo = 0;
  let start = 0;
  let sawEof = false;
  const len = text.length;
  while (start < len) {
    let end = text.indexOf('\n', start);
    if (end === -1) end = len;
    lineNo++;
    let line = text.slice(start, end);
    start = end + 1;
    if (line.endsWith('\r')) line = line.slice(0, -1);
    if (sawEof) {
      if (line.trim() === '') continue;
      throw new ExpositionError(source, lineNo, 'content after # EOF');
    }
    try {
      if (line.length === 0 || (isBlank(line.charCodeAt(0)) && /^[ \t]*$/.test(line))) continue;
      if (line.charCodeAt(0) === 35 /* # */) {
        if (/^#[ \t]*EOF[ \t]*$/.test(line)) {
          sawEof = true;
          continue;
        }
        parseMetadata(line, families);
        continue;
      }
      samples.push(parseSampleLine(isBlank(line.charCodeAt(0)) ? line.trimStart() : line, lineNo, fmt));
    } catch (error) {
      if (error instanceof LineError) throw new ExpositionError(source, lineNo, error.message);
      throw error;
    }
  }
  if (fmt === 'openmetrics' && !sawEof) {
    throw new ExpositionError(source, Math.max(lineNo, 1), 'OpenMetrics exposition does not end with # EOF');
  }
  return { format: fmt, samples, families };
}
