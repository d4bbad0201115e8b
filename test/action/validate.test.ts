/**
 * The action's `command: validate` runs the same checks as `chaos-gate validate` (src/compose/validate.ts)
 * and exits as it does: 0 valid, 2 refused or invalid.
 */
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parseInputs } from '../../src/action/inputs.js';
import { defaultDeps } from '../../src/action/wiring.js';

const ROOT = join(import.meta.dirname, '../..');
const saved = process.env.GITHUB_WORKSPACE;
afterEach(() => {
  if (saved === undefined) delete process.env.GITHUB_WORKSPACE;
  else process.env.GITHUB_WORKSPACE = saved;
});

async function validate(plan: string, policy = '') {
  process.env.GITHUB_WORKSPACE = ROOT;
  const inputs = parseInputs((name) => ({ plan, command: 'validate', policy })[name] ?? '');
  return defaultDeps(new AbortController().signal).validatePlan(inputs, join(ROOT, plan));
}

describe('the action with command: validate', () => {
  it('refuses what a run refuses before touching anything, naming file:line:col, with exit 2', async () => {
    const r = await validate('fixtures/plans/refused/unknown-time-zone.yaml');
    expect(r.exitCode).toBe(2);
    expect(r.text.split('\n')).toEqual([
      'fixtures/plans/refused/unknown-time-zone.yaml:27:13: schedule.timezone: "Mars/Olympus_Mons" is not an IANA time zone; expected a name such as Europe/Berlin or UTC [refused: schedule-invalid]',
      'fixtures/plans/refused/unknown-time-zone.yaml: refused (1 problem)',
    ]);
  });

  it('applies the policy input, and passes a valid plan with exit 0', async () => {
    expect((await validate('fixtures/plans/redis-partition.yaml')).exitCode).toBe(0);
    const withPolicy = await validate(
      'fixtures/plans/redis-partition.yaml',
      'fixtures/policy/org-policy.yaml',
    );
    expect(withPolicy.exitCode).toBe(2);
    expect(withPolicy.text).toContain('[refused: ceiling-widened]');
  });
});
