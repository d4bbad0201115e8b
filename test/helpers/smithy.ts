/**
 * Checks JS values against shapes of a Smithy JSON AST model (the official AWS models in
 * `fixtures/aws-models/`). Used by the contract tests of the sandbox's AWS stand-ins: every request a
 * real SDK sends and every response the stand-in returns is run through here, so a field the model
 * does not know, a missing required member, a bad enum value, length, range, pattern or timestamp
 * format fails the test with a path to the offending value.
 *
 * Also decodes the awsQuery wire forms (form-encoded requests, XML responses) into plain values
 * guided by the model, so awsQuery traffic can be validated with the same function.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** A Smithy JSON AST document (only the parts this helper reads). */
export interface SmithyModel {
  smithy: string;
  shapes: Record<string, SmithyShape>;
}

/** One shape of a Smithy JSON AST. */
export interface SmithyShape {
  type: string;
  traits?: Record<string, unknown>;
  members?: Record<string, SmithyMember>;
  member?: SmithyMember;
  key?: SmithyMember;
  value?: SmithyMember;
  input?: { target: string };
  output?: { target: string };
  errors?: Array<{ target: string }>;
  operations?: Array<{ target: string }>;
}

/** A member reference with its own traits. */
export interface SmithyMember {
  target: string;
  traits?: Record<string, unknown>;
}

/** How timestamps must look on the wire being validated. */
export type TimestampWire = 'any' | 'epoch-seconds' | 'date-time';

/** Options for {@link validateShape} and the operation helpers. */
export interface ValidateOptions {
  /**
   * `epoch-seconds`: timestamps must be JSON numbers (AWS JSON 1.0, restJson1 bodies);
   * `date-time`: RFC 3339 strings (awsQuery); `any` (default): a Date, a finite number or an
   * RFC 3339 / HTTP-date string.
   */
  timestamps?: TimestampWire;
  /** Keys that are not members are reported unless they start with one of these prefixes. */
  ignoreKeyPrefixes?: string[];
  /** Members bound to HTTP labels, query strings or headers are skipped (restJson1 bodies). */
  bodyOnly?: boolean;
}

const PRELUDE_TYPES: Record<string, string> = {
  String: 'string',
  Blob: 'blob',
  Boolean: 'boolean',
  PrimitiveBoolean: 'boolean',
  Byte: 'byte',
  PrimitiveByte: 'byte',
  Short: 'short',
  PrimitiveShort: 'short',
  Integer: 'integer',
  PrimitiveInteger: 'integer',
  Long: 'long',
  PrimitiveLong: 'long',
  Float: 'float',
  PrimitiveFloat: 'float',
  Double: 'double',
  PrimitiveDouble: 'double',
  BigInteger: 'bigInteger',
  BigDecimal: 'bigDecimal',
  Timestamp: 'timestamp',
  Document: 'document',
  Unit: 'structure',
};

/** Integer ranges of the Smithy number types (Smithy 2.0 spec, "Simple types"). */
const INTEGER_BOUNDS: Record<string, [number, number]> = {
  byte: [-128, 127],
  short: [-32768, 32767],
  integer: [-2147483648, 2147483647],
  long: [Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER],
};

const HTTP_BINDING_TRAITS = [
  'smithy.api#httpLabel',
  'smithy.api#httpQuery',
  'smithy.api#httpQueryParams',
  'smithy.api#httpHeader',
  'smithy.api#httpPrefixHeaders',
  'smithy.api#httpResponseCode',
];

const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/i;
const HTTP_DATE = /^[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT$/;

const modelCache = new Map<string, SmithyModel>();

/** Directory of the official AWS models, vendored unmodified (`fixtures/aws-models/README.md`). */
export const AWS_MODELS_DIR = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '..',
  '..',
  'fixtures',
  'aws-models',
);

/** Reads (once) and returns a Smithy JSON AST model. */
export function loadModel(modelPath: string): SmithyModel {
  const abs = path.resolve(modelPath);
  let model = modelCache.get(abs);
  if (!model) {
    model = JSON.parse(readFileSync(abs, 'utf8')) as SmithyModel;
    if (typeof model.shapes !== 'object') throw new Error(`${abs}: not a Smithy JSON AST (no "shapes")`);
    modelCache.set(abs, model);
  }
  return model;
}

function serviceNamespace(model: SmithyModel): string {
  for (const [id, shape] of Object.entries(model.shapes)) {
    if (shape.type === 'service') return id.slice(0, id.indexOf('#'));
  }
  throw new Error('model has no service shape');
}

/** Resolves a shape id, or a bare name in the service's namespace, to its absolute id. */
export function shapeIdOf(model: SmithyModel, shapeId: string): string {
  if (shapeId.includes('#')) return shapeId;
  return `${serviceNamespace(model)}#${shapeId}`;
}

function resolve(model: SmithyModel, id: string): SmithyShape {
  const shape = model.shapes[id];
  if (shape) return shape;
  if (id.startsWith('smithy.api#')) {
    const type = PRELUDE_TYPES[id.slice('smithy.api#'.length)];
    if (type) return type === 'structure' ? { type, members: {} } : { type };
  }
  throw new Error(`shape ${id} is not in the model`);
}

/** Validates `value` against shape `shapeId` of the model at `modelPath`; returns the problems found. */
export function validateShape(
  modelPath: string | SmithyModel,
  shapeId: string,
  value: unknown,
  opts: ValidateOptions = {},
): string[] {
  const model = typeof modelPath === 'string' ? loadModel(modelPath) : modelPath;
  const errors: string[] = [];
  const id = shapeIdOf(model, shapeId);
  check(model, id, {}, value, '$', errors, opts);
  return errors;
}

/** Finds an operation shape by its name (`PutMetricData`) or absolute id. */
export function operationShape(model: SmithyModel, operation: string): SmithyShape {
  const id = shapeIdOf(model, operation);
  const shape = model.shapes[id];
  if (!shape || shape.type !== 'operation') throw new Error(`operation ${operation} is not in the model`);
  return shape;
}

/** Validates an operation's decoded input (request) against its input shape. */
export function validateOperationInput(
  modelPath: string | SmithyModel,
  operation: string,
  value: unknown,
  opts: ValidateOptions = {},
): string[] {
  const model = typeof modelPath === 'string' ? loadModel(modelPath) : modelPath;
  const target = operationShape(model, operation).input?.target ?? 'smithy.api#Unit';
  return validateShape(model, target, value, opts);
}

/** Validates an operation's decoded output (response) against its output shape. */
export function validateOperationOutput(
  modelPath: string | SmithyModel,
  operation: string,
  value: unknown,
  opts: ValidateOptions = {},
): string[] {
  const model = typeof modelPath === 'string' ? loadModel(modelPath) : modelPath;
  const target = operationShape(model, operation).output?.target ?? 'smithy.api#Unit';
  return validateShape(model, target, value, opts);
}

/**
 * Finds the error shape an operation (or its service) declares for a wire error code: the shape name,
 * or the `aws.protocols#awsQueryError` code (which can differ, e.g. `InternalServiceError`).
 */
export function errorShapeFor(model: SmithyModel, operation: string, code: string): string | undefined {
  const op = operationShape(model, operation);
  const candidates = [...(op.errors ?? [])];
  for (const shape of Object.values(model.shapes)) {
    if (shape.type === 'service') candidates.push(...(shape.errors ?? []));
  }
  for (const { target } of candidates) {
    const shape = model.shapes[target];
    const queryError = shape?.traits?.['aws.protocols#awsQueryError'] as { code?: string } | undefined;
    if (target.endsWith(`#${code}`) || queryError?.code === code) return target;
  }
  return undefined;
}

function mergedTraits(
  member: SmithyMember | Record<string, never>,
  shape: SmithyShape,
): Record<string, unknown> {
  return { ...(shape.traits ?? {}), ...(('traits' in member && member.traits) || {}) };
}

function describe(v: unknown): string {
  if (typeof v === 'string') return JSON.stringify(v.length > 60 ? `${v.slice(0, 57)}...` : v);
  if (v instanceof Date) return `Date(${v.toISOString()})`;
  if (Array.isArray(v)) return `array(${v.length})`;
  if (v === null) return 'null';
  if (typeof v === 'object') return 'object';
  return String(v);
}

const patternCache = new Map<string, RegExp>();
function compilePattern(p: string): RegExp {
  let re = patternCache.get(p);
  if (!re) {
    try {
      re = new RegExp(p, 'u');
    } catch {
      re = new RegExp(p);
    }
    patternCache.set(p, re);
  }
  return re;
}

function checkLength(
  traits: Record<string, unknown>,
  size: number,
  what: string,
  at: string,
  errors: string[],
) {
  const length = traits['smithy.api#length'] as { min?: number; max?: number } | undefined;
  if (!length) return;
  if (length.min !== undefined && size < length.min)
    errors.push(`${at}: ${what} ${size} is below the minimum length ${length.min}`);
  if (length.max !== undefined && size > length.max)
    errors.push(`${at}: ${what} ${size} is above the maximum length ${length.max}`);
}

function checkRange(traits: Record<string, unknown>, n: number, at: string, errors: string[]) {
  const range = traits['smithy.api#range'] as { min?: number; max?: number } | undefined;
  if (!range) return;
  if (range.min !== undefined && n < range.min) errors.push(`${at}: ${n} is below the minimum ${range.min}`);
  if (range.max !== undefined && n > range.max) errors.push(`${at}: ${n} is above the maximum ${range.max}`);
}

function checkTimestamp(
  value: unknown,
  traits: Record<string, unknown>,
  at: string,
  errors: string[],
  opts: ValidateOptions,
) {
  const wire = opts.timestamps ?? 'any';
  const format = traits['smithy.api#timestampFormat'] as string | undefined;
  if (value instanceof Date) {
    if (wire !== 'any') errors.push(`${at}: expected a ${wire} timestamp on the wire, got a Date`);
    else if (Number.isNaN(value.getTime())) errors.push(`${at}: invalid Date`);
    return;
  }
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) errors.push(`${at}: timestamp ${value} is not finite`);
    else if (wire === 'date-time' && format !== 'epoch-seconds')
      errors.push(`${at}: expected an RFC 3339 date-time string, got the number ${value}`);
    return;
  }
  if (typeof value === 'string') {
    if (wire === 'epoch-seconds' && format !== 'date-time' && format !== 'http-date') {
      errors.push(`${at}: expected epoch seconds (a number), got the string ${describe(value)}`);
      return;
    }
    if (format === 'http-date') {
      if (!HTTP_DATE.test(value)) errors.push(`${at}: ${describe(value)} is not an HTTP-date`);
      return;
    }
    if (!RFC3339.test(value) || Number.isNaN(Date.parse(value)))
      errors.push(`${at}: ${describe(value)} is not an RFC 3339 date-time`);
    return;
  }
  errors.push(`${at}: expected a timestamp, got ${describe(value)}`);
}

function enumValues(shape: SmithyShape): string[] {
  return Object.entries(shape.members ?? {}).map(
    ([name, m]) => (m.traits?.['smithy.api#enumValue'] as string | undefined) ?? name,
  );
}

function check(
  model: SmithyModel,
  id: string,
  memberRef: SmithyMember | Record<string, never>,
  value: unknown,
  at: string,
  errors: string[],
  opts: ValidateOptions,
): void {
  const shape = resolve(model, id);
  const traits = mergedTraits(memberRef, shape);
  const short = id.slice(id.indexOf('#') + 1);
  switch (shape.type) {
    case 'structure':
    case 'union': {
      if (typeof value !== 'object' || value === null || Array.isArray(value) || value instanceof Date) {
        errors.push(`${at}: expected a ${short} structure, got ${describe(value)}`);
        return;
      }
      const obj = value as Record<string, unknown>;
      const members = shape.members ?? {};
      const ignore = opts.ignoreKeyPrefixes ?? ['$'];
      for (const key of Object.keys(obj)) {
        if (!(key in members) && !ignore.some((p) => key.startsWith(p)) && obj[key] !== undefined)
          errors.push(`${at}.${key}: not a member of ${short}`);
      }
      let set = 0;
      for (const [name, member] of Object.entries(members)) {
        if (opts.bodyOnly && HTTP_BINDING_TRAITS.some((t) => member.traits?.[t] !== undefined)) continue;
        const v = obj[name];
        if (v === undefined || v === null) {
          if (shape.type === 'structure' && member.traits?.['smithy.api#required'] !== undefined)
            errors.push(`${at}.${name}: required member of ${short} is missing`);
          continue;
        }
        set++;
        check(model, member.target, member, v, `${at}.${name}`, errors, opts);
      }
      if (shape.type === 'union' && set !== 1)
        errors.push(`${at}: union ${short} must have exactly one member set, has ${set}`);
      return;
    }
    case 'list':
    case 'set': {
      if (!Array.isArray(value)) {
        errors.push(`${at}: expected a list (${short}), got ${describe(value)}`);
        return;
      }
      checkLength(traits, value.length, 'list size', at, errors);
      const sparse = traits['smithy.api#sparse'] !== undefined;
      const member = shape.member;
      if (!member) return;
      value.forEach((item, i) => {
        if (item === null && sparse) return;
        check(model, member.target, member, item, `${at}[${i}]`, errors, opts);
      });
      if (traits['smithy.api#uniqueItems'] !== undefined || shape.type === 'set') {
        const seen = new Set(value.map((v) => JSON.stringify(v)));
        if (seen.size !== value.length) errors.push(`${at}: items of ${short} must be unique`);
      }
      return;
    }
    case 'map': {
      if (typeof value !== 'object' || value === null || Array.isArray(value)) {
        errors.push(`${at}: expected a map (${short}), got ${describe(value)}`);
        return;
      }
      const entries = Object.entries(value as Record<string, unknown>);
      checkLength(traits, entries.length, 'map size', at, errors);
      const sparse = traits['smithy.api#sparse'] !== undefined;
      for (const [k, v] of entries) {
        if (shape.key)
          check(model, shape.key.target, shape.key, k, `${at}{key ${JSON.stringify(k)}}`, errors, opts);
        if (v === null && sparse) continue;
        if (shape.value)
          check(model, shape.value.target, shape.value, v, `${at}[${JSON.stringify(k)}]`, errors, opts);
      }
      return;
    }
    case 'string':
    case 'enum': {
      if (typeof value !== 'string') {
        errors.push(`${at}: expected a string (${short}), got ${describe(value)}`);
        return;
      }
      checkLength(traits, [...value].length, 'string length', at, errors);
      const pattern = traits['smithy.api#pattern'] as string | undefined;
      if (pattern && !compilePattern(pattern).test(value))
        errors.push(`${at}: ${describe(value)} does not match the pattern ${pattern} of ${short}`);
      const allowed =
        shape.type === 'enum'
          ? enumValues(shape)
          : (traits['smithy.api#enum'] as Array<{ value: string }> | undefined)?.map((e) => e.value);
      if (allowed && !allowed.includes(value))
        errors.push(`${at}: ${describe(value)} is not one of the ${short} values (${allowed.join(', ')})`);
      return;
    }
    case 'intEnum': {
      const allowed = Object.values(shape.members ?? {}).map((m) => m.traits?.['smithy.api#enumValue']);
      if (!allowed.includes(value))
        errors.push(`${at}: ${describe(value)} is not one of the ${short} values`);
      return;
    }
    case 'boolean':
      if (typeof value !== 'boolean')
        errors.push(`${at}: expected a boolean (${short}), got ${describe(value)}`);
      return;
    case 'byte':
    case 'short':
    case 'integer':
    case 'long':
    case 'bigInteger': {
      if (typeof value !== 'number' || !Number.isInteger(value)) {
        errors.push(`${at}: expected an integer (${short}), got ${describe(value)}`);
        return;
      }
      const bounds = INTEGER_BOUNDS[shape.type];
      if (bounds && (value < bounds[0] || value > bounds[1]))
        errors.push(`${at}: ${value} does not fit a ${shape.type}`);
      checkRange(traits, value, at, errors);
      return;
    }
    case 'float':
    case 'double':
    case 'bigDecimal': {
      if (typeof value === 'string' && ['NaN', 'Infinity', '-Infinity'].includes(value)) return;
      if (typeof value !== 'number' || Number.isNaN(value)) {
        errors.push(`${at}: expected a number (${short}), got ${describe(value)}`);
        return;
      }
      checkRange(traits, value, at, errors);
      return;
    }
    case 'timestamp':
      checkTimestamp(value, traits, at, errors, opts);
      return;
    case 'blob': {
      const size =
        typeof value === 'string'
          ? Buffer.from(value, 'base64').length
          : value instanceof Uint8Array
            ? value.length
            : undefined;
      if (size === undefined) errors.push(`${at}: expected a blob, got ${describe(value)}`);
      else checkLength(traits, size, 'blob size', at, errors);
      return;
    }
    case 'document':
      return;
    default:
      errors.push(`${at}: shape type ${shape.type} of ${short} cannot hold a value`);
  }
}

/* ---------------------------------------------------------------- awsQuery decoding (test side) */

/** One parsed XML element. */
export interface XmlElement {
  name: string;
  attrs: Record<string, string>;
  children: XmlElement[];
  text: string;
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };
function unescapeXml(s: string): string {
  return s.replace(/&(#x[0-9a-f]+|#\d+|\w+);/gi, (m, e: string) => {
    if (e[0] === '#')
      return String.fromCodePoint(
        e[1] === 'x' || e[1] === 'X' ? parseInt(e.slice(2), 16) : Number(e.slice(1)),
      );
    return ENTITIES[e] ?? m;
  });
}

/**
 * A small strict XML parser for the documents AWS query APIs return (elements, attributes, text,
 * entities; no DTDs or CDATA). Throws on malformed input, which a contract test should see.
 */
export function parseXml(xml: string): XmlElement {
  let i = 0;
  const src = xml.replace(/^\uFEFF/, '');
  const skipWs = () => {
    while (i < src.length && /\s/.test(src[i] ?? '')) i++;
  };
  skipWs();
  if (src.startsWith('<?xml', i)) {
    const end = src.indexOf('?>', i);
    if (end < 0) throw new Error('unterminated XML declaration');
    i = end + 2;
  }
  const parseElement = (): XmlElement => {
    skipWs();
    if (src[i] !== '<') throw new Error(`expected '<' at offset ${i}`);
    const nameMatch = /^<([A-Za-z_][\w.:-]*)/.exec(src.slice(i));
    if (!nameMatch) throw new Error(`bad element name at offset ${i}`);
    const name = nameMatch[1] as string;
    i += nameMatch[0].length;
    const attrs: Record<string, string> = {};
    for (;;) {
      skipWs();
      if (src.startsWith('/>', i)) {
        i += 2;
        return { name, attrs, children: [], text: '' };
      }
      if (src[i] === '>') {
        i++;
        break;
      }
      const attr = /^([\w.:-]+)\s*=\s*("([^"]*)"|'([^']*)')/.exec(src.slice(i));
      if (!attr) throw new Error(`bad attribute in <${name}> at offset ${i}`);
      attrs[attr[1] as string] = unescapeXml(attr[3] ?? attr[4] ?? '');
      i += attr[0].length;
    }
    const children: XmlElement[] = [];
    let text = '';
    for (;;) {
      if (i >= src.length) throw new Error(`unterminated <${name}>`);
      if (src.startsWith('</', i)) {
        const close = /^<\/([\w.:-]+)\s*>/.exec(src.slice(i));
        if (!close || close[1] !== name) throw new Error(`mismatched close tag for <${name}> at offset ${i}`);
        i += close[0].length;
        return { name, attrs, children, text: children.length ? text.trim() : unescapeXml(text) };
      }
      if (src[i] === '<') children.push(parseElement());
      else {
        const next = src.indexOf('<', i);
        if (next < 0) throw new Error(`unterminated <${name}>`);
        text += src.slice(i, next);
        i = next;
      }
    }
  };
  const root = parseElement();
  skipWs();
  if (i !== src.length) throw new Error(`trailing content after the root element at offset ${i}`);
  return root;
}

function scalarFromText(type: string, text: string): unknown {
  switch (type) {
    case 'boolean':
      return text === 'true' ? true : text === 'false' ? false : text;
    case 'byte':
    case 'short':
    case 'integer':
    case 'long':
    case 'float':
    case 'double':
    case 'bigInteger':
    case 'bigDecimal':
      return ['NaN', 'Infinity', '-Infinity'].includes(text)
        ? text
        : text.trim() === ''
          ? text
          : Number(text);
    default:
      return text;
  }
}

/**
 * Decodes an XML element into a plain value following shape `id` (awsQuery response rules: lists as
 * `<member>` children unless `@xmlFlattened`, maps as `<entry><key/><value/></entry>`, member names or
 * `@xmlName`). Unknown child elements become keys prefixed `?` so that the validator reports them.
 */
export function decodeXmlShape(model: SmithyModel, id: string, el: XmlElement): unknown {
  const shape = resolve(model, id);
  switch (shape.type) {
    case 'structure':
    case 'union': {
      const out: Record<string, unknown> = {};
      const byWire = new Map<string, [string, SmithyMember]>();
      for (const [name, m] of Object.entries(shape.members ?? {})) {
        byWire.set((m.traits?.['smithy.api#xmlName'] as string | undefined) ?? name, [name, m]);
      }
      for (const child of el.children) {
        const hit = byWire.get(child.name);
        if (!hit) {
          out[`?${child.name}`] = child.text;
          continue;
        }
        const [name, m] = hit;
        const target = resolve(model, m.target);
        if (
          m.traits?.['smithy.api#xmlFlattened'] !== undefined &&
          (target.type === 'list' || target.type === 'set')
        ) {
          const list = (out[name] as unknown[] | undefined) ?? [];
          list.push(decodeXmlShape(model, target.member?.target ?? 'smithy.api#String', child));
          out[name] = list;
        } else out[name] = decodeXmlShape(model, m.target, child);
      }
      return out;
    }
    case 'list':
    case 'set': {
      const itemName = (shape.member?.traits?.['smithy.api#xmlName'] as string | undefined) ?? 'member';
      return el.children.map((c) =>
        c.name === itemName
          ? decodeXmlShape(model, shape.member?.target ?? 'smithy.api#String', c)
          : { [`?${c.name}`]: c.text },
      );
    }
    case 'map': {
      const out: Record<string, unknown> = {};
      for (const entry of el.children) {
        const k = entry.children.find((c) => c.name === 'key');
        const v = entry.children.find((c) => c.name === 'value');
        if (k && v && shape.value) out[k.text] = decodeXmlShape(model, shape.value.target, v);
      }
      return out;
    }
    default:
      return scalarFromText(shape.type, el.text);
  }
}

/**
 * Decodes an awsQuery XML response for `operation` into `{ output }` (the `<OpResult>` content) or
 * `{ error: { code, message, type } }` for an `<ErrorResponse>`; also checks the envelope.
 */
export function decodeAwsQueryResponse(
  model: SmithyModel,
  operation: string,
  xml: string,
): { output?: unknown; error?: { code: string; message: string; type: string }; problems: string[] } {
  const problems: string[] = [];
  const root = parseXml(xml);
  if (root.name === 'ErrorResponse') {
    const err = root.children.find((c) => c.name === 'Error');
    const field = (n: string) => err?.children.find((c) => c.name === n)?.text ?? '';
    if (!err) problems.push('ErrorResponse has no <Error>');
    if (!root.children.some((c) => c.name === 'RequestId')) problems.push('ErrorResponse has no <RequestId>');
    return { error: { code: field('Code'), message: field('Message'), type: field('Type') }, problems };
  }
  if (root.name !== `${operation}Response`)
    problems.push(`root element is <${root.name}>, expected <${operation}Response>`);
  const ns = Object.values(model.shapes).find((s) => s.type === 'service')?.traits?.[
    'smithy.api#xmlNamespace'
  ] as { uri: string } | undefined;
  if (ns && root.attrs.xmlns !== ns.uri) problems.push(`xmlns is ${root.attrs.xmlns}, expected ${ns.uri}`);
  const meta = root.children.find((c) => c.name === 'ResponseMetadata');
  if (!meta?.children.some((c) => c.name === 'RequestId' && c.text.length > 0))
    problems.push('ResponseMetadata.RequestId is missing');
  const outTarget = operationShape(model, operation).output?.target;
  const result = root.children.find((c) => c.name === `${operation}Result`);
  for (const c of root.children) {
    if (c.name !== 'ResponseMetadata' && c.name !== `${operation}Result`)
      problems.push(`unexpected <${c.name}>`);
  }
  if (!outTarget) return { output: {}, problems };
  return { output: result ? decodeXmlShape(model, outTarget, result) : {}, problems };
}

/**
 * Decodes awsQuery form parameters (`MetricData.member.1.MetricName=...`) into a plain input value for
 * `operation`, following the model. Parameters that no member accounts for are reported.
 */
export function decodeAwsQueryRequest(
  model: SmithyModel,
  operation: string,
  params: URLSearchParams,
): { action: string | null; version: string | null; input: unknown; problems: string[] } {
  const problems: string[] = [];
  const flat = new Map<string, string>();
  for (const [k, v] of params) {
    if (k === 'Action' || k === 'Version') continue;
    if (flat.has(k)) problems.push(`parameter ${k} given twice`);
    flat.set(k, v);
  }
  const used = new Set<string>();
  const decode = (id: string, prefix: string): unknown => {
    const shape = resolve(model, id);
    switch (shape.type) {
      case 'structure':
      case 'union': {
        const out: Record<string, unknown> = {};
        for (const [name, m] of Object.entries(shape.members ?? {})) {
          const wire = (m.traits?.['smithy.api#xmlName'] as string | undefined) ?? name;
          const key = prefix ? `${prefix}.${wire}` : wire;
          const target = resolve(model, m.target);
          const present = flat.has(key) || [...flat.keys()].some((k) => k.startsWith(`${key}.`));
          if (!present) continue;
          if ((target.type === 'list' || target.type === 'set') && flat.get(key) === '') {
            used.add(key);
            out[name] = [];
            continue;
          }
          out[name] = decode(m.target, key);
        }
        return out;
      }
      case 'list':
      case 'set': {
        const items: unknown[] = [];
        for (let n = 1; ; n++) {
          const key = `${prefix}.member.${n}`;
          if (!flat.has(key) && ![...flat.keys()].some((k) => k.startsWith(`${key}.`))) break;
          items.push(decode(shape.member?.target ?? 'smithy.api#String', key));
        }
        return items;
      }
      case 'map': {
        const out: Record<string, unknown> = {};
        for (let n = 1; ; n++) {
          const k = `${prefix}.entry.${n}.key`;
          if (!flat.has(k)) break;
          used.add(k);
          out[flat.get(k) as string] = decode(
            shape.value?.target ?? 'smithy.api#String',
            `${prefix}.entry.${n}.value`,
          );
        }
        return out;
      }
      default: {
        used.add(prefix);
        return scalarFromText(shape.type, flat.get(prefix) ?? '');
      }
    }
  };
  const inTarget = operationShape(model, operation).input?.target ?? 'smithy.api#Unit';
  const input = decode(inTarget, '');
  for (const k of flat.keys())
    if (!used.has(k)) problems.push(`parameter ${k} is not part of ${operation}'s input`);
  return { action: params.get('Action'), version: params.get('Version'), input, problems };
}
