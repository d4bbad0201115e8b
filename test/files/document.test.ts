/**
 * One loader for every YAML/JSON file chaos-gate reads: the same limits and the same wording whether
 * the file is a plan, a policy, a scenario, a service catalog or a saved FIS template.
 */
import { describe, expect, it } from 'vitest';
import { DocumentError, formatIssue, parseYamlStream } from '../../src/files/document.js';
import { readTemplateFile } from '../../src/plan/import.js';
import { parsePlan } from '../../src/plan/load.js';
import { parseCatalog } from '../../src/preflight/catalog.js';
import { parsePolicy } from '../../src/preflight/policy.js';
import { parseScenario } from '../../src/sim/scenario.js';

const LOADERS: [string, (text: string, file: string) => unknown][] = [
  ['plan', parsePlan],
  ['policy', parsePolicy],
  ['scenario', parseScenario],
  ['catalog', parseCatalog],
  ['FIS template', readTemplateFile],
];

/** The issue lines of what `load` threw (every loader throws a DocumentError subclass). */
function issuesOf(load: () => unknown): string[] {
  try {
    load();
  } catch (error) {
    if (error instanceof DocumentError) return error.issues.map(formatIssue);
    throw error;
  }
  throw new Error('loaded without issues');
}

const BOMB = [
  'a: &a [x, x, x, x, x, x, x, x, x, x]',
  'b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]',
  'c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]',
  'd: [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]',
  '',
].join('\n');

describe('every loader applies the same limits, in the same words', () => {
  it.each(LOADERS)('%s: a YAML alias bomb is refused where the biggest alias is written', (_, load) => {
    const [issue, ...rest] = issuesOf(() => load(BOMB, 'f.yaml'));
    expect(rest).toEqual([]);
    expect(issue).toMatch(/^f\.yaml:4:5: d\[0\]: YAML alias \*c expands the document beyond the limit/);
    expect(issue).toContain('at most 100 alias expansions');
  });

  it.each(LOADERS)('%s: a key written twice is named at its second place', (_, load) => {
    expect(issuesOf(() => load('version: 1\nversion: 1\n', 'f.yaml'))).toEqual([
      "f.yaml:2:1: version: YAML syntax: the key 'version' appears twice in this mapping; expected each key at most once per mapping",
    ]);
  });

  it.each(LOADERS)('%s: a custom tag is refused, not resolved', (_, load) => {
    const [issue] = issuesOf(() => load('version: !!python/object:os.system x\n', 'f.yaml'));
    expect(issue).toMatch(
      /^f\.yaml:1:10: version: YAML syntax: unsupported tag !!python\/object:os\.system;/,
    );
  });
});

describe('parseYamlStream', () => {
  it('locates each document and its fields from the start of the stream', () => {
    const [first, second] = parseYamlStream('a: 1\n---\n\nb:\n  c: 2\n', {
      file: 's.yaml',
      what: 'catalog',
      maxBytes: 1024,
    });
    expect(first?.line).toBe(1);
    expect(second?.line).toBe(4);
    expect(second?.locate('b.c')).toEqual({ line: 5, column: 6 });
    expect(second?.nearest(['b', 'missing'])).toEqual({ line: 4, column: 1 });
  });

  it('reports a syntax error in a later document at its own line', () => {
    const o = { file: 's.yaml', what: 'catalog', maxBytes: 1024 };
    expect(issuesOf(() => parseYamlStream('a: 1\n---\nb:\n\tc: 2\n', o))).toEqual([
      's.yaml:4:1: YAML syntax: a tab is used for indentation; expected indentation with spaces',
    ]);
  });

  it('refuses text over the cap before parsing it, naming the limit', () => {
    const o = { file: 's.yaml', what: 'catalog', maxBytes: 8, limitName: 'MAX_TEST_BYTES' };
    expect(issuesOf(() => parseYamlStream('a: 123456789\n', o))).toEqual([
      's.yaml:1:1: the catalog is 13 bytes; expected at most 8 bytes (MAX_TEST_BYTES)',
    ]);
  });
});
