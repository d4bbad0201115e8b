/**
 * `chaos-gate demo` as a child process, for the demo's test files: bounded (SIGINT at the bound, as
 * Ctrl-C, then SIGKILL), with every child and every PID the demo printed (sandbox, Prometheus) ended in
 * the file's teardown should the demo have failed to end them.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { resolve } from 'node:path';
import { afterAll } from 'vitest';
import { cliArgs } from '../helpers/cli.js';

const ROOT = resolve(import.meta.dirname, '../..');
/** The demo's own target is under 90 s; the bound leaves room for a loaded CI machine. */
export const DEMO_TIMEOUT_MS = 110_000;
/**
 * The simulated demo runs in ~6 s of wall time plus start-up on an idle machine; its world runs at a
 * multiple of real time, so on a machine busy with the rest of the suite it falls behind (one clean-clone
 * CI run saw it at +58 s of its fault after 40 s). The bound only ends a demo that hangs.
 */
export const SIMULATED_TIMEOUT_MS = 100_000;

export interface Finished {
  code: number | null;
  stdout: string;
  stderr: string;
  /** Wall time from spawn to exit. */
  ms: number;
  /** Whether the bound was reached and the child was sent SIGINT. */
  bounded: boolean;
}

/** What a failed assertion on a demo child shows: how it ended, its last lines and its stderr. */
export function tellRun(run: Finished): string {
  const tail = run.stdout.trimEnd().split('\n').slice(-12).join('\n');
  return [
    `exit ${run.code} after ${(run.ms / 1000).toFixed(1)} s${run.bounded ? ' (SIGINT at the bound)' : ''}`,
    `stdout, last lines:\n${tail}`,
    `stderr:\n${run.stderr.trimEnd().split('\n').slice(-12).join('\n')}`,
  ].join('\n');
}

export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * A `cli(args, timeoutMs, onStdout?)` for one test file, whose children and printed PIDs are ended in
 * that file's `afterAll`. Call at the top of the file.
 */
export function demoChildren(): (
  args: string[],
  timeoutMs: number,
  onStdout?: (stdout: string, child: ChildProcess) => void,
) => Promise<Finished> {
  const children = new Set<ChildProcess>();
  const printedPids = new Set<number>();
  afterAll(() => {
    for (const child of children)
      if (child.pid !== undefined && child.exitCode === null) process.kill(child.pid, 'SIGKILL');
    for (const pid of printedPids) if (alive(pid)) process.kill(pid, 'SIGKILL');
  });
  return (args, timeoutMs, onStdout) => {
    const child = spawn(process.execPath, cliArgs(args), {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, CI: '' },
    });
    children.add(child);
    let stdout = '';
    let stderr = '';
    child.stdout?.on('data', (c: Buffer) => {
      stdout += c.toString();
      for (const m of stdout.matchAll(/\bpid (\d+)/g)) printedPids.add(Number(m[1]));
      onStdout?.(stdout, child);
    });
    child.stderr?.on('data', (c: Buffer) => (stderr += c.toString()));
    const started = Date.now();
    let bounded = false;
    return new Promise((done) => {
      const timer = setTimeout(() => {
        bounded = true;
        // SIGINT first: the demo stops its fault and its children, as on Ctrl-C.
        if (child.pid !== undefined) process.kill(child.pid, 'SIGINT');
        setTimeout(
          () => child.exitCode === null && child.pid !== undefined && process.kill(child.pid, 'SIGKILL'),
          10_000,
        );
      }, timeoutMs);
      child.once('exit', (code) => {
        clearTimeout(timer);
        children.delete(child);
        done({ code, stdout, stderr, ms: Date.now() - started, bounded });
      });
    });
  };
}
