import { readdirSync } from 'node:fs';
import { URL } from 'node:url';
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

/**
 * The layers of src/ (docs/architecture.md): the folders under src/ each folder may import. An import of
 * any other folder fails lint: static imports and re-exports through `no-restricted-imports`, `import()`
 * through `no-restricted-syntax`. An entry `folder/module` allows that one module of the folder only:
 * the engine and preflight see the injector's and the metric sources' interfaces, never FIS, AWS or
 * Prometheus. The bottom layer (errors, security, files, net, clock) imports nothing of chaos-gate's own.
 * A folder under src/ that is not listed stops lint with an error, so none goes unchecked.
 */
const ALL = '*';
const BOTTOM = ['errors', 'security', 'files', 'net'];
const INTERFACES = ['injector/injector', 'injector/ports', 'metrics/source'];
const LAYERS = {
  errors: [],
  security: [],
  files: [],
  net: [],
  clock: ['net'],
  // The FIS actions reference as data: the one table the plan checks against and the sandbox enforces.
  'fis-reference': [],
  plan: [...BOTTOM, 'fis-reference'],
  journal: BOTTOM,
  injector: [...BOTTOM, 'clock', 'plan'],
  metrics: [...BOTTOM, 'clock', 'plan', 'journal'],
  engine: ['errors', 'security', 'net', 'clock', 'plan', 'journal', ...INTERFACES],
  // Parsing a document, not reading it: compose/ reads the policy and the catalog.
  preflight: [
    'errors',
    'security',
    'net',
    'files/document',
    'files/issue',
    'files/validate',
    'clock',
    'plan',
    'journal',
    'engine',
    ...INTERFACES,
  ],
  analysis: [...BOTTOM, 'plan', 'journal'],
  report: [...BOTTOM, 'plan', 'journal', 'analysis'],
  // Outbound notifications: what the journal records, sent on; never the engine's internals.
  notify: [...BOTTOM, 'plan', 'journal'],
  sim: [...BOTTOM, 'clock', 'plan', 'journal', 'metrics', 'injector'],
  compose: { except: ['action', 'cli', 'sandbox', 'sim'] },
  action: { except: ['cli', 'sandbox', 'sim'] },
  // The CLI starts the sandbox and drives the action's own code path in `demo`.
  cli: ALL,
  // The local stand-ins share nothing with the product they stand in for.
  sandbox: [...BOTTOM, 'fis-reference'],
};

/** Folders that touch no file system: the front door reads files and hands their content in. */
const NO_FS = ['engine', 'preflight'];

const SRC = new URL('src/', import.meta.url);
const SRC_FOLDERS = readdirSync(SRC, { withFileTypes: true })
  .filter((d) => d.isDirectory())
  .map((d) => d.name);
const unplaced = SRC_FOLDERS.filter((f) => !(f in LAYERS));
if (unplaced.length > 0) {
  throw new Error(
    `eslint.config.js: src/${unplaced.join('/, src/')}/ has no place in LAYERS; add it with the folders it may import`,
  );
}

const esc = (s) => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

/** The regex (slashes escaped, so esquery reads it too) of the src/ imports `folder` may not make from `depth` folders down. */
function forbiddenImports(folder, depth) {
  const spec = LAYERS[folder];
  if (spec === ALL) return undefined;
  const allowed = Array.isArray(spec) ? spec : SRC_FOLDERS.filter((f) => !spec.except.includes(f));
  const alternatives = [];
  for (const target of SRC_FOLDERS) {
    if (target === folder || allowed.includes(target)) continue;
    const modules = allowed.filter((a) => a.startsWith(`${target}/`)).map((a) => a.slice(target.length + 1));
    alternatives.push(
      modules.length === 0
        ? `${esc(target)}\\/`
        : `${esc(target)}\\/(?!(?:${modules.map(esc).join('|')})\\.js$)`,
    );
  }
  return alternatives.length === 0 ? undefined : `^(?:\\.\\.\\/){${depth}}(?:${alternatives.join('|')})`;
}

function layerMessage(folder) {
  const spec = LAYERS[folder];
  const allowed = Array.isArray(spec)
    ? spec.length === 0
      ? 'nothing of chaos-gate’s own'
      : spec.map((a) => (a.includes('/') ? `${a}.ts` : `${a}/`)).join(', ')
    : `anything but ${spec.except.map((e) => `${e}/`).join(', ')}`;
  return `src/${folder}/ may import ${allowed} (the layers: docs/architecture.md)`;
}

const FS_REGEX = '^(?:node:)?fs(?:\\/|$)';
const FS_MESSAGE =
  'engine/ and preflight/ touch no file system: compose/ reads files and hands the content in (docs/architecture.md)';

/** One config block per folder and file depth, so `../` counts land on the right folder. */
function layerBlocks() {
  const blocks = [];
  for (const folder of SRC_FOLDERS) {
    const depths = new Set(
      readdirSync(new URL(`${folder}/`, SRC), { recursive: true })
        .filter((p) => /\.ts$/.test(p))
        .map((p) => p.split(/[\\/]/).length),
    );
    for (const depth of depths) {
      const patterns = [];
      const syntax = [];
      const layers = forbiddenImports(folder, depth);
      if (layers) {
        patterns.push({ regex: layers, message: layerMessage(folder) });
        syntax.push({
          selector: `ImportExpression[source.value=/${layers}/]`,
          message: layerMessage(folder),
        });
      }
      if (NO_FS.includes(folder)) {
        patterns.push({ regex: FS_REGEX, message: FS_MESSAGE });
        syntax.push({ selector: `ImportExpression[source.value=/${FS_REGEX}/]`, message: FS_MESSAGE });
      }
      if (patterns.length === 0) continue;
      blocks.push({
        files: [`src/${folder}/${'*/'.repeat(depth - 1)}*.ts`],
        rules: {
          'no-restricted-imports': ['error', { patterns }],
          'no-restricted-syntax': ['error', ...syntax],
        },
      });
    }
  }
  return blocks;
}

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', 'out/', '.tmp/', 'coverage/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-constant-condition': ['error', { checkLoops: false }],
    },
  },
  ...layerBlocks(),
);
