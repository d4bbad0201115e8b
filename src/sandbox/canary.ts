/**
 * The canary service: a small HTTP service whose answers (outcome and latency) follow the faults the
 * FIS stand-in switches on. It calls a pretend dependency (the Redis node of the seed plan) behind a
 * circuit breaker; with the fallback enabled a partition opens the breaker and requests are served
 * degraded but OK, without it errors and latency climb. `/metrics` speaks Prometheus text format.
 */
import { clampTimerMs } from '../net/timer.js';
import type { IncomingMessage, ServerResponse } from 'node:http';

/** One fault the canary is suffering, keyed by the experiment action that caused it. */
export type CanaryFault =
  /** The dependency is unreachable (disrupt-connectivity on its subnet). */
  | { kind: 'partition' }
  /** The canary's own network is cut for a share of its capacity (disrupt-connectivity on its subnet). */
  | { kind: 'outage'; share: number }
  /** Compute was stopped or deleted: a share of requests fail until `untilMs` (replacements come up). */
  | { kind: 'error-burst'; share: number; untilMs: number }
  /** CPU stress on a share of the canary's instances: requests landing there take longer. */
  | { kind: 'cpu-stress'; addedMs: number; share: number }
  /** Network latency on a share of the canary's pods (EKS pod-network-latency, a NetworkChaos delay). */
  | { kind: 'latency'; addedMs: number; jitterMs: number; share: number }
  /** A share of calls fail outright while the fault is on (Lambda invocation errors, API faults). */
  | { kind: 'errors'; share: number; status: number; detail: string };

/** How the canary behaves; set from the sandbox config and the admin endpoint. */
export interface CanaryBehaviour {
  /** Serve a degraded answer from the fallback when the dependency fails (and open the breaker). */
  fallback: boolean;
  /** Median latency of a healthy request. */
  baseLatencyMs: number;
  /** How long a call to an unreachable dependency hangs before it times out. */
  dependencyTimeoutMs: number;
  /** Consecutive dependency failures that open the breaker. */
  breakerThreshold: number;
  /** Time the breaker stays open before a half-open probe. */
  breakerResetMs: number;
  /** How long an error burst lasts after compute is stopped. */
  errorBurstMs: number;
  /** Latency CPU stress adds to each request. */
  cpuStressLatencyMs: number;
}

/** Defaults chosen so the steady state of the seed plan holds (p95 ≤ 110 ms, no errors). */
export const DEFAULT_CANARY_BEHAVIOUR: CanaryBehaviour = {
  fallback: true,
  baseLatencyMs: 40,
  dependencyTimeoutMs: 300,
  breakerThreshold: 5,
  breakerResetMs: 3000,
  errorBurstMs: 3000,
  cpuStressLatencyMs: 150,
};

/** Histogram bucket bounds in seconds: fine below the seed plan's 110/180/500 ms bounds. */
export const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.5, 0.75, 1, 2.5, 5];

/** Receives the canary's per-second figures (the CloudWatch stand-in's `putDatum`). */
export type DatumSink = (d: {
  namespace: string;
  metricName: string;
  dimensions: Record<string, string>;
  value: number;
  timestamp: number;
  storageResolution?: number;
  unit?: string;
}) => void;

/** Namespace and dimensions of the figures the canary publishes to CloudWatch. */
export const CANARY_NAMESPACE = 'Sandbox/Canary';
export const CANARY_DIMENSIONS = { Service: 'canary' };

type Outcome = 'ok' | 'degraded' | 'error';

/** One request's answer: what the canary decided, and how long it took. */
export interface CanaryAnswer {
  outcome: Outcome;
  status: number;
  latencyMs: number;
  detail: string;
}

/** The canary's state: faults, breaker, counters. */
export class Canary {
  private behaviour: CanaryBehaviour;
  private readonly faults = new Map<string, CanaryFault>();
  private breaker: {
    state: 'closed' | 'open' | 'half-open';
    failures: number;
    openedAt: number;
    probing: boolean;
  } = {
    state: 'closed',
    failures: 0,
    openedAt: 0,
    probing: false,
  };
  private readonly counts = new Map<string, number>();
  private readonly buckets = LATENCY_BUCKETS.map(() => 0);
  private histogramCount = 0;
  private histogramSum = 0;
  private openedTotal = 0;
  private fallbackTotal = 0;
  private second: { requests: number; errors: number; degraded: number; latencies: number[] } = fresh();

  constructor(
    private readonly now: () => number,
    behaviour: Partial<CanaryBehaviour> = {},
    private readonly random: () => number = Math.random,
  ) {
    this.behaviour = { ...DEFAULT_CANARY_BEHAVIOUR, ...behaviour };
  }

  /** The current behaviour. */
  get settings(): CanaryBehaviour {
    return { ...this.behaviour };
  }

  /** Changes the behaviour (e.g. fallback off for an aborted-run demo). */
  configure(b: Partial<CanaryBehaviour>): CanaryBehaviour {
    this.behaviour = { ...this.behaviour, ...b };
    if (!this.behaviour.fallback)
      this.breaker = { state: 'closed', failures: 0, openedAt: 0, probing: false };
    return this.settings;
  }

  /** Switches a fault on under a key (one per experiment action). */
  faultOn(key: string, fault: CanaryFault): void {
    this.faults.set(key, fault);
  }

  /** Switches a fault off; unknown keys are ignored so a double stop is harmless. */
  faultOff(key: string): void {
    this.faults.delete(key);
  }

  /** Switches every fault off whose key starts with the prefix (all of one experiment). */
  faultsOffByPrefix(prefix: string): void {
    for (const k of [...this.faults.keys()]) if (k.startsWith(prefix)) this.faults.delete(k);
  }

  /** The faults now on, by key. */
  activeFaults(): Record<string, CanaryFault> {
    return Object.fromEntries(this.faults);
  }

  /** Whether the breaker is open now. */
  breakerOpen(): boolean {
    return this.breaker.state !== 'closed';
  }

  /** Decides one request's outcome and latency from the faults now on. */
  private decide(): CanaryAnswer {
    const now = this.now();
    const b = this.behaviour;
    // Healthy latency: a narrow spread around the base with a light tail (p95 ≈ 1.6 × base).
    let latency = b.baseLatencyMs * (0.6 + 0.7 * this.random());
    if (this.random() < 0.03) latency += b.baseLatencyMs * this.random();
    let cpu = 0;
    let outage = 0;
    let burst = 0;
    let partition = false;
    let network = 0;
    let failing: Extract<CanaryFault, { kind: 'errors' }> | undefined;
    for (const f of this.faults.values()) {
      if (f.kind === 'cpu-stress' && this.random() < f.share) cpu += f.addedMs;
      else if (f.kind === 'latency' && this.random() < f.share)
        network += Math.max(0, f.addedMs + f.jitterMs * (2 * this.random() - 1));
      else if (f.kind === 'outage') outage = Math.max(outage, f.share);
      else if (f.kind === 'error-burst' && now < f.untilMs) burst = Math.max(burst, f.share);
      else if (f.kind === 'partition') partition = true;
      else if (f.kind === 'errors' && this.random() < f.share) failing = f;
    }
    latency += cpu * (0.6 + 0.8 * this.random()) + network;
    if (outage > 0 && this.random() < outage)
      return {
        outcome: 'error',
        status: 503,
        latencyMs: b.dependencyTimeoutMs * (1 + this.random()),
        detail: 'network unreachable',
      };
    if (failing)
      return { outcome: 'error', status: failing.status, latencyMs: latency, detail: failing.detail };
    if (burst > 0 && this.random() < burst)
      return { outcome: 'error', status: 503, latencyMs: latency, detail: 'instance stopped' };

    if (!b.fallback) {
      if (!partition) return { outcome: 'ok', status: 200, latencyMs: latency, detail: 'served' };
      return {
        outcome: 'error',
        status: 503,
        latencyMs: latency + b.dependencyTimeoutMs * (1 + this.random()),
        detail: 'dependency timed out',
      };
    }
    const br = this.breaker;
    if (br.state === 'open' && now - br.openedAt >= b.breakerResetMs) br.state = 'half-open';
    const probe = br.state === 'half-open' && !br.probing;
    if (br.state !== 'closed' && !probe) {
      this.fallbackTotal++;
      return {
        outcome: 'degraded',
        status: 200,
        latencyMs: latency * 0.7,
        detail: 'fallback (breaker open)',
      };
    }
    if (probe) br.probing = true;
    if (!partition) {
      if (probe) Object.assign(br, { state: 'closed', failures: 0, probing: false });
      else br.failures = 0;
      return { outcome: 'ok', status: 200, latencyMs: latency, detail: 'served' };
    }
    // The dependency hangs until the timeout; the fallback answers after it.
    br.failures++;
    if (probe || br.failures >= b.breakerThreshold) {
      if (br.state === 'closed') this.openedTotal++;
      Object.assign(br, { state: 'open', openedAt: now, probing: false });
    }
    this.fallbackTotal++;
    return {
      outcome: 'degraded',
      status: 200,
      latencyMs: latency + b.dependencyTimeoutMs,
      detail: 'fallback (dependency timed out)',
    };
  }

  /** Serves `/metrics` and the service endpoint (any other path). */
  handle(req: IncomingMessage, res: ServerResponse): void {
    const path = (req.url ?? '/').split('?')[0];
    if (path === '/metrics') {
      res.writeHead(200, { 'content-type': 'text/plain; version=0.0.4; charset=utf-8' });
      res.end(this.metricsText());
      return;
    }
    if (path === '/healthz') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"ok":true}');
      return;
    }
    const cancel = this.serve((answer) => {
      if (res.destroyed) return;
      res.writeHead(answer.status, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          outcome: answer.outcome,
          latencyMs: Math.round(answer.latencyMs),
          detail: answer.detail,
        }),
      );
    });
    res.on('close', () => {
      if (!res.writableEnded) cancel();
    });
  }

  /**
   * Serves one service request, with or without HTTP around it: decides the answer now, and once its
   * latency has passed records it in the metrics and hands it to `done`. The returned function cancels
   * a request whose client went away; a cancelled request is neither recorded nor answered.
   */
  serve(done: (answer: CanaryAnswer) => void): () => void {
    const answer = this.decide();
    const timer = setTimeout(() => {
      this.record(answer);
      done(answer);
    }, clampTimerMs(answer.latencyMs));
    return () => clearTimeout(timer);
  }

  private record(a: CanaryAnswer): void {
    const key = `${a.outcome}|${a.status}`;
    this.counts.set(key, (this.counts.get(key) ?? 0) + 1);
    const s = a.latencyMs / 1000;
    LATENCY_BUCKETS.forEach((le, i) => {
      if (s <= le) this.buckets[i]!++;
    });
    this.histogramCount++;
    this.histogramSum += s;
    this.second.requests++;
    if (a.outcome === 'error') this.second.errors++;
    if (a.outcome === 'degraded') this.second.degraded++;
    this.second.latencies.push(a.latencyMs);
  }

  /** Prometheus text exposition of the canary's metrics. */
  metricsText(): string {
    const lines: string[] = [
      '# HELP http_requests_total Requests served by the canary, by outcome and HTTP status.',
      '# TYPE http_requests_total counter',
    ];
    const keys = new Set(['ok|200', 'degraded|200', 'error|503', ...this.counts.keys()]);
    for (const key of [...keys].sort()) {
      const [outcome, status] = key.split('|');
      lines.push(`http_requests_total{outcome="${outcome}",status="${status}"} ${this.counts.get(key) ?? 0}`);
    }
    lines.push(
      '# HELP http_request_duration_seconds Request latency of the canary.',
      '# TYPE http_request_duration_seconds histogram',
    );
    LATENCY_BUCKETS.forEach((le, i) =>
      lines.push(`http_request_duration_seconds_bucket{le="${le}"} ${this.buckets[i]}`),
    );
    lines.push(
      `http_request_duration_seconds_bucket{le="+Inf"} ${this.histogramCount}`,
      `http_request_duration_seconds_sum ${this.histogramSum}`,
      `http_request_duration_seconds_count ${this.histogramCount}`,
      '# HELP circuit_breaker_open 1 while the breaker in front of the dependency is open.',
      '# TYPE circuit_breaker_open gauge',
      `circuit_breaker_open ${this.breakerOpen() ? 1 : 0}`,
      '# HELP circuit_breaker_opened_total Times the breaker opened.',
      '# TYPE circuit_breaker_opened_total counter',
      `circuit_breaker_opened_total ${this.openedTotal}`,
      '# HELP fallback_served_total Requests answered by the fallback.',
      '# TYPE fallback_served_total counter',
      `fallback_served_total ${this.fallbackTotal}`,
      '# HELP canary_faults_active Faults the sandbox has switched on, by kind.',
      '# TYPE canary_faults_active gauge',
    );
    for (const kind of ['partition', 'outage', 'error-burst', 'cpu-stress', 'latency', 'errors'])
      lines.push(
        `canary_faults_active{kind="${kind}"} ${[...this.faults.values()].filter((f) => f.kind === kind).length}`,
      );
    return lines.join('\n') + '\n';
  }

  /**
   * Publishes the last second's figures at high resolution (StorageResolution 1): request, error and
   * degraded counts, latency percentiles and the breaker state.
   */
  publish(sink: DatumSink, timestamp: number): void {
    const s = this.second;
    this.second = fresh();
    const put = (metricName: string, value: number, unit: string) =>
      sink({
        namespace: CANARY_NAMESPACE,
        metricName,
        dimensions: CANARY_DIMENSIONS,
        value,
        timestamp,
        storageResolution: 1,
        unit,
      });
    put('RequestCount', s.requests, 'Count');
    put('ErrorCount', s.errors, 'Count');
    put('DegradedCount', s.degraded, 'Count');
    put('BreakerOpen', this.breakerOpen() ? 1 : 0, 'None');
    if (s.latencies.length > 0) {
      const sorted = s.latencies.sort((a, b) => a - b);
      put('LatencyP50', quantile(sorted, 0.5), 'Milliseconds');
      put('LatencyP95', quantile(sorted, 0.95), 'Milliseconds');
      put('LatencyP99', quantile(sorted, 0.99), 'Milliseconds');
    }
  }
}

function fresh(): { requests: number; errors: number; degraded: number; latencies: number[] } {
  return { requests: 0, errors: 0, degraded: 0, latencies: [] };
}

function quantile(sorted: number[], q: number): number {
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return Math.round(sorted[i]! * 100) / 100;
}
