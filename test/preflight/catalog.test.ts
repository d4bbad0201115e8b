import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { JournalEvent } from '../../src/journal/types.js';
import {
  CatalogError,
  catalogGate,
  downstreamClosure,
  normalizeRef,
  parseCatalog,
} from '../../src/preflight/catalog.js';
import { planWith } from '../sim/helpers.js';
import { planFileReader } from '../../src/files/read.js';
import { readCatalog } from '../../src/compose/inputs.js';
import type { Plan } from '../../src/plan/schema.js';

const catalog = () =>
  parseCatalog(readFileSync('fixtures/catalog/catalog-info.yaml', 'utf8'), 'catalog-info.yaml');

describe('entity references', () => {
  it.each([
    ['component:default/redis', 'component:default/redis'],
    ['redis', 'component:default/redis'],
    ['Component:Default/Redis', 'component:default/redis'],
    ['resource:search-index', 'resource:default/search-index'],
    ['component:payments/api', 'component:payments/api'],
  ])('%s normalizes to %s', (ref, normal) => {
    expect(normalizeRef(ref)).toBe(normal);
  });
});

describe('downstreamClosure', () => {
  it('follows dependents, not dependencies: a fault in redis reaches what depends on redis', () => {
    const c = downstreamClosure(catalog(), ['component:default/redis']);
    expect(c.reached.sort()).toEqual(
      [
        'component:default/cart',
        'component:default/checkout',
        'component:default/payment-api',
        'component:default/redis',
        'component:default/storefront',
      ].sort(),
    );
    expect(c.vetoes.map((v) => v.text)).toEqual(['redis ← payment-api ← checkout (shared SPOF)']);
  });

  it.each([
    // [targets, vetoes]
    [['component:default/checkout'], ['checkout (shared SPOF)']], // the target itself is the SPOF
    [
      ['resource:default/payments-db'],
      ['resource:default/payments-db ← payment-api ← checkout (shared SPOF)'],
    ], // via dependencyOf
    [['resource:default/search-index'], []], // reaches search and storefront, no SPOF
    [['component:default/cart'], []],
    [['component:default/storefront'], []], // nothing depends on the storefront
  ])('targets %j → vetoes %j', (targets, vetoes) => {
    expect(downstreamClosure(catalog(), targets).vetoes.map((v) => v.text)).toEqual(vetoes);
  });

  it('does not walk upstream: the dependencies of a target are not reached', () => {
    const c = downstreamClosure(catalog(), ['component:default/search']);
    expect(c.reached).not.toContain('resource:default/search-index');
    expect(c.reached).toContain('component:default/storefront');
  });

  it('lists targets the catalog does not define', () => {
    expect(downstreamClosure(catalog(), ['component:default/ghost']).unknown).toEqual([
      'component:default/ghost',
    ]);
  });

  it('terminates on dependency cycles', () => {
    const text = [
      'kind: Component\nmetadata: { name: a }\nspec: { dependsOn: [component:b] }',
      'kind: Component\nmetadata: { name: b }\nspec: { dependsOn: [component:a] }',
    ].join('\n---\n');
    expect(downstreamClosure(parseCatalog(text, 'c.yaml'), ['a']).reached.sort()).toEqual([
      'component:default/a',
      'component:default/b',
    ]);
  });
});

describe('parseCatalog', () => {
  it('names the file and line of an entity without a name', () => {
    const text = readFileSync('fixtures/catalog/invalid-entity.yaml', 'utf8');
    expect(() => parseCatalog(text, 'invalid-entity.yaml')).toThrow(CatalogError);
    expect(() => parseCatalog(text, 'invalid-entity.yaml')).toThrow(
      /^invalid-entity\.yaml:6:1: an entity needs `kind` and `metadata.name`/m,
    );
  });

  it('refuses an entity defined twice', () => {
    const text = 'kind: Component\nmetadata: { name: a }\n---\nkind: Component\nmetadata: { name: A }\n';
    expect(() => parseCatalog(text, 'c.yaml')).toThrow('c.yaml:4:1: component:default/a is defined twice');
  });
});

describe('catalogGate', () => {
  const events: Omit<JournalEvent, 'at'>[] = [];
  const ctx = (components: string[], path = 'catalog-info.yaml') => ({
    plan: planWith((p) => {
      p.blastRadius = { ...p.blastRadius, catalog: { path, components } };
    }),
    now: 0,
    record: (e: Omit<JournalEvent, 'at'>) => events.push(e),
  });
  /** The gate as the front door builds it: the catalog the plan names, read from the plan's folder. */
  const gateFor = async (plan: Plan) =>
    catalogGate({ catalog: await readCatalog(plan, planFileReader('fixtures/catalog', process.cwd())) });
  const check = async (c: ReturnType<typeof ctx>) => (await gateFor(c.plan)).check(c);

  it('vetoes a closure that reaches a shared SPOF and prints the path', async () => {
    const outcome = await check(ctx(['component:default/redis']));
    expect(outcome).toEqual({
      pass: false,
      verdict: 'refused',
      reason:
        'the downstream closure reaches a shared single point of failure: redis ← payment-api ← checkout (shared SPOF)',
      field: 'blastRadius.catalog.components',
    });
  });

  it('passes a closure without a SPOF and records what it reached', async () => {
    const outcome = await check(ctx(['resource:default/search-index']));
    expect(outcome.pass).toBe(true);
    expect(events.at(-1)?.data?.['reached']).toEqual([
      'resource:default/search-index',
      'component:default/search',
      'component:default/storefront',
    ]);
  });

  it('refuses a component missing from the catalog', async () => {
    const outcome = await check(ctx(['component:default/ghost']));
    expect(outcome).toMatchObject({
      pass: false,
      verdict: 'refused',
      reason: 'blastRadius.catalog.components: component:default/ghost is not in catalog-info.yaml',
    });
  });

  it('refuses an unreadable catalog, naming the path', async () => {
    const outcome = await check(ctx(['redis'], 'missing.yaml'));
    expect(outcome).toMatchObject({ pass: false, verdict: 'refused', field: 'blastRadius.catalog.path' });
    expect(!outcome.pass && outcome.reason).toMatch(
      /^missing\.yaml:1:1: cannot read the catalog: it does not exist/,
    );
  });

  it('refuses a catalog that does not parse, naming file:line:col', async () => {
    const outcome = await check(ctx(['redis'], 'invalid-entity.yaml'));
    expect(outcome).toMatchObject({ pass: false, verdict: 'refused', field: 'blastRadius.catalog.path' });
    expect(!outcome.pass && outcome.reason).toMatch(/^invalid-entity\.yaml:6:1: an entity needs `kind`/);
  });

  it('passes without reading anything when the plan names no catalog', async () => {
    const plan = planWith(() => {});
    expect(await readCatalog(plan, planFileReader('fixtures/catalog', process.cwd()))).toBeUndefined();
    const outcome = await (await gateFor(plan)).check({ plan, now: 0, record: () => {} });
    expect(outcome).toEqual({ pass: true, note: 'no service catalog in the plan' });
  });
});
