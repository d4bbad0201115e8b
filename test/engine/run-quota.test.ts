/**
 * FIS's quota of active experiments (engine/queue.ts): a start FIS answers with its quota — the dry run
 * or the experiment — waits in the run's queue and asks again, within the queue timeout; past it the run
 * is `not-run` with the reason, never `failed`; a count of the account's live experiments at the quota
 * makes the run wait before it asks at all; and a run that waited measures its steady state again.
 */
import { describe, expect, it } from 'vitest';
import { QuotaExceeded } from '../../src/injector/injector.js';
import { RunQueue } from '../../src/engine/queue.js';
import { loadScenario } from '../../src/sim/scenario.js';
import { injectorWith, simulate } from '../sim/helpers.js';
import type { SimWorld } from '../../src/sim/world.js';

const held = () => loadScenario('fixtures/scenarios/held.yaml');
const quota = () => new QuotaExceeded('FIS StartExperiment: The quota of 5 active experiments is reached.');

/** An injector whose start (or dry run) FIS answers with its quota the first `n` times. */
function fullFor(w: SimWorld, n: number, which: 'start' | 'resolveTargets') {
  let calls = 0;
  const injector = injectorWith(w, {
    [which]: (...args: never[]) => {
      calls++;
      if (calls <= n) return Promise.reject(quota());
      return (w.injector[which] as (...a: never[]) => Promise<unknown>)(...args);
    },
  });
  return { injector, calls: () => calls };
}

const seeded = () => 0.5;

describe("FIS's active-experiment quota", () => {
  it('a start answered with the quota waits, asks again, measures the steady state again and holds', async () => {
    let probe: ReturnType<typeof fullFor> | undefined;
    const { result } = await simulate(held(), {
      deps: (w) => {
        probe = fullFor(w, 2, 'start');
        return {
          injector: probe.injector,
          queue: new RunQueue({ clock: w.clock, timeoutMs: 120_000, random: seeded }),
        };
      },
    });
    expect(result.verdict).toBe('held');
    expect(probe!.calls()).toBe(3);
    const queued = result.journal.events.filter((e) => e.data?.gate === 'quota');
    expect(queued).toHaveLength(2);
    expect(queued[0]!.message).toMatch(/queued for FIS's active-experiment quota before the start/);
    expect(result.journal.events.filter((e) => e.type === 'steady-state').length).toBeGreaterThanOrEqual(2);
  });

  it('a dry run answered with the quota past the queue timeout ends not-run naming the quota, never failed', async () => {
    const { result } = await simulate(held(), {
      deps: (w) => ({
        injector: fullFor(w, 1_000, 'resolveTargets').injector,
        queue: new RunQueue({ clock: w.clock, timeoutMs: 30_000, random: seeded }),
      }),
    });
    expect(result.verdict).toBe('not-run');
    expect(result.reason).toMatch(
      /quota of active experiments .* still reached after waiting .* before the dry run/,
    );
    expect(result.journal.experimentId).toBeUndefined();
  });

  it('without a queue a quota answer is not-run at once', async () => {
    const { result } = await simulate(held(), {
      deps: (w) => ({ injector: fullFor(w, 1_000, 'start').injector }),
    });
    expect(result.verdict).toBe('not-run');
    expect(result.reason).toMatch(/ServiceQuotaExceededException/);
  });

  it("waits before asking while FIS's own count of live experiments is at the quota", async () => {
    let counted = 0;
    let starts = 0;
    const { result } = await simulate(held(), {
      deps: (w) => ({
        injector: injectorWith(w, {
          start: (p, t, c) => {
            starts++;
            return w.injector.start(p, t, c);
          },
        }),
        queue: new RunQueue({
          clock: w.clock,
          timeoutMs: 120_000,
          random: seeded,
          quota: 5,
          // Full for the first three looks (dry run and start alike), then a slot is free.
          active: (atLeast) => Promise.resolve(++counted <= 3 ? atLeast : atLeast - 1),
        }),
      }),
    });
    expect(result.verdict).toBe('held');
    expect(starts).toBe(1);
    const queued = result.journal.events.filter((e) => e.data?.gate === 'quota');
    expect(queued).toHaveLength(3);
    expect(queued[0]!.message).toMatch(/5 experiments are active in the account, FIS's quota is 5/);
  });
});

describe('the queue jitter', () => {
  it('doubles from 1 s up to the cap, each wait drawn between half and all of its step', () => {
    const clock = { now: () => 0, sleep: () => Promise.resolve() };
    const low = new RunQueue({ clock, timeoutMs: 0, random: () => 0 });
    const high = new RunQueue({ clock, timeoutMs: 0, random: () => 1 });
    expect(Array.from({ length: 6 }, () => low.nextDelay())).toEqual([500, 1000, 2000, 4000, 5000, 5000]);
    expect(Array.from({ length: 6 }, () => high.nextDelay())).toEqual([1000, 2000, 4000, 8000, 10000, 10000]);
  });
});
