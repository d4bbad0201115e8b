import { describe, expect, it } from 'vitest';
import { VirtualClock } from '../../src/clock/clock.js';
import type { ResolvedTarget } from '../../src/injector/injector.js';
import type { JournalEvent } from '../../src/journal/types.js';
import {
  concurrencyGate,
  conflicts,
  type ExperimentLister,
  type RunningExperiment,
} from '../../src/preflight/concurrency.js';
import { loadTestPlan } from '../sim/helpers.js';

const A = 'arn:aws:ec2:eu-west-1:111122223333:subnet/subnet-a';
const B = 'arn:aws:ec2:eu-west-1:111122223333:subnet/subnet-b';
const C = 'arn:aws:ec2:eu-west-1:111122223333:subnet/subnet-c';

describe('conflicts', () => {
  const running: RunningExperiment[] = [
    { id: 'EXP1', planId: 'cart-latency', targets: [B, C] },
    { id: 'EXP2', planId: 'search-cpu', targets: [C] },
    { id: 'EXP3', planId: 'mystery', targets: [] },
  ];
  it.each([
    // [my targets, own ids, conflicting ids]
    [[A], [], ['EXP3']], // unknown targets conflict (fail closed)
    [[A], ['EXP3'], []],
    [[A, B], [], ['EXP1', 'EXP3']],
    [[C], ['EXP3'], ['EXP1', 'EXP2']],
  ])('mine %j, own %j → %j', (mine, own, ids) => {
    expect(conflicts(mine, running, own).map((c) => c.experiment.id)).toEqual(ids);
  });

  it('names the shared targets', () => {
    expect(conflicts([A, B], running, ['EXP3'])[0]?.shared).toEqual([B]);
  });
});

/** A lister whose experiments end at given virtual times. */
function lister(
  clock: VirtualClock,
  experiments: (RunningExperiment & { endsAt?: number })[],
): ExperimentLister & { calls: number[] } {
  const calls: number[] = [];
  return {
    calls,
    async running() {
      calls.push(clock.now());
      return experiments.filter((e) => e.endsAt === undefined || clock.now() < e.endsAt);
    },
  };
}

const plan = loadTestPlan();
const mine: ResolvedTarget[] = [
  { target: 'primary', arn: A },
  { target: 'primary', arn: B },
];

describe('concurrencyGate (virtual clock)', () => {
  it('waits out the queue timeout behind an overlapping experiment, then is not-run naming it', async () => {
    const clock = new VirtualClock();
    const t0 = clock.now();
    const l = lister(clock, [{ id: 'EXP9', planId: 'cart-latency', targets: [B] }]);
    const events: Omit<JournalEvent, 'at'>[] = [];
    const outcome = await concurrencyGate({ lister: l, clock, queueTimeoutMs: 60_000, pollMs: 10_000 }).check(
      {
        plan,
        now: t0,
        targets: mine,
        record: (e) => events.push(e),
      },
    );
    expect(outcome).toEqual({
      pass: false,
      verdict: 'not-run',
      reason: `experiment EXP9 (plan cart-latency) on 1 shared target (${B}) still running after waiting 1m (queue timeout 1m)`,
    });
    expect(l.calls.map((t) => t - t0)).toEqual([0, 10_000, 20_000, 30_000, 40_000, 50_000, 60_000]);
    expect(events.map((e) => e.data?.['waitedMs'])).toEqual([0, 10_000, 20_000, 30_000, 40_000, 50_000]);
    expect(events[1]?.message).toBe(
      `queued behind experiment EXP9 (plan cart-latency) on 1 shared target (${B}): waited 10s of 1m`,
    );
  });

  it('starts once the overlapping experiment ends within the timeout', async () => {
    const clock = new VirtualClock();
    const t0 = clock.now();
    const l = lister(clock, [{ id: 'EXP9', planId: 'cart-latency', targets: [A], endsAt: t0 + 25_000 }]);
    const outcome = await concurrencyGate({ lister: l, clock, queueTimeoutMs: 60_000, pollMs: 10_000 }).check(
      {
        plan,
        now: t0,
        targets: mine,
        record: () => {},
      },
    );
    expect(outcome).toEqual({ pass: true, note: 'queued 30s behind other experiments' });
    expect(clock.now() - t0).toBe(30_000);
  });

  it('does not wait for an experiment on other targets', async () => {
    const clock = new VirtualClock();
    const l = lister(clock, [{ id: 'EXP9', planId: 'search', targets: [C] }]);
    const outcome = await concurrencyGate({ lister: l, clock, queueTimeoutMs: 60_000 }).check({
      plan,
      now: 0,
      targets: mine,
      record: () => {},
    });
    expect(outcome.pass).toBe(true);
    expect(l.calls).toHaveLength(1);
  });

  it('is not-run on an empty set of targets the dry run did not prove empty, without asking FIS', async () => {
    const clock = new VirtualClock();
    const l = lister(clock, [{ id: 'EXP9', planId: 'cart-latency', targets: [A] }]);
    const outcome = await concurrencyGate({ lister: l, clock, queueTimeoutMs: 60_000 }).check({
      plan,
      now: 0,
      targets: [],
      record: () => {},
    });
    expect(outcome).toMatchObject({ pass: false, verdict: 'not-run', field: 'fis.targets' });
    expect(l.calls).toHaveLength(0);
  });

  it('passes a proven-empty set of targets: it intersects no running experiment that reports targets', async () => {
    const clock = new VirtualClock();
    const l = lister(clock, [{ id: 'EXP9', planId: 'cart-latency', targets: [A] }]);
    const outcome = await concurrencyGate({ lister: l, clock, queueTimeoutMs: 0 }).check({
      plan,
      now: 0,
      targets: [],
      targetsComplete: true,
      record: () => {},
    });
    expect(outcome.pass).toBe(true);
  });

  it('with no queue timeout, is not-run at once', async () => {
    const clock = new VirtualClock();
    const l = lister(clock, [{ id: 'EXP9', planId: 'cart-latency', targets: [A] }]);
    const outcome = await concurrencyGate({ lister: l, clock, queueTimeoutMs: 0 }).check({
      plan,
      now: 0,
      targets: mine,
      record: () => {},
    });
    expect(outcome).toMatchObject({ pass: false, verdict: 'not-run' });
    expect(l.calls).toHaveLength(1);
  });

  it('stops waiting when the run is cancelled', async () => {
    const clock = new VirtualClock();
    const ctl = new AbortController();
    const l: ExperimentLister = {
      async running() {
        if (clock.now() > 0) ctl.abort();
        return [{ id: 'EXP9', planId: 'cart-latency', targets: [A] }];
      },
    };
    const outcome = await concurrencyGate({
      lister: l,
      clock,
      queueTimeoutMs: 600_000,
      pollMs: 10_000,
    }).check({
      plan,
      now: 0,
      targets: mine,
      signal: ctl.signal,
      record: () => {},
    });
    expect(outcome).toMatchObject({ pass: false, verdict: 'not-run' });
    expect(!outcome.pass && outcome.reason).toMatch(/^cancelled while queued behind experiment EXP9/);
  });

  it('is not-run when running experiments cannot be listed', async () => {
    const clock = new VirtualClock();
    const outcome = await concurrencyGate({
      lister: {
        async running() {
          throw new Error('ThrottlingException');
        },
      },
      clock,
      queueTimeoutMs: 60_000,
    }).check({ plan, now: 0, targets: mine, record: () => {} });
    expect(outcome).toMatchObject({ pass: false, verdict: 'not-run' });
    expect(!outcome.pass && outcome.reason).toContain('ThrottlingException');
  });
});
