/**
 * A run's kill-switch read sent before its plan is loaded (src/compose/early.ts): the gate takes that
 * answer only while it is fresh, every later read is a new one, and an answer nobody takes is dropped
 * without an unhandled rejection.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { EARLY_READ_MAX_AGE_MS, readAhead } from '../../src/compose/early.js';
import { VirtualClock } from '../../src/clock/clock.js';
import type { KillSwitchProbe } from '../../src/injector/ports.js';

type State = Awaited<ReturnType<KillSwitchProbe['engaged']>>;

/** A probe answering from `answers` in turn, recording each read and the signal it was given. */
function scripted(answers: (State | Error)[]): KillSwitchProbe & { reads: (AbortSignal | undefined)[] } {
  const reads: (AbortSignal | undefined)[] = [];
  return {
    reads,
    engaged(signal) {
      reads.push(signal);
      const answer = answers[reads.length - 1];
      if (answer === undefined) throw new Error(`read ${reads.length} was not expected`);
      return answer instanceof Error ? Promise.reject(answer) : Promise.resolve(answer);
    },
  };
}

const RELEASED: State = { engaged: false };
const ENGAGED: State = { engaged: true, reason: 'kill-switch alarm chaos-gate-kill-switch is ALARM' };

describe('readAhead', () => {
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown): void => void unhandled.push(reason);
  afterEach(() => {
    process.off('unhandledRejection', onUnhandled);
    unhandled.length = 0;
  });

  it('sends the first read when it is created, before anyone asks', () => {
    const probe = scripted([RELEASED]);
    readAhead(probe, new VirtualClock());
    expect(probe.reads).toHaveLength(1);
  });

  it('gives the first asker that read while it is fresh, without reading again', async () => {
    const clock = new VirtualClock();
    const probe = scripted([ENGAGED]);
    const ahead = readAhead(probe, clock);
    clock.advance(EARLY_READ_MAX_AGE_MS);
    expect(await ahead.engaged(new AbortController().signal)).toEqual(ENGAGED);
    expect(probe.reads).toHaveLength(1);
  });

  it('reads again for every later asker, passing its signal', async () => {
    const probe = scripted([RELEASED, ENGAGED, RELEASED]);
    const ahead = readAhead(probe, new VirtualClock());
    expect(await ahead.engaged()).toEqual(RELEASED);
    const signal = new AbortController().signal;
    expect(await ahead.engaged(signal)).toEqual(ENGAGED);
    expect(await ahead.engaged()).toEqual(RELEASED);
    expect(probe.reads).toEqual([undefined, signal, undefined]);
  });

  it('reads again when the first asker comes later than the freshness bound: an old "released" is not trusted', async () => {
    const clock = new VirtualClock();
    const probe = scripted([RELEASED, ENGAGED]);
    const ahead = readAhead(probe, clock);
    clock.advance(EARLY_READ_MAX_AGE_MS + 1);
    const signal = new AbortController().signal;
    expect(await ahead.engaged(signal)).toEqual(ENGAGED);
    expect(probe.reads).toEqual([undefined, signal]);
  });

  it('hands a failed early read to the asker, who decides what it means', async () => {
    const failure = new Error('ThrottlingException: Rate exceeded');
    const ahead = readAhead(scripted([failure]), new VirtualClock());
    await expect(ahead.engaged()).rejects.toBe(failure);
  });

  it('drops a failed early read nobody takes (a plan that did not load) without an unhandled rejection', async () => {
    process.on('unhandledRejection', onUnhandled);
    readAhead(
      scripted([new Error('CredentialsProviderError: Could not load credentials')]),
      new VirtualClock(),
    );
    // Node reports an unhandled rejection after the microtask queue drains; give it a macrotask.
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(unhandled).toEqual([]);
  });
});
