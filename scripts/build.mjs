// Bundles the three entry points into dist/ (ESM, one file each). CI rebuilds and diffs dist/.
import { build } from 'esbuild';
import { chmodSync } from 'node:fs';

const banner = [
  "import { createRequire as __cgCreateRequire } from 'node:module';",
  'const require = __cgCreateRequire(import.meta.url);',
].join('\n');

const entries = {
  action: 'src/action/index.ts',
  post: 'src/action/post.ts',
  cli: 'src/cli/index.ts',
};

for (const [name, entry] of Object.entries(entries)) {
  await build({
    entryPoints: [entry],
    outfile: `dist/${name}.js`,
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
    banner: { js: (name === 'cli' ? '#!/usr/bin/env node\n' : '') + banner },
  });
}
chmodSync('dist/cli.js', 0o755);
