/**
 * API calls per tick: one held run (canary fallback on) with scrape, CloudWatch and — when the
 * `prometheus` binary is installed — Prometheus SLIs. Each fault measurement opens a tick that lasts
 * until the next measurement (or the stop request); the calls in it are counted from the AWS stand-in's
 * request log (GetMetricData, GetExperiment) and from a counting HTTP proxy in front of Prometheus.
 */
import http from 'node:http';
import { rmSync } from 'node:fs';
import path from 'node:path';
import type { RunningSandbox } from '../../test/helpers/sandbox.js';
import {
  prometheusSkipReason,
  startPrometheus,
  waitForSeries,
  type PrometheusServer,
} from '../../test/helpers/prometheus.js';
import { measured, notMeasured, type FigureResult } from '../lib/stats.js';
import { requestLog, runToEnd, scrapeSlis, tempDir, writePlan, type PlanSli } from '../lib/world.js';

/** docs/design/targets.md: 1 GetMetricData for all CloudWatch SLIs, 1 GetExperiment, ≤ 1 query per Prometheus SLI. */
export const CALLS_TARGET = 1;
const RUN_TIMEOUT_MS = 120_000;
/**
 * Every AWS call of one fault tick: GetMetricData and GetExperiment each tick, and at most once each the
 * lease beat (PutMetricData, every 5 s) and the kill switch (DescribeAlarms + GetSafetyLever, every 15 s).
 */
export const ALL_CALLS_TARGET = { max: 5, text: '≤ 5, whatever the SLI count' };
/** Prometheus needs a few scrapes (1 s apart) before a 5 s rate has a value. */
const PROMETHEUS_WARMUP_MS = 30_000;

/** A reverse proxy to `target` that records when each `/api/v1/query` request arrived. */
export async function countingProxy(
  target: string,
): Promise<{ url: string; queries: number[]; close(): Promise<void> }> {
  const queries: number[] = [];
  const upstream = new URL(target);
  const server = http.createServer((req, res) => {
    if ((req.url ?? '').startsWith('/api/v1/query?') || req.url === '/api/v1/query') queries.push(Date.now());
    const forward = http.request(
      {
        host: upstream.hostname,
        port: upstream.port,
        path: req.url,
        method: req.method,
        headers: req.headers,
      },
      (up) => {
        res.writeHead(up.statusCode ?? 502, up.headers);
        up.pipe(res);
      },
    );
    forward.on('error', () => {
      if (!res.headersSent) res.writeHead(502);
      res.end();
    });
    req.pipe(forward);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    queries,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** CloudWatch SLIs on what the sandbox canary publishes each second (two, to show they share one call). */
function cloudwatchSlis(): PlanSli[] {
  const metric = { namespace: 'Sandbox/Canary', dimensions: { Service: 'canary' }, period: '10s' };
  return [
    {
      name: 'cw_p95_latency_ms',
      cloudwatch: { ...metric, metricName: 'LatencyP95', stat: 'Maximum' },
      max: 5000,
    },
    { name: 'cw_requests', cloudwatch: { ...metric, metricName: 'RequestCount', stat: 'Sum' }, min: 1 },
  ];
}

/** Prometheus SLIs over the canary's metrics as Prometheus scrapes them. */
function prometheusSlis(): PlanSli[] {
  return [
    {
      name: 'prom_p95_latency_s',
      prometheus: 'histogram_quantile(0.95, sum by (le) (rate(http_request_duration_seconds_bucket[5s])))',
      max: 2,
    },
    { name: 'prom_request_rate', prometheus: 'sum(rate(http_requests_total[5s]))', min: 1 },
  ];
}

/** The per-tick call counts of one held run. */
export async function benchApiCalls(
  sandbox: RunningSandbox,
  log: (line: string) => void,
): Promise<FigureResult[]> {
  const ids = {
    gmd: {
      id: 'calls-get-metric-data',
      figure: 'API calls per tick: GetMetricData (all CloudWatch SLIs)',
      unit: 'calls/tick',
      method: 'stand-in request log, GetMetricData per fault tick, 2 CloudWatch SLIs',
    },
    ge: {
      id: 'calls-get-experiment',
      figure: 'API calls per tick: GetExperiment',
      unit: 'calls/tick',
      method: 'stand-in request log, GetExperiment per fault tick',
    },
    da: {
      id: 'calls-describe-alarms',
      figure: 'API calls per tick: DescribeAlarms (kill-switch alarm, lease)',
      unit: 'calls/tick',
      method: 'stand-in request log, DescribeAlarms per fault tick (the kill switch is read every 15 s)',
    },
    lever: {
      id: 'calls-get-safety-lever',
      figure: 'API calls per tick: GetSafetyLever',
      unit: 'calls/tick',
      method: 'stand-in request log, GetSafetyLever per fault tick (the kill switch is read every 15 s)',
    },
    all: {
      id: 'calls-aws-total',
      figure: 'API calls per tick: every AWS call',
      unit: 'calls/tick',
      method:
        'stand-in request log, every FIS and CloudWatch request per fault tick, by operation in details',
    },
    prom: {
      id: 'calls-prometheus-per-sli',
      figure: 'API calls per tick: Prometheus queries per Prometheus SLI',
      unit: 'queries/SLI/tick',
      method: 'counting proxy in front of a real Prometheus, /api/v1/query per fault tick ÷ Prometheus SLIs',
    },
  };
  const one = { max: CALLS_TARGET, text: '1' };
  const atMostOne = { max: CALLS_TARGET, text: '≤ 1' };
  let prometheus: PrometheusServer | undefined;
  let proxy: Awaited<ReturnType<typeof countingProxy>> | undefined;
  const dir = tempDir();
  try {
    const canaryHost = new URL(sandbox.urls.canary).host;
    let promWhy = prometheusSkipReason;
    if (!promWhy) {
      try {
        prometheus = await startPrometheus([{ name: 'canary', target: canaryHost }]);
        await waitForSeries(
          prometheus.url,
          'sum(rate(http_requests_total[5s])) > 0',
          1,
          PROMETHEUS_WARMUP_MS,
        );
        proxy = await countingProxy(prometheus.url);
      } catch (error) {
        promWhy = `Prometheus did not start: ${error instanceof Error ? error.message : String(error)}`;
      }
    }
    const promSlis = proxy ? prometheusSlis() : [];
    const plan = writePlan(dir, {
      id: `bench-calls-${Date.now().toString(36)}`,
      steady: '5s',
      actionDuration: 'PT1M', // FIS's minimum for disrupt-connectivity
      slis: [...scrapeSlis(), ...cloudwatchSlis(), ...promSlis],
    });
    const journalPath = path.join(dir, 'calls.journal.json');
    const out = await runToEnd(plan, sandbox.urls, {
      journalPath,
      timeoutMs: RUN_TIMEOUT_MS,
      ...(proxy ? { env: { CHAOS_GATE_PROMETHEUS_URL: proxy.url } } : {}),
    });
    const j = out.journal;
    const fault = (j?.measurements ?? []).filter((m) => m.phase === 'fault');
    if (!j || fault.length === 0) {
      const why = `the run measured no fault tick (verdict ${out.summary?.verdict ?? 'none'}: ${out.summary?.reason ?? out.stderr.slice(-300)})`;
      return [
        notMeasured(ids.gmd, one.text, why),
        notMeasured(ids.ge, one.text, why),
        notMeasured(ids.da, one.text, why),
        notMeasured(ids.lever, one.text, why),
        notMeasured(ids.all, ALL_CALLS_TARGET.text, why),
        notMeasured(ids.prom, atMostOne.text, why),
      ];
    }
    const after = j.measurements.find((m) => m.at > (fault.at(-1)?.at ?? 0))?.at ?? Infinity;
    const end = Math.min(after, j.timings.stopRequestedAt ?? Infinity);
    const bounds = fault.map((m, i) => [m.at, fault[i + 1]?.at ?? end] as const);
    const log2 = await requestLog(sandbox.admin);
    const perTick = (times: number[]): number[] =>
      bounds.map(([a, b]) => times.filter((t) => t >= a && t < b).length);
    const timesOf = (op: string): number[] => log2.filter((r) => r.operation === op).map((r) => r.time);
    const gmd = perTick(timesOf('GetMetricData'));
    const ge = perTick(timesOf('GetExperiment'));
    const da = perTick(timesOf('DescribeAlarms'));
    const lever = perTick(timesOf('GetSafetyLever'));
    const all = perTick(
      log2.filter((r) => r.service === 'fis' || r.service === 'cloudwatch').map((r) => r.time),
    );
    const ops = [...new Set(log2.map((r) => `${r.service}:${r.operation ?? 'unknown'}`))].sort();
    const meanPerTickByOperation = Object.fromEntries(
      ops.map((op) => {
        const n = perTick(
          log2.filter((r) => `${r.service}:${r.operation ?? 'unknown'}` === op).map((r) => r.time),
        );
        return [op, n.reduce((a, b) => a + b, 0) / Math.max(1, n.length)];
      }),
    );
    const details = {
      verdict: out.summary?.verdict,
      faultTicks: fault.length,
      meanPerTickByOperation,
      perRunByOperation: j.cost?.calls,
      estimatedCostUsd: j.cost?.totalUsd,
    };
    log(`  ${fault.length} fault ticks, verdict ${out.summary?.verdict ?? '?'}`);
    const rows = [
      measured({ ...ids.gmd, details: { ...details, perTick: gmd } }, gmd, one),
      measured({ ...ids.ge, details: { ...details, perTick: ge } }, ge, one),
      measured({ ...ids.da, details: { perTick: da } }, da, one),
      measured({ ...ids.lever, details: { perTick: lever } }, lever, one),
      measured({ ...ids.all, details: { perTick: all } }, all, ALL_CALLS_TARGET),
    ];
    if (proxy) {
      const perSli = perTick(proxy.queries).map((n) => n / promSlis.length);
      rows.push(
        measured(
          { ...ids.prom, details: { ...details, prometheusSlis: promSlis.length, perTick: perSli } },
          perSli,
          atMostOne,
        ),
      );
    } else {
      rows.push(notMeasured(ids.prom, atMostOne.text, promWhy ?? 'no Prometheus'));
    }
    return rows;
  } finally {
    await proxy?.close();
    await prometheus?.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}
