/**
 * The test files `npm run mutate` (StrykerJS) runs against each mutant: the fast unit tests of the
 * mutated folders. Tests that start Prometheus, the sandbox, Chromium or a child process are left out:
 * they take seconds each, and a mutation run repeats the covering tests once per mutant.
 */
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: [
      'test/engine/**/*.test.ts',
      'test/plan/**/*.test.ts',
      'test/metrics/**/*.test.ts',
      'test/preflight/**/*.test.ts',
      'test/sim/world.test.ts',
    ],
    exclude: [
      'test/plan/schema.test.ts', // spawns tsx to regenerate the JSON Schema
      'test/plan/validate-cli.test.ts', // the CLI front door (and Node 24 words parseArgs errors differently)
      'test/metrics/prometheus.test.ts', // a real Prometheus
      'test/metrics/measure.test.ts',
      'test/metrics/selector-re2.test.ts',
      'test/metrics/sigv4-chain.test.ts',
      'test/metrics/quantile-crosscheck.test.ts',
      'test/preflight/plan-resolve.test.ts', // the sandbox in its own process
    ],
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
