/**
 * Starts `chaos-gate sandbox` as a child process (exactly as a user runs it), waits for its port file
 * and returns the URLs with a small admin client. `stop()` ends that child, and only it, by PID.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { cliArgs } from './cli.js';

/** How long the sandbox may take to write its port file (its target is < 2 s; CI machines are slower). */
const START_TIMEOUT_MS = 20_000;
/** How long to wait for a clean exit after SIGTERM before SIGKILL. */
const STOP_TIMEOUT_MS = 5_000;
const POLL_MS = 25;

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** The port file's content. */
export interface SandboxUrls {
  aws: string;
  canary: string;
  admin: string;
  github?: string;
  pid: number;
}

/** A thin client of the admin endpoint. */
export interface AdminClient {
  get<T = Record<string, unknown>>(route: string): Promise<T>;
  send<T = Record<string, unknown>>(
    method: 'POST' | 'PUT' | 'PATCH' | 'DELETE',
    route: string,
    body?: unknown,
  ): Promise<T>;
}

/** A running sandbox child process. */
export interface RunningSandbox {
  urls: SandboxUrls;
  admin: AdminClient;
  pid: number;
  /** Everything the child wrote to stderr so far. */
  stderr(): string;
  /** SIGTERM, then SIGKILL after a grace period; resolves with the exit code (null when killed). */
  stop(): Promise<number | null>;
}

/** Options: a config object written to a temp file and passed with `--config`, extra CLI flags. */
export interface StartSandboxOptions {
  config?: Record<string, unknown>;
  args?: string[];
}

async function adminCall<T>(base: string, method: string, route: string, body?: unknown): Promise<T> {
  const send = (): Promise<Response> =>
    fetch(base + route, {
      method,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  // A test that blocks its event loop (spawnSync) for longer than the server's keep-alive timeout finds
  // its pooled connection closed by the server: that first request fails before it was sent. Once more.
  const res = await send().catch((error: unknown) => {
    const code = (error as { cause?: { code?: string } }).cause?.code;
    if (code === 'UND_ERR_SOCKET') return send();
    throw error;
  });
  const json = (await res.json()) as T & { error?: string };
  if (!res.ok)
    throw new Error(`admin ${method} ${route} → ${res.status}: ${json.error ?? JSON.stringify(json)}`);
  return json;
}

function exited(child: ChildProcess, ms: number): Promise<boolean> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(true);
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), ms);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve(true);
    });
  });
}

/** Starts the sandbox child process and waits until its port file appears. */
export async function startSandboxProcess(opts: StartSandboxOptions = {}): Promise<RunningSandbox> {
  const dir = mkdtempSync(path.join(tmpdir(), 'chaos-gate-sandbox-'));
  const portFile = path.join(dir, 'ports.json');
  const args = cliArgs(['sandbox', '--port-file', portFile, ...(opts.args ?? [])]);
  if (opts.config) {
    const configFile = path.join(dir, 'sandbox.json');
    writeFileSync(configFile, JSON.stringify(opts.config));
    args.push('--config', configFile);
  }
  const child = spawn(process.execPath, args, { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (c: Buffer) => (stderr += c.toString()));
  const stop = async (): Promise<number | null> => {
    if (child.exitCode === null && child.signalCode === null && child.pid !== undefined) {
      process.kill(child.pid, 'SIGTERM');
      if (!(await exited(child, STOP_TIMEOUT_MS))) {
        process.kill(child.pid, 'SIGKILL');
        await exited(child, STOP_TIMEOUT_MS);
      }
    }
    rmSync(dir, { recursive: true, force: true });
    return child.exitCode;
  };

  const deadline = Date.now() + START_TIMEOUT_MS;
  let urls: SandboxUrls | undefined;
  while (!urls) {
    if (child.exitCode !== null)
      throw new Error(`the sandbox exited with ${child.exitCode} before listening:\n${stderr}`);
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`the sandbox wrote no port file within ${START_TIMEOUT_MS} ms:\n${stderr}`);
    }
    try {
      urls = JSON.parse(readFileSync(portFile, 'utf8')) as SandboxUrls;
    } catch {
      await new Promise((r) => setTimeout(r, POLL_MS));
    }
  }
  const base = urls.admin;
  return {
    urls,
    pid: child.pid!,
    stderr: () => stderr,
    stop,
    admin: {
      get: (route) => adminCall(base, 'GET', route),
      send: (method, route, body) => adminCall(base, method, route, body),
    },
  };
}
