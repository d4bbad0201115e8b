/**
 * Waits of any length (src/net/timer.ts) on a virtual set of timers: every timer the helper arms holds
 * at most 2³¹−1 ms (what one Node timer can), the wait ends exactly when its whole length has passed,
 * and a cleared or aborted wait never fires. Plus one real timer past the limit: no
 * TimeoutOverflowWarning, and it has not fired after a tick (Node would have cut it to 1 ms).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { clampTimerMs, longTimeout, MAX_TIMER_MS, sleepFor, type Timers } from '../../src/net/timer.js';
import { withDeadline } from '../../src/net/deadline.js';

/** Timers on a virtual clock: `advance` fires what falls due, in order; every armed delay is recorded. */
class VirtualTimers implements Timers {
  now = 0;
  readonly armed: number[] = [];
  private pending = new Map<number, { at: number; fn: () => void }>();
  private seq = 0;

  setTimeout(fn: () => void, ms: number): unknown {
    if (ms > MAX_TIMER_MS) throw new Error(`a timer of ${ms} ms overflows`);
    this.armed.push(ms);
    const id = ++this.seq;
    this.pending.set(id, { at: this.now + ms, fn });
    return id;
  }

  clearTimeout(handle: unknown): void {
    this.pending.delete(handle as number);
  }

  /** Moves time to `to`, firing every timer due by then (timers armed meanwhile included). */
  advanceTo(to: number): void {
    for (;;) {
      const due = [...this.pending].filter(([, t]) => t.at <= to).sort((a, b) => a[1].at - b[1].at)[0];
      if (!due) break;
      this.pending.delete(due[0]);
      this.now = due[1].at;
      due[1].fn();
    }
    this.now = to;
  }

  get count(): number {
    return this.pending.size;
  }
}

const DAY = 86_400_000;

describe('longTimeout', () => {
  it('fires a 90-day wait exactly at 90 days, through timers that each fit in 2^31-1 ms', () => {
    const timers = new VirtualTimers();
    let firedAt: number | undefined;
    longTimeout(() => (firedAt = timers.now), 90 * DAY, timers);
    timers.advanceTo(90 * DAY - 1);
    expect(firedAt).toBeUndefined();
    timers.advanceTo(91 * DAY);
    expect(firedAt).toBe(90 * DAY);
    expect(timers.armed.length).toBe(Math.ceil((90 * DAY) / MAX_TIMER_MS));
    expect(Math.max(...timers.armed)).toBeLessThanOrEqual(MAX_TIMER_MS);
    expect(timers.armed.reduce((a, b) => a + b, 0)).toBe(90 * DAY);
  });

  it('uses one timer for a wait that fits', () => {
    const timers = new VirtualTimers();
    let fired = false;
    longTimeout(() => (fired = true), 1500, timers);
    timers.advanceTo(1500);
    expect(fired).toBe(true);
    expect(timers.armed).toEqual([1500]);
  });

  it('never fires once cleared, in any link of the chain', () => {
    const timers = new VirtualTimers();
    let fired = false;
    const t = longTimeout(() => (fired = true), 30 * DAY, timers);
    timers.advanceTo(26 * DAY); // past the first link
    expect(timers.armed.length).toBe(2);
    t.clear();
    timers.advanceTo(60 * DAY);
    expect(fired).toBe(false);
    expect(timers.count).toBe(0);
  });

  it('arms nothing for an infinite wait, and treats NaN and negative delays as 0', () => {
    const timers = new VirtualTimers();
    longTimeout(() => undefined, Infinity, timers);
    expect(timers.armed).toEqual([]);
    longTimeout(() => undefined, NaN, timers);
    longTimeout(() => undefined, -5, timers);
    expect(timers.armed).toEqual([0, 0]);
  });
});

describe('sleepFor', () => {
  it('resolves after a 30-day sleep on virtual timers, and at once when aborted', async () => {
    const timers = new VirtualTimers();
    let done = false;
    const slept = sleepFor(30 * DAY, undefined, timers).then(() => (done = true));
    timers.advanceTo(30 * DAY - 1);
    await Promise.resolve();
    expect(done).toBe(false);
    timers.advanceTo(30 * DAY);
    await slept;
    expect(done).toBe(true);

    const controller = new AbortController();
    const aborted = sleepFor(30 * DAY, controller.signal, timers);
    controller.abort();
    await aborted;
    expect(timers.count).toBe(0);
  });
});

describe('clampTimerMs', () => {
  it('bounds a delay to what one timer holds', () => {
    expect(clampTimerMs(30 * DAY)).toBe(MAX_TIMER_MS);
    expect(clampTimerMs(-1)).toBe(0);
    expect(clampTimerMs(NaN)).toBe(0);
    expect(clampTimerMs(250)).toBe(250);
  });
});

describe('real timers past the limit', () => {
  const warnings: Error[] = [];
  const onWarning = (w: Error): void => void warnings.push(w);
  afterEach(() => {
    process.off('warning', onWarning);
  });

  it('a 30-day deadline does not fire after a tick, and Node warns of no overflow', async () => {
    process.on('warning', onWarning);
    let settled: string | undefined;
    const controller = new AbortController();
    const call = withDeadline(
      (signal) =>
        new Promise<string>((resolve) => signal.addEventListener('abort', () => resolve('aborted'))),
      30 * DAY,
      'a 30-day call',
      controller.signal,
    ).then(
      (v) => (settled = v),
      (e: Error) => (settled = e.message),
    );
    // Node cuts an overflowing timer to 1 ms: give it well over that.
    await new Promise((r) => setTimeout(r, 50));
    expect(settled).toBeUndefined();
    controller.abort('test over');
    await call;
    expect(settled).toMatch(/cancelled/);
    await new Promise((r) => setImmediate(r));
    expect(warnings.filter((w) => w.name === 'TimeoutOverflowWarning')).toEqual([]);
  });
});
