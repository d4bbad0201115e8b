/**
 * The demo's own child processes (the sandbox, Prometheus): when they are gone, waiting for their exit,
 * and one idempotent stop — SIGTERM, then SIGKILL after a grace period, by PID, plus their temp directory.
 * A last-resort exit hook kills the child if the demo dies without reaching its cleanup.
 */
import { longTimeout } from '../../net/timer.js';
import type { ChildProcess } from 'node:child_process';
import { rmSync } from 'node:fs';

export function gone(child: ChildProcess): boolean {
  return child.exitCode !== null || child.signalCode !== null;
}

/** Resolves true once the child exited, false after `ms`. */
export function exited(child: ChildProcess, ms: number): Promise<boolean> {
  if (gone(child)) return Promise.resolve(true);
  return new Promise((resolve) => {
    const timer = longTimeout(() => resolve(false), ms);
    child.once('exit', () => {
      timer.clear();
      resolve(true);
    });
  });
}

/** The stop function of a child this process owns; also removes `dir` (its temp files). */
export function ownChild(
  child: ChildProcess,
  pid: number,
  dir: string,
  graceMs: number,
): () => Promise<void> {
  const onExit = (): void => {
    if (!gone(child)) process.kill(pid, 'SIGKILL');
  };
  process.once('exit', onExit);
  let stopped: Promise<void> | undefined;
  return () =>
    (stopped ??= (async () => {
      if (!gone(child)) {
        process.kill(pid, 'SIGTERM');
        if (!(await exited(child, graceMs))) {
          process.kill(pid, 'SIGKILL');
          await exited(child, graceMs);
        }
      }
      process.removeListener('exit', onExit);
      rmSync(dir, { recursive: true, force: true });
    })());
}
