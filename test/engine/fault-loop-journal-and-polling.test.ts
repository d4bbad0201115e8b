/**
 * Decisions of the fault loop (src/engine/observe.ts) on the simulated world's virtual clock: a state
 * read that succeeds resets the count of failed reads, as an answer from a `tick` check resets its
 * failures; the first breach is journaled once and only for an SLI that counts during the fault; an
 * expectation is journaled when first seen and not again; FIS stopping or cancelling the experiment by
 * itself is an abort that names FIS's reason; the state is polled every interval, at least every second
 * and at most every five.
 */
import { describe, expect, it } from 'vitest';
import type { Injector } from '../../src/injector/injector.js';
import type { JournalEvent } from '../../src/journal/types.js';
import type { PlanInput } from '../../src/plan/schema.js';
import { loadScenario, type Scenario } from '../../src/sim/scenario.js';
import type { SimWorld } from '../../src/sim/world.js';
import { planWith, simulate } from '../sim/helpers.js';
import { scriptedSource } from '../sim/scripted.js';

const held = (): Scenario => loadScenario('fixtures/scenarios/held.yaml');
const events = (es: readonly JournalEvent[], type: string) => es.filter((e) => e.type === type);

function injectorWith(world: SimWorld, patch: Partial<Injector>): Injector {
  const inner = world.injector;
  return {
    provision: (p, c) => inner.provision(p, c),
    resolveTargets: (p, t) => inner.resolveTargets(p, t),
    start: (p, t, c) => inner.start(p, t, c),
    state: (id) => inner.state(id),
    stop: (id, r) => inner.stop(id, r),
    ...patch,
  };
}

describe('failures in a row', () => {
  it('resets the count of failed state reads on a good read: 2 failed, 1 good, 2 failed is not blind', async () => {
    const { result } = await simulate(held(), {
      deps: (w) => {
        let reads = 0;
        return {
          injector: injectorWith(w, {
            state: (id) => {
              reads++;
              // Reads 3, 4, 6 and 7 fail (the first two see the start); blindAfter is 3.
              return [3, 4, 6, 7].includes(reads)
                ? Promise.reject(new Error('ThrottlingException'))
                : w.injector.state(id);
            },
          }),
        };
      },
    });
    expect(result.verdict).toBe('held');
    expect(events(result.journal.events, 'error').map((e) => e.message)).toHaveLength(4);
  });

  it('resets the failures of a tick check when it answers: 2 failed, 1 answer, 2 failed goes on', async () => {
    let asked = 0;
    const { result } = await simulate(held(), {
      deps: () => ({
        midRun: [
          {
            name: 'stop-button',
            cadence: 'tick' as const,
            check: () => {
              asked++;
              return [1, 2, 4, 5].includes(asked)
                ? Promise.reject(new Error('file system busy'))
                : Promise.resolve(null);
            },
          },
        ],
      }),
    });
    expect(asked).toBeGreaterThan(5);
    expect(result.verdict).toBe('held');
    expect(
      events(result.journal.events, 'error').filter((e) => e.data?.check === 'stop-button'),
    ).toHaveLength(4);
  });
});

describe('what the loop journals as it goes', () => {
  it('journals the first breach once, for an SLI that counts during the fault only', async () => {
    const plan = planWith((p: PlanInput) => {
      (p.hypothesis.slis[0] as { during?: boolean }).during = false;
      p.abort.rules = [{ sli: 'success_ratio', below: 0.5, for: '3s' }];
    });
    const { result } = await simulate(held(), {
      plan,
      deps: (w) => ({
        sources: {
          ...w.sources,
          // success_ratio (steady-only) breaches from +1 s, p95 from +3 s: only p95's breach is journaled.
          prometheus: scriptedSource(w, 'prometheus', {
            success_ratio: (s) => (s >= 1 ? 0.9 : undefined),
            p95_latency_s: (s) => (s >= 3 ? 0.3 : undefined),
          }),
        },
      }),
    });
    const first = events(result.journal.events, 'first-breach');
    expect(first).toHaveLength(1);
    expect(first[0]?.data).toEqual({ sli: 'p95_latency_s', value: 0.3 });
    expect(first[0]?.message).toBe('p95_latency_s 0.3 > 0.18 (+3.0 s)');
    expect(result.journal.timings.firstBreachAt).toBe(first[0]?.at);
  });

  it('journals an expectation when first seen and not on later sightings', async () => {
    const { result } = await simulate(held());
    const seen = events(result.journal.events, 'expectation-observed');
    expect(seen.map((e) => e.data)).toEqual([{ expectation: 'breaker_open', value: 1 }]);
    expect(seen[0]?.message).toMatch(/^breaker_open 1 >= 1 \(\+\d\.\d s\)$/);
  });
});

describe('FIS ending the experiment by itself', () => {
  it('is an abort that names the stop condition when FIS stops it', async () => {
    const { result } = await simulate('aborted-fis-stopped');
    const [abort] = events(result.journal.events, 'abort');
    expect(abort?.data).toEqual({ cause: 'fis-stopped', verdict: 'aborted' });
    expect(abort?.message).toMatch(
      /^FIS stopped the experiment: Stop condition triggered: lease alarm in ALARM \(\+\d+\.\d s\)$/,
    );
  });

  it('is an abort that names the safety lever when FIS cancels it', async () => {
    const { result } = await simulate('aborted-fis-cancelled');
    const [abort] = events(result.journal.events, 'abort');
    expect(abort?.data).toEqual({ cause: 'fis-cancelled', verdict: 'aborted' });
    expect(abort?.message).toMatch(
      /^FIS cancelled the experiment \(safety lever\): Safety lever engaged\. \(\+\d+\.\d s\)$/,
    );
  });
});

describe('the state poll cadence', () => {
  /** The gaps between the state reads of the first ten seconds of the fault, for an interval. */
  async function gaps(interval: string) {
    const plan = planWith((p: PlanInput) => {
      p.hypothesis.interval = interval;
      p.abort.rules = [];
    });
    const { world } = await simulate(held(), { plan });
    const start = world.injector.startedAt!;
    const reads = world.injector.calls
      .filter((c) => c.method === 'state' && c.at >= start && c.at < start + 10_000)
      .map((c) => c.at);
    return new Set(reads.slice(1).map((at, i) => at - reads[i]!));
  }

  it('reads once a second at a 1 s interval, and no more often at a shorter one', async () => {
    expect(await gaps('1s')).toEqual(new Set([1000]));
    expect(await gaps('500ms')).toEqual(new Set([1000]));
  });

  it('reads every interval between one and five seconds, and every five seconds past that', async () => {
    expect(await gaps('2s')).toEqual(new Set([2000]));
    expect(await gaps('10s')).toEqual(new Set([5000]));
  });
});
