import { readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { describe, expect, it } from 'vitest';
import { EXIT_CODES } from '../../src/journal/types.js';
import { loadScenario } from '../../src/sim/scenario.js';
import { simulate } from '../sim/helpers.js';

const fixtures = readdirSync('fixtures/scenarios')
  .filter((f) => f.endsWith('.yaml'))
  .map((f) => f.replace(/\.yaml$/, ''));

describe('every scenario fixture reaches its verdict', () => {
  it('covers all seven verdicts except refused (which needs a gate, tested in gates.test.ts)', () => {
    const verdicts = new Set(
      fixtures.map((f) => loadScenario(`fixtures/scenarios/${f}.yaml`).outcome?.verdict),
    );
    expect([...verdicts].sort()).toEqual([
      'aborted',
      'deviated',
      'failed',
      'held',
      'inconclusive',
      'not-run',
    ]);
  });

  it.each(fixtures)('%s', async (name) => {
    const scenario = loadScenario(`fixtures/scenarios/${name}.yaml`);
    const abortFile = join(tmpdir(), `chaos-gate-test-abort-${process.pid}-${name}`);
    rmSync(abortFile, { force: true });
    try {
      const { result, world } = await simulate(scenario, { abortFile });
      expect(result.verdict).toBe(scenario.outcome?.verdict);
      expect(result.exitCode).toBe(EXIT_CODES[result.verdict]);
      expect(result.journal.complete).toBe(true);
      if (world.injector.startedAt !== undefined) {
        // Fail closed: every path that injected either saw FIS end the experiment by itself (and sent no
        // stop: there was nothing to stop) or asked FIS to stop it.
        const endedByFis = result.journal.events.some(
          (e) => e.type === 'fault-ended' && !result.journal.events.some((x) => x.type === 'stop-requested'),
        );
        if (endedByFis) expect(world.injector.stopCount).toBe(0);
        else {
          expect(world.injector.stopCount).toBeGreaterThanOrEqual(1);
          expect(result.journal.events.some((e) => e.type === 'stop-requested')).toBe(true);
        }
        expect(result.journal.events.some((e) => e.type === 'fault-ended' || e.type === 'stop-failed')).toBe(
          true,
        );
      } else {
        expect(world.injector.stopCount).toBe(0);
      }
    } finally {
      rmSync(abortFile, { force: true });
    }
  });
});
