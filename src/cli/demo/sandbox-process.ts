/**
 * The sandbox as a child process, started exactly as a user would start it (`chaos-gate sandbox
 * --port-file <tmp>`, with the same Node, loader and entry script as this process), found through its
 * port file, and ended by its PID — never by name.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gone, ownChild } from './child.js';

/** How long the sandbox may take to write its port file (it listens in ~2 s; slow CI runners take longer). */
export const SANDBOX_START_TIMEOUT_MS = 30_000;
/** Grace period after SIGTERM (the sandbox stops its experiments and servers) before SIGKILL. */
export const SANDBOX_STOP_TIMEOUT_MS = 5_000;
/** Port-file poll interval. */
const POLL_MS = 25;
/** Most stderr kept for an error message. */
const MAX_STDERR_CHARS = 8_000;

/** Node flags that must not be passed on to a second process (a debugger port would clash). */
const UNSHAREABLE_FLAG = /^--(inspect|inspect-brk|inspect-port|inspect-wait|debug-port)(=|$)/;

/** The command line of this very CLI: Node, its loader flags (tsx or none), the entry script. */
export interface SelfCommand {
  command: string;
  args: string[];
}

/**
 * How to start another `chaos-gate` subcommand the way this process was started: under
 * `tsx src/cli/index.ts` or `node --import tsx …` the loader flags are in `execArgv`; under the bundle
 * `execArgv` is empty and `argv[1]` is `dist/cli.js`.
 */
export function selfCommand(
  argv: readonly string[] = process.argv,
  execArgv: readonly string[] = process.execArgv,
  execPath: string = process.execPath,
): SelfCommand {
  const entry = argv[1];
  if (entry === undefined || entry === '') throw new Error('cannot tell which script started this process');
  const flags = execArgv.filter((flag) => !UNSHAREABLE_FLAG.test(flag));
  return { command: execPath, args: [...flags, entry] };
}

/** The endpoints the sandbox wrote to its port file. */
export interface SandboxUrls {
  aws: string;
  canary: string;
  admin: string;
  github: string;
  pid: number;
}

/** A sandbox child process. */
export interface SandboxProcess {
  urls: SandboxUrls;
  pid: number;
  /** SIGTERM, then SIGKILL after {@link SANDBOX_STOP_TIMEOUT_MS}; resolves once the process is gone. */
  stop(): Promise<void>;
  /** Calls the admin endpoint; throws with the route and the sandbox's error on a non-2xx answer. */
  admin<T = unknown>(method: 'GET' | 'PUT' | 'POST' | 'DELETE', route: string, body?: unknown): Promise<T>;
}

function isUrls(v: unknown): v is SandboxUrls {
  const o = v as Partial<SandboxUrls> | null;
  return (
    typeof o === 'object' &&
    o !== null &&
    typeof o.aws === 'string' &&
    typeof o.canary === 'string' &&
    typeof o.admin === 'string' &&
    typeof o.github === 'string'
  );
}

/** Starts `chaos-gate sandbox` as a child process and waits for its port file. */
export async function startSandboxProcess(
  opts: {
    env?: NodeJS.ProcessEnv;
    signal?: AbortSignal | undefined;
    /** A sandbox config (`docs/sandbox.md`), written to a file in the temp dir and passed with --config. */
    config?: Record<string, unknown> | undefined;
  } = {},
): Promise<SandboxProcess> {
  const dir = mkdtempSync(join(tmpdir(), 'chaos-gate-demo-sandbox-'));
  const portFile = join(dir, 'ports.json');
  const self = selfCommand();
  const configArgs: string[] = [];
  if (opts.config) {
    const configFile = join(dir, 'sandbox.json');
    writeFileSync(configFile, JSON.stringify(opts.config));
    configArgs.push('--config', configFile);
  }
  // Its own process group: a Ctrl-C in the terminal reaches the demo, which stops the fault first and
  // only then ends the sandbox — the sandbox must not vanish under a run that is still stopping.
  const child = spawn(self.command, [...self.args, 'sandbox', '--port-file', portFile, ...configArgs], {
    stdio: ['ignore', 'ignore', 'pipe'],
    env: opts.env ?? process.env,
    detached: true,
  });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-MAX_STDERR_CHARS);
  });
  const pid = child.pid;
  if (pid === undefined) {
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`could not start ${self.command} ${self.args.join(' ')} sandbox`);
  }
  // The exit hook inside ownChild is the last resort if the demo dies without reaching its `finally`.
  const stop = ownChild(child, pid, dir, SANDBOX_STOP_TIMEOUT_MS);

  const deadline = Date.now() + SANDBOX_START_TIMEOUT_MS;
  let urls: SandboxUrls | undefined;
  while (!urls) {
    if (gone(child)) {
      await stop();
      throw new Error(
        `the sandbox exited (${child.exitCode ?? child.signalCode}) before listening:\n${stderr}`,
      );
    }
    if (opts.signal?.aborted || Date.now() > deadline) {
      await stop();
      throw new Error(
        opts.signal?.aborted
          ? 'cancelled while the sandbox was starting'
          : `the sandbox wrote no port file within ${SANDBOX_START_TIMEOUT_MS} ms:\n${stderr}`,
      );
    }
    try {
      const parsed: unknown = JSON.parse(readFileSync(portFile, 'utf8'));
      if (isUrls(parsed)) urls = { ...parsed, pid };
    } catch {
      await new Promise((r) => setTimeout(r, POLL_MS));
    }
  }
  const base = urls.admin;
  return {
    urls,
    pid,
    stop,
    async admin<T>(method: string, route: string, body?: unknown): Promise<T> {
      const res = await fetch(base + route, {
        method,
        ...(body === undefined
          ? {}
          : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
      });
      const text = await res.text();
      if (!res.ok) throw new Error(`sandbox admin ${method} ${route} answered ${res.status}: ${text}`);
      return (text ? JSON.parse(text) : {}) as T;
    },
  };
}
