/**
 * Starts the real `prometheus` binary (Debian's package) on 127.0.0.1 with a temporary config and data
 * directory and a 1 s scrape interval, and stops it by PID. Where the binary is missing the integration
 * tests are skipped with the reason — except under CI (`CI` set), where a missing binary is a failure.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { skipOrFailUnderCi } from './ci.js';
import { freePort } from './ports.js';

/** How long Prometheus may take to become ready; its TSDB start is well under a second on loopback. */
const READY_WAIT_MS = 30_000;
/** How long a SIGTERMed Prometheus may take to flush and exit before it is SIGKILLed. */
const STOP_WAIT_MS = 10_000;
/** Poll interval while waiting for readiness or data. */
const POLL_MS = 100;

function findBinary(): string | undefined {
  const fromEnv = process.env['PROMETHEUS_BIN'];
  if (fromEnv && existsSync(fromEnv)) return fromEnv;
  const which = spawnSync('sh', ['-c', 'command -v prometheus'], { encoding: 'utf8' });
  // `which.stdout` is null when no shell could be started (an empty PATH): nothing is found then.
  const path = (which.stdout ?? '').trim();
  return which.status === 0 && path !== '' ? path : undefined;
}

/** The `prometheus` binary, when installed. */
export const PROMETHEUS_BIN = findBinary();

/** Why the real-Prometheus tests cannot run here, or undefined when they can. Throws under CI. */
export const prometheusSkipReason: string | undefined = (() => {
  if (PROMETHEUS_BIN) return undefined;
  return skipOrFailUnderCi(
    'the Prometheus integration tests',
    "the 'prometheus' binary is not installed (apt-get install -y prometheus, or set PROMETHEUS_BIN)",
  );
})();

/** One scrape job of the temporary config. */
export interface ScrapeJob {
  name: string;
  target: string;
  path?: string;
}

/** A running Prometheus. */
export interface PrometheusServer {
  /** `http://127.0.0.1:<port>` */
  url: string;
  pid: number;
  /** What Prometheus logged (for failure messages). */
  logs(): string;
  stop(): Promise<void>;
}

/** What else the temporary config holds: rule files (their text) and the Alertmanager alerts go to. */
export interface PrometheusExtras {
  /** Rule files' contents (recording and alerting rules), written next to the config. */
  rules?: readonly string[];
  /** `host:port` of an Alertmanager, for the config's `alerting:` section. */
  alertmanager?: string;
}

function configFor(
  jobs: readonly ScrapeJob[],
  ruleFiles: readonly string[] = [],
  alertmanager?: string,
): string {
  const lines = ['global:', '  scrape_interval: 1s', '  evaluation_interval: 1s'];
  if (ruleFiles.length > 0) {
    lines.push('rule_files:');
    for (const f of ruleFiles) lines.push(`  - ${JSON.stringify(f)}`);
  }
  if (alertmanager !== undefined) {
    lines.push('alerting:', '  alertmanagers:', '    - static_configs:');
    lines.push(`        - targets: [${JSON.stringify(alertmanager)}]`);
  }
  lines.push('scrape_configs:');
  for (const job of jobs) {
    lines.push(`  - job_name: ${JSON.stringify(job.name)}`);
    lines.push(`    metrics_path: ${JSON.stringify(job.path ?? '/metrics')}`);
    lines.push(`    static_configs:`);
    lines.push(`      - targets: [${JSON.stringify(job.target)}]`);
  }
  return lines.join('\n') + '\n';
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

function exited(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
  });
}

/** Starts Prometheus scraping `jobs` every second and waits until it is ready. */
export async function startPrometheus(
  jobs: readonly ScrapeJob[],
  extras: PrometheusExtras = {},
): Promise<PrometheusServer> {
  if (!PROMETHEUS_BIN) throw new Error(prometheusSkipReason ?? 'prometheus not found');
  const dir = await mkdtemp(join(tmpdir(), 'chaos-gate-prom-'));
  const config = join(dir, 'prometheus.yml');
  const ruleFiles = (extras.rules ?? []).map((_, i) => join(dir, `rules-${i}.yml`));
  for (const [i, text] of (extras.rules ?? []).entries()) await writeFile(ruleFiles[i] as string, text);
  await writeFile(config, configFor(jobs, ruleFiles, extras.alertmanager));
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const child = spawn(
    PROMETHEUS_BIN,
    [
      `--config.file=${config}`,
      `--storage.tsdb.path=${join(dir, 'data')}`,
      `--web.listen-address=127.0.0.1:${port}`,
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
  if (pid === undefined) throw new Error(`could not start ${PROMETHEUS_BIN}`);

  const stop = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) {
      process.kill(pid, 'SIGTERM');
      const timer = setTimeout(() => {
        if (child.exitCode === null && child.signalCode === null) process.kill(pid, 'SIGKILL');
      }, STOP_WAIT_MS);
      await exited(child);
      clearTimeout(timer);
    }
    await rm(dir, { recursive: true, force: true });
  };

  const until = Date.now() + READY_WAIT_MS;
  while (Date.now() < until) {
    if (child.exitCode !== null) break;
    try {
      const res = await fetch(`${url}/-/ready`);
      if (res.ok) return { url, pid, logs: () => logs, stop };
    } catch {
      // not listening yet
    }
    await sleep(POLL_MS);
  }
  await stop();
  throw new Error(`Prometheus did not become ready at ${url}:\n${logs}`);
}

/** Runs an instant query directly (test plumbing, independent of the source under test). */
export async function rawQuery(base: string, query: string, time?: number): Promise<unknown> {
  const params = new URLSearchParams({ query });
  if (time !== undefined) params.set('time', (time / 1000).toFixed(3));
  const res = await fetch(`${base}/api/v1/query?${params.toString()}`);
  return res.json();
}

/**
 * Waits until `query` returns at least `minSeries` series (bounded by `waitMs`). Used to wait for scrapes
 * to accumulate; it asserts nothing about timing.
 */
export async function waitForSeries(
  base: string,
  query: string,
  minSeries = 1,
  waitMs = 30_000,
): Promise<void> {
  const until = Date.now() + waitMs;
  while (Date.now() < until) {
    const body = (await rawQuery(base, query)) as { status: string; data?: { result: unknown[] } };
    if (body.status === 'success' && (body.data?.result.length ?? 0) >= minSeries) return;
    await sleep(POLL_MS * 2);
  }
  throw new Error(`no result for ${query} within ${waitMs} ms`);
}
