/**
 * How a Backstage catalog is read: reference defaults, the entities a stream holds (empty documents
 * skipped, malformed ones refused), relations resolved in the entity's namespace, `dependencyOf` folded
 * into the other side once, the SPOF annotation's spellings, and the short names messages use.
 */
import { describe, expect, it } from 'vitest';
import {
  CatalogError,
  displayRef,
  downstreamClosure,
  normalizeRef,
  parseCatalog,
  type Catalog,
} from '../../src/preflight/catalog.js';

const entity = (name: string, more = '', kind = 'Component') =>
  `apiVersion: backstage.io/v1alpha1\nkind: ${kind}\nmetadata:\n  name: ${name}\n${more}`;
const parse = (...docs: string[]): Catalog => parseCatalog(docs.join('\n---\n'), 'catalog-info.yaml');
const deps = (c: Catalog, ref: string) => c.entities.get(ref)?.dependsOn;

describe('normalizeRef defaults', () => {
  it('trims, and takes the default namespace and kind it is given, lowercased', () => {
    expect(normalizeRef('  Redis ')).toBe('component:default/redis');
    expect(normalizeRef('redis', 'Payments')).toBe('component:payments/redis');
    expect(normalizeRef('redis', 'default', 'resource')).toBe('resource:default/redis');
    expect(normalizeRef('other/redis', 'payments')).toBe('component:other/redis');
  });
});

describe('parseCatalog', () => {
  it('skips empty documents', () => {
    expect([...parse('', entity('redis'), '').entities.keys()]).toEqual(['component:default/redis']);
  });

  it('resolves relations in the entity namespace and ignores entries that are not strings', () => {
    const c = parse(
      entity('api', '  namespace: payments\nspec:\n  dependsOn: [redis, 42, "component:default/db"]'),
    );
    expect(deps(c, 'component:payments/api')).toEqual(['component:payments/redis', 'component:default/db']);
  });

  it('folds dependencyOf into the other side once, and ignores one naming an unknown entity', () => {
    const c = parse(
      entity('api', 'spec:\n  dependsOn: [redis]'),
      entity('redis', 'spec:\n  dependencyOf: [api, ghost]'),
      entity('db', 'spec:\n  dependencyOf: [api]'),
    );
    expect(deps(c, 'component:default/api')).toEqual(['component:default/redis', 'component:default/db']);
    expect(c.entities.has('component:default/ghost')).toBe(false);
  });

  it('reads the SPOF annotation as true or "true" in any case, and nothing else', () => {
    const spof = (value: string) =>
      parse(entity('x', `  annotations:\n    chaos-gate/shared-spof: ${value}`)).entities.get(
        'component:default/x',
      )?.spof;
    expect(spof('true')).toBe(true);
    expect(spof('" TRUE "')).toBe(true);
    expect(spof('"false"')).toBe(false);
    expect(spof('"yes"')).toBe(false);
    expect(parse(entity('x')).entities.get('component:default/x')?.spof).toBe(false);
  });

  it.each([
    ['a kind that is not a string', 'apiVersion: v1\nkind: [Component]\nmetadata:\n  name: x'],
    ['an empty name', entity('""')],
    ['metadata that is a list', 'kind: Component\nmetadata: [name]'],
    ['an entity that is a list', '- kind: Component'],
  ])('refuses %s', (_what, doc) => {
    expect(() => parse(doc)).toThrow(CatalogError);
  });
});

describe('names in messages and the closure', () => {
  it('shortens only default-namespace components', () => {
    const c = parse(entity('redis'), entity('api', '  namespace: payments'), entity('index', '', 'Resource'));
    const shown = (ref: string) => displayRef(c.entities.get(ref)!);
    expect(shown('component:default/redis')).toBe('redis');
    expect(shown('component:payments/api')).toBe('component:payments/api');
    expect(shown('resource:default/index')).toBe('resource:default/index');
  });

  it('reaches a target named twice once', () => {
    const c = parse(entity('redis'), entity('api', 'spec:\n  dependsOn: [redis]'));
    expect(downstreamClosure(c, ['redis', 'Redis']).reached).toEqual([
      'component:default/redis',
      'component:default/api',
    ]);
  });
});
