/**
 * `abort.alarms` against the sandbox: the plan watches an existing composite alarm (over a metric
 * alarm), created by the test the way a team's alarms already exist. The run starts with it OK; during
 * the fault the test sets the composite alarm to ALARM, and the run aborts naming it and stops FIS. A plan
 * naming an alarm CloudWatch does not have is refused before anything is injected.
 */
import path from 'node:path';
import {
  PutCompositeAlarmCommand,
  PutMetricAlarmCommand,
  SetAlarmStateCommand,
} from '@aws-sdk/client-cloudwatch';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI_TIMEOUT_MS, copyPlan, eventOf, readJournal, startE2E, waitFor, type E2E } from './harness.js';

const COMPOSITE = 'e2e-canary-degraded';

/** The e2e held plan with its abort rule replaced by `abort.alarms` naming `names`. */
function alarmsPlan(names: string[]): (text: string) => string {
  return (text) => {
    const rules = /abort:\n {2}rules:\n(?: {4}.*\n)+/;
    if (!rules.test(text)) throw new Error('the fixture plan no longer has the abort block this test edits');
    return text.replace(rules, `abort:\n  rules: []\n  alarms:\n    names: ${JSON.stringify(names)}\n`);
  };
}

describe('abort.alarms against the sandbox CloudWatch', () => {
  let e2e: E2E;
  beforeAll(async () => {
    e2e = await startE2E();
    await e2e.cloudwatch.send(
      new PutMetricAlarmCommand({
        AlarmName: 'e2e-canary-5xx',
        Namespace: 'E2E/Alarms',
        MetricName: 'Errors',
        Statistic: 'Sum',
        Period: 60,
        EvaluationPeriods: 1,
        Threshold: 1,
        ComparisonOperator: 'GreaterThanOrEqualToThreshold',
        TreatMissingData: 'notBreaching',
      }),
    );
    await e2e.cloudwatch.send(
      new SetAlarmStateCommand({ AlarmName: 'e2e-canary-5xx', StateValue: 'OK', StateReason: 'e2e: armed' }),
    );
    await e2e.cloudwatch.send(
      new PutCompositeAlarmCommand({ AlarmName: COMPOSITE, AlarmRule: 'ALARM("e2e-canary-5xx")' }),
    );
  }, 60_000);
  afterAll(async () => e2e?.close(), 30_000);

  it(
    'aborts when the composite alarm goes to ALARM during the fault, naming it, and stops FIS',
    async () => {
      const plan = copyPlan(e2e.dir, 'e2e-held.yaml', alarmsPlan([COMPOSITE]));
      const journalPath = path.join(e2e.dir, 'alarms.journal.json');
      const child = e2e.cli(['run', plan, '--journal', journalPath, '--json']);
      const id = (await child.waitForStderr(/experiment (EXP\w+) started/, CLI_TIMEOUT_MS))[1] ?? '';
      await waitFor(
        'the action to run',
        async () => ((await e2e.actions(id)).some((a) => a.startTime && !a.endTime) ? true : undefined),
        15_000,
      );
      await e2e.cloudwatch.send(
        new SetAlarmStateCommand({ AlarmName: COMPOSITE, StateValue: 'ALARM', StateReason: 'e2e: paged' }),
      );
      const result = await child.done;
      const json = JSON.parse(result.stdout.trim().split('\n').at(-1) ?? '{}') as {
        verdict: string;
        reason: string;
      };
      expect(json.verdict, result.stderr).toBe('aborted');
      expect(result.code).toBe(1);
      expect(json.reason).toMatch(/^alarms: CloudWatch alarm in ALARM: e2e-canary-degraded \(e2e: paged\)/);
      const journal = readJournal(journalPath);
      expect(eventOf(journal, 'abort')?.data).toMatchObject({ cause: 'mid-run', check: 'alarms' });
      const gate = journal.events.find((e) => e.type === 'preflight' && /abort\.alarms/.test(e.message));
      expect(gate?.message).toMatch(/abort\.alarms: e2e-canary-degraded OK/);
      expect(eventOf(journal, 'stop-verified')).toBeDefined();
      expect((await e2e.experiment(id)).state?.status).toBe('stopped');
      // DescribeAlarms asked for both alarm types, so the composite alarm was found at all.
      const reads = await e2e.requests({ service: 'cloudwatch', operation: 'DescribeAlarms' });
      expect(reads.some((r) => JSON.stringify(r.body ?? '').includes('CompositeAlarm'))).toBe(true);
    },
    CLI_TIMEOUT_MS,
  );

  it('refuses a plan naming an alarm CloudWatch does not have, injecting nothing', async () => {
    const plan = copyPlan(e2e.dir, 'e2e-held.yaml', alarmsPlan(['e2e-no-such-alarm']));
    const run = await e2e.run(plan);
    expect(run.json.verdict, run.stderr).toBe('refused');
    expect(run.json.reason).toBe(
      'abort.alarms names an alarm CloudWatch does not have: e2e-no-such-alarm; expected existing metric or composite alarms',
    );
    expect(run.json.experimentId).toBeNull();
  });
});
