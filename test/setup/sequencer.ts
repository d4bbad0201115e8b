/**
 * The order test files start in. Files run side by side (vitest.config.ts), so the run lasts at least as
 * long as its longest file, and a long file started last makes it longer still. Each file is ranked by
 * how long it is expected to take, longest first:
 * 1. vitest's own record of the last run on this machine, when it has one;
 * 2. else test/setup/durations.json, the durations of a full run committed with the suite
 *    (`npm run test:durations` refreshes it), so a fresh clone starts in the same order;
 * 3. else, for a file newer than that record, by what it starts: a sandbox run to its end (lifecycle,
 *    reliability, the demo) before the end-to-end suites, before everything else.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/** Folders whose files start a sandbox and run faults to their end, with a typical duration (ms). */
const EXPECTED_MS: readonly [RegExp, number][] = [
  [/^test\/(lifecycle|reliability|demo)\//, 60_000],
  [/^test\/(e2e|security|github)\/|^test\/preflight\/plan-resolve/, 25_000],
];

/** The committed durations (ms) by file path from the repository root; empty when the file is absent. */
export function committedDurations(root: string): Record<string, number> {
  const file = join(root, 'test/setup/durations.json');
  return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as Record<string, number>) : {};
}

/** A file's expected duration (ms) when neither vitest nor the committed record knows it. */
export function guessMs(rel: string): number {
  return EXPECTED_MS.find(([re]) => re.test(rel))?.[1] ?? 0;
}

export default class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const root = this.ctx.config.root;
    const committed = committedDurations(root);
    const expected = (spec: TestSpecification): number => {
      const rel = spec.moduleId.slice(root.length + 1);
      const recorded = this.ctx.cache.getFileTestResults(`${spec.project.name}:${rel}`);
      return recorded?.duration ?? committed[rel] ?? guessMs(rel);
    };
    const base = await super.sort(files);
    const weight = new Map(base.map((f) => [f, expected(f)]));
    // Stable: equal weights keep vitest's order (failed first, then larger files first).
    return base
      .map((f, i) => ({ f, i }))
      .sort((a, b) => (weight.get(b.f) ?? 0) - (weight.get(a.f) ?? 0) || a.i - b.i)
      .map(({ f }) => f);
  }
}
