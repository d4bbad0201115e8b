import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // One bundle of the CLI and the action per run, for every test that spawns them (test/setup/bundle.ts).
    globalSetup: ['test/setup/bundle.ts'],
  },
});
