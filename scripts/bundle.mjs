// The one definition of how chaos-gate is bundled: `scripts/build.mjs` writes dist/ with it, and the
// test suite builds its own copy from the current sources (test/setup/bundle.ts), so every test that
// spawns the CLI or the action runs the same bundle the runner would, without rewriting dist/.
//
// One build with code splitting for all three entries (the action's main and post steps, and the CLI):
// what an entry loads only on demand becomes a chunk under chunks/ that is neither parsed nor compiled
// at start. The action's cold start to its first AWS call is a docs/design/targets.md target (≤ 300 ms), and the CLI
// loads each command with `import()` so `--version`, `--help` and `validate` start within 2.5× of a bare
// `node -e 0` (issue 17; both figures in `npm run bench`).
import { build } from 'esbuild';
import { chmodSync, readFileSync, rmSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath, URL } from 'node:url';

const { version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
/** The repository root: entry points and plugin paths are relative to it, wherever the caller runs. */
const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

const banner = [
  "import { createRequire as __cgCreateRequire } from 'node:module';",
  'const require = __cgCreateRequire(import.meta.url);',
].join('\n');

/**
 * `@actions/core` imports its OIDC client (and through it `@actions/http-client` and undici, ~430 KB)
 * for `core.getIDToken()`, which chaos-gate never calls: AWS credentials come from the workflow (for
 * example aws-actions/configure-aws-credentials). Parsing undici at start delayed the action's first AWS
 * call (cold start, bench/run.ts), so the OIDC module is replaced by one that says why it is missing. The
 * GitHub toolkit still brings undici, loaded when a run talks to GitHub.
 */
const coreWithoutOidc = {
  name: 'actions-core-without-oidc',
  setup(b) {
    b.onResolve({ filter: /^\.\/(oidc-utils|platform)\.js$/ }, (args) =>
      /[\\/]@actions[\\/]core[\\/]lib[\\/]/.test(args.importer)
        ? { path: `actions-core-${basename(args.path, '.js')}`, namespace: 'actions-core-without-oidc' }
        : undefined,
    );
    b.onLoad({ filter: /oidc-utils$/, namespace: 'actions-core-without-oidc' }, () => ({
      contents: [
        'export class OidcClient {',
        '  static async getIDToken() {',
        "    throw new Error('chaos-gate is built without @actions/core OIDC support (scripts/build.mjs)');",
        '  }',
        '}',
      ].join('\n'),
    }));
    // `core.platform` (the runner's OS details, read by running `uname`/`sw_vers` through @actions/exec
    // and @actions/io) is never used by chaos-gate: an empty namespace instead of three modules at start.
    b.onLoad({ filter: /platform$/, namespace: 'actions-core-without-oidc' }, () => ({
      contents: 'export {};',
    }));
  },
};

/**
 * Builds the three entries into `outdir` and resolves with esbuild's result. `minify: false` keeps
 * names and lines readable (the test suite's bundle); everything else is the build of `dist/`.
 */
export async function bundle({ outdir: requested, minify = true, metafile = false }) {
  const outdir = resolve(requested);
  // Chunks are content-hashed: remove the old ones so the output holds exactly what this build produced.
  rmSync(join(outdir, 'chunks'), { recursive: true, force: true });
  const result = await build({
    // src/cli/index.ts starts with `#!/usr/bin/env node`; esbuild keeps an entry's hashbang on that entry
    // only, above the banner, so dist/cli.js runs as `bin: chaos-gate`.
    entryPoints: { action: 'src/action/index.ts', post: 'src/action/post.ts', cli: 'src/cli/index.ts' },
    outdir,
    absWorkingDir: ROOT,
    bundle: true,
    splitting: true,
    chunkNames: 'chunks/[name]-[hash]',
    platform: 'node',
    // The ES module build of a package before its CommonJS one. esbuild's default for Node is the reverse,
    // and the AWS SDK and Smithy packages (no `exports` map) then came in as CommonJS: whole, each module
    // wrapped and its exports copied at start, and their lazily loaded credential providers bundled
    // eagerly. Their ES builds split and tree-shake: the action's start-up closure went from 1.78 to
    // 1.13 MB (bench/run.ts, cold start). Packages with an `exports` map are unaffected.
    mainFields: ['module', 'main'],
    format: 'esm',
    target: 'node20',
    sourcemap: 'linked',
    // Maps without embedded sources: stack traces resolve to src/ lines, the committed dist/ stays small.
    sourcesContent: false,
    legalComments: 'none',
    // docs/design/targets.md: bundle ≤ 5 MB. Minified identifiers are fine; keepNames must stay off (the failover page
    // embeds the model via Function.prototype.toString, see src/report/html.ts).
    minify,
    // `chaos-gate --version` answers from the bundle itself (src/cli/version.ts), without reading package.json.
    define: { CHAOS_GATE_VERSION: JSON.stringify(version) },
    banner: { js: banner },
    // No zod plugin: the code imports only `zod/mini` and named parts of `zod/v4/core` (src/files/zod.ts),
    // which tree-shake to what the schemas use, English messages included. Classic `zod` anywhere in the
    // bundle would bring back all of zod, and its ~60 locales through `z.locales`, in the chunk `validate` loads.
    plugins: [coreWithoutOidc],
    metafile,
    logLevel: 'warning',
  });
  chmodSync(join(outdir, 'cli.js'), 0o755);
  return result;
}
