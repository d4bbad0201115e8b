/**
 * Stop conditions end to end: a CloudWatch alarm (created and forced with the real
 * `@aws-sdk/client-cloudwatch`) referenced by a template stops the experiment, whose fault then comes
 * off the canary. Also: the canary's figures reach CloudWatch, and its fallback switch decides whether
 * a partition is absorbed (breaker opens, degraded answers) or shows as errors.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CreateExperimentTemplateCommand, StartExperimentCommand } from '@aws-sdk/client-fis';
import {
  CloudWatchClient,
  DescribeAlarmsCommand,
  GetMetricDataCommand,
  PutMetricAlarmCommand,
  SetAlarmStateCommand,
} from '@aws-sdk/client-cloudwatch';
import { startSandboxProcess, type RunningSandbox } from '../helpers/sandbox.js';
import { credentials, recordingFis, waitForExperiment, wireState, type RecordingFis } from './fis-client.js';

const ROLE = 'arn:aws:iam::123456789012:role/FisExperimentRole';
const REDIS_SUBNET = 'arn:aws:ec2:us-east-1:123456789012:subnet/subnet-0ed15000000000001';

let sandbox: RunningSandbox;
let fis: RecordingFis;
let cw: CloudWatchClient;

beforeAll(async () => {
  sandbox = await startSandboxProcess({
    config: {
      fis: { initiatingMs: 200, stoppingMs: 150, durationScale: 0.05, stopConditionPollMs: 100 },
      canary: { baseLatencyMs: 5, dependencyTimeoutMs: 60 },
      load: { rate: 100, concurrency: 64 },
    },
  });
  fis = recordingFis(sandbox.urls.aws);
  cw = new CloudWatchClient({ endpoint: sandbox.urls.aws, region: 'us-east-1', credentials });
});

afterAll(async () => {
  await sandbox?.stop();
});

/** An alarm on the canary's error count; `alwaysBreaching` makes it really breach (≥ 0 errors, missing = bad). */
async function alarm(name: string, alwaysBreaching = false): Promise<string> {
  await cw.send(
    new PutMetricAlarmCommand({
      AlarmName: name,
      Namespace: 'Sandbox/Canary',
      MetricName: 'ErrorCount',
      Dimensions: [{ Name: 'Service', Value: 'canary' }],
      Statistic: 'Sum',
      Period: 10,
      EvaluationPeriods: 1,
      Threshold: alwaysBreaching ? 0 : 1_000_000,
      ComparisonOperator: alwaysBreaching ? 'GreaterThanOrEqualToThreshold' : 'GreaterThanThreshold',
      TreatMissingData: alwaysBreaching ? 'breaching' : 'notBreaching',
    }),
  );
  return `arn:aws:cloudwatch:us-east-1:123456789012:alarm:${name}`;
}

async function alarmState(name: string): Promise<string | undefined> {
  return (await cw.send(new DescribeAlarmsCommand({ AlarmNames: [name] }))).MetricAlarms?.[0]?.StateValue;
}

async function partitionTemplate(alarmArn?: string): Promise<string> {
  const out = await fis.client.send(
    new CreateExperimentTemplateCommand({
      description: 'partition the redis subnet',
      roleArn: ROLE,
      stopConditions: alarmArn ? [{ source: 'aws:cloudwatch:alarm', value: alarmArn }] : [{ source: 'none' }],
      targets: {
        redis: { resourceType: 'aws:ec2:subnet', resourceArns: [REDIS_SUBNET], selectionMode: 'ALL' },
      },
      actions: {
        partition: {
          actionId: 'aws:network:disrupt-connectivity',
          parameters: { duration: 'PT1M' },
          targets: { Subnets: 'redis' },
        },
      },
    }),
  );
  return out.experimentTemplate!.id!;
}

interface Metrics {
  [series: string]: number;
}
async function scrape(): Promise<Metrics> {
  const text = await (await fetch(`${sandbox.urls.canary}/metrics`)).text();
  const out: Metrics = {};
  for (const line of text.split('\n')) {
    if (!line || line.startsWith('#')) continue;
    const i = line.lastIndexOf(' ');
    out[line.slice(0, i)] = Number(line.slice(i + 1));
  }
  return out;
}

async function until<T>(
  read: () => Promise<T>,
  ok: (v: T) => boolean,
  what: string,
  timeoutMs = 15_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let v = await read();
  while (!ok(v)) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; last: ${JSON.stringify(v)}`);
    await new Promise((r) => setTimeout(r, 50));
    v = await read();
  }
  return v;
}

describe('stop conditions', () => {
  it('stops a running experiment when its alarm goes to ALARM (SetAlarmState), and the fault comes off', async () => {
    const arn = await alarm('chaos-stop-running');
    // SetAlarmState lasts until the next evaluation; wait for the first one so it cannot undo ours.
    await until(
      () => alarmState('chaos-stop-running'),
      (s) => s === 'OK',
      'the first evaluation',
    );
    const id = await partitionTemplate(arn);
    const exp = (await fis.client.send(new StartExperimentCommand({ experimentTemplateId: id }))).experiment!
      .id!;
    await waitForExperiment(fis.client, exp, (e) => e.state?.status === 'running');
    await until(
      () => sandbox.admin.get<{ faults: Record<string, unknown> }>('/canary'),
      (c) => Object.keys(c.faults).some((k) => k.startsWith(exp)),
      'the partition fault',
    );

    await cw.send(
      new SetAlarmStateCommand({
        AlarmName: 'chaos-stop-running',
        StateValue: 'ALARM',
        StateReason: 'test trip',
      }),
    );
    const final = await waitForExperiment(fis.client, exp, (e) => e.state?.status === 'stopped');
    expect(wireState(final).reason).toBe(`Experiment stopped by stop condition ${arn}.`);
    expect(wireState(final).error).toMatchObject({ code: 'StopConditionTriggered', location: arn });
    expect(final.actions?.partition?.state?.status).toBe('stopped');
    const canary = await sandbox.admin.get<{ faults: Record<string, unknown> }>('/canary');
    expect(Object.keys(canary.faults).filter((k) => k.startsWith(exp))).toEqual([]);
  });

  it('stops an experiment during initiating when its alarm is already in ALARM, before any action runs', async () => {
    const arn = await alarm('chaos-stop-initiating', true);
    await until(
      () => alarmState('chaos-stop-initiating'),
      (s) => s === 'ALARM',
      'the alarm to breach',
    );
    const id = await partitionTemplate(arn);
    const exp = (await fis.client.send(new StartExperimentCommand({ experimentTemplateId: id }))).experiment!
      .id!;
    const final = await waitForExperiment(fis.client, exp, (e) => e.state?.status === 'stopped');
    expect(final.actions?.partition?.state?.status).toBe('cancelled');
    expect((await sandbox.admin.get<{ actions: unknown[] }>(`/actions?experimentId=${exp}`)).actions).toEqual(
      [],
    );
  });
});

describe('the canary under a partition', () => {
  it('with the fallback on, opens the breaker and serves degraded answers instead of errors', async () => {
    // A short reset lets a breaker left open by an earlier partition close before this one starts.
    await sandbox.admin.send('PUT', '/canary', { fallback: true, breakerResetMs: 200 });
    await until(scrape, (m) => m['circuit_breaker_open'] === 0, 'the breaker to close');
    const before = await scrape();
    const exp = (
      await fis.client.send(new StartExperimentCommand({ experimentTemplateId: await partitionTemplate() }))
    ).experiment!.id!;
    const during = await until(
      scrape,
      (m) => (m['circuit_breaker_opened_total'] ?? 0) > (before['circuit_breaker_opened_total'] ?? 0),
      'the breaker to open',
    );
    expect(during['circuit_breaker_open']).toBe(1);
    await until(
      scrape,
      (m) => (m['fallback_served_total'] ?? 0) > (during['fallback_served_total'] ?? 0),
      'fallback answers',
    );
    await waitForExperiment(fis.client, exp, (e) => e.state?.status === 'completed');
    const after = await scrape();
    expect(after['http_requests_total{outcome="error",status="503"}']).toBe(
      before['http_requests_total{outcome="error",status="503"}'],
    );
    expect(after['http_requests_total{outcome="degraded",status="200"}']).toBeGreaterThan(
      before['http_requests_total{outcome="degraded",status="200"}'] ?? 0,
    );
  });

  it('with the fallback off, the same partition shows as 503 errors', async () => {
    await sandbox.admin.send('PUT', '/canary', { fallback: false });
    try {
      const before = await scrape();
      const exp = (
        await fis.client.send(new StartExperimentCommand({ experimentTemplateId: await partitionTemplate() }))
      ).experiment!.id!;
      await until(
        scrape,
        (m) =>
          (m['http_requests_total{outcome="error",status="503"}'] ?? 0) >
          (before['http_requests_total{outcome="error",status="503"}'] ?? 0),
        'errors',
      );
      await waitForExperiment(fis.client, exp, (e) => e.state?.status === 'completed');
      const settled = await scrape();
      // Once the fault is off, no new errors: compare two scrapes taken after the end.
      await new Promise((r) => setTimeout(r, 300));
      const later = await scrape();
      expect(later['http_requests_total{outcome="error",status="503"}']).toBeLessThanOrEqual(
        (settled['http_requests_total{outcome="error",status="503"}'] ?? 0) + 64,
      );
      expect(later['http_requests_total{outcome="ok",status="200"}']).toBeGreaterThan(
        settled['http_requests_total{outcome="ok",status="200"}'] ?? 0,
      );
    } finally {
      await sandbox.admin.send('PUT', '/canary', { fallback: true });
    }
  });
});

describe('the canary publishes to CloudWatch', () => {
  it('puts per-second request counts in Sandbox/Canary at high resolution', async () => {
    const series = await until(
      async () => {
        const end = new Date(Math.ceil(Date.now() / 1000) * 1000 + 1000);
        const out = await cw.send(
          new GetMetricDataCommand({
            StartTime: new Date(end.getTime() - 60_000),
            EndTime: end,
            MetricDataQueries: [
              {
                Id: 'requests',
                MetricStat: {
                  Metric: {
                    Namespace: 'Sandbox/Canary',
                    MetricName: 'RequestCount',
                    Dimensions: [{ Name: 'Service', Value: 'canary' }],
                  },
                  Period: 1,
                  Stat: 'Sum',
                },
              },
            ],
          }),
        );
        return out.MetricDataResults?.[0]?.Values ?? [];
      },
      (values) => values.length >= 2 && values.some((v) => v > 0),
      'canary datapoints in CloudWatch',
    );
    expect(series.reduce((a, b) => a + b, 0)).toBeGreaterThan(0);
  });
});
