/**
 * A run stopped by one of the plan's own stop-condition alarms: the test creates the alarm (OK), the
 * run starts, the test forces the alarm to ALARM with SetAlarmState, and FIS stops the experiment by
 * itself — chaos-gate sends no StopExperiment and reports `aborted` with the stop condition as the reason.
 * This plan measures through CloudWatch (the canary's `Sandbox/Canary` metrics), one GetMetricData per tick.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PutMetricAlarmCommand, SetAlarmStateCommand } from '@aws-sdk/client-cloudwatch';
import {
  canaryFaults,
  eventOf,
  readJournal,
  ROOT,
  startE2E,
  waitFor,
  type E2E,
  type RunJson,
} from './harness.js';
import type { Journal } from '../../src/journal/types.js';
import { CloudWatchSourceImpl } from '../../src/metrics/cloudwatch/index.js';
import { loadPlan } from '../../src/plan/load.js';
import path from 'node:path';

const ALARM = 'e2e-plan-stop';
const ALARM_ARN = `arn:aws:cloudwatch:us-east-1:123456789012:alarm:${ALARM}`;

let e2e: E2E;
let json: RunJson;
let journal: Journal;
let code: number | null;
let alarmAt = 0;
/** The sandbox's request log position when the run started (the test's own reads come before it). */
let runMark = 0;

beforeAll(async () => {
  e2e = await startE2E();
  // A plan alarm on a metric nobody publishes: missing data keeps it OK until the test forces it.
  await e2e.cloudwatch.send(
    new PutMetricAlarmCommand({
      AlarmName: ALARM,
      Namespace: 'E2E/PlanStop',
      MetricName: 'Tripped',
      Statistic: 'Maximum',
      Period: 10,
      EvaluationPeriods: 1,
      Threshold: 1,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      TreatMissingData: 'notBreaching',
    }),
  );
  await e2e.cloudwatch.send(
    new SetAlarmStateCommand({ AlarmName: ALARM, StateValue: 'OK', StateReason: 'e2e: armed' }),
  );
  // CloudWatch SLIs read complete periods only (5 s period + 5 s ingestion allowance): a sandbox that
  // has just started has none yet, and the steady state would read no-data. Wait until the gate's own
  // source sees a complete period holding the plan's minRequests.
  const { plan } = await loadPlan(path.join(ROOT, 'fixtures/plans/e2e-alarm.yaml'));
  const requests = plan.hypothesis.requests?.cloudwatch;
  const source = new CloudWatchSourceImpl(e2e.cloudwatch);
  await waitFor(
    'a complete CloudWatch period of canary traffic',
    async () => {
      const [r] = await source.read(
        [{ name: '__requests', spec: { cloudwatch: requests } }],
        Date.now(),
        1000,
      );
      return (r?.value ?? 0) >= plan.hypothesis.minRequests ? true : undefined;
    },
    30_000,
  );
  runMark = await e2e.mark();
  const journalPath = path.join(e2e.dir, 'alarm.journal.json');
  const child = e2e.cli(['run', 'fixtures/plans/e2e-alarm.yaml', '--journal', journalPath, '--json']);
  const [, id] = await child.waitForStderr(/experiment (EXP\w+) started/, 90_000);
  // Wait until the fault is really on, then pull the plan's alarm.
  await waitFor(
    'the action to run',
    async () => ((await e2e.actions(id)).some((a) => a.startTime && !a.endTime) ? true : undefined),
    15_000,
  );
  alarmAt = Date.now();
  await e2e.cloudwatch.send(
    new SetAlarmStateCommand({ AlarmName: ALARM, StateValue: 'ALARM', StateReason: 'e2e: forced mid-run' }),
  );
  const result = await child.done;
  code = result.code;
  json = JSON.parse(result.stdout.trim().split('\n').at(-1) ?? '{}') as RunJson;
  journal = readJournal(journalPath);
}, 120_000);

afterAll(async () => {
  await e2e?.close();
}, 30_000);

describe('a plan stop-condition alarm forced to ALARM mid-run', () => {
  it('ends aborted with exit code 1, with the stop condition as the reason', () => {
    expect(json.verdict, JSON.stringify(json)).toBe('aborted');
    expect(code).toBe(1);
    expect(json.reason).toMatch(/stop condition/i);
    expect(json.reason).toContain(ALARM_ARN);
  });

  it('was stopped by FIS itself: no StopExperiment reached the stand-in before the stop', async () => {
    const id = json.experimentId ?? '';
    const experiment = await e2e.experiment(id);
    expect(experiment.state?.status).toBe('stopped');
    expect(experiment.state?.reason).toContain(ALARM_ARN);
    const stopped = experiment.endTime?.getTime() ?? Infinity;
    const stops = await e2e.requests({ service: 'fis', operation: 'StopExperiment' });
    // chaos-gate may confirm the stop afterwards, but nothing it sent caused it.
    expect(stops.filter((r) => r.path === `/experiments/${id}` && r.time < stopped - 1)).toEqual([]);
    expect(stopped).toBeGreaterThanOrEqual(alarmAt - 1000);
    expect((await e2e.actions(id)).map((a) => a.endedAs)).toEqual(['stopped']);
  });

  it('journals the stop with the times of the run', () => {
    expect(journal.timings.injectedAt).toBeDefined();
    expect(journal.timings.stoppedAt).toBeGreaterThan(journal.timings.injectedAt ?? Infinity);
    // FIS stopped it by its stop condition: the journal has FIS's status and final reason.
    expect(eventOf(journal, 'fault-ended')?.data).toMatchObject({
      status: 'stopped',
      reason: expect.stringMatching(/^Experiment stopped by stop condition /),
    });
    // No SLI breached: the stop came from the alarm, not a tripwire.
    expect(journal.timings.firstBreachAt).toBeUndefined();
  });

  it('measured every tick through CloudWatch with one GetMetricData call', async () => {
    const ticks = journal.measurements.length;
    expect(ticks).toBeGreaterThan(4);
    for (const m of journal.measurements) {
      expect(m.slis.error_ratio?.query).toContain('errors / requests');
    }
    const calls = await e2e.requests({ service: 'cloudwatch', operation: 'GetMetricData', since: runMark });
    // The canary's own publishing uses PutMetricData; after the mark, GetMetricData comes only from the run.
    expect(calls.length).toBe(ticks);
  });

  it('leaves the canary without a fault', async () => {
    expect(await canaryFaults(e2e)).toEqual({});
  });

  it('leaves no experiment running in the stand-in', async () => {
    await e2e.sweep();
    expect(await e2e.liveExperiments()).toEqual([]);
  });
});
