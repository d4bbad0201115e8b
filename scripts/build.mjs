// Bundles the entry points into dist/ (ESM). CI rebuilds and diffs dist/.
//
// The action's main and post steps share one build with code splitting: what they load only on demand
// (the artifact client with Azure storage, the HTML report) becomes a chunk under dist/chunks/ that is
// neither parsed nor compiled at start — the action's cold start to its first AWS call is a SPEC §12
// target (≤ 300 ms). The CLI is one self-contained file (`bin: chaos-gate`).
import { build } from 'esbuild';
import { chmodSync, rmSync } from 'node:fs';

const banner = [
  "import { createRequire as __cgCreateRequire } from 'node:module';",
  'const require = __cgCreateRequire(import.meta.url);',
].join('\n');

const common = {
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  sourcemap: 'linked',
  // Maps without embedded sources: stack traces resolve to src/ lines, the committed dist/ stays small.
  sourcesContent: false,
  legalComments: 'none',
  // SPEC §12: bundle ≤ 5 MB. Minified identifiers are fine; keepNames must stay off (the failover page
  // embeds the model via Function.prototype.toString, see src/report/html.ts).
  minify: true,
  logLevel: 'warning',
};

// Chunks are content-hashed: remove the old ones so dist/ holds exactly what this build produced.
rmSync('dist/chunks', { recursive: true, force: true });

await build({
  ...common,
  entryPoints: { action: 'src/action/index.ts', post: 'src/action/post.ts' },
  outdir: 'dist',
  splitting: true,
  chunkNames: 'chunks/[name]-[hash]',
  banner: { js: banner },
});

await build({
  ...common,
  entryPoints: ['src/cli/index.ts'],
  outfile: 'dist/cli.js',
  // The demo drives the action's code path, whose artifact upload (Azure storage, undici: ~2 MB) runs only
  // inside GitHub Actions; the CLI loads it from node_modules on that path alone (it is a dependency).
  external: ['@actions/artifact'],
  banner: { js: `#!/usr/bin/env node\n${banner}` },
});
chmodSync('dist/cli.js', 0o755);
