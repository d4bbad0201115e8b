/**
 * A parsed document checked against its zod schema, every problem worded for a person: the field, the
 * value as read, and what would have been accepted (`"1 second" is not valid; expected a duration such as
 * 500ms, 5s, 2m, 1h or 30d`) — never zod's own text (`Invalid input: expected number, received string`).
 * One wording for the plan, the policy, the scenario, the sandbox config and an imported FIS template.
 */
import { safeParse, type $ZodIssue, type $ZodType, type output } from 'zod/v4/core';
import {
  DocumentError,
  formatPath,
  valueAt,
  type DocumentIssue,
  type ParsedDocument,
  type PathSegment,
} from './document.js';
// The wording below reads zod's English messages ("Too small…"); zod/mini installs them only through this.
import './zod.js';

type AnySchema = $ZodType;

/** How a document's schema problems are worded. */
export interface SchemaWording {
  /** What the document is, for `the <noun> is empty`: `plan`, `policy`, … */
  noun: string;
  /**
   * Expectations for schemas whose zod type says little (a duration is "a string" to zod), by schema
   * object: `new Map([[Duration, 'a duration such as 500ms, 5s, 2m, 1h or 30d']])`.
   */
  named?: ReadonlyMap<AnySchema, string> | undefined;
}

/** {@link SchemaWording} plus how an empty document and the issues are treated. */
export interface ValidateOptions extends SchemaWording {
  /** True when every field is optional and an empty file means "no settings" (a policy, a config). */
  emptyIsMapping?: boolean | undefined;
  /** The error thrown with the issues; default a {@link DocumentError}. */
  error?: ((file: string, issues: DocumentIssue[]) => Error) | undefined;
}

/** Validates a parsed document; throws every issue (in file order) when it does not fit the schema. */
export function validateDocument<S extends AnySchema>(
  doc: ParsedDocument,
  schema: S,
  o: ValidateOptions,
): output<S> {
  const data = o.emptyIsMapping ? (doc.data ?? {}) : doc.data;
  // One parse per process: zod's JIT (a `new Function` per object schema) costs more than it saves here,
  // and `validate` must start within 2.5× of a bare Node (issue 17).
  // zod's core parse, the one zod/mini's `schema.safeParse` calls, typed for any zod schema.
  const result = safeParse(schema, data, { jitless: true });
  if (result.success) return result.data;
  const issues = flattenIssues(result.error.issues).map((issue) => locatedIssue(issue, data, doc, schema, o));
  issues.sort((a, b) => a.line - b.line || a.column - b.column || a.field.localeCompare(b.field));
  throw o.error ? o.error(doc.file, issues) : new DocumentError(doc.file, issues, o.noun);
}

function locatedIssue(
  issue: $ZodIssue,
  data: unknown,
  doc: ParsedDocument,
  root: AnySchema,
  o: SchemaWording,
): DocumentIssue {
  const path = issue.path.map((p) => (typeof p === 'number' ? p : String(p)));
  if (issue.code === 'unrecognized_keys') {
    const unknownKey = issue.keys[0] ?? '';
    const keyPath = [...path, unknownKey];
    const { expected, message } = describeIssue(issue, undefined, path, root, o);
    return {
      file: doc.file,
      ...(doc.locateKey(keyPath) ?? doc.nearest(path)),
      field: formatPath(keyPath),
      value: issue.keys.length === 1 ? unknownKey : issue.keys,
      expected,
      message,
    };
  }
  const value = valueAt(data, path);
  const { expected, message } = describeIssue(issue, value, path, root, o);
  return {
    file: doc.file,
    ...(doc.locate(path) ?? doc.nearest(path)),
    field: formatPath(path),
    ...(value === undefined ? {} : { value }),
    expected,
    message,
  };
}

/**
 * What a zod issue expected, and the one sentence that says so with the value as read (`value` is
 * undefined when the field is missing). `path` is where the issue is, from the `root` schema.
 */
export function describeIssue(
  issue: $ZodIssue,
  value: unknown,
  path: readonly PathSegment[],
  root: AnySchema,
  o: SchemaWording,
): { expected: string; message: string } {
  if (issue.code === 'unrecognized_keys') {
    const allowed = allowedKeys(root, path);
    const expected = allowed ? `one of the known keys: ${allowed.join(', ')}` : 'no unknown keys';
    const names = issue.keys.map((k) => `'${k}'`).join(', ');
    return {
      expected,
      message: `unknown key${issue.keys.length > 1 ? 's' : ''} ${names}; expected ${expected}`,
    };
  }
  const expected = describeExpected(issue, schemaAt(root, path), o.named);
  let message: string;
  if (value === undefined && issue.code === 'invalid_type')
    message = `required field is missing; expected ${expected}`;
  else if (value === null && path.length === 0)
    message = `the ${o.noun} is empty; expected ${expected} of ${o.noun} fields`;
  else if (value === null) message = `the value is empty; expected ${expected}`;
  else if (issue.code === 'invalid_type')
    message = `${showValue(value)} is ${kindOf(value)}; expected ${expected}`;
  else message = `${showValue(value)} is not valid; expected ${expected}`;
  return { expected, message };
}

/**
 * zod reports a failed union as one issue holding each branch's issues. The branch with the fewest
 * issues is the one the author most likely meant, so its issues are reported instead.
 */
function flattenIssues(issues: readonly $ZodIssue[]): $ZodIssue[] {
  const out: $ZodIssue[] = [];
  for (const issue of issues) {
    if (issue.code === 'invalid_union' && issue.errors.length > 0) {
      const best = [...issue.errors].sort((a, b) => a.length - b.length)[0] ?? [];
      if (best.length === 0) {
        out.push(issue);
        continue;
      }
      const nested = best.map((i) => ({ ...i, path: [...issue.path, ...i.path] }) as $ZodIssue);
      out.push(...flattenIssues(nested));
    } else {
      out.push(issue);
    }
  }
  return out;
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
  else if (value !== null && typeof value === 'object')
    text = `the mapping {${Object.keys(value).join(', ')}}`;
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

function describeExpected(
  issue: $ZodIssue,
  schema: AnySchema | undefined,
  named: ReadonlyMap<AnySchema, string> | undefined,
): string {
  const described = describeSchema(schema, named);
  switch (issue.code) {
    case 'invalid_type':
      if (described) return described;
      if (issue.expected === 'number' && isIntegerSchema(schema)) return 'an integer';
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
function schemaAt(root: AnySchema, path: readonly PathSegment[]): AnySchema | undefined {
  let schema: AnySchema | undefined = root;
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
 * A better expectation than zod's type name for fields whose type says little, looked up in `named`.
 * Editor descriptions are deliberately not used: they are prose, not expectations.
 */
function describeSchema(
  schema: AnySchema | undefined,
  named: ReadonlyMap<AnySchema, string> | undefined,
): string | undefined {
  if (!named) return undefined;
  let s = schema;
  for (let i = 0; i < 16 && s !== undefined; i += 1) {
    const name = named.get(s);
    if (name !== undefined) return name;
    const def = s._zod.def as { type: string; innerType?: AnySchema };
    if (!def.innerType || !['optional', 'default', 'prefault', 'nullable'].includes(def.type))
      return undefined;
    s = def.innerType;
  }
  return undefined;
}

/** The keys a strict object at `path` accepts, for "unknown key" messages. */
function allowedKeys(root: AnySchema, path: readonly PathSegment[]): string[] | undefined {
  const keys = new Set<string>();
  const collect = (s: AnySchema | undefined): void => {
    const u = unwrap(s);
    if (!u) return;
    const def = u._zod.def as { type: string; shape?: Record<string, AnySchema>; options?: AnySchema[] };
    if (def.type === 'object' && def.shape) Object.keys(def.shape).forEach((k) => keys.add(k));
    if (def.type === 'union') def.options?.forEach(collect);
  };
  collect(schemaAt(root, path));
  return keys.size > 0 ? [...keys] : undefined;
}
