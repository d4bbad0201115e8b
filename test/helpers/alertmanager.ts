/**
 * Starts the real Alertmanager (Debian's `prometheus-alertmanager`) on 127.0.0.1 with a temporary config
 * (one route to a receiver that sends nothing, group_wait 1s) and data directory, clustering off, and
 * stops it by PID. Where the binary is missing the tests are skipped with the reason — except under CI.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { skipOrFailUnderCi } from './ci.js';
import { freePort } from './ports.js';

const READY_WAIT_MS = 30_000;
const STOP_WAIT_MS = 10_000;
const POLL_MS = 100;

function findBinary(): string | undefined {
  const fromEnv = process.env['ALERTMANAGER_BIN'];
  if (fromEnv && existsSync(fromEnv)) return fromEnv;
  for (const name of ['prometheus-alertmanager', 'alertmanager']) {
    const which = spawnSync('sh', ['-c', `command -v ${name}`], { encoding: 'utf8' });
    const path = (which.stdout ?? '').trim();
    if (which.status === 0 && path !== '') return path;
  }
  return undefined;
}

export const ALERTMANAGER_BIN = findBinary();

export const alertmanagerSkipReason: string | undefined = (() => {
  if (ALERTMANAGER_BIN) return undefined;
  return skipOrFailUnderCi(
    'the Alertmanager integration tests',
    "the 'prometheus-alertmanager' binary is not installed (apt-get install -y prometheus-alertmanager, or set ALERTMANAGER_BIN)",
  );
})();

export interface AlertmanagerServer {
  /** `http://127.0.0.1:<port>` */
  url: string;
  /** `127.0.0.1:<port>`, for Prometheus's `alerting:` section. */
  host: string;
  pid: number;
  logs(): string;
  stop(): Promise<void>;
}

/** Groups notify after 1 s; the receiver has no integrations, so nothing is sent anywhere. */
const CONFIG = `route:
  receiver: nowhere
  group_wait: 1s
  group_interval: 1s
  repeat_interval: 1h
receivers:
  - name: nowhere
`;

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

function exited(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
  });
}

export async function startAlertmanager(): Promise<AlertmanagerServer> {
  if (!ALERTMANAGER_BIN) throw new Error(alertmanagerSkipReason ?? 'alertmanager not found');
  const dir = await mkdtemp(join(tmpdir(), 'chaos-gate-am-'));
  const config = join(dir, 'alertmanager.yml');
  await writeFile(config, CONFIG);
  const port = await freePort();
  const host = `127.0.0.1:${port}`;
  const url = `http://${host}`;
  const child = spawn(
    ALERTMANAGER_BIN,
    [
      `--config.file=${config}`,
      `--storage.path=${join(dir, 'data')}`,
      `--web.listen-address=${host}`,
      '--cluster.listen-address=',
      '--log.level=warn',
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let logs = '';
  const capture = (chunk: Buffer): void => {
    logs = (logs + chunk.toString()).slice(-20_000);
  };
  child.stdout?.on('data', capture);
  child.stderr?.on('data', capture);
  const pid = child.pid;
  if (pid === undefined) throw new Error(`could not start ${ALERTMANAGER_BIN}`);
  let removed = false;
  const stop = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) {
      process.kill(pid, 'SIGTERM');
      const timer = setTimeout(() => {
        if (child.exitCode === null && child.signalCode === null) process.kill(pid, 'SIGKILL');
      }, STOP_WAIT_MS);
      await exited(child);
      clearTimeout(timer);
    }
    if (!removed) {
      removed = true;
      await rm(dir, { recursive: true, force: true });
    }
  };
  const until = Date.now() + READY_WAIT_MS;
  while (Date.now() < until) {
    if (child.exitCode !== null) break;
    try {
      const res = await fetch(`${url}/-/ready`);
      if (res.ok) return { url, host, pid, logs: () => logs, stop };
    } catch {
      // not listening yet
    }
    await sleep(POLL_MS);
  }
  await stop();
  throw new Error(`Alertmanager did not become ready at ${url}:\n${logs}`);
}
