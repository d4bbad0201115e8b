/**
 * GitHub's REST description (`@octokit/openapi`, `generated/api.github.com.json`), indexed once into a
 * path matcher and compiled lazily into Ajv validators per operation. The file is read directly: the
 * package index would load every variant (GHES, GHEC, dereferenced copies), some 250 MB.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsImport from 'ajv-formats';
import { missingSandboxDependency, openApiPackageJson } from './requirement.js';

// ajv-formats is CommonJS; under NodeNext its default export arrives as the module object.
const addFormats = ((addFormatsImport as unknown as { default?: unknown }).default ??
  addFormatsImport) as unknown as (ajv: Ajv) => Ajv;

type Json = unknown;
interface ParamSpec {
  name: string;
  in: 'path' | 'query' | 'header' | 'cookie';
  required?: boolean;
  schema?: Record<string, Json>;
}
interface OperationSpec {
  operationId: string;
  parameters?: (ParamSpec | { $ref: string })[];
  requestBody?: { required?: boolean; content?: Record<string, { schema?: Record<string, Json> }> };
  responses?: Record<string, { $ref?: string; content?: Record<string, { schema?: Record<string, Json> }> }>;
}
interface Description {
  paths: Record<string, Record<string, OperationSpec>>;
  components: {
    schemas: Record<string, Json>;
    parameters: Record<string, ParamSpec>;
    responses: Record<string, { content?: Record<string, { schema?: Record<string, Json> }> }>;
  };
}

/** One operation of the description, with its validators compiled on first use. */
export interface Operation {
  operationId: string;
  method: string;
  template: string;
  /** Validates path params + query (coerced from strings); sets defaults such as `per_page`. */
  validateParams(params: Record<string, unknown>): ErrorObject[];
  /** Validates a JSON body; `undefined` for operations without one. */
  validateBody(body: unknown): ErrorObject[];
  hasBody: boolean;
  bodyRequired: boolean;
  /** Validates a response body for `status`; [] when the description has no JSON schema for it. */
  validateResponse(status: number, body: unknown): ErrorObject[];
}

export interface RouteMatch {
  operation: Operation;
  params: Record<string, string>;
}

interface TrieNode {
  literal: Map<string, TrieNode>;
  param?: { node: TrieNode };
  methods?: Map<string, OperationSpec>;
  template?: string;
  /** Parameter names of this node's template, in path order (sibling templates may name them differently). */
  paramNames?: string[];
}

const SCHEMA_ID = 'github-components';

/** Where the description lives in node_modules. */
export function descriptionPath(): string {
  const pkg = openApiPackageJson(import.meta.url);
  if (pkg === undefined) throw new Error(missingSandboxDependency('sandbox', import.meta.url));
  return join(dirname(pkg), 'generated', 'api.github.com.json');
}

/** The indexed description: a matcher over every path plus Ajv instances sharing `components`. */
export class GitHubDescription {
  private readonly root: TrieNode = { literal: new Map() };
  private readonly operations = new Map<OperationSpec, Operation>();
  private readonly bodyAjv: Ajv;
  private readonly paramAjv: Ajv;
  private readonly doc: Description;

  constructor(doc: Description) {
    this.doc = doc;
    for (const [template, methods] of Object.entries(doc.paths)) this.index(template, methods);
    // Bodies: no coercion (GitHub rejects "1" for an integer). Params arrive as strings: coerce.
    this.bodyAjv = makeAjv(false, doc);
    this.paramAjv = makeAjv(true, doc);
  }

  private index(template: string, methods: Record<string, OperationSpec>): void {
    let node = this.root;
    for (const seg of template.split('/').filter(Boolean)) {
      const m = /^\{(.+)\}$/.exec(seg);
      if (m?.[1]) {
        node.param ??= { node: { literal: new Map() } };
        node = node.param.node;
      } else {
        let next = node.literal.get(seg);
        if (!next) node.literal.set(seg, (next = { literal: new Map() }));
        node = next;
      }
    }
    node.template = template;
    node.paramNames = [...template.matchAll(/\{([^}]+)\}/g)].map((m) => m[1] as string);
    node.methods = new Map(Object.entries(methods).filter(([k]) => HTTP_METHODS.has(k)));
  }

  /** Finds the operation for a method and path; literal segments win over parameters. */
  match(method: string, pathname: string): RouteMatch | { pathExists: boolean } {
    const segs = pathname.split('/').filter(Boolean).map(safeDecode);
    const found = walk(this.root, segs, 0, []);
    if (!found) return { pathExists: false };
    const spec = found.node.methods?.get(method.toLowerCase());
    if (!spec || !found.node.template) return { pathExists: true };
    const params: Record<string, string> = {};
    (found.node.paramNames ?? []).forEach((name, i) => (params[name] = found.values[i] as string));
    return { operation: this.operation(method.toLowerCase(), found.node.template, spec), params };
  }

  private operation(method: string, template: string, spec: OperationSpec): Operation {
    const cached = this.operations.get(spec);
    if (cached) return cached;
    const params = (spec.parameters ?? []).map((p) => this.resolveParam(p));
    const json = spec.requestBody?.content?.['application/json']?.schema;
    let paramsValidator: ValidateFunction | undefined;
    let bodyValidator: ValidateFunction | undefined;
    const responseValidators = new Map<number, ValidateFunction | null>();
    const op: Operation = {
      operationId: spec.operationId,
      method,
      template,
      hasBody: json !== undefined,
      bodyRequired: spec.requestBody?.required === true,
      validateParams: (values) => {
        paramsValidator ??= this.paramAjv.compile(rebase(paramsSchema(params)));
        return paramsValidator(values) ? [] : [...(paramsValidator.errors ?? [])];
      },
      validateBody: (body) => {
        if (!json) return [];
        bodyValidator ??= this.bodyAjv.compile(rebase(json));
        return bodyValidator(body) ? [] : [...(bodyValidator.errors ?? [])];
      },
      validateResponse: (status, body) => {
        if (!responseValidators.has(status)) {
          const schema = this.responseSchema(spec, status);
          responseValidators.set(status, schema ? this.bodyAjv.compile(rebase(schema)) : null);
        }
        const v = responseValidators.get(status);
        if (!v) return [];
        return v(body) ? [] : [...(v.errors ?? [])];
      },
    };
    this.operations.set(spec, op);
    return op;
  }

  private resolveParam(p: ParamSpec | { $ref: string }): ParamSpec {
    if ('$ref' in p) {
      const name = p.$ref.replace('#/components/parameters/', '');
      const found = this.doc.components.parameters[name];
      if (!found) throw new Error(`GitHub description: unresolved parameter ${p.$ref}`);
      return found;
    }
    return p;
  }

  private responseSchema(spec: OperationSpec, status: number): Record<string, Json> | undefined {
    const r = spec.responses?.[String(status)];
    if (!r) return undefined;
    const resolved = r.$ref
      ? this.doc.components.responses[r.$ref.replace('#/components/responses/', '')]
      : r;
    return resolved?.content?.['application/json']?.schema;
  }
}

const HTTP_METHODS = new Set(['get', 'post', 'put', 'patch', 'delete', 'head', 'options']);

function walk(
  node: TrieNode,
  segs: string[],
  i: number,
  values: string[],
): { node: TrieNode; values: string[] } | undefined {
  if (i === segs.length) return node.methods ? { node, values } : undefined;
  const seg = segs[i] as string;
  const lit = node.literal.get(seg);
  if (lit) {
    const r = walk(lit, segs, i + 1, values);
    if (r) return r;
  }
  if (node.param) return walk(node.param.node, segs, i + 1, [...values, seg]);
  return undefined;
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

function paramsSchema(params: ParamSpec[]): Record<string, Json> {
  const properties: Record<string, Json> = {};
  const required: string[] = [];
  for (const p of params) {
    if (p.in !== 'path' && p.in !== 'query') continue;
    properties[p.name] = p.schema ?? {};
    if (p.required || p.in === 'path') required.push(p.name);
  }
  return { type: 'object', properties, required };
}

/** Points `#/components/...` references at the shared components schema registered in Ajv. */
function rebase(schema: Json): Record<string, Json> {
  return fromOpenApi(
    JSON.parse(
      JSON.stringify(schema).replaceAll('"$ref":"#/components/', `"$ref":"${SCHEMA_ID}#/components/`),
    ),
  ) as Record<string, Json>;
}

/**
 * Rewrites OpenAPI 3.0's `nullable: true` into JSON Schema. Ajv's own `nullable` support rejects it
 * without a sibling `type` (GitHub's description has `nullable` beside `allOf`/`$ref`) and keeps an
 * `enum` that lacks null, which would refuse `conclusion: null` on an in-progress check run.
 */
export function fromOpenApi(schema: Json): Json {
  if (Array.isArray(schema)) return schema.map(fromOpenApi);
  if (schema === null || typeof schema !== 'object') return schema;
  const out: Record<string, Json> = {};
  for (const [k, v] of Object.entries(schema as Record<string, Json>)) {
    // `example`/`examples` hold data, not schemas; leave them as they are.
    out[k] = k === 'example' || k === 'examples' || k === 'enum' ? v : fromOpenApi(v);
  }
  const nullable = out.nullable === true;
  delete out.nullable;
  if (!nullable) return out;
  if (Array.isArray(out.enum) && !out.enum.includes(null)) out.enum = [...out.enum, null];
  if (typeof out.type === 'string') {
    out.type = [out.type, 'null'];
    return out;
  }
  if (Array.isArray(out.type)) {
    if (!out.type.includes('null')) out.type = [...out.type, 'null'];
    return out;
  }
  return { anyOf: [out, { type: 'null' }] };
}

function makeAjv(coerce: boolean, doc: Description): Ajv {
  const ajv = new Ajv({
    strict: false,
    allErrors: true,
    coerceTypes: coerce,
    useDefaults: coerce,
    validateSchema: false,
  });
  addFormats(ajv);
  // The description's own formats beyond JSON Schema's; GitHub does not enforce their shapes.
  for (const f of [
    'int32',
    'int64',
    'binary',
    'byte',
    'password',
    'repo.nwo',
    'ssh-key',
    'ssh-key fingerprint',
  ]) {
    if (!ajv.formats[f]) ajv.addFormat(f, true);
  }
  ajv.addSchema({ $id: SCHEMA_ID, components: { schemas: fromOpenApi(doc.components.schemas) } });
  return ajv;
}

let cached: GitHubDescription | undefined;

/** Loads and indexes the description once per process (about 13 MB of JSON). */
export function loadDescription(path = descriptionPath()): GitHubDescription {
  if (cached) return cached;
  const doc = JSON.parse(readFileSync(path, 'utf8')) as Description;
  cached = new GitHubDescription(doc);
  return cached;
}
