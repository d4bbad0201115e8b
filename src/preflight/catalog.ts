/**
 * Dependency closure from a Backstage service catalog (SPEC §5.5): a fault in a component reaches every
 * entity that depends on it, directly or through others. When that downstream closure reaches an entity
 * annotated `chaos-gate/shared-spof: "true"`, the run is vetoed and the refusal prints the path
 * (`redis ← payment-api ← checkout (shared SPOF)`, read "redis, which payment-api depends on, which
 * checkout depends on").
 */
import { LineCounter, parseAllDocuments } from 'yaml';
import type { Gate } from '../engine/gates.js';
import { refusalsOfCheck } from '../engine/static-gate.js';
import { FileReadError, type PlanFileReader } from '../files/read.js';
import { MAX_YAML_ALIASES } from '../plan/load.js';

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

/** A catalog problem, located in the file. */
export class CatalogError extends Error {
  override name = 'CatalogError';
  constructor(
    readonly file: string,
    readonly line: number,
    detail: string,
  ) {
    super(`${file}:${line}: ${detail}`);
  }
}

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
  if (Buffer.byteLength(text, 'utf8') > MAX_CATALOG_BYTES) {
    throw new CatalogError(
      file,
      1,
      `the catalog is larger than ${MAX_CATALOG_BYTES} bytes (MAX_CATALOG_BYTES)`,
    );
  }
  const lineCounter = new LineCounter();
  const docs = parseAllDocuments(text, { lineCounter, prettyErrors: false });
  if (!Array.isArray(docs)) {
    throw new CatalogError(file, 1, 'not a YAML stream');
  }
  const entities = new Map<string, CatalogEntity>();
  const reverse: { from: string; to: string }[] = [];
  for (const doc of docs) {
    // A document's range starts at its `---`; the entity itself starts at its contents.
    const line = lineCounter.linePos(doc.contents?.range?.[0] ?? doc.range[0]).line;
    const error = doc.errors[0];
    if (error)
      throw new CatalogError(file, lineCounter.linePos(error.pos[0]).line, `YAML syntax: ${error.message}`);
    let data: unknown;
    try {
      data = doc.toJS({ maxAliasCount: MAX_YAML_ALIASES });
    } catch (e) {
      throw new CatalogError(file, line, e instanceof Error ? e.message : String(e));
    }
    if (data === null || data === undefined) continue;
    const entity = asRecord(data);
    const metadata = asRecord(entity?.['metadata']);
    const kind = entity?.['kind'];
    const name = metadata?.['name'];
    if (!entity || typeof kind !== 'string' || !metadata || typeof name !== 'string' || name === '') {
      throw new CatalogError(
        file,
        line,
        'an entity needs `kind` and `metadata.name`; expected a Backstage catalog entity',
      );
    }
    const namespace = typeof metadata['namespace'] === 'string' ? metadata['namespace'] : 'default';
    const ref = normalizeRef(`${kind}:${namespace}/${name}`);
    if (entities.has(ref)) throw new CatalogError(file, line, `${ref} is defined twice`);
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
   * Reads `blastRadius.catalog.path` (relative to the plan file, confined to the workspace: SPEC §11).
   * Without one, a plan that names a catalog is refused: the gate never reads a file on its own.
   */
  read?: PlanFileReader | undefined;
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
      let catalog: Catalog;
      try {
        if (!options.read) throw new Error('no workspace is configured to read it from');
        const { text } = await options.read(spec.path, 'service catalog', MAX_CATALOG_BYTES);
        catalog = parseCatalog(text, spec.path);
      } catch (error) {
        const detail =
          error instanceof CatalogError
            ? error.message
            : error instanceof FileReadError
              ? `${spec.path}: cannot read the catalog: ${error.reason}; expected ${error.expected}`
              : `${spec.path}: cannot read the catalog: ${error instanceof Error ? error.message : String(error)}`;
        return { pass: false, verdict: 'refused', reason: detail, field: 'blastRadius.catalog.path' };
      }
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
