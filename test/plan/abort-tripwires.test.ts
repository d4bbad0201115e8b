/**
 * The plan side of `abort.alerts` and `abort.alarms`: what the schema accepts, that either one is a
 * tripwire (a plan needs no abort rule beside them), and the FIS limit of five stop conditions with
 * `abort.alarms.stopConditions: true` — checked offline by `chaos-gate validate`, and what the template
 * gains when it fits.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { CliIo } from '../../src/cli/command.js';
import { main } from '../../src/cli/main.js';
import { templateContent } from '../../src/injector/fis/template.js';
import { staticRefusals } from '../../src/plan/refusals.js';
import type { Plan, PlanInput } from '../../src/plan/schema.js';
import { planWith } from '../sim/helpers.js';

const ROOT = join(import.meta.dirname, '../..');
const LEASE = 'arn:aws:cloudwatch:us-east-1:123456789012:alarm:chaos-gate-lease-abc';
const KILL = 'arn:aws:cloudwatch:us-east-1:123456789012:alarm:chaos-gate-kill-switch';
const stop = (n: number): string => `arn:aws:cloudwatch:us-east-1:123456789012:alarm:team-stop-${n}`;

function alarms(names: string[], stopConditions: boolean, fisStops: number) {
  return (p: PlanInput): void => {
    p.abort = { rules: [], alarms: { names, stopConditions } };
    p.fis.stopConditions = Array.from({ length: fisStops }, (_, i) => stop(i));
  };
}

describe('abort.alerts and abort.alarms in the plan', () => {
  it('either one stands in for abort rules as the tripwire', () => {
    const rules = (p: Plan) => staticRefusals(p).filter((r) => r.rule === 'no-abort-rules');
    expect(rules(planWith((p) => void (p.abort = { rules: [] })))).toHaveLength(1);
    expect(
      rules(planWith((p) => void (p.abort = { rules: [], alerts: { matchers: ['severity="critical"'] } }))),
    ).toEqual([]);
    expect(rules(planWith(alarms(['checkout-5xx'], false, 0)))).toEqual([]);
  });

  it('takes Alertmanager matchers and refuses one that is not name, operator and quoted value', () => {
    const parses = (m: string): boolean => {
      try {
        planWith((p) => void (p.abort = { rules: [], alerts: { matchers: [m] } }));
        return true;
      } catch {
        return false;
      }
    };
    for (const ok of ['severity="critical"', 'service!="batch"', 'env=~"prod|staging"', ' team !~ "a\\"b" '])
      expect(parses(ok), ok).toBe(true);
    for (const bad of ['severity=critical', 'severity', '="x"', 'sev-erity="x"'])
      expect(parses(bad), bad).toBe(false);
  });

  it('attaches the watched alarms as stop conditions when asked, in the lease alarm account', () => {
    const plan = planWith(alarms(['checkout-5xx', stop(9), stop(0)], true, 1));
    expect(staticRefusals(plan).filter((r) => r.rule === 'too-many-stop-conditions')).toEqual([]);
    const values = templateContent(plan, { lease: LEASE, killSwitch: KILL }).stopConditions.map(
      (s) => s.value,
    );
    // stop(0) is already a fis.stopCondition: it is not attached twice.
    expect(values).toEqual([
      stop(0),
      'arn:aws:cloudwatch:us-east-1:123456789012:alarm:checkout-5xx',
      stop(9),
      LEASE,
      KILL,
    ]);
    const watched = planWith(alarms(['checkout-5xx'], false, 1));
    expect(templateContent(watched, { lease: LEASE, killSwitch: KILL }).stopConditions).toHaveLength(3);
  });

  it('refuses one stop condition past FIS’s five (lease and kill switch included), naming both lists', () => {
    const [r] = staticRefusals(planWith(alarms(['a', 'b'], true, 2))).filter(
      (x) => x.rule === 'too-many-stop-conditions',
    );
    expect(r).toMatchObject({ field: 'abort.alarms.stopConditions', value: 4, limit: 3 });
    expect(r?.message).toBe(
      "abort.alarms.stopConditions: fis.stopConditions lists 2 and abort.alarms (stopConditions: true) adds 2: 4 stop conditions plus the gate's lease and kill-switch alarms make 6, over FIS's limit of 5 per template; attach at most 3 in all (set abort.alarms.stopConditions: false to watch the alarms without attaching them)",
    );
  });

  describe('chaos-gate validate', () => {
    const dir = mkdtempSync(join(tmpdir(), 'chaos-gate-tripwires-'));
    afterAll(() => rmSync(dir, { recursive: true, force: true }));

    it('exits 2 with the stop-condition limit at the line of abort.alarms.stopConditions', async () => {
      const text = readFileSync(join(ROOT, 'fixtures/plans/redis-partition.yaml'), 'utf8');
      const plan = join(dir, 'too-many.yaml');
      const abort = /\nabort:\n {2}rules:\n/;
      expect(text).toMatch(abort);
      writeFileSync(
        plan,
        text.replace(
          abort,
          `\nabort:\n  alarms:\n    names: [a, b, c, d]\n    stopConditions: true\n  rules:\n`,
        ),
      );
      const out: string[] = [];
      const io: CliIo = { out: (t) => out.push(t), err: () => undefined, tty: false, env: {}, cwd: dir };
      expect(await main(['validate', plan], io)).toBe(2);
      expect(out[0]).toMatch(
        /too-many\.yaml:\d+:\d+: abort\.alarms\.stopConditions: fis\.stopConditions lists \d and abort\.alarms \(stopConditions: true\) adds 4: .* \[refused: too-many-stop-conditions\]$/,
      );
    });
  });
});
