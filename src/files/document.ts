/**
 * The one parser of the YAML and JSON files chaos-gate reads (plan, policy, service catalog, scenario,
 * sandbox config, FIS template, scan input): text in, data out with a way back to `file:line:col` for any
 * field path. The limits are the same for every file — a size cap, a bounded alias expansion, unique keys,
 * no custom tags — and every problem is a {@link DocumentIssue} in one wording. Pure: reading the file is
 * src/files/load.ts's job.
 */
import {
  LineCounter,
  isAlias,
  isCollection,
  isMap,
  isNode,
  isPair,
  isScalar,
  isSeq,
  parseAllDocuments,
  parseDocument,
  visit,
  type Document,
  type Node as YamlNode,
  type YAMLError,
} from 'yaml';
import { DocumentError, type DocumentIssue, type PathSegment, type Position } from './issue.js';

/**
 * Alias expansions allowed while converting YAML to data: the `yaml` library's own default (100),
 * enough for anchors that share tag maps between targets, far below a "billion laughs" expansion.
 */
export const MAX_YAML_ALIASES = 100;

export { DocumentError, formatIssue } from './issue.js';
export type { DocumentIssue, PathSegment, Position } from './issue.js';

/** How a document is parsed and how its problems are named. */
export interface DocumentOptions {
  /** The name used in issues (the file as the user wrote it). */
  file: string;
  /** What the file is, in messages: `plan file`, `policy file`, `catalog`, … */
  what: string;
  /** Largest text accepted (bytes). */
  maxBytes: number;
  /** The constant behind `maxBytes`, named in the message (`MAX_PLAN_BYTES`). */
  limitName?: string | undefined;
  /** The error thrown with the issues; default a {@link DocumentError}. */
  error?: ((file: string, issues: DocumentIssue[]) => Error) | undefined;
}

/** A document that parsed, with the way back from a field path to its place in the text. */
export interface ParsedDocument {
  file: string;
  text: string;
  /** The document as plain data (aliases expanded). */
  data: unknown;
  /** 1-based line where the document's contents start (the entity of a catalog stream). */
  line: number;
  /** Where the value of a field (else its key) is written; undefined when the field is not written. */
  locate(field: string | readonly PathSegment[]): Position | undefined;
  /** Where the key of a mapping entry is written; undefined when it is not written. */
  locateKey(path: readonly PathSegment[]): Position | undefined;
  /** The field's position, else that of its nearest written parent, else the start of the file. */
  nearest(path: readonly PathSegment[]): Position;
}

function raise(o: DocumentOptions, issues: DocumentIssue[]): never {
  throw o.error ? o.error(o.file, issues) : new DocumentError(o.file, issues);
}

/** The issue of text over the cap; `bytes` is the size when known (a file cut off while reading is only known to be larger). */
export function oversizedIssue(o: DocumentOptions, bytes?: number): DocumentIssue {
  const size = bytes === undefined ? `larger than ${o.maxBytes} bytes` : `${bytes} bytes`;
  const limit = o.limitName ? ` (${o.limitName})` : '';
  return {
    file: o.file,
    line: 1,
    column: 1,
    field: '',
    ...(bytes === undefined ? {} : { value: bytes }),
    expected: `at most ${o.maxBytes} bytes`,
    message: `the ${o.what} is ${size}; expected at most ${o.maxBytes} bytes${limit}`,
  };
}

/** Parses one YAML (or JSON) document. Throws (see {@link DocumentOptions.error}) listing every syntax problem. */
export function parseYamlDocument(text: string, o: DocumentOptions): ParsedDocument {
  checkSize(text, o);
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, prettyErrors: false, uniqueKeys: true });
  const issues = syntaxIssues(doc, text, lineCounter, o);
  if (issues.length > 0) raise(o, issues);
  return toParsed(doc, text, lineCounter, o);
}

/** Parses a stream of YAML documents separated by `---` (a Backstage catalog); empty documents are kept. */
export function parseYamlStream(text: string, o: DocumentOptions): ParsedDocument[] {
  checkSize(text, o);
  const lineCounter = new LineCounter();
  const docs = parseAllDocuments(text, { lineCounter, prettyErrors: false, uniqueKeys: true });
  // A stream without documents (only comments, say) still carries the stream's own errors.
  const streamErrors = 'empty' in docs ? [...docs.errors, ...docs.warnings] : [];
  const issues = [
    ...streamErrors.map((error) => syntaxIssue(error, undefined, text, lineCounter, o)),
    ...docs.flatMap((doc) => syntaxIssues(doc, text, lineCounter, o)),
  ];
  if (issues.length > 0) raise(o, issues);
  return docs.map((doc) => toParsed(doc, text, lineCounter, o));
}

/** Locates a field path in YAML or JSON text without validating it (for reporters that hold only the text). */
export function locateField(text: string, field: string | readonly PathSegment[]): Position | undefined {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, prettyErrors: false });
  const segments = typeof field === 'string' ? parsePath(field) : field;
  if (segments === undefined) return undefined;
  const offset = valueOffset(doc, segments);
  if (offset === undefined) return undefined;
  const p = lineCounter.linePos(offset);
  return { line: p.line, column: p.col };
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

/** The value at a data path, undefined when any step is missing. */
export function valueAt(data: unknown, path: readonly PropertyKey[]): unknown {
  let v: unknown = data;
  for (const seg of path) {
    if (v === null || typeof v !== 'object') return undefined;
    v = (v as Record<PropertyKey, unknown>)[seg];
  }
  return v;
}

function checkSize(text: string, o: DocumentOptions): void {
  const bytes = Buffer.byteLength(text, 'utf8');
  if (bytes > o.maxBytes) raise(o, [oversizedIssue(o, bytes)]);
}

function syntaxIssues(
  doc: Document.Parsed,
  text: string,
  lineCounter: LineCounter,
  o: DocumentOptions,
): DocumentIssue[] {
  // Unresolved tags (`!foo`) are warnings to `yaml`; chaos-gate's files have no use for them, so they are errors.
  const syntax = [...doc.errors, ...doc.warnings].sort((a, b) => a.pos[0] - b.pos[0]);
  const issues: DocumentIssue[] = [];
  for (const error of syntax) {
    const issue = syntaxIssue(error, doc, text, lineCounter, o);
    // One broken token often yields several follow-on errors on the same line; the first says it best.
    if (!issues.some((i) => i.line === issue.line)) issues.push(issue);
  }
  return issues;
}

function syntaxIssue(
  error: YAMLError,
  doc: Document.Parsed | undefined,
  text: string,
  lineCounter: LineCounter,
  o: DocumentOptions,
): DocumentIssue {
  const { expected, message } = describeSyntaxError(error, text, o.what);
  // Only errors that leave the structure intact can be tied to a field; after a broken
  // bracket or indent the parsed tree no longer matches what the author meant.
  const intact = error.code === 'DUPLICATE_KEY' || error.code === 'TAG_RESOLVE_FAILED';
  return {
    file: o.file,
    ...positionOf(lineCounter, error.pos[0]),
    field: intact && doc ? fieldAt(doc, error.pos[0]) : '',
    expected,
    message,
  };
}

function toParsed(
  doc: Document.Parsed,
  text: string,
  lineCounter: LineCounter,
  o: DocumentOptions,
): ParsedDocument {
  const at = (offset: number): Position => positionOf(lineCounter, offset);
  let data: unknown;
  try {
    data = doc.toJS({ maxAliasCount: MAX_YAML_ALIASES });
  } catch (error) {
    if (!(error instanceof ReferenceError)) throw error;
    const alias = largestAlias(doc);
    const expected = `YAML aliases that expand to a bounded document (at most ${MAX_YAML_ALIASES} alias expansions)`;
    raise(o, [
      {
        file: o.file,
        ...(alias ? at(alias.offset) : { line: 1, column: 1 }),
        field: alias ? formatPath(alias.path) : '',
        value: alias ? `*${alias.source}` : undefined,
        expected,
        message: `YAML alias${alias ? ` *${alias.source}` : ''} expands the document beyond the limit; expected ${expected}`,
      },
    ]);
  }
  const segmentsOf = (field: string | readonly PathSegment[]): readonly PathSegment[] | undefined =>
    typeof field === 'string' ? parsePath(field) : field;
  return {
    file: o.file,
    text,
    data,
    // A document's range starts at its `---`; what it holds starts at its contents.
    line: at(doc.contents?.range?.[0] ?? doc.range[0]).line,
    locate(field) {
      const segments = segmentsOf(field);
      const offset = segments === undefined ? undefined : valueOffset(doc, segments);
      return offset === undefined ? undefined : at(offset);
    },
    locateKey(path) {
      const found = walk(doc, path);
      const offset = found.depth === path.length ? nodeOffset(found.key) : undefined;
      return offset === undefined ? undefined : at(offset);
    },
    nearest(path) {
      // For a missing field: the key of the nearest enclosing entry that exists, else the document start.
      for (let depth = path.length; depth >= 0; depth -= 1) {
        const found = walk(doc, path.slice(0, depth));
        if (found.depth === depth) {
          const offset = nodeOffset(found.key) ?? nodeOffset(found.node);
          if (offset !== undefined) return at(offset);
        }
      }
      return { line: 1, column: 1 };
    },
  };
}

function positionOf(lineCounter: LineCounter, offset: number): Position {
  const p = lineCounter.linePos(offset);
  return { line: p.line, column: p.col };
}

/** Plain-language forms of the `yaml` library's error codes that authors actually hit. */
function describeSyntaxError(
  error: YAMLError,
  text: string,
  what: string,
): { expected: string; message: string } {
  const token = /^[^\s:]*/.exec(text.slice(error.pos[0], error.pos[0] + 80))?.[0] ?? '';
  switch (error.code) {
    case 'DUPLICATE_KEY':
      return {
        expected: 'each key at most once per mapping',
        message: `YAML syntax: the key '${token}' appears twice in this mapping; expected each key at most once per mapping`,
      };
    case 'MULTIPLE_DOCS':
      return {
        expected: `exactly one YAML document per ${what}`,
        message: `YAML syntax: a second document starts here (---); expected exactly one YAML document per ${what}`,
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
}

/** Follows a path through the YAML document, resolving aliases, as far as it exists. */
function walk(doc: Document, path: readonly PathSegment[]): Walked {
  let node: unknown = doc.contents;
  let key: unknown = undefined;
  let depth = 0;
  for (const seg of path) {
    if (isAlias(node)) node = node.resolve(doc);
    if (isMap(node)) {
      const pair = node.items.find((p) => isScalar(p.key) && String(p.key.value) === String(seg));
      if (!pair) break;
      key = pair.key;
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
  return { depth, node, key };
}

/** The offset of a written field's value, else of its key. */
function valueOffset(doc: Document, path: readonly PathSegment[]): number | undefined {
  const found = walk(doc, path);
  if (found.depth !== path.length) return undefined;
  return nodeOffset(found.node) ?? nodeOffset(found.key);
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
    // Bounded recursion: a self-referencing or deep alias chain is cut at a depth no real file reaches.
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
