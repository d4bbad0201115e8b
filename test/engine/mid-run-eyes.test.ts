/**
 * Mid-run checks that are the run's eyes (`blind: true`, as abort.alerts and abort.alarms are): when they
 * cannot be read `blindAfter` times in a row the run ends `inconclusive` with the fault stopped, never
 * `held` and not `failed`; and a check's baseline (`arm`) is taken right before the start — one that
 * cannot be taken refuses the start, so nothing is injected.
 */
import { describe, expect, it } from 'vitest';
import { loadScenario, type Scenario } from '../../src/sim/scenario.js';
import type { SimWorld } from '../../src/sim/world.js';
import { simulate } from '../sim/helpers.js';

const held = (): Scenario => loadScenario('fixtures/scenarios/held.yaml');
/** How many StartExperiment calls the simulated injector received. */
const starts = (w: SimWorld): number => w.injector.calls.filter((c) => c.method === 'start').length;

describe('mid-run checks that watch for the run', () => {
  it('a blind check that keeps failing ends the run inconclusive and stops FIS', async () => {
    const { result, world } = await simulate(held(), {
      deps: () => ({
        midRun: [
          { name: 'alerts', blind: true, check: async () => Promise.reject(new Error('Alertmanager down')) },
        ],
      }),
    });
    expect(result.verdict).toBe('inconclusive');
    expect(result.reason).toMatch(/^blind: alerts could not be read 3 times in a row \(Alertmanager down\)/);
    const abort = result.journal.events.find((e) => e.type === 'abort');
    expect(abort?.data).toMatchObject({ cause: 'blind', verdict: 'inconclusive', check: 'alerts', count: 3 });
    expect(world.injector.stopCount).toBe(1);
  });

  it('takes the baseline after the steady state and before the start', async () => {
    const order: string[] = [];
    const { result } = await simulate(held(), {
      deps: (w) => ({
        midRun: [
          {
            name: 'alerts',
            blind: true,
            arm: async () => void order.push(`arm, ${starts(w)} starts`),
            check: async () => null,
          },
        ],
      }),
    });
    expect(result.verdict).toBe('held');
    expect(order).toEqual(['arm, 0 starts']);
  });

  it('refuses the start (not-run) when the baseline cannot be taken', async () => {
    const { result, world } = await simulate(held(), {
      deps: () => ({
        midRun: [
          {
            name: 'alerts',
            blind: true,
            arm: async () => Promise.reject(new Error('Alertmanager answered HTTP 503')),
            check: async () => null,
          },
        ],
      }),
    });
    expect(result.verdict).toBe('not-run');
    expect(result.reason).toBe(
      'alerts: cannot take the baseline at injection (Alertmanager answered HTTP 503); refusing to start blind',
    );
    expect(starts(world)).toBe(0);
  });
});
