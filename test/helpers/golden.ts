/**
 * Golden files: committed expected output that a renderer's result must equal. `npm test` only ever
 * reads them — a missing golden fails the test (it would otherwise pass against itself). After a
 * deliberate change, `UPDATE_GOLDEN=1 npx vitest run <test file>` rewrites them for review in the diff.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';

/** True when the goldens are being regenerated on purpose (`UPDATE_GOLDEN=1`). */
export function updatingGoldens(env: NodeJS.ProcessEnv = process.env): boolean {
  return env['UPDATE_GOLDEN'] === '1';
}

/** Asserts `actual` equals the golden at `file` (a path or file URL); writes it only under `UPDATE_GOLDEN=1`. */
export function expectGolden(file: string | URL, actual: string, env: NodeJS.ProcessEnv = process.env): void {
  const path = typeof file === 'string' ? file : fileURLToPath(file);
  if (updatingGoldens(env)) {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, actual);
  } else if (!existsSync(path)) {
    throw new Error(
      `golden ${path} is missing: write it with UPDATE_GOLDEN=1 npx vitest run <this test file>, review it, and commit it`,
    );
  }
  expect(actual).toBe(readFileSync(path, 'utf8'));
}
