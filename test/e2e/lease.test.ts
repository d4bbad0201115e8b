/**
 * The lease (docs/design/run.md#the-lease), for real: `chaos-gate run fixtures/plans/sandbox-lease.yaml` (a fault that would
 * last 120 s) is SIGKILLed while the fault is on. Nothing reaches FIS from the dead runner; its heartbeat
 * stops, the lease alarm goes to ALARM, and the stand-in stops the experiment because that alarm is a
 * stop condition of the template. The seconds from the kill to `stopped` are printed, not asserted as a
 * timing (bench/ measures the figure against the 30 s target); the test asserts the stop happened, was
 * caused by the lease alarm, and came long before the action would have ended by itself.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import path from 'node:path';
import { DescribeAlarmsCommand } from '@aws-sdk/client-cloudwatch';
import type { Experiment } from '@aws-sdk/client-fis';
import { canaryFaults, readJournal, startE2E, waitFor, type CliResult, type E2E } from './harness.js';
import type { Journal } from '../../src/journal/types.js';

/** The run's own lease alarm: `chaos-gate-lease-<plan>-<run key>`, the run key unique per run. */
const LEASE_ALARM_PREFIX = 'arn:aws:cloudwatch:us-east-1:123456789012:alarm:chaos-gate-lease-sandbox-lease-';
/** The plan's action lasts 120 s; the lease must end it well before. */
const ACTION_MS = 120_000;
/** How long the test waits for FIS to stop the experiment after the kill (4× the 30 s target). */
const STOP_WAIT_MS = 120_000 - 10_000;

let e2e: E2E;
let experimentId = '';
let killedAt = 0;
let stoppedAt = 0;
let result: CliResult;
let experiment: Experiment;
let journal: Journal;
let markAtKill = 0;
let canaryFaultsWhileOn: Record<string, unknown> = {};

beforeAll(async () => {
  e2e = await startE2E();
  const journalPath = path.join(e2e.dir, 'lease.journal.json');
  const child = e2e.cli(['run', 'fixtures/plans/sandbox-lease.yaml', '--journal', journalPath, '--json']);
  [, experimentId = ''] = await child.waitForStderr(/experiment (EXP\w+) started/, 90_000);
  await waitFor(
    'the partition to be on',
    async () => ((await e2e.actions(experimentId)).some((a) => a.startTime && !a.endTime) ? true : undefined),
    15_000,
  );
  canaryFaultsWhileOn = await canaryFaults(e2e);
  markAtKill = await e2e.mark();
  killedAt = Date.now();
  child.kill('SIGKILL');
  result = await child.done;
  experiment = await waitFor(
    'FIS to stop the experiment by itself',
    async () => {
      const e = await e2e.experiment(experimentId);
      return ['stopped', 'completed', 'failed', 'cancelled'].includes(String(e.state?.status))
        ? e
        : undefined;
    },
    STOP_WAIT_MS,
  );
  stoppedAt = Date.now();
  journal = readJournal(journalPath);
  console.log(
    `lease: runner SIGKILLed → experiment ${experimentId} ${experiment.state?.status} after ` +
      `${((stoppedAt - killedAt) / 1000).toFixed(1)} s (docs/design/run.md#the-lease target ≤ 30 s; measured, not asserted)`,
  );
}, 240_000);

afterAll(async () => {
  await e2e?.close();
}, 30_000);

describe('the runner SIGKILLed while the fault is on', () => {
  it('really had the fault on when it was killed', () => {
    expect(Object.keys(canaryFaultsWhileOn).length).toBeGreaterThan(0);
    expect(result.signal).toBe('SIGKILL');
  });

  it('FIS stopped the experiment through the lease alarm', async () => {
    expect(experiment.state?.status).toBe('stopped');
    const leases = (experiment.stopConditions ?? [])
      .map((s) => s.value ?? '')
      .filter((v) => v.startsWith(LEASE_ALARM_PREFIX));
    expect(leases).toHaveLength(1);
    const leaseArn = leases[0] ?? '';
    expect(experiment.state?.reason).toContain(leaseArn);
    const alarm = await e2e.cloudwatch.send(
      new DescribeAlarmsCommand({ AlarmNames: [leaseArn.replace(/^.*:alarm:/, '')] }),
    );
    expect(alarm.MetricAlarms?.[0]?.StateValue).toBe('ALARM');
    expect((await e2e.actions(experimentId)).map((a) => a.endedAs)).toEqual(['stopped']);
  });

  it('stopped it long before the 120 s action would have ended', () => {
    expect(stoppedAt - killedAt).toBeLessThan(ACTION_MS - 10_000);
  });

  it('no command reached FIS after the kill: nothing stopped it but the alarm', async () => {
    const after = await e2e.requests({ service: 'fis', since: markAtKill });
    expect(after.filter((r) => r.operation === 'StopExperiment')).toEqual([]);
    // The heartbeats stopped with the runner (only the test's own reads came after).
    const beats = await e2e.requests({
      service: 'cloudwatch',
      operation: 'PutMetricData',
      since: markAtKill,
    });
    expect(beats.filter((r) => JSON.stringify(r.body ?? '').includes('LeaseHeartbeat'))).toEqual([]);
  });

  it('left a readable journal prefix naming the experiment', () => {
    expect(journal.complete).toBe(false);
    expect(journal.experimentId).toBe(experimentId);
    expect(journal.events.some((e) => e.type === 'inject')).toBe(true);
  });

  it('leaves the canary without a fault', async () => {
    expect(await canaryFaults(e2e)).toEqual({});
  });

  it('leaves no experiment running in the stand-in', async () => {
    await e2e.sweep();
    expect(await e2e.liveExperiments()).toEqual([]);
  });
});
