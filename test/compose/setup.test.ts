/**
 * The set-up check every front door runs before it sends anything (src/compose/setup.ts): a source kind
 * the plan reads with no endpoint is a SettingError (bad input: exit 2, `failed`) naming the first field
 * at its line, the other fields that need it, the action input, the CLI flag and the variable.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { checkSetup, SettingError, sourceUses } from '../../src/compose/setup.js';
import { isBadInput } from '../../src/errors/bad-input.js';
import { loadPlan } from '../../src/plan/load.js';

const dir = mkdtempSync(join(tmpdir(), 'chaos-gate-setup-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const ALL = { prometheus: true, cloudwatch: true, scrape: true };

async function load(name: string, edit: (text: string) => string = (t) => t) {
  const { readFileSync } = await import('node:fs');
  const file = join(dir, name);
  writeFileSync(file, edit(readFileSync('fixtures/sim-plans/checkout.yaml', 'utf8')));
  return loadPlan(file, name);
}

describe('checkSetup', () => {
  it('passes when every source kind the plan reads is configured', async () => {
    const loaded = await load('ok.yaml');
    expect(() => checkSetup(loaded, ALL)).not.toThrow();
  });

  it('names the first Prometheus field at its line, the others, and how to set the URL', async () => {
    const loaded = await load('noprom.yaml');
    let thrown: unknown;
    try {
      checkSetup(loaded, { ...ALL, prometheus: false });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(SettingError);
    expect(isBadInput(thrown)).toBe(true);
    const line = loaded.locate('hypothesis.slis[0]')?.line;
    expect((thrown as Error).message).toBe(
      `noprom.yaml:${line}:7: hypothesis.slis[0] (success_ratio) reads Prometheus (also hypothesis.slis[1], hypothesis.expect[0], hypothesis.requests), but no Prometheus URL is set; expected the action input prometheus-url, the CLI flag --prometheus-url or the environment variable CHAOS_GATE_PROMETHEUS_URL`,
    );
    expect((thrown as SettingError).setting).toBe('prometheus-url');
  });

  it('finds the incident probe and the budget too, and checks only the parts asked for', async () => {
    const loaded = await load('parts.yaml', (t) =>
      t.replace(
        /^fis:$/m,
        'schedule:\n  incidents: { prometheus: "max(ALERTS)" }\nbudget:\n  objective: 0.999\n  errors: { prometheus: "e" }\n  total: { prometheus: "t" }\n  damage: { sli: success_ratio, kind: success-ratio }\nfis:',
      ),
    );
    expect(sourceUses(loaded.plan, ['incidents', 'budget']).map((u) => u.field)).toEqual([
      'schedule.incidents.prometheus',
      'budget.errors',
      'budget.total',
    ]);
    expect(() => checkSetup(loaded, { ...ALL, prometheus: false }, ['budget'])).toThrow(
      /budget\.errors reads Prometheus \(also budget\.total\)/,
    );
  });
});
