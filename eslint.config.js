import { readFileSync, readdirSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { relative } from 'node:path';
import { URL, fileURLToPath } from 'node:url';
import { builtinRules } from 'eslint/use-at-your-own-risk';
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import importX from 'eslint-plugin-import-x';
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';

/**
 * The layers of src/ (docs/architecture.md): the folders under src/ each folder may import. An import of
 * any other folder fails lint: static imports and re-exports through `no-restricted-imports`, `import()`
 * through `no-restricted-syntax`. An entry `folder/module` allows that one module of the folder only:
 * the engine and preflight see the injector's and the metric sources' interfaces, never FIS, AWS or
 * Prometheus. The bottom layer (errors, security, files, net, clock) imports nothing of chaos-gate's own
 * but errors/ (an error says its exit code there: errors/exit.ts).
 * A folder under src/ that is not listed stops lint with an error, so none goes unchecked.
 */
const ALL = '*';
const BOTTOM = ['errors', 'security', 'files', 'net'];
const INTERFACES = ['injector/injector', 'injector/ports', 'metrics/source'];
const LAYERS = {
  errors: [],
  security: [],
  // An unusable file's error says its exit code (errors/exit.ts).
  files: ['errors'],
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

/** The TypeScript the type checker sees (tsconfig.json's `include`): typed rules run on these. */
const TYPED = ['src/**/*.ts', 'test/**/*.ts', 'bench/**/*.ts', 'scripts/**/*.ts', 'vitest.config.ts'];

/**
 * A promise nobody awaits is a failure nobody sees: a stop that was never verified, a journal line never
 * written. Every promise is awaited, returned, or marked `void` with a comment that says why firing and
 * forgetting is right there; no promise goes where a plain value is expected (an `if`, a callback whose
 * result is ignored).
 */
const PROMISE_RULES = {
  '@typescript-eslint/no-floating-promises': 'error',
  '@typescript-eslint/no-misused-promises': 'error',
};

/**
 * Product code (src/) imports only what `npm ci --omit=dev` installs; tests, the bench and the scripts
 * may import devDependencies too.
 */
/** Packages that build, lint or test the product: never imported by product code. */
const TOOLING = [
  'vitest',
  'vitest/*',
  '@vitest/*',
  'eslint',
  'eslint-*',
  '@eslint/*',
  'typescript-eslint',
  'typescript',
  'prettier',
  'tsx',
  'esbuild',
  '@stryker-mutator/*',
  '@types/*',
];
const DEV_EXCEPTIONS = [
  // The sandbox validates the GitHub stand-in against GitHub's OpenAPI description, which is a
  // devDependency: the sandbox runs only from a clone (tests, the demo). It becomes its own package with
  // its own dependencies later (issue 32, step 1); until then this is the one product file allowed it.
  'src/sandbox/github/spec.ts',
];

/**
 * Function length (lines of code, blank lines and comments left out) and cyclomatic complexity caps for
 * src/: a function past either is doing more than one job and gets split along its seams. The functions
 * past them today are named below (file → function names, each with its size when it was listed): each
 * is allowed past both caps until it is split, and leaves the list then. A new function past a cap fails
 * lint. An anonymous function is named `<enclosing function> > anonymous`. The sandbox's entries go with
 * it when it becomes its own package (issue 32, step 1).
 */
const MAX_FUNCTION_LINES = 80;
const MAX_COMPLEXITY = 20;
const LONG_FUNCTIONS = {
  'src/sandbox/github/introspect.ts': [
    'handleIntrospection', // 112 lines
  ],
  'src/sandbox/faults.ts': [
    'canaryFaultFor', // complexity 33: one case per FIS action with a canary effect (issue 31)
  ],
  'src/preflight/budget.ts': [
    'budgetGate', // 112 lines (issue 30: budget.from)
    'check', // 106 lines, complexity 28 (issue 30: budget.from)
  ],
  'src/plan/init.ts': [
    'initPlan', // 103 lines: the plan text, section by section (issue 31)
  ],
  'src/plan/import-sloth.ts': [
    'importSloth', // 174 lines, complexity 33 (issue 30): to split by SLI kind
  ],
  'src/plan/import-openslo.ts': [
    'importOpenSlo', // 280 lines, complexity 40 (issue 30): to split by SLI kind
  ],
  'src/cli/commands/import.ts': [
    'run', // 100 lines, complexity 35: template, Sloth and OpenSLO imports (issue 30)
  ],
  'src/cli/commands/history.ts': [
    'run', // complexity 22 (issue 29)
  ],
  'src/action/inputs.ts': [
    'parseInputs', // 127 lines, complexity 26: one line per input, grown with issues 28–30
  ],
  'src/action/context.ts': [
    'decideTrust', // complexity 24
  ],
  'src/action/post-wiring.ts': [
    'stopWithFis', // complexity 22
  ],
  'src/action/run.ts': [
    'runFromInputs', // 173 lines, complexity 55
  ],
  'src/analysis/failover.ts': [
    'modelFailover', // 148 lines, complexity 41
  ],
  'src/analysis/scan.ts': [
    'scanJournal', // complexity 21
  ],
  'src/cli/commands/kill.ts': [
    'run', // complexity 22
  ],
  'src/cli/commands/run.ts': [
    'run', // 116 lines, complexity 30
  ],
  'src/cli/commands/scan.ts': [
    'run', // complexity 25
  ],
  'src/cli/commands/simulate.ts': [
    'run', // complexity 22
  ],
  'src/compose/review.ts': [
    'reviewPlan', // 159 lines, complexity 51
  ],
  'src/compose/run.ts': [
    'executeRun', // 146 lines, complexity 23
  ],
  'src/engine/observe.ts': [
    'observe', // 100 lines
    'evaluate', // complexity 21
  ],
  'src/engine/run.ts': [
    'flow', // 85 lines, complexity 21
    'noteState', // complexity 21: one state read's status, actions and cost
  ],
  'src/engine/stop.ts': [
    'stopAndVerify', // 184 lines, complexity 48
  ],
  'src/injector/aws/ssm-run.ts': [
    'acquire', // complexity 22
  ],
  'src/injector/fis/injector.ts': [
    'awaitDryRun', // complexity 21
    'provision', // 87 lines, complexity 26
    'experimentState', // complexity 23
  ],
  'src/injector/fis/probes.ts': [
    'listRunning', // complexity 26
  ],
  'src/journal/judgement.ts': [
    'judgeSlis > anonymous', // complexity 21: one SLI's judgement over its phases (issue 29 streaming)
    'judge', // complexity 24
  ],
  'src/metrics/cloudwatch/index.ts': [
    'read', // 103 lines
  ],
  'src/metrics/scrape/openmetrics.ts': [
    'checkValue', // complexity 40
    'metadata', // complexity 21
  ],
  'src/metrics/scrape/source.ts': [
    'evaluate', // complexity 31
  ],
  'src/plan/fis-actions.ts': [
    'ruleProblem', // complexity 21
  ],
  'src/plan/import.ts': [
    'planFromTemplate', // 95 lines
  ],
  'src/plan/refusals-fis.ts': [
    'checkTargeting', // complexity 23: one branch per documented targeting form (issue 31)
    'checkTargets', // 91 lines, complexity 28
  ],
  'src/preflight/blast-radius.ts': [
    'accountDecision', // 109 lines, complexity 42
  ],
  'src/preflight/catalog.ts': [
    'catalogFromDocuments', // complexity 23
  ],
  'src/preflight/kubernetes-chaos.ts': [
    'podSelection', // complexity 33
  ],
  'src/preflight/policy.ts': [
    'policyRefusals', // 207 lines, complexity 50
  ],
  'src/preflight/schedule-windows.ts': [
    'compileWindow', // 96 lines
  ],
  'src/report/check-run.ts': [
    'checkRunAnnotations', // 93 lines, complexity 35
  ],
  'src/report/html/failover-data.ts': [
    'failoverReplayData', // 100 lines
  ],
  'src/report/html/player.ts': [
    'build', // 230 lines, complexity 34
    'render', // complexity 26
    'replayPlayer', // 419 lines
  ],
  'src/report/html/run-data.ts': [
    'journalReplayData', // 146 lines, complexity 29
  ],
  'src/report/markdown.ts': [
    'chart', // 100 lines, complexity 25
    'renderSummary', // 81 lines
  ],
  'src/report/review.ts': [
    'buildPlanReview', // 92 lines
  ],
  'src/sandbox/admin.ts': [
    'adminRoute', // 109 lines, complexity 37
  ],
  'src/sandbox/canary.ts': [
    'decide', // complexity 28
  ],
  'src/sandbox/cloudwatch/alarm-ops.ts': [
    'putMetricAlarm', // 120 lines, complexity 63
  ],
  'src/sandbox/cloudwatch/alarms.ts': [
    'evaluateOne', // complexity 29
    'slotsFor', // complexity 22
  ],
  'src/sandbox/cloudwatch/insights.ts': [
    'parseInsights', // 117 lines
  ],
  'src/sandbox/cloudwatch/math.ts': [
    'evaluateExpression', // complexity 28
  ],
  'src/sandbox/cloudwatch/metric-ops.ts': [
    'putMetricData > anonymous', // 92 lines, complexity 26
    'getMetricStatistics', // 83 lines, complexity 34
    'putMetricData', // 119 lines
  ],
  'src/sandbox/cloudwatch/protocol.ts': [
    'serveRequest', // 91 lines, complexity 24
  ],
  'src/sandbox/cloudwatch/query.ts': [
    'runQueries', // 152 lines
  ],
  'src/sandbox/cloudwatch/wire.ts': [
    'decodeJsonValue', // complexity 28
  ],
  'src/sandbox/fis/catalog.ts': [
    'parameterProblem', // complexity 21
  ],
  'src/sandbox/fis/kubernetes.ts': [
    'readCustomResource', // 87 lines, complexity 49
  ],
  'src/sandbox/fis/model.ts': [
    'validateShape', // 86 lines, complexity 63
  ],
  'src/sandbox/fis/resolve.ts': [
    'matchesTarget', // complexity 34
    'resolveTargets', // complexity 21
  ],
  'src/sandbox/fis/service.ts': [
    'dispatch', // complexity 29
  ],
  'src/sandbox/fis/templates.ts': [
    'checkAction', // complexity 24
  ],
  'src/sandbox/github/entities.ts': [
    'repository', // 93 lines
  ],
  'src/sandbox/github/index.ts': [
    'handle', // 109 lines, complexity 39
    'createGitHubStandIn', // 132 lines
    'makeRoutes', // 226 lines
  ],
  'src/sandbox/server.ts': [
    'startSandbox > anonymous', // 87 lines
    'startSandbox > anonymous > anonymous', // complexity 23
    'startSandbox', // 201 lines
  ],
  'src/sandbox/ssm/index.ts': [
    'put', // complexity 44
  ],
  'src/sandbox/tagging/index.ts': [
    'getResources', // complexity 33
  ],
  'src/sandbox/targets.ts': [
    'canaryExtras', // 108 lines: one resource per targeted type (issue 31)
    'sandboxInventory', // 144 lines
  ],
};

const FUNCTION_HOLDERS = ['MethodDefinition', 'Property', 'PropertyDefinition'];

/** The name a function is listed by: its own, its key's or its variable's, else its enclosing function's. */
function functionName(node) {
  // max-lines-per-function reports a method on its definition, complexity on its function.
  if (FUNCTION_HOLDERS.includes(node.type)) return functionName(node.value);
  if (node.id?.name) return node.id.name;
  const parent = node.parent;
  if (FUNCTION_HOLDERS.includes(parent?.type) && parent.key)
    return parent.key.name ?? String(parent.key.value);
  if (parent?.type === 'VariableDeclarator' && parent.id.type === 'Identifier') return parent.id.name;
  if (parent?.type === 'AssignmentExpression' && parent.left.property?.name) return parent.left.property.name;
  for (let up = parent; up; up = up.parent) {
    if (/Function/.test(up.type)) return `${functionName(up)} > anonymous`;
  }
  return 'anonymous';
}

const ROOT = fileURLToPath(new URL('.', import.meta.url));

/** ESLint's own rule `ruleName`, silent for the functions {@link LONG_FUNCTIONS} names in the file linted. */
function sparing(ruleName) {
  const base = builtinRules.get(ruleName);
  return {
    meta: base.meta,
    create(context) {
      const listed = LONG_FUNCTIONS[relative(ROOT, context.filename).split('\\').join('/')] ?? [];
      if (listed.length === 0) return base.create(context);
      const report = (descriptor) => {
        if (!listed.includes(functionName(descriptor.node))) context.report(descriptor);
      };
      return base.create(Object.create(context, { report: { value: report } }));
    },
  };
}

const PRODUCT_DEPENDENCIES = Object.keys(
  JSON.parse(readFileSync(new URL('package.json', import.meta.url), 'utf8')).dependencies ?? {},
);

/** The package a bare specifier names (`@scope/name/sub` → `@scope/name`); undefined for a path or a builtin. */
function packageOf(specifier) {
  if (/^[./]/.test(specifier) || specifier.startsWith('node:') || builtinModules.includes(specifier))
    return undefined;
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
}

/**
 * `require.resolve('pkg/…')` and `import.meta.resolve('pkg/…')` load a package as surely as an import
 * does, but `import-x/no-extraneous-dependencies` does not see them: the same check for those.
 */
const declaredResolve = {
  meta: {
    type: 'problem',
    schema: [],
    messages: { undeclared: "'{{name}}' is not in package.json's dependencies" },
  },
  create(context) {
    return {
      'CallExpression[callee.property.name="resolve"]'(node) {
        const object = node.callee.object;
        const resolver =
          (object.type === 'Identifier' && object.name === 'require') ||
          (object.type === 'MetaProperty' && object.property.name === 'meta');
        const arg = node.arguments[0];
        if (!resolver || arg?.type !== 'Literal' || typeof arg.value !== 'string') return;
        const name = packageOf(arg.value);
        if (name !== undefined && !PRODUCT_DEPENDENCIES.includes(name)) {
          context.report({ node: arg, messageId: 'undeclared', data: { name } });
        }
      },
    };
  },
};

/** The project's own rules: ESLint's length and complexity caps with the named exceptions. */
const chaosGate = {
  rules: {
    'max-lines-per-function': sparing('max-lines-per-function'),
    complexity: sparing('complexity'),
    'declared-resolve': declaredResolve,
  },
};

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
  {
    files: TYPED,
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: PROMISE_RULES,
  },
  {
    files: TYPED,
    plugins: { 'import-x': importX },
    settings: {
      // Without the TypeScript extensions and parser the plugin reads no .ts file and finds no circle.
      'import-x/extensions': importX.flatConfigs.typescript.settings['import-x/extensions'],
      'import-x/parsers': importX.flatConfigs.typescript.settings['import-x/parsers'],
      'import-x/resolver-next': [createTypeScriptImportResolver({ project: 'tsconfig.json' })],
    },
    rules: {
      // Every import names a package the manifest declares. The product ships as one bundle (dist/),
      // so its libraries are build-time inputs and sit in devDependencies beside the tools; what product
      // code may not import is the tooling (below) — and nothing it resolves at run time (declared-resolve).
      'import-x/no-extraneous-dependencies': [
        'error',
        { devDependencies: true, optionalDependencies: false },
      ],
    },
  },
  {
    files: ['src/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: TOOLING,
              message:
                'a build or test tool: product code (src/) is bundled into dist/ and must not import it',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['src/**/*.ts'],
    ignores: DEV_EXCEPTIONS,
    plugins: { 'chaos-gate': chaosGate },
    rules: { 'chaos-gate/declared-resolve': 'error' },
  },
  {
    // A circle of imports hides which module is the lower layer: none in the product.
    files: ['src/**/*.ts'],
    rules: { 'import-x/no-cycle': ['error', { ignoreExternal: true }] },
  },
  {
    files: ['src/**/*.ts'],
    plugins: { 'chaos-gate': chaosGate },
    rules: {
      'chaos-gate/max-lines-per-function': [
        'error',
        { max: MAX_FUNCTION_LINES, skipBlankLines: true, skipComments: true },
      ],
      'chaos-gate/complexity': ['error', MAX_COMPLEXITY],
    },
  },
);
