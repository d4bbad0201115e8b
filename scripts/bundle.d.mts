import type { BuildResult } from 'esbuild';

/** Builds dist/'s three entries (action, post, cli) into `outdir`; see scripts/bundle.mjs. */
export function bundle(options: {
  outdir: string;
  minify?: boolean;
  metafile?: boolean;
}): Promise<BuildResult>;
