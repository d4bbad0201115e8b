/**
 * The kill switch (docs/design/run.md#the-kill-switch) end to end: `chaos-gate kill` during a run stops the experiment (the run
 * ends aborted), every later `run` refuses before touching anything, and `chaos-gate kill --release`
 * lets runs start again.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import path from 'node:path';
import { DescribeAlarmsCommand } from '@aws-sdk/client-cloudwatch';
import {
  canaryFaults,
  readJournal,
  startE2E,
  waitFor,
  type CliResult,
  type E2E,
  type PlanRun,
  type RunJson,
} from './harness.js';
import type { Journal } from '../../src/journal/types.js';

const KILL_ALARM = 'chaos-gate-kill-switch';

interface KillJson {
  stopped: { id: string; plan: string; status: string }[];
  failed: unknown[];
  alarm: string;
  lever: { available: boolean; state?: string };
}

let e2e: E2E;
let experimentId = '';
let kill: CliResult;
let killed: RunJson;
let killedJournal: Journal;
let killedCode: number | null;
let refused: PlanRun;
let markBeforeRefused = 0;
let markAfterRefused = 0;
let release: CliResult;
let afterRelease: PlanRun;
let statusEngaged: CliResult;
let statusReleased: CliResult;

beforeAll(async () => {
  e2e = await startE2E();
  const journalPath = path.join(e2e.dir, 'killed.journal.json');
  const child = e2e.cli(['run', 'fixtures/plans/e2e-kill.yaml', '--journal', journalPath, '--json']);
  [, experimentId = ''] = await child.waitForStderr(/experiment (EXP\w+) started/, 90_000);
  await waitFor(
    'the action to run',
    async () => ((await e2e.actions(experimentId)).some((a) => a.startTime && !a.endTime) ? true : undefined),
    15_000,
  );
  kill = await e2e.cli(['kill', '--reason', 'e2e: pulling the switch', '--json']).done;
  const result = await child.done;
  killedCode = result.code;
  killed = JSON.parse(result.stdout.trim().split('\n').at(-1) ?? '{}') as RunJson;
  killedJournal = readJournal(journalPath);

  statusEngaged = await e2e.cli(['kill', '--status']).done;
  markBeforeRefused = await e2e.mark();
  refused = await e2e.run('e2e-kill.yaml');
  markAfterRefused = await e2e.mark();
  // The sandbox lever takes leverEngagingMs (500 ms) to engage; it cannot be released while engaging.
  release = await e2e.cli(['kill', '--release', '--reason', 'e2e: all clear', '--json']).done;
  statusReleased = await e2e.cli(['kill', '--status']).done;
  afterRelease = await e2e.run('e2e-held.yaml');
}, 200_000);

afterAll(async () => {
  await e2e?.close();
}, 30_000);

describe('chaos-gate kill during a run', () => {
  it('stops the running chaos-gate experiment (verified) and engages the alarm and the safety lever', () => {
    expect(kill.code, kill.stderr).toBe(0);
    const report = JSON.parse(kill.stdout.trim()) as KillJson;
    expect(report.stopped).toEqual([{ id: experimentId, plan: 'e2e-kill', status: 'stopped' }]);
    expect(report.failed).toEqual([]);
    expect(report.alarm).toBe('ALARM');
    expect(report.lever.available).toBe(true);
    expect(['engaging', 'engaged']).toContain(report.lever.state);
  });

  it('ends the run aborted (exit 1) with the stop verified', async () => {
    expect(killed.verdict, JSON.stringify(killed)).toBe('aborted');
    expect(killedCode).toBe(1);
    expect(killedJournal.timings.stoppedAt).toBeGreaterThan(killedJournal.timings.injectedAt ?? Infinity);
    expect(killedJournal.events.find((e) => e.type === 'fault-ended')?.data).toMatchObject({
      status: 'stopped',
    });
    expect((await e2e.experiment(experimentId)).state?.status).toBe('stopped');
    expect((await e2e.actions(experimentId)).map((a) => a.endedAs)).toEqual(['stopped']);
  });

  it('makes a later run refuse with exit 2 before anything starts', async () => {
    expect(refused.json.verdict, refused.stderr).toBe('refused');
    expect(refused.code).toBe(2);
    expect(refused.json.reason).toMatch(/kill switch/i);
    expect(refused.json.experimentId).toBeNull();
    const since = (await e2e.requests({ service: 'fis', since: markBeforeRefused })).filter(
      (r) => r.seq <= markAfterRefused,
    );
    const touched = since.filter((r) =>
      ['StartExperiment', 'CreateExperimentTemplate', 'UpdateExperimentTemplate'].includes(r.operation ?? ''),
    );
    expect(touched).toEqual([]);
  });

  it('kill --release lifts the switch, and the next run starts and holds', async () => {
    expect(release.code, release.stderr).toBe(0);
    const report = JSON.parse(release.stdout.trim()) as { alarm: string; lever: { state?: string } };
    expect(report.alarm).toBe('OK');
    expect(report.lever.state).toBe('disengaged');
    const alarm = await e2e.cloudwatch.send(new DescribeAlarmsCommand({ AlarmNames: [KILL_ALARM] }));
    expect(alarm.MetricAlarms?.[0]?.StateValue).toBe('OK');
    expect(afterRelease.json.verdict, afterRelease.stderr).toBe('held');
    expect(afterRelease.code).toBe(0);
    expect((await e2e.actions(afterRelease.json.experimentId ?? '')).map((a) => a.endedAs)).toEqual([
      'completed',
    ]);
  });

  it('kill --status exits 1 while the switch is engaged and 0 once it is released, saying which', () => {
    expect(statusEngaged.code, statusEngaged.stderr).toBe(1);
    expect(statusEngaged.stdout.trim()).toMatch(
      /^engaged: kill-switch alarm chaos-gate-kill-switch is ALARM/,
    );
    expect(statusReleased.code, statusReleased.stderr).toBe(0);
    expect(statusReleased.stdout.trim()).toBe('released');
  });

  it('leaves the canary without a fault', async () => {
    expect(await canaryFaults(e2e)).toEqual({});
  });

  it('leaves no experiment running in the stand-in', async () => {
    await e2e.sweep();
    expect(await e2e.liveExperiments()).toEqual([]);
  });
});
