import { defineConfig } from 'vitest/config';
import LongestFirst from './test/setup/sequencer.js';

export default defineConfig({
  test: {
    // Only the suite: `.tmp/` holds mutation-run sandboxes with copies of the tests.
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // A worker imports vitest, the helpers and the sources once for all the files it runs, instead of
    // once per file (vitest's isolation off): 1.4 CPU-seconds saved per file that starts processes, half
    // the import cost of one that does not. Files that change process-wide state (process.env, the
    // redactor's registrations) restore it in their own hooks, as they must anyway.
    isolate: false,
    // Files run side by side: most of the suite waits on child processes, sockets and timers (a sandbox
    // run is mostly its fault's duration), so more files than cores keeps the cores busy. Each file that
    // starts a sandbox starts its own. CHAOS_GATE_TEST_WORKERS overrides (1 runs the files one by one).
    // Eight: the suite waits far more than it computes (3 min 25 s of CPU in 4 min 26 s of wall time on
    // 2 cores at eight, 5 min 17 s at six, 2026-12-04, 237 files), so more files side by side finish sooner.
    maxWorkers: Number(process.env.CHAOS_GATE_TEST_WORKERS) || 8,
    // The longest files first, also on a fresh clone (test/setup/sequencer.ts).
    sequence: { sequencer: LongestFirst },
    // One bundle of the CLI and the action per run, for every test that spawns them (test/setup/bundle.ts).
    globalSetup: ['test/setup/bundle.ts'],
  },
});
