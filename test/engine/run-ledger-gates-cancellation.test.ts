/**
 * Decisions of the run's state machine (src/engine/run.ts) and its phases (phases.ts, observe.ts) that
 * the other engine tests leave unpinned, each on the simulated world's virtual clock: the chaos-ledger
 * debit and a ledger that fails; a gate's note and budget figures; FIS's own action start time clamped
 * between our StartExperiment and the read; a failed experiment without an error code; what a
 * cancellation is called; a cancellation during recovery; `blastRadius.maxRunDuration`; an unreadable or
 * refusing readiness check during the steady state.
 */
import { describe, expect, it } from 'vitest';
import type { Gate } from '../../src/engine/gates.js';
import { InjectorRefusal } from '../../src/injector/injector.js';
import type { BudgetFigures, JournalEvent } from '../../src/journal/types.js';
import { loadScenario, type Scenario } from '../../src/sim/scenario.js';
import { injectorWith, planWith, simulate } from '../sim/helpers.js';
import { scriptedSource } from '../sim/scripted.js';

const held = (): Scenario => loadScenario('fixtures/scenarios/held.yaml');
const events = (es: readonly JournalEvent[], type: string) => es.filter((e) => e.type === type);

const FIGURES: BudgetFigures = {
  objective: 0.999,
  windowMs: 28 * 86_400_000,
  allowedBadEvents: 1000,
  serviceBadEvents: 100,
  chaosAllowance: 250,
  ledgerSpent: 10,
};

describe('the chaos ledger', () => {
  it('journals the debit the ledger returns, with its figures, before the verdict', async () => {
    const { result } = await simulate(held(), {
      deps: () => ({ settle: async () => ({ ...FIGURES, debit: 12.5, remainingAfter: 227.5 }) }),
    });
    expect(result.verdict).toBe('held');
    const [budget] = events(result.journal.events, 'budget');
    expect(budget?.message).toBe('debited 12.5 bad events to the chaos ledger');
    expect(budget?.data).toEqual({ ...FIGURES, debit: 12.5, remainingAfter: 227.5 });
    expect(result.journal.budget?.debit).toBe(12.5);
    const order = result.journal.events.map((e) => e.type);
    expect(order.indexOf('budget')).toBeLessThan(order.indexOf('verdict'));
  });

  it('journals nothing when the ledger has no figures, and a ledger error without failing the run', async () => {
    const none = await simulate(held(), { deps: () => ({ settle: async () => undefined }) });
    expect(events(none.result.journal.events, 'budget')).toEqual([]);
    expect(events(none.result.journal.events, 'error')).toEqual([]);

    const broken = await simulate(held(), {
      deps: () => ({ settle: () => Promise.reject(new Error('ledger table missing')) }),
    });
    expect(broken.result.verdict).toBe('held');
    const errors = events(broken.result.journal.events, 'error');
    expect(errors.map((e) => [e.message, e.data])).toEqual([
      ["recording the run's damage in the chaos ledger: ledger table missing", undefined],
    ]);
  });
});

describe('gates', () => {
  it('journals a passing gate with its note, and keeps the budget figures it returns', async () => {
    const gate: Gate = {
      name: 'budget',
      stage: 'before-targets',
      check: async () => ({ pass: true, note: '3 of 5 runs left this week', budget: FIGURES }),
    };
    const silent: Gate = { name: 'schedule', stage: 'after-targets', check: async () => ({ pass: true }) };
    const { result } = await simulate(held(), { deps: () => ({ gates: [gate, silent] }) });
    const passed = events(result.journal.events, 'preflight').filter((e) => e.data?.gate !== undefined);
    expect(passed.map((e) => [e.message, e.data])).toEqual([
      ['budget: passed (3 of 5 runs left this week)', { gate: 'budget', stage: 'before-targets' }],
      ['schedule: passed', { gate: 'schedule', stage: 'after-targets' }],
    ]);
    expect(result.journal.budget).toEqual(FIGURES);
  });
});

describe("FIS's own injection time", () => {
  /**
   * Runs the held world with FIS still initiating for the first second, then reporting its first action
   * started `offsetMs` after our start.
   */
  async function withActionStart(offsetMs: number) {
    return simulate(held(), {
      deps: (w) => ({
        injector: injectorWith(w, {
          state: async (id) => {
            const s = await w.injector.state(id);
            const start = w.injector.startedAt;
            if (start === undefined) return s;
            if (w.clock.now() < start + 1000) return { status: 'initiating' };
            return { ...s, actionStartedAt: start + offsetMs };
          },
        }),
      }),
    });
  }

  it('moves the injection to the time FIS reports, when it lies between our start and the read', async () => {
    const { result, world } = await withActionStart(700);
    expect(result.journal.timings.injectedAt).toBe(world.injector.startedAt! + 700);
    expect(result.journal.timings.experimentStartedAt).toBe(world.injector.startedAt);
  });

  it('never before our StartExperiment was sent', async () => {
    const { result, world } = await withActionStart(-5000);
    expect(result.journal.timings.injectedAt).toBe(world.injector.startedAt);
  });

  it('never after the read that reported it', async () => {
    const { result, world } = await withActionStart(60_000);
    const firstInjected = result.journal.events.find(
      (e) => e.type === 'experiment-state' && e.data?.injected === true,
    );
    expect(firstInjected?.at).toBe(world.injector.startedAt! + 1000);
    expect(result.journal.timings.injectedAt).toBe(firstInjected?.at);
    expect(firstInjected?.data?.injectedAt).toBe(firstInjected?.at);
  });
});

describe('a failed experiment', () => {
  it('says when FIS gave no error code', async () => {
    const { result } = await simulate('failed-fis', {
      deps: (w) => ({
        injector: injectorWith(w, {
          state: async (id) => {
            const { errorCode: _dropped, ...s } = await w.injector.state(id);
            return s;
          },
        }),
      }),
    });
    expect(result.verdict).toBe('failed');
    expect(result.reason).toMatch(/^FIS experiment failed: no error code — /);
  });
});

describe('cancellation', () => {
  /** The held world with its own cancel signal, aborted `atMs` after the run started with `reason`. */
  const cancelledAt = (atMs: number, reason: unknown) =>
    simulate(held(), {
      deps: (w) => {
        const ctl = new AbortController();
        void w.clock.sleep(atMs).then(() => ctl.abort(reason));
        return { signal: ctl.signal };
      },
    });

  it('names an Error reason by its message, a string as it is, and anything else "cancellation"', async () => {
    const byError = await cancelledAt(2500, new Error('the job was cancelled'));
    expect(byError.result.verdict).toBe('not-run');
    expect(byError.result.reason).toBe(
      'cancelled by the job was cancelled during the steady state, before injection',
    );
    const byString = await cancelledAt(2500, 'SIGTERM');
    expect(byString.result.reason).toBe('cancelled by SIGTERM during the steady state, before injection');
    const byOther = await cancelledAt(2500, 42);
    expect(byOther.result.reason).toBe('cancelled by cancellation during the steady state, before injection');
  });

  it('during recovery: journals the signal, aborts, and measures no further', async () => {
    let recoveryTicks = 0;
    const ctl = new AbortController();
    const { result } = await simulate(held(), {
      deps: (w) => ({
        signal: ctl.signal,
        // p95 stays over its steady bound (0.11) after the fault, so recovery needs more than one tick.
        sources: {
          ...w.sources,
          prometheus: scriptedSource(w, 'prometheus', { p95_latency_s: (s) => (s >= 15 ? 0.15 : undefined) }),
        },
        onTick: (m) => {
          if (m.phase !== 'recovery') return;
          recoveryTicks++;
          ctl.abort('SIGINT');
        },
      }),
    });
    expect(recoveryTicks).toBe(1);
    expect(result.verdict).toBe('aborted');
    expect(result.reason).toMatch(/^cancelled by SIGINT during recovery \(\+\d+\.\d s\)$/);
    expect(events(result.journal.events, 'signal').map((e) => e.data)).toEqual([{ signal: 'SIGINT' }]);
    expect(events(result.journal.events, 'abort').map((e) => e.data)).toEqual([
      { cause: 'cancelled', verdict: 'aborted' },
    ]);
  });
});

describe('blastRadius.maxRunDuration', () => {
  it('aborts the fault once the run, counted from its start, reaches it', async () => {
    const plan = planWith((p) => void ((p.blastRadius as { maxRunDuration: string }).maxRunDuration = '12s'));
    const { result, world } = await simulate(held(), { plan });
    expect(result.verdict).toBe('aborted');
    expect(result.reason).toMatch(/^the run reached blastRadius\.maxRunDuration 12\.0 s \(\+\d+\.\d s\)$/);
    const abort = events(result.journal.events, 'abort')[0];
    expect(abort?.data).toEqual({ cause: 'max-run-duration', verdict: 'aborted' });
    expect(abort!.at - result.journal.timings.startedAt!).toBeGreaterThanOrEqual(12_000);
    expect(abort!.at - result.journal.timings.startedAt!).toBeLessThan(13_000);
    expect(world.injector.stopCount).toBeGreaterThanOrEqual(1);
  });
});

describe('the readiness check during the steady state', () => {
  it('measures on while the answer is unreadable, saying so once, and starts when it is ready', async () => {
    let asked = 0;
    const { result } = await simulate(held(), {
      deps: (w) => ({
        injector: {
          ...injectorWith(w, {}),
          readiness: async () => {
            asked++;
            if (asked <= 7) throw new Error('Throttling: rate exceeded');
            return null;
          },
        },
      }),
    });
    expect(result.verdict).toBe('held');
    const waiting = events(result.journal.events, 'preflight').filter((e) => e.data?.waiting !== undefined);
    expect(waiting.map((e) => e.message)).toEqual([
      'steady state measured on while waiting for a readable answer (Throttling: rate exceeded)',
    ]);
  });

  it('refuses, without starting and without asking again, when the readiness check refuses', async () => {
    let asked = 0;
    const { result, world } = await simulate(held(), {
      deps: (w) => ({
        injector: {
          ...injectorWith(w, {}),
          readiness: () => {
            asked++;
            return Promise.reject(new InjectorRefusal('the kill switch is engaged', 'fis.stopConditions'));
          },
        },
      }),
    });
    expect(asked).toBe(1);
    expect(result.verdict).toBe('refused');
    expect(result.reason).toBe('the kill switch is engaged');
    expect(world.injector.calls.some((c) => c.method === 'start')).toBe(false);
  });
});
