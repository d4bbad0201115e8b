/**
 * Every AWS call has a deadline (issue 13.1): real SDK clients, built by createAwsClients /
 * createTaggingClient as a run builds them, over HTTP to the sandbox's AWS stand-in, with faults
 * injected through its admin endpoint. Elapsed-time bounds are generous: they prove "did not stall",
 * not performance.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  CreateExperimentTemplateCommand,
  GetExperimentCommand,
  ListExperimentsCommand,
  StartExperimentCommand,
} from '@aws-sdk/client-fis';
import { DescribeAlarmsCommand } from '@aws-sdk/client-cloudwatch';
import { createAwsClients, type AwsClients } from '../../src/injector/aws/clients.js';
import type { AwsOptions } from '../../src/injector/aws/config.js';
import { createTaggingClient, tagsForArns } from '../../src/injector/aws/tagging.js';
import {
  CloudWatchLease,
  alarmStates,
  ensureLeaseAlarm,
  leaseAlarmName,
} from '../../src/injector/fis/alarms.js';
import { getSafetyLever } from '../../src/injector/fis/safety-lever.js';
import { DEADLINES, DeadlineError, sendWithin } from '../../src/net/deadline.js';
import { startSandboxProcess, type RunningSandbox } from '../helpers/sandbox.js';

const credentials = { accessKeyId: 'sandbox', secretAccessKey: 'sandbox' };
/** How far past its deadline a call may settle and still count as "did not stall". */
const SLACK_MS = 2_000;

let sandbox: RunningSandbox;
let experimentId: string;

interface LoggedRequest {
  seq: number;
  time: number;
  operation: string;
  status: number;
}

function clients(extra: AwsOptions = {}): AwsClients {
  return createAwsClients({ region: 'us-east-1', endpoint: sandbox.urls.aws, credentials, ...extra });
}

async function lastSeq(): Promise<number> {
  const { requests } = await sandbox.admin.get<{ requests: LoggedRequest[] }>('/requests');
  return requests.at(-1)?.seq ?? 0;
}

async function requestsSince(seq: number, operation: string): Promise<LoggedRequest[]> {
  const { requests } = await sandbox.admin.get<{ requests: LoggedRequest[] }>(
    `/requests?operation=${operation}&since=${seq}`,
  );
  return requests;
}

async function fault(spec: Record<string, unknown>): Promise<void> {
  await sandbox.admin.send('POST', '/faults', spec);
}

/** Runs `call` and returns how it settled and how long that took. */
async function timed<T>(call: () => Promise<T>): Promise<{ value?: T; error?: unknown; ms: number }> {
  const t0 = Date.now();
  try {
    const value = await call();
    return { value, ms: Date.now() - t0 };
  } catch (error) {
    return { error, ms: Date.now() - t0 };
  }
}

beforeAll(async () => {
  sandbox = await startSandboxProcess({
    args: ['--no-load'],
    config: { fis: { initiatingMs: 50, durationScale: 0.01 } },
  });
  const { fis } = clients();
  const template = await fis.send(
    new CreateExperimentTemplateCommand({
      description: 'deadline tests',
      roleArn: 'arn:aws:iam::123456789012:role/fis',
      stopConditions: [{ source: 'none' }],
      targets: {},
      actions: { wait: { actionId: 'aws:fis:wait', parameters: { duration: 'PT1M' } } },
      tags: { 'chaos-gate:plan': 'deadline-tests' },
    }),
  );
  const started = await fis.send(
    new StartExperimentCommand({ experimentTemplateId: template.experimentTemplate?.id }),
  );
  experimentId = started.experiment?.id ?? '';
  expect(experimentId).not.toBe('');
}, 30_000);

afterEach(async () => {
  await sandbox.admin.send('DELETE', '/faults');
});

afterAll(async () => {
  await sandbox?.stop();
});

describe('the sandbox latency fault', () => {
  it('accepts a latency of up to 10 minutes, so a call hanging far past any deadline can be staged, and refuses more', async () => {
    const longest = { service: 'fis', operation: 'DeleteExperimentTemplate', kind: 'latency', count: 1 };
    await fault({ ...longest, latencyMs: 600_000 });
    const { faults } = await sandbox.admin.get<{ faults: { latencyMs?: number }[] }>('/faults');
    expect(faults.map((f) => f.latencyMs)).toEqual([600_000]);
    await expect(fault({ ...longest, latencyMs: 600_001 })).rejects.toThrow(/latencyMs/);
  });
});

describe('FIS calls under a deadline', () => {
  it('ends a GetExperiment that hangs for 220 s at its deadline with a DeadlineError naming the call', async () => {
    const { fis } = clients();
    await fault({
      service: 'fis',
      operation: 'GetExperiment',
      kind: 'latency',
      latencyMs: 220_000,
      count: 1,
    });
    const r = await timed(() =>
      sendWithin(fis, new GetExperimentCommand({ id: experimentId }), 1_500, 'FIS GetExperiment'),
    );
    expect(r.error).toBeInstanceOf(DeadlineError);
    expect((r.error as Error).message).toBe('FIS GetExperiment did not answer within 1.5 s');
    expect(r.ms).toBeGreaterThanOrEqual(1_450);
    expect(r.ms).toBeLessThan(1_500 + SLACK_MS);
    // The abandoned attempt did not poison the client: the next read (fault used up) answers.
    const next = await sendWithin(
      fis,
      new GetExperimentCommand({ id: experimentId }),
      DEADLINES.fisGetExperiment,
      'FIS GetExperiment',
    );
    expect(next.experiment?.id).toBe(experimentId);
  });

  it("retries a throttled GetExperiment inside the deadline and returns FIS's answer", async () => {
    const { fis } = clients();
    const since = await lastSeq();
    await fault({ service: 'fis', operation: 'GetExperiment', kind: 'throttle', count: 2 });
    const r = await timed(() =>
      sendWithin(
        fis,
        new GetExperimentCommand({ id: experimentId }),
        DEADLINES.fisGetExperiment,
        'FIS GetExperiment',
      ),
    );
    expect(r.error).toBeUndefined();
    expect(r.value?.experiment?.id).toBe(experimentId);
    expect(r.value?.$metadata.attempts).toBe(3);
    expect(r.ms).toBeLessThan(DEADLINES.fisGetExperiment);
    expect((await requestsSince(since, 'GetExperiment')).map((q) => q.status)).toEqual([429, 429, 200]);
  });

  it("ends a permanently throttled GetExperiment at the deadline, not after the SDK's attempts and backoff", async () => {
    // Ten attempts with exponential backoff (0.5 s × 2^n, capped at 20 s) would take far longer than 1.5 s.
    const { fis } = clients({ maxAttempts: 10 });
    const since = await lastSeq();
    await fault({ service: 'fis', operation: 'GetExperiment', kind: 'throttle' });
    const r = await timed(() =>
      sendWithin(fis, new GetExperimentCommand({ id: experimentId }), 1_500, 'FIS GetExperiment'),
    );
    const endedAt = Date.now();
    expect(r.error).toBeInstanceOf(DeadlineError);
    expect(r.ms).toBeLessThan(1_500 + SLACK_MS);
    // The SDK did retry, inside the deadline: the first backoff is at most 0.5 s.
    const during = await requestsSince(since, 'GetExperiment');
    expect(during.length).toBeGreaterThanOrEqual(2);
    expect(during.every((q) => q.status === 429)).toBe(true);
    // And the abandoned call sends nothing after the deadline: its next attempt sees the aborted signal.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    const after = await requestsSince(since, 'GetExperiment');
    expect(after.filter((q) => q.time > endedAt + 100)).toEqual([]);
  });

  it('cuts a silent attempt at the attempt timeout so the SDK retries it, on the FIS (handler 2.x) and CloudWatch (4.x) clients', async () => {
    const { fis, cloudwatch } = clients({ attemptTimeoutMs: 500 });
    await fault({
      service: 'fis',
      operation: 'ListExperiments',
      kind: 'latency',
      latencyMs: 5_000,
      count: 1,
    });
    await fault({
      service: 'cloudwatch',
      operation: 'DescribeAlarms',
      kind: 'latency',
      latencyMs: 5_000,
      count: 1,
    });
    const listed = await timed(() =>
      sendWithin(fis, new ListExperimentsCommand({}), 4_000, 'FIS ListExperiments'),
    );
    expect(listed.error).toBeUndefined();
    expect(listed.value?.$metadata.attempts).toBe(2);
    expect(listed.ms).toBeLessThan(4_000);
    const described = await timed(() =>
      sendWithin(cloudwatch, new DescribeAlarmsCommand({}), 4_000, 'CloudWatch DescribeAlarms'),
    );
    expect(described.error).toBeUndefined();
    expect(described.value?.$metadata.attempts).toBe(2);
    expect(described.ms).toBeLessThan(4_000);
  });

  it('counts a safety lever that does not answer in time as a failed read (not unavailable), with the deadline in the detail', async () => {
    const { fis } = clients();
    const before = await getSafetyLever(fis, 'us-east-1');
    expect(before).toMatchObject({ available: true, state: 'disengaged' });
    await fault({
      service: 'fis',
      operation: 'GetSafetyLever',
      kind: 'latency',
      latencyMs: 60_000,
      count: 1,
    });
    const r = await timed(() => getSafetyLever(fis, 'us-east-1', { deadlineMs: 800 }));
    expect(r.value).toMatchObject({
      available: false,
      detail: 'FIS GetSafetyLever failed: FIS GetSafetyLever did not answer within 800 ms',
    });
    // A failed read carries the error the kill-switch read fails closed with (kill-switch-state.ts).
    expect(r.value && !r.value.available && r.value.error?.message).toBe(
      'FIS GetSafetyLever failed: FIS GetSafetyLever did not answer within 800 ms',
    );
    expect(r.ms).toBeLessThan(800 + SLACK_MS);
  });
});

describe('CloudWatch calls under a deadline', () => {
  it('abandons a lease heartbeat CloudWatch has not taken within 3 s, so it cannot delay the next beat', async () => {
    const { cloudwatch } = clients();
    const lease = new CloudWatchLease(cloudwatch, 'deadline-tests');
    await lease.beat(); // a normal beat lands
    await fault({
      service: 'cloudwatch',
      operation: 'PutMetricData',
      kind: 'latency',
      latencyMs: 60_000,
      count: 1,
    });
    const r = await timed(() => lease.beat());
    expect(r.error).toBeInstanceOf(DeadlineError);
    expect((r.error as Error).message).toBe(
      'CloudWatch PutMetricData (lease heartbeat) did not answer within 3 s',
    );
    expect(r.ms).toBeGreaterThanOrEqual(DEADLINES.cloudwatchHeartbeat - 50);
    expect(r.ms).toBeLessThan(DEADLINES.cloudwatchHeartbeat + SLACK_MS);
  });

  it('trips the lease alarm to ALARM through SetAlarmState, and reads it back, each call within its deadline', async () => {
    const { cloudwatch } = clients();
    await ensureLeaseAlarm(cloudwatch, 'deadline-trip');
    const lease = new CloudWatchLease(cloudwatch, 'deadline-trip');
    const since = await lastSeq();
    await lease.trip('StopExperiment did not get through');
    // The stand-in answered the trip's SetAlarmState, and the alarm is ALARM. Its reason may already be
    // an evaluation's (no beats since the alarm was made), as on AWS, so the reason is not compared.
    const sets = await requestsSince(since, 'SetAlarmState');
    expect(sets.map((r) => r.status)).toContain(200);
    const states = await alarmStates(cloudwatch, [leaseAlarmName('deadline-trip')]);
    expect(states.get(leaseAlarmName('deadline-trip'))?.StateValue).toBe('ALARM');
  });

  it("stops a DescribeAlarms as soon as the caller's signal aborts, with the caller's reason", async () => {
    const { cloudwatch } = clients();
    await fault({
      service: 'cloudwatch',
      operation: 'DescribeAlarms',
      kind: 'latency',
      latencyMs: 60_000,
      count: 1,
    });
    const caller = new AbortController();
    const reason = new Error('the run was cancelled');
    setTimeout(() => caller.abort(reason), 300);
    const r = await timed(() => alarmStates(cloudwatch, ['chaos-gate-kill-switch'], caller.signal));
    expect(r.error).toBe(reason);
    expect(r.ms).toBeLessThan(DEADLINES.cloudwatchDescribeAlarms);
  });
});

describe('Tagging API calls under a deadline', () => {
  let silent: Server;
  let endpoint = '';
  let received = 0;

  beforeAll(async () => {
    // The sandbox's Tagging stand-in takes no admin faults, so a loopback server that reads the request
    // and never answers stands in for a Tagging API that stopped responding.
    silent = createServer((req) => {
      received++;
      req.resume();
    });
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    endpoint = `http://127.0.0.1:${(silent.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    silent.closeAllConnections();
    await new Promise<void>((resolve) => silent.close(() => resolve()));
  });

  it('fails a GetResources page that does not answer with a DeadlineError at the page deadline', async () => {
    const tagging = createTaggingClient({ region: 'us-east-1', endpoint, credentials });
    const r = await timed(() =>
      tagsForArns(tagging, ['arn:aws:ec2:us-east-1:123456789012:subnet/subnet-1'], undefined, {
        pageDeadlineMs: 800,
      }),
    );
    expect(r.error).toBeInstanceOf(DeadlineError);
    expect((r.error as Error).message).toBe('Tagging GetResources did not answer within 800 ms');
    expect(r.ms).toBeLessThan(800 + SLACK_MS);
    expect(received).toBeGreaterThanOrEqual(1);
  });
});
