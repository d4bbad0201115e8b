/**
 * What the bench figures and the reliability run share: plans sized for the sandbox, a real
 * `chaos-gate run` child process pointed at a sandbox, and readers of what the sandbox saw (its request
 * log, its experiments, its canary). Everything crosses a socket; the sandbox is reached over HTTP only.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { FisClient, GetExperimentCommand } from '@aws-sdk/client-fis';
import { stringify } from 'yaml';
import { parseJournal } from '../../src/journal/read.js';
import type { Journal } from '../../src/journal/types.js';
import type { AdminClient, SandboxUrls } from '../../test/helpers/sandbox.js';
import { cliArgs } from '../../test/helpers/cli.js';

/** The repository root (bench/lib → ../..). */
export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** The sandbox's Redis subnet tag (src/sandbox/targets.ts): the partition target of every bench plan. */
const REDIS_TARGET_TAGS = { Environment: 'staging-chaos', 'chaos-target': 'redis-pay-primary-01' };

/** An SLI as the plan file spells it (source and bound fields). */
export type PlanSli = Record<string, unknown> & { name: string };

/** The knobs a bench or reliability plan turns; the rest is the sandbox Redis partition fixture. */
export interface PlanOptions {
  id: string;
  /** `hypothesis.interval`, e.g. `1s`. */
  interval?: string;
  steady?: string;
  /** FIS action duration, ISO 8601 (default `PT1M`, FIS's minimum for disrupt-connectivity). */
  actionDuration?: string;
  /** `blastRadius.maxActionDuration`, must cover actionDuration. */
  maxActionDuration?: string;
  maxRunDuration?: string;
  recovery?: string;
  minRequests?: number;
  blindAfter?: number;
  slis?: PlanSli[];
  rules?: Record<string, unknown>[];
  /** Include the scrape request count (`hypothesis.requests`). */
  requests?: boolean;
  /** The metrics URL of the request count (default the canary's). */
  requestsUrl?: string;
  /** More environment variables the plan's URLs expand (declared public, like CANARY_URL). */
  env?: string[];
}

/** The canary's metrics endpoint as plans reference it (expanded from the run's environment). */
export const CANARY_METRICS = '${CANARY_URL}/metrics';

/** The scrape SLIs of `fixtures/plans/sandbox-redis-partition.yaml`: error ratio and p95 latency. */
export function scrapeSlis(url = CANARY_METRICS): PlanSli[] {
  return [
    {
      name: 'error_ratio',
      scrape: {
        url,
        ratio: { numerator: 'http_requests_total{status="503"}', denominator: 'http_requests_total' },
      },
      max: 0.002,
      steady: { max: 0.0005 },
    },
    {
      name: 'p95_latency_s',
      scrape: { url, quantile: { q: 0.95, histogram: 'http_request_duration_seconds_bucket' } },
      max: 0.18,
      steady: { max: 0.11 },
    },
  ];
}

/** The abort rule of the fixture: error ratio above 1 % for `for`. */
export function errorRule(forText = '3s'): Record<string, unknown> {
  return { sli: 'error_ratio', above: 0.01, for: forText };
}

/** A plan object (the same shape as the YAML fixtures). */
export function planObject(o: PlanOptions): Record<string, unknown> {
  const hypothesis: Record<string, unknown> = {
    interval: o.interval ?? '1s',
    minRequests: o.minRequests ?? 20,
    slis: o.slis ?? scrapeSlis(),
    steadyState: { duration: o.steady ?? '5s' },
    recovery: { within: o.recovery ?? '15s' },
  };
  if (o.requests ?? true) {
    hypothesis.requests = {
      scrape: { url: o.requestsUrl ?? CANARY_METRICS, increase: 'http_requests_total' },
    };
  }
  return {
    version: 1,
    id: o.id,
    title: `bench plan ${o.id}`,
    service: 'canary',
    environment: 'sandbox',
    owner: 'chaos-gate-bench',
    hypothesis,
    abort: { rules: o.rules ?? [errorRule()], blindAfter: o.blindAfter ?? 3 },
    blastRadius: {
      maxTargets: 1,
      maxActionDuration: o.maxActionDuration ?? '60s',
      maxRunDuration: o.maxRunDuration ?? '5m',
      requireTags: { Environment: 'staging-chaos' },
    },
    fis: {
      roleArn: 'arn:aws:iam::123456789012:role/chaos-gate-fis-sandbox',
      description: `Partition the Redis subnet (${o.id})`,
      targets: {
        redisPrimarySubnet: {
          resourceType: 'aws:ec2:subnet',
          resourceTags: REDIS_TARGET_TAGS,
          selectionMode: 'COUNT(1)',
        },
      },
      actions: {
        partitionRedisPrimary: {
          actionId: 'aws:network:disrupt-connectivity',
          parameters: { duration: o.actionDuration ?? 'PT1M', scope: 'all' },
          targets: { Subnets: 'redisPrimarySubnet' },
        },
      },
    },
    // A plan expands only the variables it declares (src/plan/schema.ts): the canary's URL, an
    // address rather than a secret, so reports may show it.
    env: ['CANARY_URL', ...(o.env ?? [])].map((name) => ({ name, public: true })),
  };
}

/** Writes a plan as YAML into `dir` and returns its path. */
export function writePlan(dir: string, o: PlanOptions): string {
  const file = path.join(dir, `${o.id}.yaml`);
  writeFileSync(file, stringify(planObject(o)));
  return file;
}

/** A fresh temporary directory for plans and journals. */
export function tempDir(prefix = 'chaos-gate-bench-'): string {
  return mkdtempSync(path.join(tmpdir(), prefix));
}

/** The environment a run needs to reach the sandbox (any credentials work there). */
export function sandboxEnv(urls: SandboxUrls, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return {
    ...process.env,
    AWS_ENDPOINT_URL: urls.aws,
    AWS_ACCESS_KEY_ID: 'sandbox',
    AWS_SECRET_ACCESS_KEY: 'sandbox',
    AWS_REGION: 'us-east-1',
    CANARY_URL: urls.canary,
    ...extra,
  };
}

/** A `chaos-gate run` child process. */
export interface RunChild {
  child: ChildProcess;
  pid: number;
  journalPath: string;
  /** Wall-clock time just before the spawn. */
  spawnedAt: number;
  /** Resolves when the process exits: exit code (null when killed), and everything it printed. */
  done: Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }>;
  /** SIGKILLs this child (only it, by PID) if it is still running. */
  kill(signal?: NodeJS.Signals): void;
}

/** Starts `chaos-gate run <plan> --json` as a user runs it: the built bundle when there is one (test/helpers/cli.ts). */
export function startRun(
  planPath: string,
  urls: SandboxUrls,
  opts: { journalPath: string; extraArgs?: string[]; env?: Record<string, string> },
): RunChild {
  const args = cliArgs([
    'run',
    planPath,
    '--journal',
    opts.journalPath,
    '--json',
    '--run-id',
    `bench-${path.basename(planPath, '.yaml')}-${Date.now()}`,
    ...(opts.extraArgs ?? []),
  ]);
  const spawnedAt = Date.now();
  const child = spawn(process.execPath, args, {
    cwd: ROOT,
    env: sandboxEnv(urls, opts.env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr?.on('data', (c: Buffer) => (stderr = (stderr + c.toString()).slice(-50_000)));
  const done = new Promise<{
    code: number | null;
    signal: NodeJS.Signals | null;
    stdout: string;
    stderr: string;
  }>((resolve) => {
    child.once('exit', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
  if (child.pid === undefined) throw new Error('could not start chaos-gate run');
  const pid = child.pid;
  return {
    child,
    pid,
    journalPath: opts.journalPath,
    spawnedAt,
    done,
    kill(signal = 'SIGKILL') {
      if (child.exitCode === null && child.signalCode === null) process.kill(pid, signal);
    },
  };
}

/**
 * The journal at `journalPath` as it stands (a live run's NDJSON prefix, or the final file), or
 * undefined while it is missing or unreadable — polled while a run is still writing it.
 */
export function readJournal(journalPath: string): Journal | undefined {
  if (!existsSync(journalPath)) return undefined;
  try {
    return parseJournal(readFileSync(journalPath, 'utf8'), journalPath);
  } catch {
    return undefined;
  }
}

/** The `--json` line a run prints at the end. */
export interface RunSummary {
  verdict: string;
  reason: string;
  exitCode: number;
  experimentId: string | null;
  journal: string;
}

/** Runs a plan to its end (bounded by `timeoutMs`, after which the child is SIGKILLed) and reads the journal. */
export async function runToEnd(
  planPath: string,
  urls: SandboxUrls,
  opts: { journalPath: string; timeoutMs: number; env?: Record<string, string> },
): Promise<{
  summary: RunSummary | undefined;
  journal: Journal | undefined;
  code: number | null;
  stderr: string;
}> {
  const run = startRun(planPath, urls, opts);
  const timer = setTimeout(() => run.kill(), opts.timeoutMs);
  const out = await run.done;
  clearTimeout(timer);
  const line = out.stdout
    .split('\n')
    .reverse()
    .find((l) => l.startsWith('{'));
  let summary: RunSummary | undefined;
  try {
    summary = line ? (JSON.parse(line) as RunSummary) : undefined;
  } catch {
    summary = undefined;
  }
  const journal = existsSync(opts.journalPath)
    ? parseJournal(readFileSync(opts.journalPath, 'utf8'), opts.journalPath)
    : undefined;
  return { summary, journal, code: out.code, stderr: out.stderr };
}

/** One request of the AWS stand-in's log (admin `GET /requests`). */
export interface LoggedRequest {
  seq: number;
  time: number;
  service: string;
  operation: string | undefined;
  status: number;
  path: string;
  body: unknown;
  fault?: string;
}

/** The AWS stand-in's request log, optionally filtered. */
export async function requestLog(
  admin: AdminClient,
  filter: { service?: string; operation?: string; since?: number } = {},
): Promise<LoggedRequest[]> {
  const params = new URLSearchParams();
  if (filter.service) params.set('service', filter.service);
  if (filter.operation) params.set('operation', filter.operation);
  if (filter.since !== undefined) params.set('since', String(filter.since));
  const q = params.toString();
  const out = await admin.get<{ requests: LoggedRequest[] }>(`/requests${q ? `?${q}` : ''}`);
  return out.requests;
}

/** The newest sequence number in the request log (0 when empty), to read only what follows. */
export async function lastSeq(admin: AdminClient): Promise<number> {
  const all = await requestLog(admin);
  return all.reduce((max, r) => Math.max(max, r.seq), 0);
}

/** An FIS client of the sandbox, for reading experiments as the stand-in reports them. */
export function fisClient(urls: SandboxUrls): FisClient {
  return new FisClient({
    endpoint: urls.aws,
    region: 'us-east-1',
    credentials: { accessKeyId: 'sandbox', secretAccessKey: 'sandbox' },
    maxAttempts: 1,
  });
}

/** The stand-in's view of an experiment: status, reason and end time (ms), or undefined when unknown. */
export async function experimentRecord(
  fis: FisClient,
  id: string,
): Promise<{ status: string; reason: string; endTime: number | undefined; startTime: number | undefined }> {
  const out = await fis.send(new GetExperimentCommand({ id }));
  const e = out.experiment;
  return {
    status: e?.state?.status ?? 'unknown',
    reason: e?.state?.reason ?? '',
    endTime: e?.endTime?.getTime(),
    startTime: e?.startTime?.getTime(),
  };
}

/** One FIS action as the admin endpoint records it. */
export interface ActionRecord {
  experimentId: string;
  actionName: string;
  startTime: string;
  endTime: string | null;
  endedAs: string | null;
}

/** The FIS actions the sandbox ran for an experiment. */
export async function actionsOf(admin: AdminClient, experimentId: string): Promise<ActionRecord[]> {
  const out = await admin.get<{ actions: ActionRecord[] }>(
    `/actions?experimentId=${encodeURIComponent(experimentId)}`,
  );
  return out.actions;
}

/** What is still live in the sandbox: FIS experiments not ended and canary faults switched on. */
export async function liveFaults(admin: AdminClient): Promise<{
  experiments: { id?: string; state?: { status?: string } }[];
  canaryFaults: Record<string, unknown>;
}> {
  const experiments = (
    await admin.get<{ experiments: { id?: string; state?: { status?: string } }[] }>('/experiments')
  ).experiments;
  const canary = await admin.get<{ faults: Record<string, unknown> }>('/canary');
  return { experiments, canaryFaults: canary.faults };
}

/** Polls `check` every `everyMs` until it returns a value, or gives up after `timeoutMs` (undefined). */
export async function pollFor<T>(
  check: () => Promise<T | undefined>,
  timeoutMs: number,
  everyMs = 20,
): Promise<T | undefined> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const v = await check().catch(() => undefined);
    if (v !== undefined) return v;
    if (Date.now() >= until) return undefined;
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

/** Sets sandbox FIS timings (admin `PUT /fis/timings`). */
export async function setFisTimings(admin: AdminClient, timings: Record<string, number>): Promise<void> {
  await admin.send('PUT', '/fis/timings', timings);
}

/** Sets the canary behaviour (admin `PUT /canary`), e.g. `{ fallback: false }`. */
export async function setCanary(admin: AdminClient, behaviour: Record<string, unknown>): Promise<void> {
  await admin.send('PUT', '/canary', behaviour);
}
