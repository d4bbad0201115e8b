/**
 * No workflow pastes an expression into a shell script: a `${{ … }}` inside `run:` is expanded before
 * the shell sees it, so a step output or an event field that holds quotes or `$(…)` becomes code
 * (GitHub's "script injection" warning). Values reach scripts through `env:` instead. Every workflow
 * under .github/workflows/, the copyable examples included, is scanned.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';

const ROOT = join(import.meta.dirname, '../..');

function workflowFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return workflowFiles(path);
    return /\.ya?ml$/.test(name) ? [path] : [];
  });
}

/** `job/step: run` for every step whose `run:` holds an expression. */
export function expressionsInRun(text: string): string[] {
  const doc = parse(text) as {
    jobs?: Record<string, { steps?: { name?: string; id?: string; run?: unknown }[] }>;
  };
  const hits: string[] = [];
  for (const [job, { steps = [] }] of Object.entries(doc.jobs ?? {})) {
    steps.forEach((step, i) => {
      if (typeof step.run === 'string' && step.run.includes('${{'))
        hits.push(`${job}/${step.id ?? step.name ?? `step ${i + 1}`}: ${step.run.trim()}`);
    });
  }
  return hits;
}

describe('workflows', () => {
  const files = workflowFiles(join(ROOT, '.github/workflows'));

  it('finds the workflows and the examples', () => {
    const names = files.map((f) => relative(ROOT, f));
    expect(names).toContain('.github/workflows/ci.yml');
    expect(names).toContain('.github/workflows/examples/canary-gated-deploy.yml');
  });

  it.each(files.map((f) => [relative(ROOT, f), f]))('%s interpolates no expression into run:', (_, file) => {
    expect(expressionsInRun(readFileSync(file, 'utf8'))).toEqual([]);
  });

  it('catches an expression in a run: block, and lets env: carry it', () => {
    const pasted =
      'jobs:\n  a:\n    steps:\n      - id: echo\n        run: |\n          echo "${{ steps.gate.outputs.reason }}"\n';
    expect(expressionsInRun(pasted)).toEqual(['a/echo: echo "${{ steps.gate.outputs.reason }}"']);
    const viaEnv =
      'jobs:\n  a:\n    steps:\n      - env:\n          REASON: ${{ steps.gate.outputs.reason }}\n        run: echo "$REASON"\n';
    expect(expressionsInRun(viaEnv)).toEqual([]);
  });
});
