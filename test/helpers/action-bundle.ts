/**
 * The action's entry points bundled from the current sources, as `scripts/build.mjs` builds `dist/`
 * (scripts/bundle.mjs), so a test runs the bundled code path as the runner would without rewriting the
 * committed `dist/` that other work in the tree relies on: the suite's bundle (test/setup/bundle.ts), or a
 * fresh one in a temporary directory when the test runs outside the suite's config.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { bundle } from '../../scripts/bundle.mjs';
import { bundledEntry } from './cli.js';

/** A fresh bundle of the action; `dispose()` removes it. */
export interface ActionBundle {
  main: string;
  post: string;
  dispose(): void;
}

/** The suite's bundle of the action, else one built from `src/` into a temp directory (a few seconds). */
export async function buildActionBundle(): Promise<ActionBundle> {
  const [main, post] = [bundledEntry('action'), bundledEntry('post')];
  // The suite built one for every file (test/setup/bundle.ts): nothing to build, nothing to remove.
  if (main && post) return { main, post, dispose: () => undefined };
  const outdir = mkdtempSync(path.join(tmpdir(), 'chaos-gate-action-bundle-'));
  await bundle({ outdir, minify: false });
  return {
    main: path.join(outdir, 'action.js'),
    post: path.join(outdir, 'post.js'),
    dispose: () => rmSync(outdir, { recursive: true, force: true }),
  };
}
