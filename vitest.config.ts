import { defineConfig } from 'vitest/config';
import { splitTestFiles } from './test/setup/projects.js';
import LongestFirst from './test/setup/sequencer.js';

// Files that start no process share their worker's modules (test/setup/projects.ts).
const { inProcess, startsProcesses } = splitTestFiles(import.meta.dirname);

export default defineConfig({
  test: {
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Files run side by side: most of the suite waits on child processes, sockets and timers (a sandbox
    // run is mostly its fault's duration), so more files than cores keeps the cores busy. Each file that
    // starts a sandbox starts its own. CHAOS_GATE_TEST_WORKERS overrides (1 runs the files one by one).
    // Five were 10 % faster on an idle machine but saturated both cores, and runs whose steady-state reads
    // missed their tick failed closed (not-run) where the tests expect a fault.
    maxWorkers: Number(process.env.CHAOS_GATE_TEST_WORKERS) || 4,
    // The longest files first, also on a fresh clone (test/setup/sequencer.ts).
    sequence: { sequencer: LongestFirst },
    // One bundle of the CLI and the action per run, for every test that spawns them (test/setup/bundle.ts).
    globalSetup: ['test/setup/bundle.ts'],
    projects: [
      { extends: true, test: { name: 'in-process', include: inProcess, isolate: false } },
      { extends: true, test: { name: 'processes', include: startsProcesses } },
    ],
  },
});
