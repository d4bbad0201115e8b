/**
 * Bundles the action's entry points (`src/action/index.ts`, `src/action/post.ts`) from the current
 * sources into a temporary directory, the way `scripts/build.mjs` builds `dist/` (ESM, code splitting, the
 * `require` banner), so a test runs the bundled code path as the runner would without rewriting the
 * committed `dist/` that other work in the tree relies on.
 */
import { build } from 'esbuild';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** A fresh bundle of the action; `dispose()` removes it. */
export interface ActionBundle {
  main: string;
  post: string;
  dispose(): void;
}

/** Builds the action from `src/` into a temp directory (a few seconds). */
export async function buildActionBundle(): Promise<ActionBundle> {
  const outdir = mkdtempSync(path.join(tmpdir(), 'chaos-gate-action-bundle-'));
  await build({
    absWorkingDir: ROOT,
    entryPoints: { action: 'src/action/index.ts', post: 'src/action/post.ts' },
    outdir,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    splitting: true,
    chunkNames: 'chunks/[name]-[hash]',
    logLevel: 'error',
    banner: {
      js: [
        "import { createRequire as __cgCreateRequire } from 'node:module';",
        'const require = __cgCreateRequire(import.meta.url);',
      ].join('\n'),
    },
  });
  return {
    main: path.join(outdir, 'action.js'),
    post: path.join(outdir, 'post.js'),
    dispose: () => rmSync(outdir, { recursive: true, force: true }),
  };
}
