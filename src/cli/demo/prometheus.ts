/**
 * A throwaway Prometheus server for the demo: Debian's (or any) `prometheus` binary found on PATH,
 * listening on 127.0.0.1, scraping the sandbox canary every second into a temporary data directory, and
 * ended by its PID. When there is no binary the demo reads the canary's /metrics itself instead.
 */
import { sleepFor } from '../../net/timer.js';
import { spawn, spawnSync } from 'node:child_process';
import { accessSync, constants, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { gone, ownChild } from './child.js';

/** Scrape interval: the plans measure every 1 s, so Prometheus must have a fresh sample each tick. */
export const SCRAPE_INTERVAL = '1s';
/** How long Prometheus may take to answer /-/ready (its empty TSDB opens in well under a second). */
export const PROMETHEUS_READY_TIMEOUT_MS = 20_000;
/**
 * How long to wait for the first rate over the canary: two scrapes 1 s apart are needed, so a few
 * seconds is plenty; more means the scrape is failing.
 */
export const PROMETHEUS_DATA_TIMEOUT_MS = 15_000;
/** Grace period after SIGTERM (Prometheus flushes its head block) before SIGKILL. */
export const PROMETHEUS_STOP_TIMEOUT_MS = 10_000;
const POLL_MS = 100;
const MAX_LOG_CHARS = 8_000;

/** The `prometheus` binary: `$PROMETHEUS_BIN` when set, else the first executable on PATH. */
export function findPrometheus(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const candidates = [
    ...(env.PROMETHEUS_BIN ? [env.PROMETHEUS_BIN] : []),
    ...(env.PATH ?? '')
      .split(delimiter)
      .filter(Boolean)
      .map((dir) => join(dir, 'prometheus')),
  ];
  for (const file of candidates) {
    try {
      accessSync(file, constants.X_OK);
      return file;
    } catch {
      // not here
    }
  }
  return undefined;
}

/** `prometheus --version`'s first line, shortened to the version (e.g. `2.42.0+ds`); undefined when unknown. */
export function prometheusVersion(bin: string): string | undefined {
  const r = spawnSync(bin, ['--version'], { encoding: 'utf8', timeout: 5_000 });
  const text = `${r.stdout ?? ''}${r.stderr ?? ''}`;
  return /version (\S+)/.exec(text)?.[1];
}

/**
 * A free loopback port: bind port 0, read the port the system gave, release it for a child to take
 * (Prometheus cannot report the port it picked for `:0`, so one is chosen for it). The tests' helpers use
 * it too (test/helpers/ports.ts).
 */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** A running Prometheus. */
export interface PrometheusProcess {
  url: string;
  pid: number;
  bin: string;
  version: string | undefined;
  stop(): Promise<void>;
}

const sleep = (ms: number): Promise<void> => sleepFor(ms);

/** True once `query` returns at least one series. */
async function hasResult(url: string, query: string): Promise<boolean> {
  try {
    const res = await fetch(`${url}/api/v1/query?${new URLSearchParams({ query }).toString()}`);
    const body = (await res.json()) as { status?: string; data?: { result?: unknown[] } };
    return body.status === 'success' && (body.data?.result?.length ?? 0) > 0;
  } catch {
    return false;
  }
}

/**
 * Starts Prometheus scraping `target` (`host:port`, path `/metrics`) every second, and resolves once
 * it is ready and `readyQuery` has data, so the plan's steady state does not begin with no-data.
 */
export async function startPrometheus(o: {
  bin: string;
  target: string;
  readyQuery: string;
  signal?: AbortSignal | undefined;
}): Promise<PrometheusProcess> {
  const dir = mkdtempSync(join(tmpdir(), 'chaos-gate-demo-prometheus-'));
  const config = join(dir, 'prometheus.yml');
  writeFileSync(
    config,
    [
      'global:',
      `  scrape_interval: ${SCRAPE_INTERVAL}`,
      `  scrape_timeout: ${SCRAPE_INTERVAL}`,
      `  evaluation_interval: ${SCRAPE_INTERVAL}`,
      'scrape_configs:',
      '  - job_name: sandbox-canary',
      '    static_configs:',
      `      - targets: [${JSON.stringify(o.target)}]`,
      '',
    ].join('\n'),
  );
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const child = spawn(
    o.bin,
    [
      `--config.file=${config}`,
      `--storage.tsdb.path=${join(dir, 'data')}`,
      `--web.listen-address=127.0.0.1:${port}`,
      '--log.level=warn',
    ],
    // Own process group, like the sandbox: the demo ends it after the run has stopped its fault.
    { stdio: ['ignore', 'pipe', 'pipe'], detached: true },
  );
  let logs = '';
  const capture = (chunk: Buffer): void => {
    logs = (logs + chunk.toString()).slice(-MAX_LOG_CHARS);
  };
  child.stdout?.on('data', capture);
  child.stderr?.on('data', capture);
  const pid = child.pid;
  if (pid === undefined) {
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`could not start ${o.bin}`);
  }
  const stop = ownChild(child, pid, dir, PROMETHEUS_STOP_TIMEOUT_MS);

  const wait = async (what: string, ms: number, ok: () => Promise<boolean>): Promise<void> => {
    const until = Date.now() + ms;
    for (;;) {
      if (gone(child)) {
        await stop();
        throw new Error(`prometheus exited (${child.exitCode ?? child.signalCode}) before ${what}:\n${logs}`);
      }
      if (o.signal?.aborted) {
        await stop();
        throw new Error('cancelled while Prometheus was starting');
      }
      if (await ok()) return;
      if (Date.now() > until) {
        await stop();
        throw new Error(`prometheus was not ${what} within ${ms} ms:\n${logs}`);
      }
      await sleep(POLL_MS);
    }
  };
  await wait('ready', PROMETHEUS_READY_TIMEOUT_MS, async () => {
    try {
      return (await fetch(`${url}/-/ready`)).ok;
    } catch {
      return false;
    }
  });
  await wait('scraping the canary', PROMETHEUS_DATA_TIMEOUT_MS, () => hasResult(url, o.readyQuery));
  return { url, pid, bin: o.bin, version: prometheusVersion(o.bin), stop };
}
