/**
 * Vitest global setup: bundles the CLI and the action from the current sources with the build that
 * writes dist/ (scripts/bundle.mjs, unminified), and names the directory in `CHAOS_GATE_TEST_BUNDLE` for
 * every test file. Tests that spawn `chaos-gate` (the sandbox, runs, the demo) or the action's steps run
 * this bundle: the code path the runner takes, a start-up of a fraction of a second instead of compiling
 * every module through tsx in each child, and dist/ left alone while the tests run. Without it (a test
 * started outside this config) the helpers fall back to the sources via tsx.
 *
 * The bundle is kept as .tmp/test-bundle-<key>/, keyed by the sources it was built from (every file's path,
 * size and modification time under src/, the build script and the lockfile): a second run over unchanged
 * sources reuses it, any edit builds a new one. It is built beside its final name and renamed into place,
 * so runs started together never read a half-written bundle.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundle } from '../../scripts/bundle.mjs';
import { BUNDLE_ENV } from '../helpers/cli.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
/**
 * Under the repository and as deep as dist/ (.tmp/test-bundle-<key>/chunks/): the demo finds fixtures/ by
 * walking up from its chunk, and packages resolve from node_modules/.
 */
const CACHE = path.join(ROOT, '.tmp');
const PREFIX = 'test-bundle-';
/** Bundles kept for other source states (another branch, an edit undone), newest first. */
const KEEP = 3;

function sourcesKey(): string {
  const hash = createHash('sha256');
  const visit = (p: string): void => {
    const st = statSync(p);
    if (st.isDirectory()) {
      for (const name of readdirSync(p).sort()) visit(path.join(p, name));
    } else {
      hash.update(`${path.relative(ROOT, p)}\0${st.size}\0${st.mtimeMs}\n`);
    }
  };
  for (const p of ['src', 'scripts/bundle.mjs', 'package-lock.json']) visit(path.join(ROOT, p));
  return hash.digest('hex').slice(0, 16);
}

function prune(keep: string): void {
  const others = readdirSync(CACHE)
    .filter((name) => name.startsWith(PREFIX) && !name.includes('.building-') && name !== keep)
    .map((name) => ({ name, mtime: statSync(path.join(CACHE, name)).mtimeMs }))
    .sort((a, b) => b.mtime - a.mtime);
  for (const old of others.slice(KEEP - 1))
    rmSync(path.join(CACHE, old.name), { recursive: true, force: true });
}

export default async function setup(): Promise<void> {
  const key = sourcesKey();
  const outdir = path.join(CACHE, `${PREFIX}${key}`);
  if (!existsSync(path.join(outdir, 'cli.js'))) {
    const building = `${outdir}.building-${process.pid}`;
    mkdirSync(building, { recursive: true });
    await bundle({ outdir: building, minify: false });
    try {
      renameSync(building, outdir);
    } catch {
      // Another run renamed the same sources' bundle into place first: use that one.
      rmSync(building, { recursive: true, force: true });
    }
  }
  prune(`${PREFIX}${key}`);
  process.env[BUNDLE_ENV] = outdir;
}
