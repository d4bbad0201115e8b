/**
 * What the run's state machine (src/engine/run.ts) hands its gates and writes in its journal, on the
 * simulated world's virtual clock, where a mutation run showed no test looking: a refusal once the
 * experiment has started is an error, not a refusal; gates get the run's cancellation signal and, after
 * the dry run only, its targets; a refusing gate's field; FIS's reason and error code on a state event,
 * and the wording of a state that is not `failed`; one `fault-ended`, at the first terminal read; and a
 * run with no cancellation signal at all.
 */
import { describe, expect, it } from 'vitest';
import type { Gate, GateContext } from '../../src/engine/gates.js';
import { InjectorRefusal } from '../../src/injector/injector.js';
import type { JournalEvent } from '../../src/journal/types.js';
import { judge, judgeInputOf } from '../../src/journal/judgement.js';
import { loadScenario, type Scenario } from '../../src/sim/scenario.js';
import { injectorWith, simulate } from '../sim/helpers.js';

const held = (): Scenario => loadScenario('fixtures/scenarios/held.yaml');
const events = (es: readonly JournalEvent[], type: string) => es.filter((e) => e.type === type);

describe('a refusal after the experiment started', () => {
  it('is a fatal error and the run fails: the fault ran, so "refused, nothing touched" would be false', async () => {
    const { result, world } = await simulate(held(), {
      deps: () => ({
        onExperimentId: () =>
          Promise.reject(new InjectorRefusal('the kill switch was engaged', 'killSwitch')),
      }),
    });
    expect(result.experimentId).toBeDefined();
    expect(result.verdict).toBe('failed');
    expect(events(result.journal.events, 'refused')).toEqual([]);
    expect(events(result.journal.events, 'error').map((e) => [e.message, e.data])).toEqual([
      ['the kill switch was engaged (+0.0 s)', { fatal: true }],
    ]);
    expect(world.injector.stopCount).toBe(1);
  });
});

describe('what a gate is given', () => {
  it("the run's cancellation signal at every stage, and the resolved targets only after the dry run", async () => {
    const seen: { stage: Gate['stage']; signal: AbortSignal | undefined; targets: unknown }[] = [];
    const gate = (stage: Gate['stage']): Gate => ({
      name: `look-${stage}`,
      stage,
      check: async (ctx: GateContext) => {
        seen.push({ stage, signal: ctx.signal, targets: 'targets' in ctx ? ctx.targets : 'absent' });
        return { pass: true };
      },
    });
    const { result, world } = await simulate(held(), {
      deps: () => ({ gates: [gate('static'), gate('before-targets'), gate('after-targets')] }),
    });
    expect(result.verdict).toBe('held');
    expect(seen.map((s) => s.stage)).toEqual(['static', 'before-targets', 'after-targets']);
    for (const s of seen) expect(s.signal, s.stage).toBe(world.signal);
    expect(seen[0]?.targets).toBe('absent');
    expect(seen[1]?.targets).toBe('absent');
    expect(seen[2]?.targets).toEqual(result.journal.resolvedTargets);
    expect((seen[2]?.targets as unknown[]).length).toBeGreaterThan(0);
  });

  it('a refusing gate that names a field has it journaled with the refusal; one that names none has no field', async () => {
    const refusing = (field?: string): Gate => ({
      name: 'policy',
      stage: 'static',
      check: async () => ({
        pass: false,
        verdict: 'refused',
        reason: 'the plan targets production',
        ...(field === undefined ? {} : { field }),
      }),
    });
    const named = await simulate(held(), { deps: () => ({ gates: [refusing('fis.targets.subnet')] }) });
    expect(named.result.verdict).toBe('refused');
    expect(events(named.result.journal.events, 'refused').map((e) => e.data)).toEqual([
      { gate: 'policy', stage: 'static', field: 'fis.targets.subnet' },
    ]);
    const unnamed = await simulate(held(), { deps: () => ({ gates: [refusing()] }) });
    expect(events(unnamed.result.journal.events, 'refused').map((e) => e.data)).toEqual([
      { gate: 'policy', stage: 'static' },
    ]);
  });
});

describe('experiment-state events', () => {
  it("carry FIS's reason and error code when it gives them, and say the state, not a failure, when it is not failed", async () => {
    const { result, world } = await simulate(held(), {
      deps: (w) => ({
        injector: injectorWith(w, {
          state: async (id) => {
            const { reason: _r, errorCode: _e, ...s } = await w.injector.state(id);
            return s.status === 'running' ? { ...s, reason: 'Experiment is running.', errorCode: 'none' } : s;
          },
        }),
      }),
    });
    const running = events(result.journal.events, 'experiment-state').find(
      (e) => e.data?.status === 'running',
    );
    expect(running?.message).toBe(
      `experiment ${result.experimentId} running: Experiment is running. (+0.0 s)`,
    );
    expect(running?.data).toMatchObject({ reason: 'Experiment is running.', errorCode: 'none' });
    const completed = events(result.journal.events, 'experiment-state').find(
      (e) => e.data?.status === 'completed',
    );
    expect(completed?.message).toMatch(new RegExp(`^experiment ${result.experimentId} completed`));
    expect(completed?.data).not.toHaveProperty('reason');
    expect(completed?.data).not.toHaveProperty('errorCode');
    // FIS completed it by itself: nothing to stop.
    expect(world.injector.stopCount).toBe(0);
  });
});

describe('the end of the fault', () => {
  it('is journaled once, at the first read that saw it, though the stop verification reads it again', async () => {
    const { result, world } = await simulate(held());
    const ended = events(result.journal.events, 'fault-ended');
    expect(ended).toHaveLength(1);
    expect(ended[0]?.message).toMatch(/^fault ended: experiment completed/);
    expect(result.journal.timings.stoppedAt).toBe(ended[0]?.at);
    const stateReads = world.injector.calls.filter((c) => c.method === 'state').length;
    expect(stateReads).toBeGreaterThan(1);
  });
});

describe('a run without a cancellation signal', () => {
  it('runs to its verdict (a caller such as `simulate` may pass none)', async () => {
    const { result } = await simulate(held(), { deps: () => ({ signal: undefined }) });
    expect(result.verdict).toBe('held');
    expect(events(result.journal.events, 'signal')).toEqual([]);
  });
});

describe('the judgement the engine writes', () => {
  it('is in the final journal, and the same as judging that journal again', async () => {
    const { result } = await simulate(held());
    const journal = result.journal;
    expect(journal.judgement).toBeDefined();
    expect(journal.judgement?.verdict).toBe(result.verdict);
    expect(journal.judgement?.reason).toBe(result.reason);
    expect(journal.judgement).toEqual(judge(judgeInputOf(journal)));
    expect(journal.judgement?.slis.some((s) => (s.fault?.measured ?? 0) > 0)).toBe(true);
  });
});
