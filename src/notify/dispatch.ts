/**
 * The dispatcher: makes the sinks' calls beside the run loop. `enqueue` returns at once (the run never
 * awaits a sink); each sink has its own chain, so its calls arrive in the order the run produced them
 * while a slow sink delays no other. Every call has one deadline for all its attempts: a network error,
 * a 5xx or a 429 is tried again after a short backoff while the deadline allows, any other 4xx is final.
 * A failed call is handed to `onFailure`; it never throws into the run. `drain` waits a bounded time for
 * what is still queued and reports what did not get out.
 */
import { clampTimerMs } from '../net/timer.js';
import { DeadlineError, formatDeadline, withDeadline } from '../net/deadline.js';
import { errorMessage } from '../errors/message.js';
import { redact, redactDeep } from '../security/redact.js';
import type { Sink, SinkCall } from './sink.js';

/** Deadlines of the notification calls (ms). */
export const NOTIFY_DEADLINES = {
  /**
   * One call, its retries included. Notifications are not on the run's path, so a receiver may be slow;
   * 10 s is long enough for a loaded webhook and short enough that the end of the run is not held up.
   */
  callMs: 10_000,
  /** How long the end of the run waits for the queue to empty: one call's deadline and a margin. */
  drainMs: 12_000,
  /** The first backoff between attempts; doubled each time. */
  backoffMs: 250,
  /** Attempts per call, the first included, while the deadline allows. */
  attempts: 4,
} as const;

/** A call that did not get through. */
export interface NotifyFailure {
  sink: Sink['kind'];
  call: string;
  error: string;
  /** True when the call was still queued or in flight when the drain gave up. */
  pending?: boolean;
}

export interface DispatchOptions {
  onFailure(failure: NotifyFailure): void;
  fetch?: typeof fetch | undefined;
  callMs?: number | undefined;
  backoffMs?: number | undefined;
}

/** A non-2xx answer. */
class HttpStatusError extends Error {
  constructor(
    readonly status: number,
    body: string,
  ) {
    super(`HTTP ${status}${body ? `: ${body.slice(0, 200)}` : ''}`);
  }
}

/** The sink could not build its request (e.g. the id an earlier call should have returned is missing). */
class RequestBuildError extends Error {}

/** Worth another attempt: the receiver or the network failed, not the request. */
function retriable(error: unknown): boolean {
  if (error instanceof HttpStatusError) return error.status >= 500 || error.status === 429;
  return !(error instanceof DeadlineError) && !(error instanceof RequestBuildError);
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const t = setTimeout(done, clampTimerMs(ms));
    function done(): void {
      clearTimeout(t);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}

export class Dispatcher {
  private readonly chains = new Map<Sink, Promise<void>>();
  private readonly pending = new Map<Sink, string[]>();
  private readonly fetchImpl: typeof fetch;
  private readonly callMs: number;
  private readonly backoffMs: number;
  /** Aborted when the drain gives up: what is still in flight is abandoned, and reported no more. */
  private readonly closing = new AbortController();

  constructor(private readonly o: DispatchOptions) {
    this.fetchImpl = o.fetch ?? fetch;
    this.callMs = o.callMs ?? NOTIFY_DEADLINES.callMs;
    this.backoffMs = o.backoffMs ?? NOTIFY_DEADLINES.backoffMs;
  }

  /** Queues `calls` of `sink` behind its earlier ones; returns at once. */
  enqueue(sink: Sink, calls: SinkCall[]): void {
    for (const call of calls) {
      const labels = this.pending.get(sink) ?? [];
      labels.push(call.label);
      this.pending.set(sink, labels);
      const before = this.chains.get(sink) ?? Promise.resolve();
      const next = before.then(() => this.make(sink, call)).finally(() => labels.shift());
      this.chains.set(sink, next);
    }
  }

  /** Waits up to `ms` for every queued call; reports each one still queued then. */
  async drain(ms: number = NOTIFY_DEADLINES.drainMs): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const all = Promise.all(this.chains.values()).then(() => true);
    const late = new Promise<false>((resolve) => {
      timer = setTimeout(() => resolve(false), clampTimerMs(ms));
    });
    const done = await Promise.race([all, late]);
    clearTimeout(timer);
    if (done) return;
    // The run is ending: nothing may write to its journal after this, and no socket may keep it alive.
    this.closing.abort(new Error('the run ended'));
    for (const [sink, labels] of this.pending) {
      for (const call of labels)
        this.o.onFailure({
          sink: sink.kind,
          call,
          error: `still not delivered when the run ended (waited ${formatDeadline(ms)})`,
          pending: true,
        });
      labels.length = 0;
    }
  }

  private async make(sink: Sink, call: SinkCall): Promise<void> {
    const tried: { n: number; last?: unknown } = { n: 0 };
    try {
      if (this.closing.signal.aborted) return;
      await withDeadline(
        (signal) => this.attempts(call, signal, tried),
        this.callMs,
        `${sink.kind} ${call.label}`,
        this.closing.signal,
      );
    } catch (error) {
      if (this.closing.signal.aborted) return;
      const last =
        error instanceof DeadlineError && tried.last !== undefined
          ? `; last attempt: ${errorMessage(tried.last)}`
          : '';
      const count = tried.n > 1 ? ` (${tried.n} attempts)` : '';
      try {
        this.o.onFailure({
          sink: sink.kind,
          call: call.label,
          error: redact(`${errorMessage(error)}${count}${last}`),
        });
      } catch {
        // Reporting must not break the chain: the next call of this sink still goes out.
      }
    }
  }

  /** Attempts until one succeeds, a failure is final, the attempts are spent or the deadline aborts `signal`. */
  private async attempts(
    call: SinkCall,
    signal: AbortSignal,
    tried: { n: number; last?: unknown },
  ): Promise<void> {
    let backoff = this.backoffMs;
    for (;;) {
      tried.n += 1;
      try {
        await this.once(call, signal);
        return;
      } catch (error) {
        tried.last = error;
        if (signal.aborted || !retriable(error) || tried.n >= NOTIFY_DEADLINES.attempts) throw error;
        await sleep(backoff, signal);
        if (signal.aborted) throw error;
        backoff *= 2;
      }
    }
  }

  private async once(call: SinkCall, signal: AbortSignal): Promise<void> {
    let req: ReturnType<SinkCall['request']>;
    try {
      req = call.request();
    } catch (error) {
      throw new RequestBuildError(errorMessage(error));
    }
    // The one redactor: no registered secret leaves in a body, whoever wrote the text in it.
    const redacted = redactDeep(req.body);
    const body =
      req.credentialFields && redacted !== null && typeof redacted === 'object'
        ? { ...req.credentialFields, ...(redacted as Record<string, unknown>) }
        : redacted;
    const bytes = JSON.stringify(body);
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      'user-agent': 'chaos-gate',
      ...req.headers,
      ...(req.sign ? req.sign(bytes) : {}),
    };
    const res = await this.fetchImpl(req.url, { method: req.method, headers, body: bytes, signal });
    const text = await res.text();
    if (res.status < 200 || res.status > 299) throw new HttpStatusError(res.status, redact(text));
    call.accept?.(res.status, text);
  }
}
