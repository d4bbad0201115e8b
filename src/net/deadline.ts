/**
 * Deadlines for every call chaos-gate makes to another service (FIS, CloudWatch, the Tagging API, the
 * FIS safety lever, Prometheus, `/metrics` endpoints, GitHub). Slowness is a failure: a call that has not
 * answered by its deadline is an error the caller handles — a reading with status `error`, a thrown
 * {@link DeadlineError} — never a stall.
 *
 * Two layers, because neither alone is enough:
 * - the HTTP layer ends one silent attempt ({@link AWS_HTTP}: connection and per-attempt timeouts), so
 *   the SDK can retry a dead connection instead of waiting on it for ever;
 * - {@link withDeadline} / {@link sendWithin} bound the whole call, retries and backoff included. The SDK
 *   checks its abort signal only when an attempt starts or is in flight, not while it sleeps between
 *   attempts (its backoff reaches 20 s, longer with a `Retry-After` hint), so the deadline settles the
 *   caller's promise itself when it fires instead of waiting for the SDK to notice.
 *
 * The timers here are real (`setTimeout`): they bound real network I/O. The engine keeps its own
 * deadlines on the run's injected clock around these calls.
 */
import { longTimeout } from './timer.js';

/** A call that did not answer within its deadline. */
export class DeadlineError extends Error {
  override name = 'DeadlineError';
  constructor(
    /** What was called, e.g. `FIS GetExperiment`. */
    readonly label: string,
    /** The deadline that passed (ms). */
    readonly ms: number,
  ) {
    super(`${label} did not answer within ${formatDeadline(ms)}`);
  }
}

/** True for a {@link DeadlineError}, also one from another copy of this module (matched by name). */
export function isDeadlineError(error: unknown): error is DeadlineError {
  return error instanceof DeadlineError || (error instanceof Error && error.name === 'DeadlineError');
}

/** `4 s`, `1.5 s`, `250 ms`: how a deadline reads in a message. */
export function formatDeadline(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  return `${Number((ms / 1000).toFixed(1))} s`;
}

/**
 * Default deadlines per call class (ms), for the whole call including the SDK's retries. Callers pass
 * them to {@link sendWithin} / {@link withDeadline}; the engine may pass a shorter one when its tick or
 * stop budget has less time left.
 */
export const DEADLINES = {
  /**
   * FIS GetExperiment: read every tick and on every poll of a stop verification. A late state is useless
   * (the next tick reads again), and 4 s stays under the 5 s heartbeat cadence while leaving room for
   * two SDK retries of a throttled read (backoff ≤ 0.5 s, then ≤ 1 s).
   */
  fisGetExperiment: 4_000,
  /**
   * FIS StopExperiment: the most urgent call. The stop loop (60 s budget) asks again after a miss, so a
   * short deadline buys several tries instead of one long wait; the lease backs it up either way.
   */
  fisStopExperiment: 5_000,
  /**
   * FIS StartExperiment: once per run, not on the tick. Its clientToken makes a retry after a timeout
   * return the experiment the first call started, so a generous deadline costs nothing in safety.
   */
  fisStartExperiment: 15_000,
  /**
   * FIS safety lever (signed by hand): the kill switch works through its alarm without the lever, so a
   * lever that does not answer quickly is treated as unavailable rather than waited for.
   */
  fisSafetyLever: 5_000,
  /**
   * Every other FIS call (templates, tags, lists, resolved targets): preflight and provisioning, where a
   * slow answer delays the run but cannot hurt the fault.
   */
  fisOther: 15_000,
  /**
   * CloudWatch PutMetricData of a lease heartbeat: beats go out every 5 s and the lease alarm judges
   * 10 s periods, so a beat still in flight after 3 s is abandoned — the next one matters more.
   */
  cloudwatchHeartbeat: 3_000,
  /** CloudWatch DescribeAlarms: the stop-condition and kill-switch checks before a start, polled. */
  cloudwatchDescribeAlarms: 5_000,
  /** CloudWatch SetAlarmState: engaging or releasing the kill switch, forcing the lease to ALARM. */
  cloudwatchSetAlarmState: 5_000,
  /**
   * CloudWatch GetMetricData for SLIs: at most this, and never longer than the tick's window (see
   * {@link tickDeadline}), so a slow read cannot delay the next measurement.
   */
  cloudwatchGetMetricData: 10_000,
  /** Every other CloudWatch call (PutMetricAlarm, the ledger's PutMetricData and GetMetricData). */
  cloudwatchOther: 15_000,
  /** One page of Tagging API GetResources (target tags, candidate counts): preflight only. */
  taggingGetResources: 15_000,
  /**
   * One Prometheus HTTP API request (`/api/v1/query`). The tick's window bounds a tick's reads as a
   * whole, retries included, and shortens this when less is left.
   */
  prometheusRequest: 5_000,
  /**
   * One whole Prometheus read: every request of it and the retries between. A tick's read is cut further
   * to the tick's window; a read over a long window (an error budget's 30-day SLO window) gets this
   * much, because a query's window is what it measures, not how long it may take.
   */
  prometheusRead: 30_000,
  /**
   * One Alertmanager API v2 request (`GET /api/v2/alerts`), polled beside the ticks while the fault is
   * on: a read still unanswered after 5 s is a miss, which the run counts toward blindness.
   */
  alertmanagerRequest: 5_000,
  /** One `/metrics` scrape; capped by the tick's window like a Prometheus request. */
  scrapeRequest: 5_000,
  /**
   * One GitHub REST request (check run, comment, issue, one page of a list). Reporting never changes the
   * verdict, and GitHub answers these in well under a second, so 10 s is slow enough to be an outage.
   */
  githubRequest: 10_000,
  /**
   * Signing and storing the verdict attestation (`@actions/attest`): an OIDC token, a Fulcio
   * certificate, a Rekor entry and GitHub's attestation store, one after another, once the verdict is
   * decided. 60 s covers a slow transparency log; the verdict and exit code never wait on it longer.
   */
  attestation: 60_000,
  /**
   * One artifact download for `history`: the redirect and the zip from blob storage. A journal artifact
   * is a few MB; 60 s is far past a slow link, and a history without one run is said so, not waited on.
   */
  githubArtifactDownload: 60_000,
} as const satisfies Record<string, number>;

export type DeadlineName = keyof typeof DEADLINES;

/**
 * HTTP settings of every AWS SDK client. They bound one attempt, for calls made without a deadline as
 * much as with one: at worst a call takes `maxAttempts` × (connection + attempt timeout) plus backoff.
 */
export const AWS_HTTP = {
  /**
   * TCP (and TLS) connection set-up. Regional AWS endpoints connect in milliseconds; 3 s means the
   * network is broken, and the SDK retries on a new connection.
   */
  connectionTimeoutMs: 3_000,
  /**
   * One attempt: the socket may stay silent this long (SDK clients on @smithy/node-http-handler 2.x read
   * `requestTimeout` as a socket idle timeout), and on 4.x the whole attempt may take this long. These
   * APIs answer in well under a second; an attempt silent for 10 s is dead, and is retried.
   */
  attemptTimeoutMs: 10_000,
  /** Attempts per call, the first included (the SDK's own retry of throttling, 5xx and timeouts). */
  maxAttempts: 4,
} as const;

/**
 * The `requestHandler` options for an AWS SDK client. Given as options rather than a handler instance,
 * so each client builds the @smithy/node-http-handler of its own major version: the pinned FIS client is
 * on 2.x, CloudWatch and Tagging on 4.x, and the two read these fields differently (above). Both keys
 * are set so each version finds the one it reads; `throwOnRequestTimeout` makes 4.x fail the attempt
 * instead of only logging a warning.
 */
export function awsRequestHandlerOptions(
  overrides: { connectionTimeoutMs?: number | undefined; attemptTimeoutMs?: number | undefined } = {},
): {
  connectionTimeout: number;
  requestTimeout: number;
  socketTimeout: number;
  throwOnRequestTimeout: true;
} {
  const attempt = overrides.attemptTimeoutMs ?? AWS_HTTP.attemptTimeoutMs;
  return {
    connectionTimeout: overrides.connectionTimeoutMs ?? AWS_HTTP.connectionTimeoutMs,
    requestTimeout: attempt,
    socketTimeout: attempt,
    throwOnRequestTimeout: true,
  };
}

/**
 * The deadline of a read made for one tick: `max`, cut to the tick's window so the read never runs into
 * the next tick. At least 1 ms, so a zero window still gets an (immediately failing) deadline.
 */
export function tickDeadline(windowMs: number, max: number): number {
  return Math.max(1, Math.min(max, Number.isFinite(windowMs) ? windowMs : max));
}

/** The error a call ends with when its caller cancelled it: the caller's reason when it is an Error. */
function cancellation(signal: AbortSignal, label: string): Error {
  const reason: unknown = signal.reason;
  if (reason instanceof Error) return reason;
  return new Error(`${label} was cancelled${typeof reason === 'string' ? `: ${reason}` : ''}`);
}

/**
 * Runs `run` with an abort signal that fires at the deadline (`ms`) or when `parent` aborts, and settles
 * no later than that, whether or not `run` honours the signal:
 * - with `run`'s result or error when it settles first;
 * - with a {@link DeadlineError} (also the signal's reason) when the deadline passes first;
 * - with the parent's reason when the caller cancels first.
 * A late result of an abandoned call is dropped (and its rejection handled, so nothing goes unhandled).
 */
export function withDeadline<T>(
  run: (signal: AbortSignal) => Promise<T>,
  ms: number,
  label: string,
  parent?: AbortSignal,
): Promise<T> {
  if (!(ms > 0)) return Promise.reject(new RangeError(`${label}: deadline must be positive, got ${ms}`));
  if (parent?.aborted) return Promise.reject(cancellation(parent, label));
  const controller = new AbortController();
  return new Promise<T>((resolve, reject) => {
    let settled = false;
    const finish = (): boolean => {
      if (settled) return false;
      settled = true;
      timer.clear();
      parent?.removeEventListener('abort', onParent);
      return true;
    };
    const onParent = (): void => {
      if (!finish()) return;
      const reason = cancellation(parent as AbortSignal, label);
      controller.abort(reason);
      reject(reason);
    };
    // Any length: a deadline past Node's 2³¹−1 ms timer limit is chained, never cut to 1 ms (net/timer.ts).
    const timer = longTimeout(() => {
      if (!finish()) return;
      const error = new DeadlineError(label, ms);
      controller.abort(error);
      reject(error);
    }, ms);
    parent?.addEventListener('abort', onParent, { once: true });
    let work: Promise<T>;
    try {
      work = Promise.resolve(run(controller.signal));
    } catch (error) {
      finish();
      reject(error as Error);
      return;
    }
    work.then(
      (value) => {
        if (finish()) resolve(value);
      },
      (error: unknown) => {
        if (finish()) reject(error as Error);
      },
    );
  });
}

/** What {@link sendWithin} needs of an AWS SDK v3 client: `send` with an abort signal. */
export interface AbortableSender<C> {
  send(command: C, options: { abortSignal: AbortSignal }): Promise<unknown>;
}

/** The output type of an SDK v3 command (its middleware handler's `output`). */
export type CommandOutput<C> = C extends {
  resolveMiddleware(...args: never[]): (...args: never[]) => Promise<{ output: infer O }>;
}
  ? O
  : unknown;

/**
 * `client.send(command)` within `ms`, the SDK's retries included: the SDK gets an abort signal that
 * fires at the deadline or when `signal` aborts (so the attempt in flight is torn down), and the
 * returned promise rejects with a {@link DeadlineError} such as "FIS GetExperiment did not answer within
 * 4 s" at the deadline even while the SDK is sleeping between retries. `label` names the call: minified
 * builds lose the SDK's class names, so it cannot be derived from the command.
 */
export function sendWithin<C extends object>(
  client: AbortableSender<NoInfer<C>>,
  command: C,
  ms: number,
  label: string,
  signal?: AbortSignal,
): Promise<CommandOutput<C>> {
  return withDeadline(
    (abortSignal) => client.send(command, { abortSignal }) as Promise<CommandOutput<C>>,
    ms,
    label,
    signal,
  );
}
