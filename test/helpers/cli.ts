/**
 * How a test starts chaos-gate as a child process: from the suite's bundle of the current sources
 * (test/setup/bundle.ts) when there is one, else from the sources through tsx (a test file or bench
 * script run outside the vitest config).
 */
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
/** tsx's loader by URL, so the sources run from any working directory. */
const TSX = pathToFileURL(path.join(ROOT, 'node_modules/tsx/dist/loader.mjs')).href;

/** The environment variable naming the suite's bundle directory. */
export const BUNDLE_ENV = 'CHAOS_GATE_TEST_BUNDLE';

/** The entries of a bundle, as scripts/bundle.mjs names them, and their sources. */
const SOURCES = {
  cli: 'src/cli/index.ts',
  action: 'src/action/index.ts',
  post: 'src/action/post.ts',
} as const;

export type Entry = keyof typeof SOURCES;

/** The suite's bundle of `entry`, or undefined when the suite built none. */
export function bundledEntry(entry: Entry, env: NodeJS.ProcessEnv = process.env): string | undefined {
  const dir = env[BUNDLE_ENV];
  return dir ? path.join(dir, `${entry}.js`) : undefined;
}

/** The Node arguments that run `entry` with `args`: the bundle, else `--import tsx <source>`. */
export function nodeArgs(entry: Entry, args: readonly string[] = []): string[] {
  const bundled = bundledEntry(entry);
  if (bundled) return [bundled, ...args];
  return ['--import', TSX, path.join(ROOT, SOURCES[entry]), ...args];
}

/** The Node arguments that run `chaos-gate <args>`. */
export function cliArgs(args: readonly string[]): string[] {
  return nodeArgs('cli', args);
}
