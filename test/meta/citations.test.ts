/**
 * The design lives in the repository: code, tests, docs and the bench cite `docs/design/<page>.md`, never
 * a document a clone does not have (the product spec or the AWS notes it was built from, by section
 * number), and every pointer into docs/design/ names a page that exists and, after `#`, one of its
 * headings. User docs name no file outside the repository.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '../..');
const SCANNED = ['src', 'test', 'docs', 'bench', 'scripts', '.github', 'README.md', 'CONTRIBUTING.md'];

function files(path: string): string[] {
  const full = join(ROOT, path);
  if (!existsSync(full)) return [];
  if (!statSync(full).isDirectory()) return [path];
  return readdirSync(full).flatMap((name) => (name === 'node_modules' ? [] : files(join(path, name))));
}

const texts = SCANNED.flatMap(files)
  .filter((f) => /\.(ts|mts|mjs|js|md|ya?ml)$/.test(f))
  .map((f) => ({ file: f, text: readFileSync(join(ROOT, f), 'utf8') }));

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to dashes. */
function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N} _-]/gu, '')
    .replace(/ /g, '-');
}

function anchors(page: string): Set<string> {
  const text = readFileSync(join(ROOT, 'docs/design', page), 'utf8');
  return new Set([...text.matchAll(/^#{1,6} (.+)$/gm)].map((m) => slug(m[1] ?? '')));
}

describe('citations', () => {
  it('cite no section of a document outside the repository', () => {
    // Built from parts so this file does not cite itself.
    const outside = new RegExp(`(${['SP', 'EC'].join('')}|${['SEMAN', 'TICS'].join('')})\\s*(\\*|//)?\\s*§`);
    const hits = texts.filter(({ text }) => outside.test(text)).map(({ file }) => file);
    expect(hits).toEqual([]);
  });

  it('point at docs/design pages and headings that exist', () => {
    const broken: string[] = [];
    for (const { file, text } of texts) {
      for (const m of text.matchAll(/docs\/design\/([a-z-]+\.md)(?:#([a-z0-9-]+))?/g)) {
        const [, page = '', anchor] = m;
        if (!existsSync(join(ROOT, 'docs/design', page))) broken.push(`${file}: ${m[0]}`);
        else if (anchor !== undefined && !anchors(page).has(anchor)) broken.push(`${file}: ${m[0]}`);
      }
    }
    expect(broken).toEqual([]);
  });

  it('finds the pointers it checks', () => {
    expect(texts.some(({ text }) => text.includes('docs/design/verdicts.md'))).toBe(true);
    expect(anchors('fis.md').has('stop-conditions')).toBe(true);
    expect(slug('One engine, thin front doors')).toBe('one-engine-thin-front-doors');
  });

  it('name no file outside the repository in the user docs', () => {
    const userDocs = texts.filter(({ file }) => file === 'README.md' || file.startsWith('docs/'));
    const hits = userDocs
      .filter(({ text }) => /shared\/aws-models|\bthe seed\b|seeds\//.test(text))
      .map(({ file }) => relative(ROOT, join(ROOT, file)));
    expect(hits).toEqual([]);
  });
});
