/**
 * The start of the experiment (src/engine/run.ts `start`): a start whose answer was lost may still have
 * started the experiment, so it is asked once more with the same idempotency key — once, not more — and
 * a refusal is never asked again.
 */
import { describe, expect, it } from 'vitest';
import { InjectorRefusal } from '../../src/injector/injector.js';
import { loadScenario } from '../../src/sim/scenario.js';
import { injectorWith, simulate } from '../sim/helpers.js';

const held = () => loadScenario('fixtures/scenarios/held.yaml');

/** A held run whose first `failures` starts throw `error` (each later start goes to the world). */
async function withFailingStarts(failures: number, error: () => Error) {
  let starts = 0;
  const run = await simulate(held(), {
    deps: (w) => ({
      injector: injectorWith(w, {
        start: (p, t, c) => {
          starts++;
          return starts <= failures ? Promise.reject(error()) : w.injector.start(p, t, c);
        },
      }),
    }),
  });
  return { ...run, starts };
}

describe('starting the experiment', () => {
  it('asks once more after a start that failed without an answer, and the run goes on to held', async () => {
    const { result, starts } = await withFailingStarts(1, () => new Error('socket hang up'));
    expect(starts).toBe(2);
    expect(result.verdict).toBe('held');
    const asked = result.journal.events.filter((e) => e.type === 'error');
    expect(asked.map((e) => e.message)).toEqual([
      'starting the experiment failed (socket hang up); asking again with the same idempotency key',
    ]);
  });

  it('asks only once more: a second failure ends the run without a third start', async () => {
    const { result, starts } = await withFailingStarts(5, () => new Error('socket hang up'));
    expect(starts).toBe(2);
    expect(result.verdict).toBe('failed');
    expect(result.reason).toContain('socket hang up');
  });

  it('never asks again after a refusal', async () => {
    const { result, starts } = await withFailingStarts(
      5,
      () => new InjectorRefusal('a stop-condition alarm is in ALARM', 'fis.stopConditions'),
    );
    expect(starts).toBe(1);
    expect(result.verdict).toBe('refused');
    expect(result.journal.events.some((e) => e.type === 'error')).toBe(false);
  });
});
