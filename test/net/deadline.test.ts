/**
 * The deadline primitives every outside call goes through (src/net/deadline.ts). Real timers, short
 * deadlines: each test bounds how long it can take by the deadline it sets.
 */
import { describe, expect, it } from 'vitest';
import {
  DEADLINES,
  DeadlineError,
  awsRequestHandlerOptions,
  formatDeadline,
  isDeadlineError,
  tickDeadline,
  withDeadline,
} from '../../src/net/deadline.js';
import { LEASE_BEAT_MS } from '../../src/injector/fis/alarms.js';

/** A call that never settles on its own, and records the signal it was given. */
function never(seen: AbortSignal[]): (signal: AbortSignal) => Promise<string> {
  return (signal) => {
    seen.push(signal);
    return new Promise<string>(() => undefined);
  };
}

describe('withDeadline', () => {
  it('passes through the result of a call that answers in time, and leaves its signal unaborted', async () => {
    let given: AbortSignal | undefined;
    const value = await withDeadline(
      async (signal) => {
        given = signal;
        return 42;
      },
      1_000,
      'test call',
    );
    expect(value).toBe(42);
    expect(given?.aborted).toBe(false);
  });

  it('passes through the error of a call that fails in time', async () => {
    await expect(
      withDeadline(() => Promise.reject(new Error('refused by the server')), 1_000, 'test call'),
    ).rejects.toThrow('refused by the server');
  });

  it('rejects at the deadline with a DeadlineError even when the call ignores its signal, and aborts that signal', async () => {
    const seen: AbortSignal[] = [];
    const t0 = Date.now();
    const error = await withDeadline(never(seen), 200, 'FIS GetExperiment').catch((e: unknown) => e);
    const elapsed = Date.now() - t0;
    expect(error).toBeInstanceOf(DeadlineError);
    expect((error as DeadlineError).message).toBe('FIS GetExperiment did not answer within 200 ms');
    expect(error).toMatchObject({ label: 'FIS GetExperiment', ms: 200 });
    // Not before the deadline (timers never fire early), and not stalled well past it.
    expect(elapsed).toBeGreaterThanOrEqual(195);
    expect(elapsed).toBeLessThan(200 + 1_000);
    expect(seen[0]?.aborted).toBe(true);
    expect(seen[0]?.reason).toBe(error);
  });

  it('drops a late rejection of an abandoned call without an unhandled rejection', async () => {
    let lateRejected = false;
    const error = await withDeadline(
      () =>
        new Promise<never>((_, reject) =>
          setTimeout(() => {
            lateRejected = true;
            reject(new Error('too late'));
          }, 150),
        ),
      50,
      'slow call',
    ).catch((e: unknown) => e);
    expect(isDeadlineError(error)).toBe(true);
    // Vitest fails the run on an unhandled rejection; wait until the late one has happened.
    await new Promise((r) => setTimeout(r, 200));
    expect(lateRejected).toBe(true);
  });

  it("rejects with the caller's reason as soon as the caller aborts, and aborts the call's signal", async () => {
    const seen: AbortSignal[] = [];
    const caller = new AbortController();
    const reason = new Error('run cancelled by SIGTERM');
    setTimeout(() => caller.abort(reason), 50);
    const t0 = Date.now();
    const error = await withDeadline(never(seen), 5_000, 'FIS StopExperiment', caller.signal).catch(
      (e: unknown) => e,
    );
    expect(error).toBe(reason);
    expect(Date.now() - t0).toBeLessThan(1_000);
    expect(seen[0]?.aborted).toBe(true);
  });

  it('does not start the call when the caller has already aborted', async () => {
    const seen: AbortSignal[] = [];
    const caller = new AbortController();
    caller.abort('shutting down');
    await expect(
      withDeadline(never(seen), 1_000, 'CloudWatch DescribeAlarms', caller.signal),
    ).rejects.toThrow('CloudWatch DescribeAlarms was cancelled: shutting down');
    expect(seen).toEqual([]);
  });

  it('refuses a deadline that is not positive instead of waiting for ever or not at all', async () => {
    const seen: AbortSignal[] = [];
    await expect(withDeadline(never(seen), 0, 'x')).rejects.toBeInstanceOf(RangeError);
    await expect(withDeadline(never(seen), Number.NaN, 'x')).rejects.toBeInstanceOf(RangeError);
    expect(seen).toEqual([]);
  });

  it('turns a synchronous throw of the call into a rejection', async () => {
    await expect(
      withDeadline(
        () => {
          throw new Error('bad input');
        },
        1_000,
        'x',
      ),
    ).rejects.toThrow('bad input');
  });
});

describe('deadline helpers', () => {
  it('formats deadlines in seconds from 1 s up and in milliseconds below', () => {
    expect(formatDeadline(4_000)).toBe('4 s');
    expect(formatDeadline(1_500)).toBe('1.5 s');
    expect(formatDeadline(250)).toBe('250 ms');
    expect(new DeadlineError('GitHub GET /user', 10_000).message).toBe(
      'GitHub GET /user did not answer within 10 s',
    );
  });

  it('recognises a DeadlineError from another module by its name', () => {
    const foreign = Object.assign(new Error('x did not answer within 1 s'), { name: 'DeadlineError' });
    expect(isDeadlineError(foreign)).toBe(true);
    expect(isDeadlineError(new Error('x'))).toBe(false);
    expect(isDeadlineError('DeadlineError')).toBe(false);
  });

  it("cuts a tick read's deadline to the tick's window, never below 1 ms", () => {
    expect(tickDeadline(1_000, DEADLINES.cloudwatchGetMetricData)).toBe(1_000);
    expect(tickDeadline(60_000, DEADLINES.cloudwatchGetMetricData)).toBe(DEADLINES.cloudwatchGetMetricData);
    expect(tickDeadline(0, 5_000)).toBe(1);
    expect(tickDeadline(Number.POSITIVE_INFINITY, 5_000)).toBe(5_000);
  });

  it('keeps the per-call deadlines of the tick-bound and lease calls inside their cadences', () => {
    // A heartbeat must be over before the next one is due.
    expect(DEADLINES.cloudwatchHeartbeat).toBeLessThan(LEASE_BEAT_MS);
    // A state read must not outlast a heartbeat interval either: the run loop reads it every tick.
    expect(DEADLINES.fisGetExperiment).toBeLessThan(LEASE_BEAT_MS);
  });

  it('gives AWS clients both timeout keys, so handler 2.x (socket idle) and 4.x (whole attempt) each find theirs', () => {
    expect(awsRequestHandlerOptions({ attemptTimeoutMs: 700, connectionTimeoutMs: 300 })).toEqual({
      connectionTimeout: 300,
      requestTimeout: 700,
      socketTimeout: 700,
      throwOnRequestTimeout: true,
    });
  });
});
