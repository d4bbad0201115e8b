/**
 * No circle of imports in the product, type-only imports included: lint's `import-x/no-cycle` counts only
 * the imports that remain at run time, and a circle of types still hides which module is the lower
 * layer. Every import and re-export of src/ (read with TypeScript's own pre-processor) is followed; the
 * only circle allowed is the one named below, which the run listener removes.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const SRC = resolve('src');

/**
 * `RunShared` and `RunDeps` live in engine/run.ts, and the phases the run hands them to import them as
 * types (issue 32, step 3: one run listener and one typed request replace them).
 */
const KNOWN_CIRCLES = [['engine/header.ts', 'engine/observe.ts', 'engine/phases.ts', 'engine/run.ts']];

/** What a module's text imports or re-exports, `import type` and `import()` included. */
function importsOf(text: string): string[] {
  return ts.preProcessFile(text, true, true).importedFiles.map((f) => f.fileName);
}

/** Each src/ module and the src/ modules it imports (values and types). */
function importGraph(): Map<string, string[]> {
  const files = readdirSync(SRC, { recursive: true, encoding: 'utf8' })
    .filter((p) => p.endsWith('.ts'))
    .map((p) => join(SRC, p));
  const known = new Set(files);
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const targets = importsOf(readFileSync(file, 'utf8'))
      .filter((name) => name.startsWith('.'))
      .map((name) => resolve(dirname(file), name.replace(/\.js$/, '.ts')))
      .filter((target) => known.has(target));
    graph.set(file, [...new Set(targets)]);
  }
  return graph;
}

/** The strongly connected components of more than one module (Tarjan), each sorted. */
function circles(graph: Map<string, string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, next);
    low.set(v, next);
    next += 1;
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    for (let w = stack.pop(); w !== undefined; w = stack.pop()) {
      onStack.delete(w);
      component.push(relative(SRC, w).split('\\').join('/'));
      if (w === v) break;
    }
    if (component.length > 1) found.push(component.sort());
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return found.sort((a, b) => a[0]!.localeCompare(b[0]!));
}

describe('import circles in src/', () => {
  it('finds none but the named one', () => {
    expect(circles(importGraph())).toEqual(KNOWN_CIRCLES);
  });

  it('reads type-only imports, re-exports and dynamic imports', () => {
    const text =
      "import type { A } from './a.js';\nexport type { B } from './b.js';\n" +
      "import { type C } from './c.js';\nexport const d = () => import('./d.js');\n";
    expect(importsOf(text)).toEqual(['./a.js', './b.js', './c.js', './d.js']);
  });

  it('finds a circle of two modules', () => {
    const a = join(SRC, 'a.ts');
    const b = join(SRC, 'b.ts');
    expect(
      circles(
        new Map([
          [a, [b]],
          [b, [a]],
        ]),
      ),
    ).toEqual([['a.ts', 'b.ts']]);
  });
});
