/**
 * What the fault loop (src/engine/observe.ts) and the run around it (src/engine/run.ts) leave behind for
 * the readers of a journal — the action's `abort-latency-ms` output and the check run's annotations read
 * an abort's `cause`, reports read the journal's header — and what they must not leave behind: listeners
 * on the run's cancellation signal, and errors for a state read the loop itself cancelled. On the
 * simulated world's virtual clock; each of these was unpinned in a mutation run.
 */
import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import type { JournalEvent } from '../../src/journal/types.js';
import { loadScenario, type Scenario } from '../../src/sim/scenario.js';
import { injectorWith, simulate } from '../sim/helpers.js';

const held = (): Scenario => loadScenario('fixtures/scenarios/held.yaml');
const events = (es: readonly JournalEvent[], type: string) => es.filter((e) => e.type === type);

describe('the abort event says why', () => {
  it('a rule: cause rule, with the SLI, its value, and how many measurements over how long', async () => {
    const { result } = await simulate('aborted-rule');
    const [abort] = events(result.journal.events, 'abort');
    expect(abort?.data).toEqual({
      cause: 'rule',
      verdict: 'aborted',
      sli: expect.any(String),
      value: expect.any(Number),
      count: expect.any(Number),
      breachMs: expect.any(Number),
    });
    expect(abort?.message).toContain(`${abort?.data?.count} measurement`);
  });

  it('blindness: cause blind and verdict inconclusive, with the count', async () => {
    const { result } = await simulate('inconclusive-blind');
    const [abort] = events(result.journal.events, 'abort');
    expect(abort?.data).toEqual({ cause: 'blind', verdict: 'inconclusive', count: expect.any(Number) });
    expect(result.verdict).toBe('inconclusive');
  });

  it('a mid-run check: cause mid-run, naming the check', async () => {
    const { result } = await simulate(held(), {
      deps: (w) => ({
        midRun: [
          {
            name: 'incidents',
            check: async (at) =>
              w.injector.startedAt !== undefined && at >= w.injector.startedAt + 3000
                ? 'INC-42 opened'
                : null,
          },
        ],
      }),
    });
    const [abort] = events(result.journal.events, 'abort');
    expect(abort?.data).toEqual({ cause: 'mid-run', check: 'incidents', verdict: 'aborted' });
    expect(abort?.message).toMatch(/^incidents: INC-42 opened/);
    expect(result.verdict).toBe('aborted');
  });
});

describe('what the loop leaves behind', () => {
  it('no listener on the run’s cancellation signal, after a run of many ticks', async () => {
    const { result, world } = await simulate(held());
    expect(result.journal.measurements.filter((m) => m.phase === 'fault').length).toBeGreaterThan(10);
    expect(getEventListeners(world.signal, 'abort')).toHaveLength(0);
  });

  it('no error for a state read still in flight when the loop ends: the loop cancelled it', async () => {
    // Every GetExperiment answers after 1.5 s (virtual): reads are asked at +0, +1.5, +3.0 and +4.5 s, so
    // when the abort rule ends the loop at +5 s one is pending; the loop's own cancellation of it is not
    // a failed read.
    const { result } = await simulate('aborted-rule', {
      deps: (w) => ({
        injector: injectorWith(w, {
          state: async (id, signal) => {
            await w.clock.sleep(1500, signal);
            // As the SDK does: a request whose signal aborted rejects.
            if (signal?.aborted) throw new Error('Request aborted');
            return w.injector.state(id);
          },
        }),
      }),
    });
    expect(result.verdict).toBe('aborted');
    expect(events(result.journal.events, 'error')).toEqual([]);
  });
});

describe('the journal a run finishes', () => {
  it('holds the template, the experiment, the verdict with its reason and exit code, and when it finished', async () => {
    const { result } = await simulate(held());
    const j = result.journal;
    const provision = events(j.events, 'provision')[0];
    expect(j.templateId).toMatch(/\S/);
    expect(provision?.data).toMatchObject({ templateId: j.templateId });
    expect(j.experimentId).toBe(result.experimentId);
    expect(j).toMatchObject({ verdict: 'held', reason: result.reason, exitCode: 0 });
    expect(j.timings.finishedAt).toBe(events(j.events, 'verdict')[0]?.at);
    expect(events(j.events, 'verdict').map((e) => e.data)).toEqual([{ verdict: 'held', exitCode: 0 }]);
    expect(events(j.events, 'targets-resolved').map((e) => e.data)).toEqual([
      { count: j.resolvedTargets?.length, complete: true },
    ]);
  });

  it('says how long after the last steady-state measurement the start was sent', async () => {
    // On the virtual clock nothing passes between the two: the message says so.
    const { result } = await simulate(held());
    const [inject] = events(result.journal.events, 'inject');
    const { sentAt, lastSteadyAt } = inject?.data as { sentAt: number; lastSteadyAt: number };
    expect(sentAt).toBe(lastSteadyAt);
    expect(inject?.message).toBe(
      `experiment ${result.experimentId} started 0.0 s after the last steady-state measurement`,
    );
  });
});
