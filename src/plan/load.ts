/**
 * Reads a plan file (YAML, or JSON through the same parser) into a validated `Plan`. Every problem
 * becomes a `PlanIssue` that points at `file:line:col`, names the field path, quotes the bad value
 * and says what was expected, so a user can fix the plan without reading zod's internals.
 */
import { createHash } from 'node:crypto';
import {
  LineCounter,
  isAlias,
  isCollection,
  isMap,
  isNode,
  isPair,
  isScalar,
  isSeq,
  parseDocument,
  visit,
  type Document,
  type Node as YamlNode,
  type YAMLError,
} from 'yaml';
import { z } from 'zod';
import { FileReadError, readFileBounded } from '../files/read.js';
import { Duration, DURATION_EXPECTED, Plan } from './schema.js';

/**
 * Largest plan file accepted. A full plan with a 20-action FIS template (the FIS per-template
 * maximum, SEMANTICS §3.8) is under 32 KiB; 256 KiB leaves ample room while bounding parse memory.
 */
export const MAX_PLAN_BYTES = 256 * 1024;

/**
 * Alias expansions allowed while converting YAML to data: the `yaml` library's own default (100),
 * enough for anchors that share tag maps between targets, far below a "billion laughs" expansion.
 */
export const MAX_YAML_ALIASES = 100;

/** One problem with a plan file, located in the file. Lines and columns are 1-based. */
export interface PlanIssue {
  file: string;
  line: number;
  column: number;
  /** Field path such as `hypothesis.slis[1].max`; empty for problems with the file as a whole. */
  field: string;
  /** The offending value as read (undefined when the field is missing). */
  value?: unknown;
  /** What would have been accepted, e.g. `a duration such as 500ms, 5s, 2m, 1h or 30d`. */
  expected: string;
  /** One sentence naming the value and the expectation. */
  message: string;
}

/** Thrown by `loadPlan`/`parsePlan` when the file cannot be read or is not a valid plan. */
export class PlanError extends Error {
  override name = 'PlanError';
  constructor(
    readonly file: string,
    readonly issues: PlanIssue[],
  ) {
    super(
      `${file}: invalid plan (${issues.length} ${issues.length === 1 ? 'issue' : 'issues'})\n` +
        issues.map(formatIssue).join('\n'),
    );
  }
}

/** A position in the plan text, 1-based. */
export interface Position {
  line: number;
  column: number;
}

/** A plan that parsed and validated, with what reporters need to point back into its text. */
export interface LoadedPlan {
  plan: Plan;
  /** sha256 (hex) of the canonical JSON of the validated plan: key order and comments do not matter. */
  digest: string;
  text: string;
  file: string;
  /** Where a field path (`fis.actions.partition.parameters.duration`) is written in the text. */
  locate(field: string | readonly PathSegment[]): Position | undefined;
}

export type PathSegment = string | number;

/** `file:line:col: field: message`, the one-line form used by the CLI and logs. */
export function formatIssue(issue: PlanIssue): string {
  const field = issue.field === '' ? '' : `${issue.field}: `;
  return `${issue.file}:${issue.line}:${issue.column}: ${field}${issue.message}`;
}

/** Reads and validates a plan file. `displayFile` is the name used in issues (defaults to `path`). */
export async function loadPlan(path: string, displayFile: string = path): Promise<LoadedPlan> {
  let text: string;
  try {
    // A regular file only, capped while reading (src/files/read.ts): no device, FIFO or directory.
    text = (
      await readFileBounded(path, { what: 'plan file', maxBytes: MAX_PLAN_BYTES, display: displayFile })
    ).text;
  } catch (error) {
    if (!(error instanceof FileReadError)) throw error;
    if (error.problem === 'too-large') throw new PlanError(displayFile, [oversized(displayFile)]);
    throw new PlanError(displayFile, [
      {
        file: displayFile,
        line: 1,
        column: 1,
        field: '',
        value: displayFile,
        expected: error.expected,
        message: `cannot read the plan file: ${error.reason}; expected ${error.expected}`,
      },
    ]);
  }
  return parsePlan(text, displayFile);
}

/** Parses and validates plan text (YAML or JSON). Throws `PlanError` listing every issue found. */
export function parsePlan(text: string, file: string): LoadedPlan {
  const bytes = Buffer.byteLength(text, 'utf8');
  if (bytes > MAX_PLAN_BYTES) throw new PlanError(file, [oversized(file, bytes)]);

  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, prettyErrors: false, uniqueKeys: true });
  const at = (offset: number): Position => {
    const p = lineCounter.linePos(offset);
    return { line: p.line, column: p.col };
  };

  // Unresolved tags (`!foo`) are warnings to `yaml`; a plan has no use for them, so they are errors here.
  const syntax = [...doc.errors, ...doc.warnings].sort((a, b) => a.pos[0] - b.pos[0]);
  if (syntax.length > 0) {
    const issues: PlanIssue[] = [];
    for (const error of syntax) {
      const position = at(error.pos[0]);
      // One broken token often yields several follow-on errors on the same line; the first says it best.
      if (issues.some((i) => i.line === position.line)) continue;
      const { expected, message } = describeSyntaxError(error, text);
      // Only errors that leave the structure intact can be tied to a field; after a broken
      // bracket or indent the parsed tree no longer matches what the author meant.
      const intact = error.code === 'DUPLICATE_KEY' || error.code === 'TAG_RESOLVE_FAILED';
      issues.push({ file, ...position, field: intact ? fieldAt(doc, error.pos[0]) : '', expected, message });
    }
    throw new PlanError(file, issues);
  }

  let data: unknown;
  try {
    data = doc.toJS({ maxAliasCount: MAX_YAML_ALIASES });
  } catch (error) {
    if (!(error instanceof ReferenceError)) throw error;
    const alias = largestAlias(doc);
    throw new PlanError(file, [
      {
        file,
        ...(alias ? at(alias.offset) : { line: 1, column: 1 }),
        field: alias ? formatPath(alias.path) : '',
        value: alias ? `*${alias.source}` : undefined,
        expected: `YAML aliases that expand to a bounded document (at most ${MAX_YAML_ALIASES} alias expansions)`,
        message: `YAML alias${alias ? ` *${alias.source}` : ''} expands the document beyond the limit; expected YAML aliases that expand to a bounded document (at most ${MAX_YAML_ALIASES} alias expansions)`,
      },
    ]);
  }

  const locate = (field: string | readonly PathSegment[]): Position | undefined => {
    const segments = typeof field === 'string' ? parsePath(field) : field;
    if (segments === undefined) return undefined;
    const found = walk(doc, segments);
    if (found.depth !== segments.length) return undefined;
    const offset = nodeOffset(found.node) ?? nodeOffset(found.key);
    return offset === undefined ? undefined : at(offset);
  };

  // One parse per process: zod's JIT (a `new Function` per object schema) costs more than it saves here,
  // and `validate` must start within 2.5× of a bare Node (issue 17).
  const result = Plan.safeParse(data, { jitless: true });
  if (!result.success) {
    const issues = flattenIssues(result.error.issues).map((issue) => toPlanIssue(issue, data, doc, file, at));
    issues.sort((a, b) => a.line - b.line || a.column - b.column || a.field.localeCompare(b.field));
    throw new PlanError(file, issues);
  }
  return { plan: result.data, digest: planDigest(result.data), text, file, locate };
}

/** Locates a field path in plan text without validating it (for reporters that hold only the text). */
export function locateField(text: string, field: string | readonly PathSegment[]): Position | undefined {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, prettyErrors: false });
  const segments = typeof field === 'string' ? parsePath(field) : field;
  if (segments === undefined) return undefined;
  const found = walk(doc, segments);
  if (found.depth !== segments.length) return undefined;
  const offset = nodeOffset(found.node) ?? nodeOffset(found.key);
  if (offset === undefined) return undefined;
  const p = lineCounter.linePos(offset);
  return { line: p.line, column: p.col };
}

/** sha256 (hex) of the canonical JSON (sorted keys) of a validated plan. */
export function planDigest(plan: Plan): string {
  return createHash('sha256').update(canonicalJson(plan)).digest('hex');
}

/** JSON with object keys sorted at every level and undefined members dropped. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value));
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value).sort()) {
      const v = (value as Record<string, unknown>)[key];
      if (v !== undefined) out[key] = sortKeys(v);
    }
    return out;
  }
  return value;
}

/** `hypothesis.slis[1].max`; keys that are not identifiers are quoted: `resourceTags["kubernetes.io/role"]`. */
export function formatPath(path: readonly PathSegment[]): string {
  let out = '';
  for (const seg of path) {
    if (typeof seg === 'number') out += `[${seg}]`;
    else if (/^[A-Za-z_$][\w$-]*$/.test(seg)) out += out === '' ? seg : `.${seg}`;
    else out += `[${JSON.stringify(seg)}]`;
  }
  return out;
}

/** The inverse of `formatPath`; undefined when the text is not a field path. */
export function parsePath(field: string): PathSegment[] | undefined {
  const segments: PathSegment[] = [];
  const re = /(?:^|\.)([A-Za-z_$][\w$-]*)|\[(\d+)\]|\[("(?:[^"\\]|\\.)*")\]/y;
  let index = 0;
  while (index < field.length) {
    re.lastIndex = index;
    const m = re.exec(field);
    if (!m) return undefined;
    if (m[1] !== undefined) segments.push(m[1]);
    else if (m[2] !== undefined) segments.push(Number(m[2]));
    else if (m[3] !== undefined) segments.push(JSON.parse(m[3]) as string);
    index = re.lastIndex;
  }
  return segments;
}

/** `bytes` is the size when known; a file cut off while reading is only known to be larger. */
function oversized(file: string, bytes?: number): PlanIssue {
  const size = bytes === undefined ? `larger than ${MAX_PLAN_BYTES} bytes` : `${bytes} bytes`;
  return {
    file,
    line: 1,
    column: 1,
    field: '',
    ...(bytes === undefined ? {} : { value: bytes }),
    expected: `at most ${MAX_PLAN_BYTES} bytes`,
    message: `the plan file is ${size}; expected at most ${MAX_PLAN_BYTES} bytes (MAX_PLAN_BYTES)`,
  };
}

/** Plain-language forms of the `yaml` library's error codes that plan authors actually hit. */
function describeSyntaxError(error: YAMLError, text: string): { expected: string; message: string } {
  const token = /^[^\s:]*/.exec(text.slice(error.pos[0], error.pos[0] + 80))?.[0] ?? '';
  switch (error.code) {
    case 'DUPLICATE_KEY':
      return {
        expected: 'each key at most once per mapping',
        message: `YAML syntax: the key '${token}' appears twice in this mapping; expected each key at most once per mapping`,
      };
    case 'MULTIPLE_DOCS':
      return {
        expected: 'exactly one YAML document per plan file',
        message:
          'YAML syntax: a second document starts here (---); expected exactly one YAML document per plan file',
      };
    case 'TAB_AS_INDENT':
      return {
        expected: 'indentation with spaces',
        message: 'YAML syntax: a tab is used for indentation; expected indentation with spaces',
      };
    case 'TAG_RESOLVE_FAILED':
      return {
        expected: 'plain YAML values without custom tags',
        message: `YAML syntax: unsupported tag ${/^\S*/.exec(text.slice(error.pos[0], error.pos[0] + 80))?.[0] ?? ''}; expected plain YAML values without custom tags`,
      };
    default:
      return {
        expected: 'valid YAML or JSON',
        message: `YAML syntax: ${error.message}; expected valid YAML or JSON`,
      };
  }
}

/** The field path of the deepest node whose text contains `offset` (for syntax errors). */
function fieldAt(doc: Document, offset: number): string {
  const path: PathSegment[] = [];
  let node: unknown = doc.contents;
  const within = (n: unknown): boolean =>
    isNode(n) &&
    n.range !== undefined &&
    n.range !== null &&
    n.range[0] <= offset &&
    offset < Math.max(n.range[1], n.range[0] + 1);
  for (let depth = 0; depth < 64; depth += 1) {
    if (isMap(node)) {
      // A pair spans from its key to the end of its value (a tag sits between the two).
      const pair = node.items.find(
        (p) =>
          within(p.key) ||
          within(p.value) ||
          (isNode(p.key) &&
            isNode(p.value) &&
            (p.key.range?.[0] ?? Infinity) <= offset &&
            offset < (p.value.range?.[1] ?? -1)),
      );
      if (!pair || !isScalar(pair.key)) break;
      path.push(String(pair.key.value));
      node = pair.value;
    } else if (isSeq(node)) {
      const index = node.items.findIndex(within);
      if (index < 0) break;
      path.push(index);
      node = node.items[index];
    } else {
      break;
    }
  }
  return formatPath(path);
}

interface Walked {
  /** How many path segments were found. */
  depth: number;
  /** The node at that depth (the value), possibly null for `key:` with no value. */
  node: unknown;
  /** The key node of the last pair walked through, if the last step was a map key. */
  key: unknown;
  /** The key node of the deepest map entry on the way (for pointing at a parent). */
  lastKey: unknown;
}

/** Follows a path through the YAML document, resolving aliases, as far as it exists. */
function walk(doc: Document, path: readonly PathSegment[]): Walked {
  let node: unknown = doc.contents;
  let key: unknown = undefined;
  let lastKey: unknown = undefined;
  let depth = 0;
  for (const seg of path) {
    if (isAlias(node)) node = node.resolve(doc);
    if (isMap(node)) {
      const pair = node.items.find((p) => isScalar(p.key) && String(p.key.value) === String(seg));
      if (!pair) break;
      key = pair.key;
      lastKey = pair.key;
      node = pair.value;
    } else if (isSeq(node) && typeof seg === 'number') {
      if (seg >= node.items.length) break;
      key = undefined;
      node = node.items[seg];
    } else {
      break;
    }
    depth += 1;
  }
  return { depth, node, key, lastKey };
}

function nodeOffset(node: unknown): number | undefined {
  if (isNode(node) && node.range) {
    // An empty value (`key:` with nothing after it) has a zero-width range; it is better reported at its key.
    if (isScalar(node) && node.value === null && node.range[0] === node.range[1]) return undefined;
    return node.range[0];
  }
  return undefined;
}

/** The alias whose expansion is largest, with its path: where a resource-exhaustion attempt is reported. */
function largestAlias(doc: Document): { source: string; offset: number; path: PathSegment[] } | undefined {
  const sizes = new Map<unknown, number>();
  const size = (node: unknown, depth: number): number => {
    // Bounded recursion: a self-referencing or deep alias chain is cut at a depth no real plan reaches.
    if (depth > 64) return Number.POSITIVE_INFINITY;
    if (isAlias(node)) return size(node.resolve(doc), depth + 1);
    const cached = sizes.get(node);
    if (cached !== undefined) return cached;
    let total = 1;
    if (isCollection(node)) {
      for (const item of node.items) {
        total += isPair(item) ? size(item.value, depth + 1) : size(item, depth + 1);
        if (total > 1e12) break;
      }
    }
    sizes.set(node, total);
    return total;
  };
  let best: { source: string; offset: number; path: PathSegment[]; size: number } | undefined;
  visit(doc, {
    Alias(_key, node, path) {
      const n = size(node, 0);
      if (best === undefined || n > best.size) {
        best = { source: node.source, offset: node.range?.[0] ?? 0, path: pathOf(path, node), size: n };
      }
    },
  });
  if (best === undefined) return undefined;
  return { source: best.source, offset: best.offset, path: best.path };
}

/** Converts the ancestor list `visit` gives into a data path. */
function pathOf(ancestors: readonly unknown[], leaf: unknown): PathSegment[] {
  const chain = [...ancestors, leaf];
  const out: PathSegment[] = [];
  for (let i = 0; i < chain.length - 1; i += 1) {
    const parent = chain[i];
    const child = chain[i + 1];
    if (isPair(parent) && isScalar(parent.key) && child === parent.value) out.push(String(parent.key.value));
    else if (isSeq(parent)) out.push(parent.items.indexOf(child as YamlNode));
  }
  return out;
}

/**
 * zod reports a failed union as one issue holding each branch's issues. The branch with the fewest
 * issues is the one the author most likely meant, so its issues are reported instead.
 */
function flattenIssues(issues: readonly z.core.$ZodIssue[]): z.core.$ZodIssue[] {
  const out: z.core.$ZodIssue[] = [];
  for (const issue of issues) {
    if (issue.code === 'invalid_union' && issue.errors.length > 0) {
      const best = [...issue.errors].sort((a, b) => a.length - b.length)[0] ?? [];
      if (best.length === 0) {
        out.push(issue);
        continue;
      }
      const nested = best.map((i) => ({ ...i, path: [...issue.path, ...i.path] }) as z.core.$ZodIssue);
      out.push(...flattenIssues(nested));
    } else {
      out.push(issue);
    }
  }
  return out;
}

function valueAt(data: unknown, path: readonly PropertyKey[]): unknown {
  let v: unknown = data;
  for (const seg of path) {
    if (v === null || typeof v !== 'object') return undefined;
    v = (v as Record<PropertyKey, unknown>)[seg];
  }
  return v;
}

function toPlanIssue(
  issue: z.core.$ZodIssue,
  data: unknown,
  doc: Document,
  file: string,
  at: (offset: number) => Position,
): PlanIssue {
  const path = issue.path.map((p) => (typeof p === 'number' ? p : String(p)));
  if (issue.code === 'unrecognized_keys') {
    const unknownKey = issue.keys[0] ?? '';
    const keyPath = [...path, unknownKey];
    const found = walk(doc, keyPath);
    const offset = found.depth === keyPath.length ? nodeOffset(found.key) : undefined;
    const allowed = allowedKeys(path);
    const expected = allowed ? `one of the known keys: ${allowed.join(', ')}` : 'no unknown keys';
    const names = issue.keys.map((k) => `'${k}'`).join(', ');
    return {
      file,
      ...(offset !== undefined ? at(offset) : fallbackPosition(doc, path, at)),
      field: formatPath(keyPath),
      value: issue.keys.length === 1 ? unknownKey : issue.keys,
      expected,
      message: `unknown key${issue.keys.length > 1 ? 's' : ''} ${names}; expected ${expected}`,
    };
  }

  const value = valueAt(data, path);
  const missing = value === undefined && issue.code === 'invalid_type';
  const expected = describeExpected(issue, path);
  const found = walk(doc, path);
  const offset = found.depth === path.length ? (nodeOffset(found.node) ?? nodeOffset(found.key)) : undefined;
  let message: string;
  if (missing) message = `required field is missing; expected ${expected}`;
  else if (value === null && path.length === 0)
    message = `the plan is empty; expected ${expected} of plan fields`;
  else if (value === null) message = `the value is empty; expected ${expected}`;
  else if (issue.code === 'invalid_type')
    message = `${showValue(value)} is ${kindOf(value)}; expected ${expected}`;
  else message = `${showValue(value)} is not valid; expected ${expected}`;
  return {
    file,
    ...(offset !== undefined ? at(offset) : fallbackPosition(doc, path, at)),
    field: formatPath(path),
    ...(value === undefined ? {} : { value }),
    expected,
    message,
  };
}

/** For a missing field: the key of the nearest enclosing entry that exists, else the document start. */
function fallbackPosition(
  doc: Document,
  path: readonly PathSegment[],
  at: (o: number) => Position,
): Position {
  for (let depth = path.length; depth >= 0; depth -= 1) {
    const found = walk(doc, path.slice(0, depth));
    if (found.depth === depth) {
      const offset = nodeOffset(found.key) ?? nodeOffset(found.node);
      if (offset !== undefined) return at(offset);
    }
  }
  return { line: 1, column: 1 };
}

const MAX_SHOWN_VALUE = 80;

function showValue(value: unknown): string {
  let text: string;
  if (value === null) text = 'null';
  else if (Array.isArray(value))
    text =
      value.length === 0
        ? 'the empty list'
        : `the list of ${value.length} ${value.length === 1 ? 'entry' : 'entries'}`;
  else if (isCollectionValue(value)) text = `the mapping {${Object.keys(value as object).join(', ')}}`;
  else text = JSON.stringify(value) ?? String(value);
  return text.length > MAX_SHOWN_VALUE ? `${text.slice(0, MAX_SHOWN_VALUE - 1)}…` : text;
}

function kindOf(value: unknown): string {
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'a mapping';
  if (typeof value === 'number') return 'a number';
  if (typeof value === 'boolean') return 'a boolean';
  return `a ${typeof value}`;
}

function isCollectionValue(value: unknown): boolean {
  return value !== null && typeof value === 'object';
}

const TYPE_NAMES: Record<string, string> = {
  string: 'a string',
  number: 'a number',
  int: 'an integer',
  boolean: 'true or false',
  object: 'a mapping',
  array: 'a list',
  record: 'a mapping',
  tuple: 'a list',
};

function describeExpected(issue: z.core.$ZodIssue, path: readonly PathSegment[]): string {
  const described = describeSchema(schemaAt(path));
  switch (issue.code) {
    case 'invalid_type':
      if (described) return described;
      if (issue.expected === 'number' && isIntegerSchema(schemaAt(path))) return 'an integer';
      return TYPE_NAMES[issue.expected] ?? issue.expected;
    case 'invalid_value':
      return issue.values.length === 1
        ? `${JSON.stringify(issue.values[0])}`
        : `one of ${issue.values.map((v) => JSON.stringify(v)).join(', ')}`;
    case 'invalid_format':
      // Custom messages in the schema are already phrased as the expectation.
      return issue.message.startsWith('Invalid') ? `a valid ${issue.format}` : issue.message;
    case 'too_small':
      return sizeBound(issue.origin, issue.minimum, issue.inclusive ?? true, 'min', issue.message);
    case 'too_big':
      return sizeBound(issue.origin, issue.maximum, issue.inclusive ?? true, 'max', issue.message);
    case 'not_multiple_of':
      return `a multiple of ${String(issue.divisor)}`;
    case 'invalid_key':
      return 'a valid key';
    case 'invalid_element':
      return 'valid entries';
    case 'invalid_union':
      return described ?? 'one of the accepted shapes';
    case 'custom':
      return issue.message;
    default:
      return issue.message;
  }
}

function sizeBound(
  origin: string,
  bound: number | bigint,
  inclusive: boolean,
  side: 'min' | 'max',
  message: string,
): string {
  const n = Number(bound);
  if (!message.startsWith('Too ')) return message;
  if (origin === 'string') {
    if (side === 'min' && n === 1) return 'a non-empty string';
    return side === 'min' ? `a string of at least ${n} characters` : `a string of at most ${n} characters`;
  }
  if (origin === 'array' || origin === 'set') {
    const items = (k: number): string => `${k} ${k === 1 ? 'entry' : 'entries'}`;
    return side === 'min' ? `at least ${items(n)}` : `at most ${items(n)}`;
  }
  if (side === 'min') return inclusive ? `a number ≥ ${n}` : `a number > ${n}`;
  return inclusive ? `a number ≤ ${n}` : `a number < ${n}`;
}

type AnySchema = z.core.$ZodType;

const INTEGER_FORMATS = new Set(['safeint', 'int32', 'uint32', 'int64', 'uint64']);

function isIntegerSchema(schema: AnySchema | undefined): boolean {
  const def = unwrap(schema)?._zod.def as { format?: string; checks?: AnySchema[] } | undefined;
  if (!def) return false;
  if (def.format !== undefined && INTEGER_FORMATS.has(def.format)) return true;
  return (def.checks ?? []).some((c) =>
    INTEGER_FORMATS.has((c._zod.def as { format?: string }).format ?? ''),
  );
}

/** The zod schema at a data path (best effort: unions pick the first object branch with that key). */
function schemaAt(path: readonly PathSegment[]): AnySchema | undefined {
  let schema: AnySchema | undefined = Plan;
  for (const seg of path) {
    schema = unwrap(schema);
    if (schema === undefined) return undefined;
    schema = child(schema, seg);
  }
  return schema;
}

function unwrap(schema: AnySchema | undefined): AnySchema | undefined {
  let s = schema;
  for (let i = 0; i < 16 && s !== undefined; i += 1) {
    const def = s._zod.def as { type: string; innerType?: AnySchema; in?: AnySchema };
    if (
      def.innerType &&
      ['optional', 'default', 'prefault', 'nullable', 'readonly', 'catch'].includes(def.type)
    ) {
      s = def.innerType;
    } else if (def.type === 'pipe' && def.in) {
      s = def.in;
    } else {
      return s;
    }
  }
  return s;
}

function child(schema: AnySchema, seg: PathSegment): AnySchema | undefined {
  const def = schema._zod.def as {
    type: string;
    shape?: Record<string, AnySchema>;
    element?: AnySchema;
    valueType?: AnySchema;
    items?: AnySchema[];
    options?: AnySchema[];
  };
  switch (def.type) {
    case 'object':
      return typeof seg === 'string' ? def.shape?.[seg] : undefined;
    case 'array':
      return def.element;
    case 'record':
      return def.valueType;
    case 'tuple':
      return typeof seg === 'number' ? def.items?.[seg] : undefined;
    case 'union':
      for (const option of def.options ?? []) {
        const c = child(unwrap(option) ?? option, seg);
        if (c) return c;
      }
      return undefined;
    default:
      return undefined;
  }
}

/**
 * A better expectation than zod's type name for fields whose type says little (a duration is a
 * "string" to zod). Editor descriptions are deliberately not used: they are prose, not expectations.
 */
function describeSchema(schema: AnySchema | undefined): string | undefined {
  let s = schema;
  for (let i = 0; i < 16 && s !== undefined; i += 1) {
    if (s === Duration) return DURATION_EXPECTED;
    const def = s._zod.def as { type: string; innerType?: AnySchema };
    if (!def.innerType || !['optional', 'default', 'prefault', 'nullable'].includes(def.type))
      return undefined;
    s = def.innerType;
  }
  return undefined;
}

/** The keys a strict object at `path` accepts, for "unknown key" messages. */
function allowedKeys(path: readonly PathSegment[]): string[] | undefined {
  const keys = new Set<string>();
  const collect = (s: AnySchema | undefined): void => {
    const u = unwrap(s);
    if (!u) return;
    const def = u._zod.def as { type: string; shape?: Record<string, AnySchema>; options?: AnySchema[] };
    if (def.type === 'object' && def.shape) Object.keys(def.shape).forEach((k) => keys.add(k));
    if (def.type === 'union') def.options?.forEach(collect);
  };
  collect(schemaAt(path));
  return keys.size > 0 ? [...keys] : undefined;
}

/**
 * One zod issue of a schema other than the plan's (a scenario, a policy, CLI flags) in the plan's
 * wording: the value and what is expected, never zod's own text (`Invalid input: expected number,
 * received undefined`). `value` is the offending value as read, undefined when the field is missing.
 */
export function describeZodIssue(issue: z.core.$ZodIssue, value: unknown): string {
  if (issue.code === 'unrecognized_keys') {
    return `unknown key${issue.keys.length > 1 ? 's' : ''} ${issue.keys.map((k) => `'${k}'`).join(', ')}`;
  }
  let expected: string;
  switch (issue.code) {
    case 'invalid_type':
      expected = TYPE_NAMES[issue.expected] ?? issue.expected;
      break;
    case 'invalid_value':
      expected =
        issue.values.length === 1
          ? JSON.stringify(issue.values[0])
          : `one of ${issue.values.map((v) => JSON.stringify(v)).join(', ')}`;
      break;
    case 'invalid_format':
      expected = issue.message.startsWith('Invalid') ? `a valid ${issue.format}` : issue.message;
      break;
    case 'too_small':
      expected = sizeBound(issue.origin, issue.minimum, issue.inclusive ?? true, 'min', issue.message);
      break;
    case 'too_big':
      expected = sizeBound(issue.origin, issue.maximum, issue.inclusive ?? true, 'max', issue.message);
      break;
    case 'not_multiple_of':
      expected = `a multiple of ${String(issue.divisor)}`;
      break;
    case 'invalid_union':
      expected = 'one of the accepted shapes';
      break;
    default:
      expected = issue.message;
  }
  if (value === undefined) return `required field is missing; expected ${expected}`;
  if (value === null) return `the value is empty; expected ${expected}`;
  return `${showValue(value)} is not valid; expected ${expected}`;
}
