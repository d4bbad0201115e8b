/**
 * The README and docs/ are a newcomer's whole path: every plan they show validates as written. A plan
 * snippet is a ```yaml block whose top level has `version` and a plan section (`hypothesis`, `abort` or
 * `fis`); excerpts of one section, policies and configs are not plans. Each is validated by the CLI's
 * own `validate` — every check a run makes before touching anything.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import type { CliIo } from '../../src/cli/command.js';
import { main } from '../../src/cli/main.js';

const ROOT = join(import.meta.dirname, '../..');

function markdownFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return markdownFiles(path);
    return name.endsWith('.md') ? [path] : [];
  });
}

interface Snippet {
  where: string;
  text: string;
}

/** The plan snippets of one Markdown text, each named `file:line`. */
export function planSnippets(file: string, markdown: string): Snippet[] {
  const out: Snippet[] = [];
  for (const m of markdown.matchAll(/^```ya?ml\n([\s\S]*?)^```/gm)) {
    const text = m[1] ?? '';
    let doc: unknown;
    try {
      doc = parse(text);
    } catch {
      continue; // not YAML on its own (an excerpt with `…`): not a plan
    }
    if (doc === null || typeof doc !== 'object' || Array.isArray(doc)) continue;
    const keys = Object.keys(doc);
    if (!keys.includes('version') || !keys.some((k) => ['hypothesis', 'abort', 'fis'].includes(k))) continue;
    out.push({ where: `${file}:${markdown.slice(0, m.index).split('\n').length + 1}`, text });
  }
  return out;
}

const dir = mkdtempSync(join(tmpdir(), 'chaos-gate-snippets-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function validate(text: string): Promise<{ code: number; err: string }> {
  writeFileSync(join(dir, 'plan.yaml'), text);
  const err: string[] = [];
  const io: CliIo = { out: () => undefined, err: (t) => void err.push(t), tty: false, env: {}, cwd: dir };
  return { code: await main(['validate', 'plan.yaml'], io), err: err.join('\n') };
}

const files = [join(ROOT, 'README.md'), ...markdownFiles(join(ROOT, 'docs'))];
const snippets = files.flatMap((f) => planSnippets(relative(ROOT, f), readFileSync(f, 'utf8')));

describe('the plans the README and docs/ show', () => {
  it('include the README plan', () => {
    expect(snippets.some((s) => s.where.startsWith('README.md:'))).toBe(true);
  });

  it.each(snippets.map((s) => [s.where, s.text]))('%s validates as written', async (_, text) => {
    expect(await validate(text)).toEqual({ code: 0, err: '' });
  });

  it('tells a plan from an excerpt, and a broken plan fails', async () => {
    const md = [
      '```yaml\nbudget:\n  objective: 0.999\n```',
      '```yaml\nversion: 1\nid: x\nhypothesis: {}\n```',
    ].join('\n\n');
    const found = planSnippets('x.md', md);
    expect(found.map((s) => s.where)).toEqual(['x.md:7']);
    expect((await validate(found[0]?.text ?? '')).code).toBe(2);
  });
});

describe('the README', () => {
  it('is a manual of at most 200 lines, with the two set-up commands', () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    expect(readme.trimEnd().split('\n').length).toBeLessThanOrEqual(200);
    expect(readme).toContain('npm ci && npm run demo');
    expect(readme).toMatch(/^npm test\b/m);
  });
});
