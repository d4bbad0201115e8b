/**
 * The account's AWS demand (issue 29): what runs send, by operation, per fault tick and per run, and the
 * account's peak request rate when N runs share one account, against AWS's published per-account quotas.
 *
 * - `benchSliCalls`: one held run each with 1, 10 and 50 CloudWatch SLIs; every AWS call of every fault
 *   tick counted from the stand-in's request log, by operation.
 * - `benchAccountRate`: N = 1, 5 and 20 plans started together against one sandbox whose FIS allows 5
 *   active experiments, as FIS does; the peak over 1 s windows of each operation's requests in the
 *   stand-in's log, and the verdicts (none may be `failed` for the quota).
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { startSandboxProcess, type RunningSandbox } from '../../test/helpers/sandbox.js';
import { measured, notMeasured, type FigureResult } from '../lib/stats.js';
import { ALL_CALLS_TARGET } from './api-calls.js';
import {
  readJournal,
  requestLog,
  runToEnd,
  scrapeSlis,
  startRun,
  tempDir,
  writePlan,
  type LoggedRequest,
  type PlanSli,
} from '../lib/world.js';

/**
 * AWS's published per-account request-rate quotas (TPS) for the operations chaos-gate sends: CloudWatch
 * from the General Reference "Amazon CloudWatch endpoints and quotas" (docs/fis.md, "AWS demand").
 * FIS publishes no API rate quota; its operations are reported without one.
 */
export const ACCOUNT_TPS_QUOTAS: Readonly<Record<string, number>> = {
  'cloudwatch:DescribeAlarms': 9,
  'cloudwatch:PutMetricAlarm': 3,
  'cloudwatch:SetAlarmState': 3,
  'cloudwatch:DeleteAlarms': 3,
  'cloudwatch:GetMetricData': 500,
  'cloudwatch:PutMetricData': 500,
};

const RUN_TIMEOUT_MS = 600_000;

/** Requests of each `service:Operation` in `log`. */
function byOperation(log: readonly LoggedRequest[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const r of log) {
    const key = `${r.service}:${r.operation ?? 'unknown'}`;
    out[key] = (out[key] ?? 0) + 1;
  }
  return Object.fromEntries(Object.entries(out).sort(([a], [b]) => a.localeCompare(b)));
}

/** The most requests of each operation in any 1 s window (a window starts at each request). */
export function peakPerSecond(log: readonly LoggedRequest[]): Record<string, number> {
  const times = new Map<string, number[]>();
  for (const r of log) {
    const key = `${r.service}:${r.operation ?? 'unknown'}`;
    (times.get(key) ?? times.set(key, []).get(key)!).push(r.time);
  }
  const out: Record<string, number> = {};
  for (const [key, ts] of times) {
    ts.sort((a, b) => a - b);
    let peak = 0;
    for (let i = 0, j = 0; i < ts.length; i++) {
      while (ts[i]! - ts[j]! >= 1000) j++;
      peak = Math.max(peak, i - j + 1);
    }
    out[key] = peak;
  }
  return Object.fromEntries(Object.entries(out).sort(([a], [b]) => a.localeCompare(b)));
}

/** `k` CloudWatch SLIs over what the canary publishes (one GetMetricData carries them all). */
function cloudwatchSlis(k: number): PlanSli[] {
  const metric = { namespace: 'Sandbox/Canary', dimensions: { Service: 'canary' }, period: '10s' };
  return Array.from({ length: k }, (_, i) => ({
    name: `cw_requests_${i + 1}`,
    cloudwatch: { ...metric, metricName: 'RequestCount', stat: 'Sum' },
    min: 1,
  }));
}

/** Per fault tick (a fault measurement until the next one), every AWS call by operation. */
function perTick(
  journal: NonNullable<ReturnType<typeof readJournal>>,
  log: readonly LoggedRequest[],
): Record<string, number>[] {
  const fault = journal.measurements.filter((m) => m.phase === 'fault');
  const end = Math.min(
    journal.measurements.find((m) => m.at > (fault.at(-1)?.at ?? 0))?.at ?? Infinity,
    journal.timings.stopRequestedAt ?? Infinity,
  );
  return fault.map((m, i) => {
    const until = fault[i + 1]?.at ?? end;
    return byOperation(log.filter((r) => r.time >= m.at && r.time < until));
  });
}

const sum = (o: Record<string, number>): number => Object.values(o).reduce((a, b) => a + b, 0);

/** Calls per fault tick with 1, 10 and 50 CloudWatch SLIs (and two scrape SLIs for the verdict). */
export async function benchSliCalls(
  sandbox: RunningSandbox,
  log: (line: string) => void,
): Promise<FigureResult[]> {
  const rows: FigureResult[] = [];
  // On a fresh sandbox the canary's CloudWatch metrics have no whole 10 s period yet: a steady state that
  // started now would see no datapoint and end not-run. Two periods are enough.
  await new Promise((r) => setTimeout(r, 20_000));
  for (const k of [1, 10, 50]) {
    const base = {
      id: `calls-per-tick-${k}-slis`,
      figure: `AWS calls per fault tick, ${k} CloudWatch SLI${k === 1 ? '' : 's'}`,
      unit: 'calls/tick',
      method:
        'stand-in request log: every AWS request between one fault measurement and the next, one held run',
    };
    // GetMetricData (all SLIs in one call) and GetExperiment every tick; the kill switch every 15 s; the
    // lease beat every 5 s: at a 1 s interval about 2.3 calls a tick on average, at most 5.
    const target = ALL_CALLS_TARGET;
    const dir = tempDir();
    const plan = writePlan(dir, {
      id: `bench-slis-${k}-${Date.now().toString(36)}`,
      steady: '5s',
      slis: [...scrapeSlis(), ...cloudwatchSlis(k)],
    });
    const journalPath = path.join(dir, 'slis.journal.json');
    const since = (await requestLog(sandbox.admin)).at(-1)?.seq ?? 0;
    const out = await runToEnd(plan, sandbox.urls, { journalPath, timeoutMs: RUN_TIMEOUT_MS });
    const journal = out.journal;
    if (!journal) {
      rows.push(notMeasured(base, target.text, `no journal (${out.stderr.slice(-300)})`));
      continue;
    }
    const requests = await requestLog(sandbox.admin, { since });
    const ticks = perTick(journal, requests);
    if (ticks.length === 0) {
      rows.push(
        notMeasured(base, target.text, `no fault tick (verdict ${journal.verdict}: ${journal.reason})`),
      );
      continue;
    }
    const ops = [...new Set(ticks.flatMap((t) => Object.keys(t)))].sort();
    const meanByOp = Object.fromEntries(
      ops.map((op) => [op, ticks.reduce((s, t) => s + (t[op] ?? 0), 0) / ticks.length]),
    );
    log(`  ${k} SLIs: ${ticks.length} fault ticks, verdict ${journal.verdict}`);
    rows.push(
      measured(
        {
          ...base,
          details: {
            verdict: journal.verdict,
            faultTicks: ticks.length,
            meanPerTick: ticks.map(sum).reduce((a, b) => a + b, 0) / ticks.length,
            meanPerTickByOperation: meanByOp,
            perRunByOperation: journal.cost?.calls ?? byOperation(requests),
            estimatedCostUsd: journal.cost?.totalUsd,
          },
        },
        ticks.map(sum),
        target,
      ),
    );
  }
  return rows;
}

/** Plan n of a matrix: stops orders task ((n-1) mod 8) + 1 and holds the experiment with aws:fis:wait. */
function matrixPlan(n: number): string {
  const task = `arn:aws:ecs:us-east-1:123456789012:task/orders-staging/0rde7500000000000000000000000${((n - 1) % 8) + 1}`;
  return `version: 1
id: bench-matrix-${n}
title: Orders task stopped while the canary keeps answering (matrix plan ${n})
service: canary
environment: sandbox
owner: chaos-gate-bench
hypothesis:
  # 2 s: 20 runners and the sandbox share the bench machine, and a scrape must answer within its tick.
  interval: 2s
  minRequests: 10
  requests:
    scrape:
      url: \${CANARY_URL}/metrics
      increase: http_requests_total
  slis:
    - name: error_ratio
      scrape:
        url: \${CANARY_URL}/metrics
        ratio: { numerator: 'http_requests_total{status="503"}', denominator: http_requests_total }
      max: 0.9
      steady: { max: 0.9 }
  steadyState: { duration: 6s }
  recovery: { within: 16s }
abort:
  rules:
    - { sli: error_ratio, above: 0.95, for: 4s }
blastRadius:
  maxTargets: 1
  maxActionDuration: 60s
  maxRunDuration: 10m
fis:
  roleArn: arn:aws:iam::123456789012:role/chaos-gate-fis-sandbox
  targets:
    ordersTask:
      resourceType: aws:ecs:task
      resourceArns: ['${task}']
      selectionMode: ALL
  actions:
    stopTask:
      actionId: aws:ecs:stop-task
      targets: { Tasks: ordersTask }
    hold:
      actionId: aws:fis:wait
      parameters: { duration: PT1M }
env:
  - { name: CANARY_URL, public: true }
`;
}

/** The account's peak request rate with N = 1, 5, 20 runs started together (FIS quota 5, as in AWS). */
export async function benchAccountRate(log: (line: string) => void): Promise<FigureResult[]> {
  const rows: FigureResult[] = [];
  for (const n of [1, 5, 20]) {
    const base = {
      id: `account-peak-rate-${n}`,
      figure: `account peak DescribeAlarms rate, ${n} concurrent run${n === 1 ? '' : 's'}`,
      unit: 'req/s',
      method:
        'N `chaos-gate run` children started together against one sandbox (FIS quota 5); the most requests of an operation in any 1 s window of the stand-in log',
    };
    const target = { max: ACCOUNT_TPS_QUOTAS['cloudwatch:DescribeAlarms']!, text: '≤ 9 (CloudWatch quota)' };
    // PT1M at 4× speed: each experiment holds its slot 15 s, so 20 runs queue through 4 rounds.
    const sandbox = await startSandboxProcess({ config: { fis: { durationScale: 0.25 } } });
    const dir = tempDir();
    try {
      log(`  ${n} concurrent runs…`);
      const runs = Array.from({ length: n }, (_, i) => {
        const file = path.join(dir, `bench-matrix-${i + 1}.yaml`);
        writeFileSync(file, matrixPlan(i + 1));
        return startRun(file, sandbox.urls, {
          journalPath: path.join(dir, `bench-matrix-${i + 1}.journal.json`),
          extraArgs: ['--queue-timeout', '10m'],
        });
      });
      const timer = setTimeout(() => runs.forEach((r) => r.kill()), RUN_TIMEOUT_MS);
      await Promise.all(runs.map((r) => r.done));
      clearTimeout(timer);
      const journals = runs.map((r) => readJournal(r.journalPath));
      const verdicts: Record<string, number> = {};
      for (const j of journals) verdicts[j?.verdict ?? 'none'] = (verdicts[j?.verdict ?? 'none'] ?? 0) + 1;
      const requests = await requestLog(sandbox.admin);
      const peaks = peakPerSecond(requests);
      const { quotas } = await sandbox.admin.get<{ quotas: Record<string, number> }>('/fis/quotas');
      const overQuota = Object.entries(ACCOUNT_TPS_QUOTAS)
        .filter(([op, q]) => (peaks[op] ?? 0) > q)
        .map(([op, q]) => `${op} ${peaks[op]} > ${q}`);
      log(`  ${n} runs: verdicts ${JSON.stringify(verdicts)}, peaks ${JSON.stringify(peaks)}`);
      rows.push(
        measured(
          {
            ...base,
            details: {
              verdicts,
              peakPerSecondByOperation: peaks,
              quotas: ACCOUNT_TPS_QUOTAS,
              overQuota,
              fis: quotas,
              requestsByOperation: byOperation(requests),
              wallMs: Date.now() - Math.min(...runs.map((r) => r.spawnedAt)),
            },
          },
          [peaks['cloudwatch:DescribeAlarms'] ?? 0],
          target,
        ),
      );
    } finally {
      await sandbox.stop();
    }
  }
  return rows;
}
