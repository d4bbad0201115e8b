/**
 * `chaos-gate init`: for every FIS action chaos-gate knows, the plan it writes validates as written
 * (`chaos-gate validate`, the same checks a run makes before touching anything), names the action's
 * target and its required parameters, and carries a latency and an error SLI, abort rules and a budget.
 * Bad input is refused with exit 2, naming the flag and the value, and no file is written.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import type { CliIo } from '../../src/cli/command.js';
import { main } from '../../src/cli/main.js';
import { FIS_ACTION_LIMITS } from '../../src/plan/fis-actions.js';
import { initPlanId } from '../../src/plan/init.js';

const dir = mkdtempSync(join(tmpdir(), 'chaos-gate-init-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function cli(args: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const io: CliIo = {
    out: (t) => void out.push(t),
    err: (t) => void err.push(t),
    tty: false,
    env: {},
    cwd: dir,
  };
  const code = await main(args, io);
  return { code, out: out.join('\n'), err: err.join('\n') };
}

interface WrittenPlan {
  id: string;
  service: string;
  hypothesis: { slis: { name: string }[] };
  abort: { rules: { sli: string }[] };
  budget: { objective: number };
  fis: {
    targets: Record<string, { resourceType: string }>;
    actions: Record<
      string,
      { actionId: string; parameters?: Record<string, string>; targets?: Record<string, string> }
    >;
  };
}

describe('chaos-gate init', () => {
  it.each(Object.keys(FIS_ACTION_LIMITS))(
    'writes a plan for %s that validates as written',
    async (actionId) => {
      const file = `${actionId.replaceAll(':', '-')}.yaml`;
      const written = await cli(['init', '--action', actionId, '--service', 'orders-api', '--out', file]);
      expect(written).toMatchObject({ code: 0, out: '' });
      const validated = await cli(['validate', file]);
      expect(validated.err).toBe('');
      expect(validated.code).toBe(0);

      const text = readFileSync(join(dir, file), 'utf8');
      const plan = parse(text) as WrittenPlan;
      expect(plan.id).toBe(initPlanId('orders-api', actionId));
      expect(plan.hypothesis.slis.map((s) => s.name)).toEqual(['error_ratio', 'p95_latency_s']);
      expect(plan.abort.rules.map((r) => r.sli)).toEqual(['error_ratio', 'p95_latency_s']);
      expect(plan.budget.objective).toBeGreaterThan(0);
      const [action] = Object.values(plan.fis.actions);
      expect(action?.actionId).toBe(actionId);
      const limits = FIS_ACTION_LIMITS[actionId];
      for (const [name, p] of Object.entries(limits?.parameters ?? {}))
        if (p.required) expect(action?.parameters?.[name], name).toBeTypeOf('string');
      if (limits?.target) {
        const targetName = action?.targets?.[limits.target.key] ?? '';
        expect(plan.fis.targets[targetName]?.resourceType).toBe(limits.target.resourceType);
      } else expect(plan.fis.targets).toEqual({});
      // Commented: the values to replace are marked.
      expect(text).toMatch(/# change: the IAM role/);
    },
  );

  it('prints the plan without --out', async () => {
    const r = await cli(['init', '--action', 'aws:ecs:stop-task', '--service', 'orders-api']);
    expect(r.code).toBe(0);
    expect((parse(r.out) as WrittenPlan).fis.actions.stopTask?.actionId).toBe('aws:ecs:stop-task');
  });

  it.each([
    [
      ['--action', 'aws:ecs:no-such-thing', '--service', 'orders'],
      /--action aws:ecs:no-such-thing: not an FIS action chaos-gate knows; expected one of .*aws:ecs:stop-task/,
    ],
    [['--action', 'aws:ecs:stop-task', '--service', 'Orders API'], /--service Orders API: expected a slug/],
    [['--service', 'orders'], /missing --action/],
    [['--action', 'aws:ecs:stop-task'], /missing --service/],
  ])('refuses %j with exit 2 and writes nothing', async (args, message) => {
    const r = await cli(['init', ...args, '--out', 'refused.yaml']);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(message);
    expect(existsSync(join(dir, 'refused.yaml'))).toBe(false);
  });

  it('keeps a file that exists unless --force', async () => {
    writeFileSync(join(dir, 'mine.yaml'), 'my own plan\n');
    const args = ['init', '--action', 'aws:fis:wait', '--service', 'orders', '--out', 'mine.yaml'];
    const kept = await cli(args);
    expect(kept.code).toBe(2);
    expect(kept.err).toContain('--out mine.yaml exists; pass --force to overwrite it');
    expect(readFileSync(join(dir, 'mine.yaml'), 'utf8')).toBe('my own plan\n');
    expect((await cli([...args, '--force'])).code).toBe(0);
    expect(readFileSync(join(dir, 'mine.yaml'), 'utf8')).toContain('actionId: aws:fis:wait');
  });
});
