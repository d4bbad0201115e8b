/**
 * The plan (src/plan/fis-actions.ts) and the sandbox (src/sandbox/fis/catalog.ts) read one table, the FIS
 * actions reference as data (src/fis-reference/actions.ts), and each checks values with its own code:
 * the two must know the same actions, target keys, parameters and required flags, and accept and refuse
 * the same values, or a plan the gate accepts would be a template the stand-in refuses (or the other way
 * round).
 */
import { describe, expect, it } from 'vitest';
import { parseIsoDuration } from '../../src/plan/duration.js';
import { actionLimitProblems, FIS_ACTION_LIMITS, type ParameterRule } from '../../src/plan/fis-actions.js';
import { ACTION_CATALOG, parameterProblem } from '../../src/sandbox/fis/catalog.js';

describe('the plan and the sandbox know the same FIS action limits', () => {
  it('lists the same actions with the same target key and resource type', () => {
    expect(Object.keys(FIS_ACTION_LIMITS).sort()).toEqual([...ACTION_CATALOG.keys()].sort());
    for (const [id, limits] of Object.entries(FIS_ACTION_LIMITS))
      expect(limits.target, id).toEqual(ACTION_CATALOG.get(id)?.target);
  });

  it.each(Object.keys(FIS_ACTION_LIMITS))('%s: the same parameters, required flags and rules', (id) => {
    const plan = FIS_ACTION_LIMITS[id]!.parameters;
    const sandbox = ACTION_CATALOG.get(id)!.parameters;
    expect(Object.keys(plan).sort()).toEqual(Object.keys(sandbox).sort());
    for (const [name, p] of Object.entries(plan)) {
      expect(p.required, `${id} ${name} required`).toBe(sandbox[name]!.required);
      // Both sides accept and refuse the same probe values.
      for (const probe of [
        'PT0.5S',
        'PT1S',
        'PT59S',
        'PT1M',
        'PT2M',
        'PT9M',
        'PT10M',
        'PT15M',
        'PT16M',
        'PT12H',
        'PT12H1S',
        '0',
        '100',
        '101',
        '-1',
        '0.1',
        '0.05',
        '999',
        '1000',
        '65535',
        '900000',
        '900001',
        'True',
        'true',
        'yes',
        '{}',
        '{',
        'all',
        'OK,ALARM',
        'x',
      ]) {
        // A duration that is not ISO-8601 at all is the static refusal action-duration-format's (it says how to write one).
        if (p.rule.kind === 'duration' && parseIsoDuration(probe) === undefined) continue;
        expect(
          actionLimitProblems({
            actionId: id,
            parameters: { ...requiredOf(id), [name]: probe },
            targets: targetsOf(id),
          }).length === 0,
          `${id} ${name}=${probe}`,
        ).toBe(parameterProblem(sandbox[name]!.rule, probe) === undefined);
      }
    }
  });
});

function requiredOf(id: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, p] of Object.entries(FIS_ACTION_LIMITS[id]!.parameters))
    if (p.required) out[name] = validValue(p.rule);
  return out;
}

/** A value the rule accepts. */
function validValue(rule: ParameterRule): string {
  switch (rule.kind) {
    case 'duration':
      return `PT${rule.maxMs / 1000}S`;
    case 'integer':
    case 'number':
      return String(rule.min);
    case 'enum':
      return rule.values[0]!;
    case 'boolean':
      return 'true';
    case 'json':
      return '{}';
    case 'text':
      return 'x';
  }
}

function targetsOf(id: string): Record<string, string> | undefined {
  const t = FIS_ACTION_LIMITS[id]!.target;
  return t ? { [t.key]: 'target' } : undefined;
}

describe('parseIsoDuration', () => {
  it('reads the ISO-8601 durations FIS takes', () => {
    expect(parseIsoDuration('PT1M')).toBe(60_000);
    expect(parseIsoDuration('PT1M20S')).toBe(80_000);
    expect(parseIsoDuration('PT12H')).toBe(43_200_000);
    expect(parseIsoDuration('P1D')).toBe(86_400_000);
    for (const bad of ['60s', 'PT', 'P', 'PT1X']) expect(parseIsoDuration(bad)).toBeUndefined();
  });
});
