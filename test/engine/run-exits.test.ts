/**
 * How the run's state machine (src/engine/run.ts) leaves each phase, on the simulated world's virtual
 * clock: once an experiment id is known, every way out stops the experiment exactly once, and a start
 * that never returned an id stops nothing; a cancellation that lands as the steady state ends prevents
 * the start; recovery is measured only after a verified stop and not after a cancellation; the lease
 * withholds a beat once the loop has made no progress for two ticks or one lease interval (whichever is
 * longer) plus a second; and which FIS action statuses count as evidence that the fault was injected.
 */
import { describe, expect, it } from 'vitest';
import type { ExperimentState, Lease } from '../../src/injector/injector.js';
import type { JournalEvent } from '../../src/journal/types.js';
import { loadScenario, type Scenario } from '../../src/sim/scenario.js';
import { injectorWith, simulate, type SimRun } from '../sim/helpers.js';

const held = (): Scenario => loadScenario('fixtures/scenarios/held.yaml');
const events = (es: readonly JournalEvent[], type: string) => es.filter((e) => e.type === type);

/** How often the run asked FIS to stop, and how often it journaled the request. */
function stops({ result, world }: SimRun) {
  return {
    calls: world.injector.stopCount,
    requested: events(result.journal.events, 'stop-requested').length,
  };
}

describe('a single stop on every way out', () => {
  it('stops once when handing the experiment id to the front door throws', async () => {
    const run = await simulate(held(), {
      deps: () => ({ onExperimentId: () => Promise.reject(new Error('cannot save the experiment id')) }),
    });
    expect(run.result.verdict).toBe('failed');
    expect(run.result.reason).toBe('cannot save the experiment id (+0.0 s)');
    expect(stops(run)).toEqual({ calls: 1, requested: 1 });
    expect(events(run.result.journal.events, 'stop-requested')[0]?.message).toBe(
      'stop requested: the run ended early',
    );
  });

  it('stops once when the fault loop throws (the metric source breaks its contract)', async () => {
    const run = await simulate('failed-source-throws');
    expect(run.result.verdict).toBe('failed');
    expect(run.result.reason).toMatch(/simulated prometheus source crash/);
    expect(stops(run)).toEqual({ calls: 1, requested: 1 });
  });

  it('stops once when a polled mid-run check fails blindAfter times in a row', async () => {
    const run = await simulate(held(), {
      deps: () => ({
        midRun: [{ name: 'incidents', check: () => Promise.reject(new Error('incident API down')) }],
      }),
    });
    expect(run.result.verdict).toBe('failed');
    expect(run.result.reason).toMatch(/^mid-run check incidents failed 3 times in a row: /);
    expect(stops(run)).toEqual({ calls: 1, requested: 1 });
  });

  it('sends no StopExperiment when FIS completed the experiment by itself, and the journal says it completed', async () => {
    const run = await simulate(held());
    expect(run.result.verdict).toBe('held');
    expect(stops(run)).toEqual({ calls: 0, requested: 0 });
    expect(run.result.journal.timings.stopRequestedAt).toBeUndefined();
    expect(events(run.result.journal.events, 'stop-verified')).toEqual([]);
    expect(events(run.result.journal.events, 'fault-ended').map((e) => e.data?.status)).toEqual([
      'completed',
    ]);
  });

  it('stops once when the run stops the fault: the way out sends no second StopExperiment', async () => {
    const run = await simulate('aborted-rule');
    expect(run.result.verdict).toBe('aborted');
    expect(stops(run)).toEqual({ calls: 1, requested: 1 });
    expect(events(run.result.journal.events, 'stop-verified')).toHaveLength(1);
  });

  it('stops nothing when the start failed before any experiment id was known', async () => {
    const run = await simulate('failed-start');
    expect(run.result.verdict).toBe('failed');
    expect(run.result.experimentId).toBeUndefined();
    expect(run.world.injector.calls.filter((c) => c.method === 'start')).toHaveLength(2);
    expect(stops(run)).toEqual({ calls: 0, requested: 0 });
  });
});

describe('a cancellation as the steady state ends', () => {
  it('is not-run "before injection", with no start and no stop', async () => {
    const ctl = new AbortController();
    let steady = 0;
    const { result, world } = await simulate(held(), {
      deps: () => ({
        signal: ctl.signal,
        // The fifth steady-state measurement is the last (5 s at 1 s): cancel as it is recorded, after the
        // steady-state loop's own look at the signal.
        onTick: (m) => {
          if (m.phase === 'steady' && ++steady === 5) ctl.abort('SIGTERM');
        },
      }),
    });
    expect(steady).toBe(5);
    expect(result.verdict).toBe('not-run');
    expect(events(result.journal.events, 'not-run').map((e) => e.message)).toEqual([
      'cancelled by SIGTERM before injection',
    ]);
    expect(events(result.journal.events, 'steady-state')).toHaveLength(1);
    expect(world.injector.calls.map((c) => c.method)).not.toContain('start');
    expect(world.injector.stopCount).toBe(0);
  });
});

describe('recovery', () => {
  const recoveryTicks = ({ result }: SimRun) =>
    result.journal.measurements.filter((m) => m.phase === 'recovery');

  it('is measured after a verified stop', async () => {
    const run = await simulate('aborted-rule');
    expect(events(run.result.journal.events, 'stop-verified')).toHaveLength(1);
    expect(recoveryTicks(run).length).toBeGreaterThan(0);
  });

  it('is measured after FIS completed the experiment by itself', async () => {
    const run = await simulate(held());
    expect(events(run.result.journal.events, 'fault-ended')).toHaveLength(1);
    expect(recoveryTicks(run).length).toBeGreaterThan(0);
  });

  it('is not measured when the stop was never verified', async () => {
    const run = await simulate('failed-stop-unverified');
    expect(events(run.result.journal.events, 'stop-failed')).toHaveLength(1);
    expect(recoveryTicks(run)).toEqual([]);
    expect(events(run.result.journal.events, 'recovery')).toEqual([]);
  });

  it('is not entered after a cancellation during the fault: one signal, one abort, no recovery', async () => {
    const run = await simulate('aborted-signal');
    expect(events(run.result.journal.events, 'stop-verified')).toHaveLength(1);
    expect(recoveryTicks(run)).toEqual([]);
    expect(events(run.result.journal.events, 'signal').map((e) => e.message)).toEqual([
      'cancelled by SIGINT (+6.5 s)',
    ]);
    expect(events(run.result.journal.events, 'abort').map((e) => e.data?.cause)).toEqual(['cancelled']);
  });
});

describe('when the lease withholds a beat', () => {
  /**
   * The held world with a lease of `leaseMs` whose beats are recorded, and a front door that takes
   * `stallMs` to save the experiment id: the run loop makes no progress from the start until then.
   * Times are relative to the start request (which follows the lease's guard at once).
   */
  async function stalled(leaseMs: number, stallMs: number) {
    const beats: number[] = [];
    const run = await simulate(held(), {
      deps: (w) => {
        const lease: Lease = { intervalMs: leaseMs, beat: async () => void beats.push(w.clock.now()) };
        return { lease, onExperimentId: () => w.clock.sleep(stallMs) };
      },
    });
    const sentAt = events(run.result.journal.events, 'inject')[0]?.data?.sentAt as number;
    const withheld = events(run.result.journal.events, 'lease').filter((e) => e.data?.withheld === true);
    return {
      run,
      beats: beats.map((at) => at - sentAt),
      withheld: withheld.map((e) => ({ at: e.at - sentAt, message: e.message.split(':')[0] })),
    };
  }

  it('after one lease interval plus a second when the lease interval is longer than two ticks', async () => {
    // 1 s ticks, 3 s lease: stale after max(2 s, 3 s) + 1 s = 4 s. Beats fall due 1, 4 and 7 s after the
    // guard: the one at exactly 4 s still goes out, the one at 7 s is withheld.
    const { beats, withheld, run } = await stalled(3000, 10_000);
    expect(beats.filter((at) => at >= 0 && at <= 7000)).toEqual([1000, 4000]);
    expect(withheld).toEqual([{ at: 7000, message: 'no progress for 7.0 s' }]);
    expect(run.result.journal.events.some((e) => e.message.includes('advancing again'))).toBe(true);
  });

  it('after two ticks plus a second when the lease interval is shorter', async () => {
    // 1 s ticks, 200 ms lease: stale after max(2 s, 0.2 s) + 1 s = 3 s. The beat due exactly 3 s after the
    // guard goes out, the one 200 ms later is withheld.
    const { beats, withheld } = await stalled(200, 10_000);
    expect(beats.filter((at) => at >= 0 && at <= 3200)).toEqual(
      Array.from({ length: 16 }, (_, i) => i * 200),
    );
    expect(withheld).toEqual([{ at: 3200, message: 'no progress for 3.2 s' }]);
  });

  it('withholds nothing when the loop stalls for less than that', async () => {
    const { withheld, beats } = await stalled(200, 2900);
    expect(withheld).toEqual([]);
    expect(beats.filter((at) => at >= 0 && at <= 3000)).toHaveLength(16);
  });
});

describe('evidence that the fault was injected', () => {
  /**
   * The held world, but for the first 3 s after the first second of the fault FIS reports `running`
   * with actions in `actionStatus` (and a second action still pending) and its action start 700 ms
   * after ours; `injected` is the flag FIS's answer carries, if any.
   */
  async function reporting(actionStatus: string, injected?: boolean) {
    const run = await simulate(held(), {
      deps: (w) => ({
        injector: injectorWith(w, {
          state: async (id) => {
            const s = await w.injector.state(id);
            const start = w.injector.startedAt!;
            const now = w.clock.now();
            if (now < start + 1000) return { status: 'initiating', actions: { partition: 'pending' } };
            if (now >= start + 4000) return s;
            const scripted: ExperimentState = {
              status: 'running',
              actions: { warmup: 'pending', partition: actionStatus },
              actionStartedAt: start + 700,
            };
            if (injected !== undefined) scripted.injected = injected;
            return scripted;
          },
        }),
      }),
    });
    const start = run.world.injector.startedAt!;
    const states = events(run.result.journal.events, 'experiment-state')
      .filter((e) => e.at <= start + 4000)
      .map((e) => ({
        at: e.at - start,
        status: e.data?.status,
        injected: e.data?.injected,
        injectedAt: e.data?.injectedAt === undefined ? undefined : (e.data.injectedAt as number) - start,
      }));
    return { states, injectedAt: run.result.journal.timings.injectedAt! - start };
  }

  it.each(['running', 'completed', 'stopping', 'stopped'])(
    'an action %s is injection: the time moves to FIS’s action start, said once',
    async (status) => {
      const { states, injectedAt } = await reporting(status);
      expect(states).toEqual([
        { at: 0, status: 'initiating', injected: false, injectedAt: undefined },
        { at: 1000, status: 'running', injected: true, injectedAt: 700 },
        // The world's own answer at +4 s lists other actions: journaled for them, the injection not again.
        { at: 4000, status: 'running', injected: true, injectedAt: undefined },
      ]);
      expect(injectedAt).toBe(700);
    },
  );

  it.each(['pending', 'initiating'])(
    'an action %s is not injection: the time stays at our start until FIS says so',
    async (status) => {
      const { states, injectedAt } = await reporting(status);
      expect(states).toEqual([
        { at: 0, status: 'initiating', injected: false, injectedAt: undefined },
        { at: 1000, status: 'running', injected: false, injectedAt: undefined },
        // The world's own answer at +4 s says injected (without an action start): same status, but
        // journaled again because the injection became known, with the time origin unchanged.
        { at: 4000, status: 'running', injected: true, injectedAt: 0 },
      ]);
      expect(injectedAt).toBe(0);
    },
  );

  it('FIS’s injected flag alone is injection, whatever the actions say', async () => {
    const { states, injectedAt } = await reporting('pending', true);
    expect(states[1]).toEqual({ at: 1000, status: 'running', injected: true, injectedAt: 700 });
    expect(injectedAt).toBe(700);
  });

  it('a running action is injection even when FIS’s flag says false', async () => {
    const { states } = await reporting('running', false);
    expect(states[1]).toEqual({ at: 1000, status: 'running', injected: true, injectedAt: 700 });
  });
});
