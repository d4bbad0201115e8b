/**
 * Dependency closure from a Backstage service catalog (docs/design/gates.md#blast-radius): a fault in a component reaches every
 * entity that depends on it, directly or through others. When that downstream closure reaches an entity
 * annotated `chaos-gate/shared-spof: "true"`, the run is vetoed and the refusal prints the path
 * (`redis ← payment-api ← checkout (shared SPOF)`, read "redis, which payment-api depends on, which
 * checkout depends on").
 */
import type { Gate } from '../engine/gates.js';
import { refusalsOfCheck } from '../engine/static-gate.js';
import {
  DocumentError,
  parseYamlStream,
  type DocumentIssue,
  type DocumentOptions,
  type ParsedDocument,
} from '../files/document.js';

/** The annotation that marks a shared single point of failure. */
export const SPOF_ANNOTATION = 'chaos-gate/shared-spof';

/**
 * Largest catalog file read. A catalog of a few thousand entities is well under 4 MiB; the bound keeps a
 * mistaken path (a log file, a dump) from being parsed whole.
 */
export const MAX_CATALOG_BYTES = 4 * 1024 * 1024;

/** One catalog entity, by its normalized reference `kind:namespace/name`. */
export interface CatalogEntity {
  ref: string;
  kind: string;
  namespace: string;
  name: string;
  /** Normalized references this entity depends on. */
  dependsOn: string[];
  spof: boolean;
  /** 1-based line of the entity's document. */
  line: number;
}

export interface Catalog {
  file: string;
  entities: Map<string, CatalogEntity>;
}

/** A catalog that cannot be used; every issue names file:line:col. */
export class CatalogError extends DocumentError {
  override name = 'CatalogError';
  constructor(file: string, issues: DocumentIssue[]) {
    super(file, issues, 'catalog');
  }
}

/** How the one loader reads a catalog named `file` (the front door reads it; see compose/). */
export function catalogFile(file: string): DocumentOptions {
  return {
    file,
    what: 'catalog',
    maxBytes: MAX_CATALOG_BYTES,
    limitName: 'MAX_CATALOG_BYTES',
    error: (f, issues) => new CatalogError(f, issues),
  };
}

/**
 * The plan's catalog as the front door read it (`blastRadius.catalog.path`): the entities, or why they
 * could not be had (`catalog-info.yaml:1:1: cannot read the catalog: it does not exist; …`).
 */
export type CatalogInput = { catalog: Catalog } | { problem: string };

/**
 * Normalizes an entity reference. Backstage refs are `[kind:][namespace/]name`, case-insensitive; a
 * relation without a kind means a component, and without a namespace the referring entity's namespace.
 */
export function normalizeRef(ref: string, defaultNamespace = 'default', defaultKind = 'component'): string {
  const text = ref.trim().toLowerCase();
  const colon = text.indexOf(':');
  const kind = colon >= 0 ? text.slice(0, colon) : defaultKind;
  const rest = colon >= 0 ? text.slice(colon + 1) : text;
  const slash = rest.indexOf('/');
  const namespace = slash >= 0 ? rest.slice(0, slash) : defaultNamespace.toLowerCase();
  const name = slash >= 0 ? rest.slice(slash + 1) : rest;
  return `${kind}:${namespace}/${name}`;
}

function asRecord(v: unknown): Record<string, unknown> | undefined {
  return v !== null && typeof v === 'object' && !Array.isArray(v)
    ? (v as Record<string, unknown>)
    : undefined;
}

function stringList(v: unknown): string[] {
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
}

/** Parses multi-document `catalog-info.yaml` text. `dependencyOf` is folded into the other side's `dependsOn`. */
export function parseCatalog(text: string, file: string): Catalog {
  return catalogFromDocuments(parseYamlStream(text, catalogFile(file)), file);
}

/** The catalog of a parsed YAML stream, one entity per document. Throws `CatalogError`. */
export function catalogFromDocuments(docs: readonly ParsedDocument[], file: string): Catalog {
  const entities = new Map<string, CatalogEntity>();
  const reverse: { from: string; to: string }[] = [];
  const problem = (doc: ParsedDocument, expected: string, message: string): CatalogError =>
    new CatalogError(file, [{ file, ...doc.nearest([]), field: '', expected, message }]);
  for (const doc of docs) {
    const data = doc.data;
    if (data === null || data === undefined) continue;
    const line = doc.line;
    const entity = asRecord(data);
    const metadata = asRecord(entity?.['metadata']);
    const kind = entity?.['kind'];
    const name = metadata?.['name'];
    if (!entity || typeof kind !== 'string' || !metadata || typeof name !== 'string' || name === '') {
      throw problem(
        doc,
        'a Backstage catalog entity',
        'an entity needs `kind` and `metadata.name`; expected a Backstage catalog entity',
      );
    }
    const namespace = typeof metadata['namespace'] === 'string' ? metadata['namespace'] : 'default';
    const ref = normalizeRef(`${kind}:${namespace}/${name}`);
    if (entities.has(ref)) throw problem(doc, 'each entity defined once', `${ref} is defined twice`);
    const spec = asRecord(entity['spec']);
    const annotations = asRecord(metadata['annotations']);
    const spofValue = annotations?.[SPOF_ANNOTATION];
    entities.set(ref, {
      ref,
      kind: kind.toLowerCase(),
      namespace: namespace.toLowerCase(),
      name: name.toLowerCase(),
      dependsOn: stringList(spec?.['dependsOn']).map((r) => normalizeRef(r, namespace)),
      spof:
        spofValue === true || (typeof spofValue === 'string' && spofValue.trim().toLowerCase() === 'true'),
      line,
    });
    for (const r of stringList(spec?.['dependencyOf']))
      reverse.push({ from: normalizeRef(r, namespace), to: ref });
  }
  for (const { from, to } of reverse) {
    const dependent = entities.get(from);
    if (dependent && !dependent.dependsOn.includes(to)) dependent.dependsOn.push(to);
  }
  return { file, entities };
}

/** A short name for messages: the bare name for components in `default`, the full reference otherwise. */
export function displayRef(entity: CatalogEntity): string {
  if (entity.kind === 'component' && entity.namespace === 'default') return entity.name;
  return entity.ref;
}

/** One veto: the path from a targeted component to a shared SPOF that depends on it. */
export interface SpofVeto {
  spof: string;
  /** Refs from the targeted component to the SPOF, in dependency order. */
  path: string[];
  /** `redis ← payment-api ← checkout (shared SPOF)`. */
  text: string;
}

export interface ClosureResult {
  /** Every entity the fault can reach, targets included. */
  reached: string[];
  vetoes: SpofVeto[];
  /** Targeted references the catalog does not define. */
  unknown: string[];
}

/**
 * The downstream closure of `targets`: breadth-first over "who depends on me", so each SPOF is reported
 * with a shortest path. A targeted component that is itself a SPOF is vetoed with a one-element path.
 */
export function downstreamClosure(catalog: Catalog, targets: readonly string[]): ClosureResult {
  const dependents = new Map<string, string[]>();
  for (const e of catalog.entities.values()) {
    for (const dep of e.dependsOn) dependents.set(dep, [...(dependents.get(dep) ?? []), e.ref]);
  }
  const parent = new Map<string, string | null>();
  const queue: string[] = [];
  const unknown: string[] = [];
  for (const t of targets) {
    const ref = normalizeRef(t);
    if (!catalog.entities.has(ref)) {
      unknown.push(t);
      continue;
    }
    if (!parent.has(ref)) {
      parent.set(ref, null);
      queue.push(ref);
    }
  }
  for (let i = 0; i < queue.length; i += 1) {
    const ref = queue[i] as string;
    for (const next of dependents.get(ref) ?? []) {
      if (parent.has(next)) continue;
      parent.set(next, ref);
      queue.push(next);
    }
  }
  const vetoes: SpofVeto[] = [];
  for (const ref of queue) {
    const entity = catalog.entities.get(ref);
    if (!entity?.spof) continue;
    const path: string[] = [];
    for (let at: string | null | undefined = ref; at; at = parent.get(at)) path.unshift(at);
    const names = path.map((r) => {
      const e = catalog.entities.get(r);
      return e ? displayRef(e) : r;
    });
    vetoes.push({ spof: ref, path, text: `${names.join(' ← ')} (shared SPOF)` });
  }
  return { reached: queue, vetoes, unknown };
}

export interface CatalogGateOptions {
  /**
   * The catalog the plan names, read by the front door (relative to the plan file, confined to the
   * workspace: docs/design/principles.md#security). Without it, a plan that names a catalog is refused: the gate reads no file.
   */
  catalog?: CatalogInput | undefined;
}

/** The dependency-closure veto as a `static` gate; no catalog in the plan → pass. */
export function catalogGate(options: CatalogGateOptions): Gate {
  const gate: Gate = {
    name: 'dependency-closure',
    stage: 'static',
    async refusals(ctx) {
      return refusalsOfCheck(gate, 'dependency-closure', ctx);
    },
    async check(ctx) {
      const spec = ctx.plan.blastRadius.catalog;
      if (!spec) return { pass: true, note: 'no service catalog in the plan' };
      const input = options.catalog ?? {
        problem: `${spec.path}: cannot read the catalog: no workspace is configured to read it from`,
      };
      if ('problem' in input) {
        return { pass: false, verdict: 'refused', reason: input.problem, field: 'blastRadius.catalog.path' };
      }
      const catalog = input.catalog;
      const closure = downstreamClosure(catalog, spec.components);
      if (closure.unknown.length > 0) {
        return {
          pass: false,
          verdict: 'refused',
          reason: `blastRadius.catalog.components: ${closure.unknown.join(', ')} ${closure.unknown.length === 1 ? 'is' : 'are'} not in ${spec.path}`,
          field: 'blastRadius.catalog.components',
        };
      }
      ctx.record({
        type: 'preflight',
        message: `dependency closure: ${closure.reached.length} entities reachable from ${spec.components.join(', ')}`,
        data: {
          gate: 'dependency-closure',
          reached: closure.reached,
          vetoes: closure.vetoes.map((v) => v.text),
        },
      });
      if (closure.vetoes.length > 0) {
        return {
          pass: false,
          verdict: 'refused',
          reason: `the downstream closure reaches a shared single point of failure: ${closure.vetoes.map((v) => v.text).join('; ')}`,
          field: 'blastRadius.catalog.components',
        };
      }
      return { pass: true, note: `dependency closure: ${closure.reached.length} entities, no shared SPOF` };
    },
  };
  return gate;
}
