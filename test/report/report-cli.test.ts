import { describe, expect, it } from 'vitest';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { main } from '../../src/cli/main.js';

function io() {
  const out: string[] = [];
  const err: string[] = [];
  return {
    out,
    err,
    io: {
      out: (t: string) => out.push(t),
      err: (t: string) => err.push(t),
      tty: false,
      env: {},
      cwd: process.cwd(),
    },
  };
}

describe('chaos-gate report', () => {
  it('--html writes one self-contained replay page for the journal and prints no markdown', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'cg-report-'));
    const file = path.join(dir, 'replay.html');
    const c = io();
    const code = await main(['report', 'fixtures/github/journals/aborted.json', '--html', file], c.io);
    expect(code).toBe(0);
    const html = readFileSync(file, 'utf8');
    const journal = JSON.parse(readFileSync('fixtures/github/journals/aborted.json', 'utf8')) as {
      planId: string;
    };
    expect(html).toMatch(/^<!doctype html>/i);
    expect(html).toContain(journal.planId);
    // Self-contained: nothing loaded from elsewhere at view time.
    expect(html).not.toMatch(/<(script|link|img)[^>]+(src|href)=["']https?:/i);
    expect(c.out.join('\n')).toBe('');
  });

  it('--markdown with --html does both; a missing journal exits 2', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'cg-report-'));
    const c = io();
    expect(
      await main(
        ['report', 'fixtures/github/journals/aborted.json', '--markdown', '--html', path.join(dir, 'r.html')],
        c.io,
      ),
    ).toBe(0);
    expect(c.out.join('\n')).toMatch(/aborted/);
    const d = io();
    expect(await main(['report', path.join(dir, 'missing.json')], d.io)).toBe(2);
    expect(d.err.join('\n')).toMatch(/missing\.json/);
  });

  it('--html outside the working directory and temp, or through a symlink, exits 2 naming the flag and writes nothing', async () => {
    const c = io();
    const outside = '/usr/chaos-gate-replay.html';
    expect(await main(['report', 'fixtures/github/journals/aborted.json', '--html', outside], c.io)).toBe(2);
    expect(c.err.join('\n')).toContain(`cannot write the file of --html ${outside}`);
    expect(existsSync(outside)).toBe(false);

    const dir = mkdtempSync(path.join(tmpdir(), 'cg-report-link-'));
    const victim = path.join(dir, 'victim');
    mkdirSync(victim);
    writeFileSync(path.join(victim, 'replay.html'), 'precious');
    symlinkSync(victim, path.join(dir, 'out'));
    const d = io();
    const linked = path.join(dir, 'out/replay.html');
    expect(await main(['report', 'fixtures/github/journals/aborted.json', '--html', linked], d.io)).toBe(2);
    expect(d.err.join('\n')).toContain(`${path.join(dir, 'out')} is a symlink`);
    expect(readFileSync(path.join(victim, 'replay.html'), 'utf8')).toBe('precious');
  });
});
