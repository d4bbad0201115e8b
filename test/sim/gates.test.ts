/**
 * `simulate` passes the gates `run` passes, against the simulated world, and never says `held` for a
 * plan `run` would not start: a deny window (at the scenario's start, or now), an open incident, the
 * kill switch, an exhausted or unreadable budget, a blast radius wider than the plan allows. The one gate
 * it does not run (concurrency) is named in every result.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { afterAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import type { CliIo } from '../../src/cli/command.js';

const dir = mkdtempSync(join(tmpdir(), 'chaos-gate-sim-gates-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const PLAN = readFileSync('fixtures/sim-plans/checkout.yaml', 'utf8');
const HELD = readFileSync('fixtures/scenarios/held.yaml', 'utf8');

interface SimJson {
  verdict: string;
  reason: string;
  exitCode: number;
  skippedGates: { gate: string; why: string }[];
}

let seq = 0;
/** `chaos-gate simulate` of the checkout plan (edited by `plan`) against the held world plus `scenario`. */
async function simulate(
  plan: (text: string) => string,
  scenario = '',
  series = '',
): Promise<{ code: number; json: SimJson }> {
  const planFile = join(dir, `plan-${++seq}.yaml`);
  const scenarioFile = join(dir, `scenario-${seq}.yaml`);
  writeFileSync(planFile, plan(PLAN));
  // A scenario section given here replaces held's own (the injector), so no key is written twice.
  const ours = /^injector:/m.test(scenario) ? HELD.replace(/^injector:.*$/m, '') : HELD;
  const world = ours.replace(/^outcome:.*$/m, '').replace(/^metrics:\n/m, `metrics:\n${series}`);
  writeFileSync(scenarioFile, `${world}\n${scenario}`);
  const out: string[] = [];
  const io: CliIo = {
    out: (t) => void out.push(t),
    err: () => undefined,
    tty: false,
    env: {},
    cwd: process.cwd(),
  };
  const code = await main(['simulate', planFile, '--scenario', scenarioFile, '--json'], io);
  return { code, json: JSON.parse(out.join('\n')) as SimJson };
}

/** Inserts a top-level section before `fis:`. */
const before = (section: string) => (text: string) => text.replace(/^fis:$/m, `${section}fis:`);

describe('simulate runs the gates run runs', () => {
  it('the unchanged plan holds, and the result names the gate it did not run', async () => {
    const { code, json } = await simulate((t) => t);
    expect(json.verdict).toBe('held');
    expect(code).toBe(0);
    expect(json.skippedGates).toEqual([
      { gate: 'concurrency', why: 'the simulated world holds no other experiment' },
    ]);
  });

  it('a plan inside a deny window now is not-run, not held', async () => {
    const { code, json } = await simulate(
      before(
        'schedule:\n  deny:\n    - { from: "2020-01-01T00:00:00Z", to: "2099-01-01T00:00:00Z", reason: code freeze }\n',
      ),
    );
    expect(json.verdict).toBe('not-run');
    expect(code).toBe(1);
    expect(json.reason).toContain('code freeze');
  });

  it('a plan inside a cron deny window at the scenario start is not-run; outside it, held', async () => {
    const plan = before(
      'schedule:\n  timezone: UTC\n  deny:\n    - { cron: "0 9 * * 1-5", duration: 2h, reason: weekday morning peak }\n',
    );
    const inside = await simulate(plan, 'startAt: "2026-03-02T09:30:00Z"\n'); // a Monday
    expect(inside.json.verdict).toBe('not-run');
    expect(inside.json.reason).toContain('weekday morning peak');
    const outside = await simulate(plan, 'startAt: "2026-03-02T13:00:00Z"\n');
    expect(outside.json.verdict).toBe('held');
  });

  it('an engaged kill switch or an open incident in the scenario stops the plan before the fault', async () => {
    const kill = await simulate((t) => t, 'preflight: { killSwitchEngaged: true }\n');
    expect(kill.json.verdict).toBe('refused');
    expect(kill.json.reason).toContain('the kill switch is engaged');
    const incident = await simulate(
      before('schedule:\n  incidents: { prometheus: "max(ALERTS{severity=\\"page\\"})" }\n'),
      'preflight: { incidentOpen: true }\n',
    );
    expect(incident.json.verdict).toBe('not-run');
    expect(incident.json.reason).toContain('incident');
  });

  const budget =
    'budget:\n  objective: 0.999\n  window: 30d\n  errors: { prometheus: "sum(increase(errors[30d]))" }\n  total: { prometheus: "sum(increase(requests[30d]))" }\n  damage: { sli: success_ratio, kind: success-ratio }\n';

  it('a budget over 30 days, read from the scenario: room is held, exhausted refused, no counts not-run', async () => {
    const series = (errors: number) =>
      `  budget.errors: { baseline: ${errors} }\n  budget.total: { baseline: 10000000 }\n`;
    // Allowed: (1 − 0.999) × 10 000 000 = 10 000 bad events; chaos may spend a tenth of them.
    const room = await simulate(before(budget), '', series(100));
    expect(room.json.verdict).toBe('held');
    const exhausted = await simulate(before(budget), 'preflight: { ledgerSpent: 5000 }\n', series(9_999));
    expect(exhausted.json.verdict).toBe('refused');
    expect(exhausted.code).toBe(2);
    const unread = await simulate(before(budget));
    expect(unread.json.verdict).toBe('not-run');
    expect(unread.json.reason).toContain("the scenario has no series 'budget.errors'");
  });

  it('a dry run resolving more targets than the blast radius allows is refused', async () => {
    const { code, json } = await simulate(
      (t) => t,
      'injector:\n  actionDuration: 20s\n  stopLatency: 1s\n  targets:\n' +
        [1, 2, 3]
          .map(
            (i) =>
              `    - { target: primary, arn: "arn:aws:ec2:eu-west-1:111122223333:subnet/subnet-${i}", tags: { Environment: staging-chaos } }\n`,
          )
          .join(''),
    );
    expect(json.verdict).toBe('refused');
    expect(code).toBe(2);
    expect(json.reason).toMatch(/3/);
  });
});
