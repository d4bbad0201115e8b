/**
 * The order test files start in. Files run side by side (vitest.config.ts), so the run lasts at least as
 * long as its longest file, and a long file started last makes it longer still. Vitest starts the files
 * that took longest in the previous run first; on a fresh clone it has no such record and starts the
 * largest files first, which puts the sandbox suites (small files over a shared harness) last. This
 * sequencer keeps vitest's order where it has a recorded duration and otherwise ranks a file by what it
 * starts: a sandbox run to its end (lifecycle, reliability, the demo) before the end-to-end suites, before
 * everything else.
 */
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/** Folders whose files start a sandbox and run faults to their end, with a typical duration (ms). */
const EXPECTED_MS: readonly [RegExp, number][] = [
  [/^test\/(lifecycle|reliability|demo)\//, 90_000],
  [/^test\/(e2e|security|github)\/|^test\/preflight\/plan-resolve/, 30_000],
];

export default class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const root = this.ctx.config.root;
    const expected = (spec: TestSpecification): number => {
      const rel = spec.moduleId.slice(root.length + 1);
      const recorded = this.ctx.cache.getFileTestResults(`${spec.project.name}:${rel}`);
      if (recorded) return recorded.duration;
      return EXPECTED_MS.find(([re]) => re.test(rel))?.[1] ?? 0;
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
