/**
 * `within` (src/engine/deadline.ts), the deadline every outside call of the engine goes through, on a
 * virtual clock: the call settles by its deadline with a DeadlineError and its signal aborted; a parent
 * that is already aborted refuses the call before it is made; a parent aborting mid-call rejects at once
 * with the parent's reason (an Error as it is, a string named, anything else as a plain cancellation).
 */
import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import { VirtualClock } from '../../src/clock/clock.js';
import { DeadlineError, within } from '../../src/engine/deadline.js';

/** A call that never answers, keeping the signal it was given. */
function hanging() {
  const seen: { signal?: AbortSignal } = {};
  const fn = (signal: AbortSignal) => {
    seen.signal = signal;
    return new Promise<string>(() => undefined);
  };
  return { fn, seen };
}

/** Settles `p` and says how and when (ms after `t0`). */
async function outcome<T>(clock: VirtualClock, t0: number, p: Promise<T>) {
  try {
    const value = await p;
    return { ok: true as const, value, at: clock.now() - t0 };
  } catch (error) {
    return { ok: false as const, error: error as Error, at: clock.now() - t0 };
  }
}

describe('the deadline', () => {
  it('rejects with a DeadlineError at the deadline and aborts the call’s signal with it', async () => {
    const clock = new VirtualClock();
    const t0 = clock.now();
    const { fn, seen } = hanging();
    const r = await outcome(clock, t0, within(clock, 4000, 'FIS GetExperiment', fn));
    expect(r.ok).toBe(false);
    expect(r.at).toBe(4000);
    expect(r.error).toBeInstanceOf(DeadlineError);
    expect(r.error?.message).toBe('FIS GetExperiment did not answer within 4 s');
    expect(seen.signal?.aborted).toBe(true);
    expect(seen.signal?.reason).toBe(r.error);
  });

  it('returns an answer that comes in time, and then tells the call it is no longer needed', async () => {
    const clock = new VirtualClock();
    const t0 = clock.now();
    let signal: AbortSignal | undefined;
    const r = await outcome(
      clock,
      t0,
      within(clock, 4000, 'FIS GetExperiment', async (s) => {
        signal = s;
        await clock.sleep(1000);
        return 'running';
      }),
    );
    expect(r).toEqual({ ok: true, value: 'running', at: 1000 });
    expect(signal?.aborted).toBe(true);
    expect((signal?.reason as Error).message).toBe('FIS GetExperiment: no longer needed');
  });
});

describe('what a settled call leaves behind', () => {
  it('no pending deadline timer: the clock does not move on to the deadline by itself', async () => {
    const clock = new VirtualClock();
    const t0 = clock.now();
    await within(clock, 4000, 'FIS GetExperiment', async () => {
      await clock.sleep(1000);
      return 'running';
    });
    // Let the virtual clock run whatever is still scheduled.
    for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
    expect(clock.now() - t0).toBe(1000);
  });

  it('no listener on the parent signal, which lives as long as the run', async () => {
    const clock = new VirtualClock();
    const parent = new AbortController();
    for (let i = 0; i < 3; i++) await within(clock, 4000, 'a call', async () => 'done', parent.signal);
    expect(getEventListeners(parent.signal, 'abort')).toHaveLength(0);
  });
});

describe('the parent signal', () => {
  it('refuses the call at once, without making it, when the parent is already aborted', async () => {
    const clock = new VirtualClock();
    const parent = new AbortController();
    const reason = new Error('SIGINT received');
    parent.abort(reason);
    let called = false;
    const p = within(
      clock,
      4000,
      'FIS StartExperiment',
      () => {
        called = true;
        return Promise.resolve('started');
      },
      parent.signal,
    );
    await expect(p).rejects.toBe(reason);
    expect(called).toBe(false);
  });

  it('rejects at once with the parent’s Error when the parent aborts mid-call, and aborts the call', async () => {
    const clock = new VirtualClock();
    const t0 = clock.now();
    const parent = new AbortController();
    const reason = new Error('SIGTERM received');
    void clock.sleep(300).then(() => parent.abort(reason));
    const { fn, seen } = hanging();
    const r = await outcome(clock, t0, within(clock, 4000, 'the dry run', fn, parent.signal));
    expect(r).toMatchObject({ ok: false, at: 300 });
    expect(r.error).toBe(reason);
    expect(seen.signal?.reason).toBe(reason);
  });

  it('names a string reason, and says only "cancelled" for any other', async () => {
    const clock = new VirtualClock();
    const named = new AbortController();
    named.abort('SIGINT');
    await expect(within(clock, 1000, 'provisioning', hanging().fn, named.signal)).rejects.toThrow(
      /^provisioning: cancelled by SIGINT$/,
    );
    const bare = new AbortController();
    bare.abort(42);
    await expect(within(clock, 1000, 'provisioning', hanging().fn, bare.signal)).rejects.toThrow(
      /^provisioning: cancelled$/,
    );
  });

  it('names a string reason given mid-call too', async () => {
    const clock = new VirtualClock();
    const parent = new AbortController();
    void clock.sleep(100).then(() => parent.abort('SIGTERM'));
    await expect(within(clock, 1000, 'the dry run', hanging().fn, parent.signal)).rejects.toThrow(
      /^the dry run: cancelled by SIGTERM$/,
    );
  });
});
