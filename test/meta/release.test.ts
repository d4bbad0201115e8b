/**
 * A release a workflow can pin: action.yml carries what the Marketplace lists, and the release workflow's
 * checks and notes (scripts/release.mjs) do what .github/workflows/release.yml relies on — a tag that is
 * not vX.Y.Z or not package.json's version stops the release, the notes list the commits since the
 * previous release, and the major tag moved is vX.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { checkTag, releaseNotes } from '../../scripts/release.mjs';

const ROOT = join(import.meta.dirname, '../..');

describe('action.yml for the Marketplace', () => {
  const action = parse(readFileSync(join(ROOT, 'action.yml'), 'utf8')) as {
    name: string;
    description: string;
    branding: { icon: string; color: string };
    runs: { using: string; main: string; post: string };
  };

  it('has a name, a description of at most 125 characters and a badge', () => {
    expect(action.name.length).toBeGreaterThan(0);
    expect(action.description.length).toBeLessThanOrEqual(125);
    expect(['white', 'black', 'yellow', 'blue', 'green', 'orange', 'red', 'purple', 'gray-dark']).toContain(
      action.branding.color,
    );
    expect(action.branding.icon).toMatch(/^[a-z][a-z0-9-]*$/);
  });

  it('runs the committed bundle on node24', () => {
    expect(action.runs).toEqual({ using: 'node24', main: 'dist/action.js', post: 'dist/post.js' });
  });
});

describe('the release workflow', () => {
  const workflow = readFileSync(join(ROOT, '.github/workflows/release.yml'), 'utf8');

  it('starts on a vX.Y.Z tag and uses the tested script for every decision', () => {
    const doc = parse(workflow) as { on: { push: { tags: string[] } } };
    expect(doc.on.push.tags).toEqual(['v[0-9]+.[0-9]+.[0-9]+']);
    for (const step of ['check', 'notes', 'major'])
      expect(workflow).toContain(`node scripts/release.mjs ${step} "$TAG"`);
    expect(workflow).toContain('git status --porcelain -- dist');
  });

  it.each([
    ['v1.2.3', '1.2.3', undefined],
    ['v1.2.3', '1.2.4', 'v1.2.3: package.json says version 1.2.4; tag v1.2.4 or bump the version'],
    ['1.2.3', '1.2.3', '1.2.3: a release tag is vMAJOR.MINOR.PATCH, e.g. v1.4.2'],
    ['v1.2', '1.2.0', 'v1.2: a release tag is vMAJOR.MINOR.PATCH, e.g. v1.4.2'],
    ['v01.2.3', '1.2.3', 'v01.2.3: a release tag is vMAJOR.MINOR.PATCH, e.g. v1.4.2'],
  ])('checks tag %s against version %s', (tag, version, problem) => {
    expect(checkTag(tag, version)).toBe(problem);
  });

  const repo = mkdtempSync(join(tmpdir(), 'chaos-gate-release-'));
  afterAll(() => rmSync(repo, { recursive: true, force: true }));
  const git = (...args: string[]) =>
    execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], {
      cwd: repo,
      encoding: 'utf8',
    });

  it('writes notes from the commits since the previous release, merges left out', () => {
    git('init', '-q', '-b', 'main');
    const commit = (msg: string) => {
      writeFileSync(join(repo, 'f'), msg);
      git('add', 'f');
      git('commit', '-qm', msg);
    };
    commit('first feature');
    git('tag', 'v1.0.0');
    git('tag', 'v1'); // the major tag is no release: the notes never count from it
    commit('the gate refuses X');
    git('checkout', '-qb', 'topic');
    commit('a fix on a branch');
    git('checkout', '-q', 'main');
    git('merge', '-q', '--no-ff', '-m', 'Merge branch topic', 'topic');
    git('tag', 'v1.1.0');

    const notes = releaseNotes('v1.1.0', repo);
    expect(notes).toMatch(/^## Changes since v1\.0\.0\n\n/);
    expect(notes).toMatch(/^- the gate refuses X \([0-9a-f]{7,}\)$/m);
    expect(notes).toMatch(/^- a fix on a branch \(/m);
    expect(notes).not.toContain('first feature');
    expect(notes).not.toContain('Merge branch');
    expect(releaseNotes('v1.0.0', repo)).toMatch(/^## Changes in the first release\n\n- first feature \(/);
  });

  it('names the major tag from the command line, and stops on a tag that is not the version', () => {
    writeFileSync(join(repo, 'package.json'), '{ "version": "1.1.0" }');
    const run = (...args: string[]) =>
      spawnSync(process.execPath, [join(ROOT, 'scripts/release.mjs'), ...args], {
        cwd: repo,
        encoding: 'utf8',
      });
    expect(run('major', 'v1.1.0').stdout).toBe('v1\n');
    const wrong = run('check', 'v1.0.0');
    expect(wrong.status).toBe(1);
    expect(wrong.stderr).toContain('package.json says version 1.1.0');
  });
});
