/**
 * Outputs are confined like inputs (files/write.ts): inside the workspace or the runner's temp, no
 * symlink followed, refused before anything is created or truncated, with a message naming the output,
 * the value and what is accepted.
 */
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { confineOutput, FileWriteError, outputRoots, writeOutput } from '../../src/files/write.js';

const base = mkdtempSync(join(tmpdir(), 'chaos-gate-write-'));
const ws = join(base, 'workspace');
const runnerTemp = join(base, 'runner-temp');
const outside = join(base, 'outside');
mkdirSync(ws);
mkdirSync(runnerTemp);
mkdirSync(outside);
afterAll(() => rmSync(base, { recursive: true, force: true }));

// The roots a run gets are the workspace, RUNNER_TEMP and the OS's temp (below); these tests live in the
// OS's temp, so they confine to the first two alone to have an "outside" to write to.
const roots = [ws, runnerTemp];
const opts = { what: 'journal (input journal-path)', roots };

function refusal(call: () => unknown): FileWriteError {
  try {
    call();
  } catch (error) {
    if (error instanceof FileWriteError) return error;
    throw error;
  }
  throw new Error('expected a FileWriteError');
}

describe('confined outputs', () => {
  it("allows the workspace, the runner's temp and the OS's temp", () => {
    expect(outputRoots('/work/app', { RUNNER_TEMP: '/runner/_temp' })).toEqual([
      '/work/app',
      '/runner/_temp',
      tmpdir(),
    ]);
  });

  it('writes inside the workspace, creating its directories', () => {
    const path = writeOutput(join(ws, 'chaos-gate/deep/journal.json'), '{}\n', opts);
    expect(readFileSync(path, 'utf8')).toBe('{}\n');
  });

  it("writes inside the runner's temp", () => {
    const path = writeOutput(join(runnerTemp, 'report.html'), '<html>', opts);
    expect(readFileSync(path, 'utf8')).toBe('<html>');
  });

  it('refuses a path outside both, by ../ or absolute, naming the output and value', () => {
    const e = refusal(() =>
      confineOutput(join(ws, '../outside/journal.json'), { ...opts, display: '../outside/journal.json' }),
    );
    expect(e.problem).toBe('outside-roots');
    expect(e.message).toContain('cannot write the journal (input journal-path) ../outside/journal.json');
    expect(e.message).toContain(`inside ${ws} or ${runnerTemp}`);
    expect(refusal(() => writeOutput(join(outside, 'x.json'), 'x', opts)).problem).toBe('outside-roots');
    expect(existsSync(join(outside, 'x.json'))).toBe(false);
  });

  it('refuses a committed symlinked directory pointing out, touching nothing there', () => {
    writeFileSync(join(outside, 'victim.json'), 'precious');
    symlinkSync(outside, join(ws, 'linked-dir'));
    const e = refusal(() => writeOutput(join(ws, 'linked-dir/victim.json'), 'overwritten', opts));
    expect(e.problem).toBe('symlink');
    expect(e.message).toContain(`${join(ws, 'linked-dir')} is a symlink`);
    expect(readFileSync(join(outside, 'victim.json'), 'utf8')).toBe('precious');
    expect(readdirSync(outside)).toEqual(['victim.json']);
  });

  it('refuses a symlink as the file itself, even one pointing inside', () => {
    writeFileSync(join(outside, 'target.json'), 'precious');
    symlinkSync(join(outside, 'target.json'), join(ws, 'journal-link.json'));
    writeFileSync(join(ws, 'inside.json'), 'inside');
    symlinkSync(join(ws, 'inside.json'), join(ws, 'inner-link.json'));
    expect(refusal(() => writeOutput(join(ws, 'journal-link.json'), 'x', opts)).problem).toBe('symlink');
    expect(refusal(() => writeOutput(join(ws, 'inner-link.json'), 'x', opts)).problem).toBe('symlink');
    expect(readFileSync(join(outside, 'target.json'), 'utf8')).toBe('precious');
    expect(readFileSync(join(ws, 'inside.json'), 'utf8')).toBe('inside');
  });

  it('refuses a directory or a device as the file', () => {
    mkdirSync(join(ws, 'a-dir'));
    expect(refusal(() => confineOutput(join(ws, 'a-dir'), opts)).problem).toBe('not-a-file');
    const dev = refusal(() => confineOutput('/dev/null', { what: 'report', roots: ['/dev'] }));
    expect(dev.problem).toBe('not-a-file');
  });

  it('refuses a component that is a file, not a directory', () => {
    writeFileSync(join(ws, 'plain'), 'x');
    expect(refusal(() => confineOutput(join(ws, 'plain/journal.json'), opts)).problem).toBe('not-a-file');
  });
});
