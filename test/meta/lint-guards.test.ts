/**
 * The lint rules that guard a fail-closed tool bite (eslint.config.js): the repository's own config,
 * run through ESLint's Node API on small snippets linted as if they were files of src/ (nothing is
 * written). A floating or misused promise, an import circle, an import of a package the product does not
 * declare (a devDependency included, `require.resolve` too) and a function over the length or complexity
 * cap are each reported; a function the config names as a known exception is not, and the same function
 * under another name is.
 */
import { ESLint } from 'eslint';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const PROBE = 'src/engine/lint-probe.ts';
/** The typed snippets are linted as this file, in a project of its own (test/lint-fixtures/tsconfig.json). */
const TYPED_PROBE = 'test/lint-fixtures/promises.ts';

let eslint: ESLint;
beforeAll(() => {
  // Under CI typescript-eslint assumes one run over files on disk and builds its program from them, so
  // the snippets linted from memory would be checked as the placeholder file; these lints are not that.
  process.env.TSESTREE_SINGLE_RUN = 'false';
  eslint = new ESLint({
    cwd: process.cwd(),
    overrideConfig: [
      {
        // Typed in the small project: typed linting of a src/ path would build the whole repository's.
        files: [TYPED_PROBE],
        languageOptions: {
          parserOptions: {
            projectService: false,
            project: 'test/lint-fixtures/tsconfig.json',
            tsconfigRootDir: process.cwd(),
          },
        },
      },
      {
        // The untyped rules on src/ paths need no program of the whole repository: the typed rules are
        // proven on the typed probe above, and are off here so nothing asks for type information.
        files: ['src/**/*.ts', 'test/engine/lint-probe.test.ts'],
        languageOptions: { parserOptions: { projectService: false, project: null } },
        rules: {
          '@typescript-eslint/no-floating-promises': 'off',
          '@typescript-eslint/no-misused-promises': 'off',
        },
      },
    ],
  });
});

afterAll(() => {
  delete process.env.TSESTREE_SINGLE_RUN;
});

/** The rule ids ESLint reports for `code` linted as the repository file `file`. */
async function rulesReported(file: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: file });
  const messages = result?.messages ?? [];
  // A fatal parse error has no rule id; it would make every expectation below vacuous.
  expect(messages.filter((m) => m.fatal)).toEqual([]);
  return messages.map((m) => m.ruleId ?? '');
}

describe('promises (linted as a typed file)', () => {
  it('reports a promise nobody awaits', async () => {
    const code = 'async function send(): Promise<void> {}\nexport function go(): void {\n  send();\n}\n';
    expect(await rulesReported(TYPED_PROBE, code)).toContain('@typescript-eslint/no-floating-promises');
  });

  it('accepts the same promise marked void (fire-and-forget on purpose)', async () => {
    const code = 'async function send(): Promise<void> {}\nexport function go(): void {\n  void send();\n}\n';
    expect(await rulesReported(TYPED_PROBE, code)).not.toContain('@typescript-eslint/no-floating-promises');
  });

  it('reports a promise where a condition is expected', async () => {
    const code =
      'async function stopped(): Promise<boolean> {\n  return true;\n}\n' +
      'export function go(): number {\n  if (stopped()) return 1;\n  return 0;\n}\n';
    expect(await rulesReported(TYPED_PROBE, code)).toContain('@typescript-eslint/no-misused-promises');
  });
});

describe('import circles', () => {
  it('reports an import that closes a circle (judgement.ts imports format.ts)', async () => {
    const code = "import { judge } from './judgement.js';\nexport const again = judge;\n";
    expect(await rulesReported('src/journal/format.ts', code)).toContain('import-x/no-cycle');
  });

  it('accepts the same module imported from a file it does not import', async () => {
    const code = "import { judge } from '../journal/judgement.js';\nexport const again = judge;\n";
    expect(await rulesReported('src/report/lint-probe.ts', code)).not.toContain('import-x/no-cycle');
  });
});

describe('undeclared dependencies', () => {
  it('reports a test tool imported by product code', async () => {
    const code = "import { describe } from 'vitest';\nexport const d = describe;\n";
    expect(await rulesReported(PROBE, code)).toContain('no-restricted-imports');
  });

  it('reports a package that is installed but not declared', async () => {
    const code = "import pad from 'semver';\nexport const p = pad;\n";
    expect(await rulesReported(PROBE, code)).toContain('import-x/no-extraneous-dependencies');
  });

  it('reports a devDependency found through require.resolve', async () => {
    const code =
      "import { createRequire } from 'node:module';\n" +
      "export const where = createRequire(import.meta.url).resolve('vitest/package.json');\n" +
      "const require = createRequire(import.meta.url);\nexport const again = require.resolve('vitest');\n";
    expect(await rulesReported(PROBE, code)).toContain('chaos-gate/declared-resolve');
  });

  it('accepts a dependency in product code and a devDependency in a test', async () => {
    expect(await rulesReported(PROBE, "import { z } from 'zod';\nexport const s = z.string();\n")).toEqual(
      [],
    );
    const test = "import { describe } from 'vitest';\nexport const d = describe;\n";
    expect(await rulesReported('test/engine/lint-probe.test.ts', test)).toEqual([]);
  });
});

/** A function `name` of `lines` statements, each one line. */
function longFunction(name: string, lines: number): string {
  const body = Array.from({ length: lines }, (_, i) => `  total += ${i};`).join('\n');
  return `export function ${name}(): number {\n  let total = 0;\n${body}\n  return total;\n}\n`;
}

/** A function `name` with `branches` + 1 paths through it. */
function branchyFunction(name: string, branches: number): string {
  const body = Array.from({ length: branches }, (_, i) => `  if (n === ${i}) return ${i};`).join('\n');
  return `export function ${name}(n: number): number {\n${body}\n  return -1;\n}\n`;
}

describe('function length and complexity', () => {
  it('reports a function over 80 lines, and not one of 80', async () => {
    expect(await rulesReported(PROBE, longFunction('tooLong', 80))).toContain(
      'chaos-gate/max-lines-per-function',
    );
    // The signature, `let`, 76 statements, `return` and the closing brace: 80 lines.
    expect(await rulesReported(PROBE, longFunction('justRight', 76))).toEqual([]);
  });

  it('reports a function over complexity 20, and not one of 20', async () => {
    expect(await rulesReported(PROBE, branchyFunction('tooBranchy', 20))).toContain('chaos-gate/complexity');
    expect(await rulesReported(PROBE, branchyFunction('justRight', 19))).toEqual([]);
  });

  it('spares a function the config names, in its own file only', async () => {
    const named = longFunction('policyRefusals', 120) + branchyFunction('other', 1);
    expect(await rulesReported('src/preflight/policy.ts', named)).toEqual([]);
    expect(await rulesReported('src/preflight/policy.ts', longFunction('policyRefusalz', 120))).toContain(
      'chaos-gate/max-lines-per-function',
    );
    expect(await rulesReported(PROBE, longFunction('policyRefusals', 120))).toContain(
      'chaos-gate/max-lines-per-function',
    );
  });
});
