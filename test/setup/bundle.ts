/**
 * Vitest global setup: bundles the CLI and the action from the current sources once per test run, with
 * the build that writes dist/ (scripts/bundle.mjs, unminified), and names the directory in
 * `CHAOS_GATE_TEST_BUNDLE` for every test file. Tests that spawn `chaos-gate` (the sandbox, runs, the
 * demo) or the action's steps run this bundle: the code path the runner takes, a start-up of a fraction
 * of a second instead of compiling every module through tsx in each child, and dist/ left alone while the
 * tests run. Without it (a test started outside this config) the helpers fall back to the sources via tsx.
 */
import { mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundle } from '../../scripts/bundle.mjs';
import { BUNDLE_ENV } from '../helpers/cli.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export default async function setup(): Promise<() => void> {
  // Under the repository (as dist/ is), so the demo finds fixtures/ by walking up from the bundle and
  // packages resolve from node_modules/; one directory per run, so two runs never share a bundle.
  const outdir = path.join(ROOT, '.tmp', `test-bundle-${process.pid}`);
  mkdirSync(outdir, { recursive: true });
  await bundle({ outdir, minify: false });
  process.env[BUNDLE_ENV] = outdir;
  return () => rmSync(outdir, { recursive: true, force: true });
}
