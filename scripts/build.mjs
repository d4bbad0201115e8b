// Bundles the entry points into dist/ (ESM). CI rebuilds and diffs dist/.
//
// One build with code splitting for all three entries (the action's main and post steps, and the CLI):
// what an entry loads only on demand becomes a chunk under dist/chunks/ that is neither parsed nor
// compiled at start. The action's cold start to its first AWS call is a SPEC §12 target (≤ 300 ms), and
// the CLI loads each command with `import()` so `--version`, `--help` and `validate` start within 2.5× of a
// bare `node -e 0` (issue 17; both figures in `npm run bench`).
//
// `node scripts/build.mjs --outdir <dir>` builds somewhere else (e.g. a temporary directory for a
// measurement) without touching the committed dist/.
import { build } from 'esbuild';
import { chmodSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { URL } from 'node:url';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: { outdir: { type: 'string', default: 'dist' }, metafile: { type: 'string' } },
});
const outdir = values.outdir;
const { version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));

const banner = [
  "import { createRequire as __cgCreateRequire } from 'node:module';",
  'const require = __cgCreateRequire(import.meta.url);',
].join('\n');

/**
 * zod re-exports every one of its ~60 message locales (`z.locales`, `z.core.locales`); chaos-gate never
 * switches locale (its messages are its own: src/plan/load.ts), yet the namespace re-export keeps all of
 * them in the bundle, ~40 % of zod's code, compiled by every command that validates a plan. This resolves
 * zod's locale index to English only, the one locale zod configures at import.
 */
const zodEnglishOnly = {
  name: 'zod-english-only',
  setup(b) {
    b.onResolve({ filter: /^\.\.\/locales\/index\.js$/ }, (args) =>
      /[\\/]zod[\\/]v4[\\/](classic|core)[\\/]/.test(args.importer)
        ? {
            // A path relative to the project: esbuild hashes a plugin namespace's paths as given, and an
            // absolute one would make the chunk names depend on where the repository is checked out.
            path: relative(process.cwd(), join(dirname(args.importer), '../locales/en.js')),
            namespace: 'zod-locales',
          }
        : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: 'zod-locales' }, (args) => ({
      contents: `export { default as en } from './${basename(args.path)}';`,
      resolveDir: resolve(dirname(args.path)),
    }));
  },
};

// Chunks are content-hashed: remove the old ones so the output holds exactly what this build produced.
rmSync(join(outdir, 'chunks'), { recursive: true, force: true });

const result = await build({
  // src/cli/index.ts starts with `#!/usr/bin/env node`; esbuild keeps an entry's hashbang on that entry
  // only, above the banner, so dist/cli.js runs as `bin: chaos-gate`.
  entryPoints: { action: 'src/action/index.ts', post: 'src/action/post.ts', cli: 'src/cli/index.ts' },
  outdir,
  bundle: true,
  splitting: true,
  chunkNames: 'chunks/[name]-[hash]',
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
  // `chaos-gate --version` answers from the bundle itself (src/cli/version.ts), without reading package.json.
  define: { CHAOS_GATE_VERSION: JSON.stringify(version) },
  banner: { js: banner },
  plugins: [zodEnglishOnly],
  metafile: values.metafile !== undefined,
  logLevel: 'warning',
});
// `--metafile <file>`: what each output file holds (esbuild's analysis format), to see where bytes come from.
if (values.metafile !== undefined) writeFileSync(values.metafile, JSON.stringify(result.metafile));
chmodSync(join(outdir, 'cli.js'), 0o755);
