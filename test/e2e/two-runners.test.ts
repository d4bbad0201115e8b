/**
 * Two runners of one plan (a matrix job, two pull requests), for real: `chaos-gate run` twice against one
 * sandbox, started in the same tick. The no-overlap rule is a claim taken right before StartExperiment
 * (SSM Parameter Store, one parameter per target), and the lease is each run's own alarm, so:
 *
 * - the two never have a fault on the shared subnet at the same time — asserted from the sandbox's own
 *   record of when each FIS action started and ended;
 * - SIGKILL the runner whose fault is on while the other lives on, beating its own lease: the dead one's
 *   fault is stopped by the dead one's lease alarm, long before the action would end by itself.
 *
 * The seconds from the kill to `stopped` are printed, not asserted (bench/ measures that figure).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import path from 'node:path';
import { DescribeAlarmsCommand } from '@aws-sdk/client-cloudwatch';
import type { Experiment } from '@aws-sdk/client-fis';
import { PLANS, readJournal, startE2E, waitFor, type ActionRun, type CliChild, type E2E } from './harness.js';
import type { Journal } from '../../src/journal/types.js';

const LEASE_PREFIX = 'arn:aws:cloudwatch:us-east-1:123456789012:alarm:chaos-gate-lease-sandbox-lease-';
/** sandbox-lease.yaml's action lasts 120 s in the e2e sandbox; the lease must end it well before. */
const ACTION_MS = 120_000;

let e2e: E2E;
beforeAll(async () => {
  e2e = await startE2E();
}, 60_000);
afterAll(async () => {
  await e2e?.close();
}, 30_000);

/** Whether two action runs that share a target were ever on at the same time. */
function overlapping(runs: ActionRun[]): [ActionRun, ActionRun][] {
  const out: [ActionRun, ActionRun][] = [];
  const span = (a: ActionRun) => [
    Date.parse(a.startTime ?? ''),
    a.endTime ? Date.parse(a.endTime) : Infinity,
  ];
  for (const [i, a] of runs.entries())
    for (const b of runs.slice(i + 1)) {
      if (!a.startTime || !b.startTime || !a.targets.some((t) => b.targets.includes(t))) continue;
      const [s1, e1] = span(a);
      const [s2, e2] = span(b);
      if (s1! < e2! && s2! < e1!) out.push([a, b]);
    }
  return out;
}

/** One runner: its own run id, as two pull requests' workflow runs have. */
function run(plan: string, name: string, extra: string[]): { child: CliChild; journalPath: string } {
  const journalPath = path.join(e2e.dir, `${name}.journal.json`);
  const child = e2e.cli([
    'run',
    path.join(PLANS, plan),
    '--journal',
    journalPath,
    '--json',
    '--run-id',
    `two-runners-${name}`,
    ...extra,
  ]);
  return { child, journalPath };
}

describe('two runners of one plan started in the same tick', () => {
  let journals: Journal[] = [];
  let actions: ActionRun[] = [];

  beforeAll(async () => {
    const both = [
      run('e2e-held.yaml', 'same-tick-a', ['--queue-timeout', '0s']),
      run('e2e-held.yaml', 'same-tick-b', ['--queue-timeout', '0s']),
    ];
    await Promise.all(both.map((r) => r.child.done));
    journals = both.map((r) => readJournal(r.journalPath));
    actions = await e2e.actions();
  }, 150_000);

  it("never had faults on the shared subnet at the same time (the sandbox's own record)", () => {
    expect(actions.length).toBeGreaterThan(0);
    expect(overlapping(actions)).toEqual([]);
  });

  it('injected once; the other run ended not-run naming the run holding the target', () => {
    const verdicts = journals.map((j) => j.verdict).sort();
    expect(verdicts).toContain('not-run');
    const loser = journals.find((j) => j.verdict === 'not-run' && j.experimentId === undefined);
    expect(loser?.reason).toMatch(/claimed by run .* of plan e2e-held/);
    const started = journals.filter((j) => j.experimentId !== undefined);
    expect(started).toHaveLength(1);
    expect(new Set(actions.map((a) => a.experimentId))).toEqual(new Set([started[0]!.experimentId]));
  });

  it("released the winner's claim: its journal says so", () => {
    const winner = journals.find((j) => j.experimentId !== undefined);
    expect(winner?.events.some((e) => /claim: released 1 target claim/.test(e.message))).toBe(true);
  });
});

describe('SIGKILL one of two runners of one plan while its fault is on', () => {
  let experiment: Experiment;
  let killedAt = 0;
  let stoppedAt = 0;
  let survivor: Journal;
  let killedExperiment = '';

  beforeAll(async () => {
    const runners = [
      run('sandbox-lease.yaml', 'kill-a', ['--queue-timeout', '5m']),
      run('sandbox-lease.yaml', 'kill-b', ['--queue-timeout', '5m']),
    ];
    const first = await Promise.race(
      runners.map((r, i) =>
        r.child.waitForStderr(/experiment (EXP\w+) started/, 90_000).then((m) => ({ i, id: m[1] ?? '' })),
      ),
    );
    killedExperiment = first.id;
    const victim = runners[first.i]!;
    const other = runners[1 - first.i]!;
    await waitFor(
      'the partition to be on',
      async () =>
        (await e2e.actions(killedExperiment)).some((a) => a.startTime && !a.endTime) ? true : undefined,
      15_000,
    );
    killedAt = Date.now();
    victim.child.kill('SIGKILL');
    await victim.child.done;
    experiment = await waitFor(
      "FIS to stop the dead runner's experiment",
      async () => {
        const e = await e2e.experiment(killedExperiment);
        return ['stopped', 'completed', 'failed', 'cancelled'].includes(String(e.state?.status))
          ? e
          : undefined;
      },
      ACTION_MS - 10_000,
    );
    stoppedAt = Date.now();
    console.log(
      `two runners: the runner with the fault SIGKILLed → experiment ${killedExperiment} ${experiment.state?.status} after ` +
        `${((stoppedAt - killedAt) / 1000).toFixed(1)} s while the other runner beat its own lease (measured, not asserted)`,
    );
    // The survivor is still queued behind the dead run's claim (it expires by itself); cancel it.
    other.child.kill('SIGTERM');
    await other.child.done;
    survivor = readJournal(other.journalPath);
  }, 240_000);

  it("the dead runner's own lease alarm stopped its experiment", async () => {
    expect(experiment.state?.status).toBe('stopped');
    const leases = (experiment.stopConditions ?? [])
      .map((s) => s.value ?? '')
      .filter((v) => v.startsWith(LEASE_PREFIX));
    expect(leases).toHaveLength(1);
    expect(experiment.state?.reason).toContain(leases[0]);
    const alarm = await e2e.cloudwatch.send(
      new DescribeAlarmsCommand({ AlarmNames: [leases[0]!.replace(/^.*:alarm:/, '')] }),
    );
    expect(alarm.MetricAlarms?.[0]?.StateValue).toBe('ALARM');
    expect((await e2e.actions(killedExperiment)).map((a) => a.endedAs)).toEqual(['stopped']);
  });

  it('stopped it long before the 120 s action would have ended', () => {
    expect(stoppedAt - killedAt).toBeLessThan(ACTION_MS - 10_000);
  });

  it("the surviving runner never injected: it queued behind the dead run's claim", async () => {
    expect(survivor.experimentId).toBeUndefined();
    expect(survivor.verdict).toBe('not-run');
    expect(survivor.reason).toMatch(/claimed by run .* of plan sandbox-lease/);
    expect(
      new Set((await e2e.actions()).filter((a) => a.targets.length).map((a) => a.experimentId)).has(
        killedExperiment,
      ),
    ).toBe(true);
    expect(overlapping(await e2e.actions())).toEqual([]);
  });
});
