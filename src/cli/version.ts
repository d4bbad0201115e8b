/** The package version `chaos-gate --version` prints. */
import { readFileSync } from 'node:fs';

/** Set by the bundler (scripts/build.mjs `define`); absent when the CLI runs from source (tsx, tests). */
declare const CHAOS_GATE_VERSION: string | undefined;

/** The version of the running chaos-gate: the bundle's own, else package.json's beside the sources. */
export function cliVersion(): string {
  if (typeof CHAOS_GATE_VERSION === 'string') return CHAOS_GATE_VERSION;
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
    version?: unknown;
  };
  return typeof pkg.version === 'string' ? pkg.version : 'unknown';
}
