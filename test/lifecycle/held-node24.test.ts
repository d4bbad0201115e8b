/**
 * The held run of ./held-case.ts under Node 24, as `runs.using: node24` runs the action on GitHub. Its own
 * file (and sandbox), so it runs beside the other lifecycle cases. Skipped, saying why, without a Node 24
 * binary (CHAOS_GATE_NODE24, which `.ci/run` sets).
 */
import { existsSync } from 'node:fs';
import { describe, it } from 'vitest';
import { held } from './held-case.js';
import { CASE_TIMEOUT_MS, NODE24, useLifecycleSandbox } from './world.js';

useLifecycleSandbox();

describe('the bundled action held under Node 24, under the runner lifecycle (sandbox)', () => {
  it.skipIf(!existsSync(NODE24))(
    `held on push under Node 24, as runs.using: node24 runs it${existsSync(NODE24) ? '' : ' (skipped: no Node 24 binary; set CHAOS_GATE_NODE24)'}`,
    held('push', NODE24),
    CASE_TIMEOUT_MS,
  );
});
