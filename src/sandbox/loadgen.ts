/**
 * A steady open-loop load generator against the canary: a fixed request rate, capped in-flight
 * requests, loopback targets only. When the cap is reached the tick's requests are skipped and counted,
 * so a slow canary shows up as skipped load rather than an unbounded queue.
 *
 * Two transports reach the same canary. `in-process` (the default) hands each request to the canary's
 * `serve` in the sandbox's own process: the answer, its latency and every metric are the same as over
 * HTTP, for about a third of the CPU (an idle sandbox at 100 requests/s: 4 % of a core against 11–14 %
 * over HTTP, where Node's HTTP client and server parse each other's every request). `http` sends real
 * `GET`s over loopback keep-alive connections, for watching the canary's HTTP side with other tools.
 */
import http from 'node:http';

/** Highest rate the generator accepts: above it a laptop's loopback stack is the bottleneck. */
export const MAX_RATE = 2000;
/** Highest number of requests in flight at once. */
export const MAX_CONCURRENCY = 512;
/** Scheduling granularity: requests due in a tick are sent together. */
const TICK_MS = 10;

/** How the generator reaches the canary. */
export const LOAD_TRANSPORTS = ['in-process', 'http'] as const;
export type LoadTransport = (typeof LOAD_TRANSPORTS)[number];

/** Load settings. */
export interface LoadSettings {
  enabled: boolean;
  /** `in-process`: the canary's `serve` directly; `http`: real requests over loopback. */
  transport: LoadTransport;
  /** Requests per second. */
  rate: number;
  /** Cap on requests in flight. */
  concurrency: number;
}

export const DEFAULT_LOAD: LoadSettings = {
  enabled: true,
  transport: 'in-process',
  rate: 100,
  concurrency: 64,
};

/** The canary as the in-process transport sees it (`Canary.serve`). */
export interface InProcessCanary {
  serve(done: (answer: { status: number }) => void): () => void;
}

/** Counters of what the generator did. */
export interface LoadStats {
  sent: number;
  ok: number;
  httpErrors: number;
  networkErrors: number;
  skipped: number;
  inFlight: number;
}

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '::1', '[::1]']);

/** Checks settings against the bounds; returns an error message or undefined. */
export function checkLoadSettings(s: LoadSettings): string | undefined {
  if (!LOAD_TRANSPORTS.includes(s.transport))
    return `transport ${JSON.stringify(s.transport)} must be one of ${LOAD_TRANSPORTS.join(', ')}`;
  if (!(s.rate >= 0 && s.rate <= MAX_RATE))
    return `rate ${s.rate} must be between 0 and ${MAX_RATE} requests per second`;
  if (!(Number.isInteger(s.concurrency) && s.concurrency >= 1 && s.concurrency <= MAX_CONCURRENCY))
    return `concurrency ${s.concurrency} must be an integer between 1 and ${MAX_CONCURRENCY}`;
  return undefined;
}

/** The load generator. */
export class LoadGenerator {
  private settings: LoadSettings;
  private timer: NodeJS.Timeout | undefined;
  private budget = 0;
  private last = 0;
  private readonly agent: http.Agent;
  /** Cancels of in-process requests not yet answered. */
  private readonly pending = new Set<() => void>();
  readonly stats: LoadStats = { sent: 0, ok: 0, httpErrors: 0, networkErrors: 0, skipped: 0, inFlight: 0 };

  /** `canary` is needed for the in-process transport; `target` is where HTTP requests go. */
  constructor(
    private readonly target: URL,
    settings: LoadSettings,
    private readonly canary?: InProcessCanary,
  ) {
    if (!LOOPBACK.has(target.hostname))
      throw new Error(`load target ${target.href} is not on loopback; the generator only loads 127.0.0.1`);
    const problem = this.check(settings);
    if (problem) throw new Error(problem);
    this.settings = { ...settings };
    this.agent = new http.Agent({ keepAlive: true, maxSockets: MAX_CONCURRENCY });
  }

  private check(s: LoadSettings): string | undefined {
    const problem = checkLoadSettings(s);
    if (problem || s.transport !== 'in-process' || this.canary) return problem;
    return 'the in-process transport needs the canary in this process';
  }

  /** The current settings. */
  get current(): LoadSettings {
    return { ...this.settings };
  }

  /** Changes transport, rate, concurrency or enabled; throws with the bound when out of range. */
  configure(change: Partial<LoadSettings>): LoadSettings {
    const next = { ...this.settings, ...change };
    const problem = this.check(next);
    if (problem) throw new Error(problem);
    this.settings = next;
    if (next.enabled) this.start();
    else this.pause();
    return this.current;
  }

  /** Starts sending (when enabled). */
  start(): void {
    if (this.timer || !this.settings.enabled) return;
    this.last = Date.now();
    this.budget = 0;
    this.timer = setInterval(() => this.tick(), TICK_MS);
    this.timer.unref();
  }

  private pause(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }

  /** Stops sending, closes idle sockets and drops in-process requests; HTTP ones in flight finish on their own. */
  stop(): void {
    this.pause();
    this.agent.destroy();
    for (const cancel of this.pending) cancel();
    this.pending.clear();
  }

  private tick(): void {
    const now = Date.now();
    // At most one second of backlog: a paused event loop must not turn into a burst.
    this.budget = Math.min(this.settings.rate, this.budget + ((now - this.last) / 1000) * this.settings.rate);
    this.last = now;
    while (this.budget >= 1) {
      this.budget -= 1;
      if (this.stats.inFlight >= this.settings.concurrency) {
        this.stats.skipped++;
        continue;
      }
      this.send();
    }
  }

  private send(): void {
    this.stats.sent++;
    this.stats.inFlight++;
    // A response can fail after it began ('aborted'); count each request exactly once.
    let settled = false;
    const settle = (outcome: 'ok' | 'httpErrors' | 'networkErrors') => {
      if (settled) return;
      settled = true;
      this.stats.inFlight--;
      this.stats[outcome]++;
    };
    const canary = this.settings.transport === 'in-process' ? this.canary : undefined;
    if (canary) {
      const cancel = canary.serve((answer) => {
        this.pending.delete(cancel);
        settle(answer.status < 400 ? 'ok' : 'httpErrors');
      });
      this.pending.add(cancel);
      return;
    }
    const req = http.get(this.target, { agent: this.agent }, (res) => {
      res.resume();
      res.on('end', () => settle((res.statusCode ?? 0) < 400 ? 'ok' : 'httpErrors'));
      res.on('error', () => settle('networkErrors'));
    });
    req.on('error', () => settle('networkErrors'));
  }
}
