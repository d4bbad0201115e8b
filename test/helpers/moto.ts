/**
 * Starts `moto_server` (the Python AWS mock, preinstalled on the node machine image) on loopback for
 * contract tests that compare the sandbox's stand-ins with it. When `moto_server` is not installed the
 * caller gets a skip reason to print instead of a server.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import path from 'node:path';
import { freePort } from './ports.js';

/** How long moto may take to answer its first request; it imports every backend on start. */
const MOTO_START_TIMEOUT_MS = 30_000;
/** How long to wait for moto to exit after SIGTERM before sending SIGKILL. */
const MOTO_STOP_TIMEOUT_MS = 5_000;
const POLL_INTERVAL_MS = 100;

/** A running moto server started by {@link startMoto}. */
export interface MotoServer {
  url: string;
  pid: number;
  /** Stops this server (and only it) by PID. */
  stop(): Promise<void>;
}

/** Either a running server or the reason the tests that need it are skipped. */
export type MotoStart = { ok: true; server: MotoServer } | { ok: false; skipReason: string };

function findOnPath(cmd: string): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    if (!dir) continue;
    const candidate = path.join(dir, cmd);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not in this directory
    }
  }
  return undefined;
}

async function answers(url: string): Promise<boolean> {
  try {
    const res = await fetch(`${url}/moto-api/`, { signal: AbortSignal.timeout(2_000) });
    await res.arrayBuffer();
    return res.status < 500;
  } catch {
    return false;
  }
}

function waitForExit(child: ChildProcess, ms: number): Promise<boolean> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(true);
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), ms);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve(true);
    });
  });
}

/** Starts `moto_server` on 127.0.0.1 at a free port and waits until it answers. */
export async function startMoto(): Promise<MotoStart> {
  const bin = findOnPath('moto_server');
  if (!bin) {
    return {
      ok: false,
      skipReason: 'moto_server is not installed (pip package moto[server]); the moto comparison was not run',
    };
  }
  const port = await freePort();
  const child = spawn(bin, ['-H', '127.0.0.1', '-p', String(port)], {
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { ...process.env, MOTO_ALLOW_NONEXISTENT_REGION: 'true' },
  });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-4_000);
  });
  const spawnError = new Promise<Error>((resolve) => child.once('error', resolve));
  const url = `http://127.0.0.1:${port}`;
  const pid = child.pid;
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    if (!(await waitForExit(child, MOTO_STOP_TIMEOUT_MS))) {
      child.kill('SIGKILL');
      await waitForExit(child, MOTO_STOP_TIMEOUT_MS);
    }
  };
  const deadline = Date.now() + MOTO_START_TIMEOUT_MS;
  while (Date.now() < deadline) {
    const failed = await Promise.race([
      spawnError.then((e) => e.message),
      new Promise<undefined>((r) => setTimeout(() => r(undefined), POLL_INTERVAL_MS)),
    ]);
    if (failed !== undefined || child.exitCode !== null) {
      await stop();
      return {
        ok: false,
        skipReason: `moto_server did not start (${failed ?? `exit ${child.exitCode}`}): ${stderr.trim().slice(-500)}`,
      };
    }
    if (pid !== undefined && (await answers(url))) return { ok: true, server: { url, pid, stop } };
  }
  await stop();
  return { ok: false, skipReason: `moto_server did not answer on ${url} within ${MOTO_START_TIMEOUT_MS} ms` };
}
