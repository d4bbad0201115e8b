/**
 * The account's live experiments counted from FIS (src/injector/fis/probes.ts) page only what they need:
 * ListExperiments cannot filter by state and FIS keeps finished experiments for 120 days (the sandbox
 * keeps them too), so a count that must reach FIS's quota stops paging as soon as it has seen that many
 * live ones; one that finds fewer has paged to the end. Counted from the sandbox's own request log.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CreateExperimentTemplateCommand,
  FisClient,
  StartExperimentCommand,
  StopExperimentCommand,
} from '@aws-sdk/client-fis';
import { startSandboxProcess, type RunningSandbox } from '../helpers/sandbox.js';
import { addFisPatches } from '../../src/injector/fis/patches.js';
import { activeExperimentCounter, experimentLister } from '../../src/injector/fis/probes.js';
import type { CloudWatchClient } from '@aws-sdk/client-cloudwatch';

let sandbox: RunningSandbox;
let fis: FisClient;
let template = '';
const live: string[] = [];

/** 105 finished experiments (two pages of 100). */
async function seed(): Promise<void> {
  for (let batch = 0; batch < 21; batch++) {
    await Promise.all(
      Array.from({ length: 5 }, () =>
        fis.send(
          new StartExperimentCommand({ experimentTemplateId: template, tags: { 'chaos-gate:plan': 'old' } }),
        ),
      ),
    );
    // Each lasts a PT1M action at 0.0005× (30 ms): let the batch finish before the next.
    await new Promise((r) => setTimeout(r, 120));
  }
}

async function listCalls(since: number): Promise<number> {
  const { requests } = await sandbox.admin.get<{ requests: { seq: number; operation: string }[] }>(
    `/requests?operation=ListExperiments&since=${since}`,
  );
  return requests.length;
}

async function mark(): Promise<number> {
  const { requests } = await sandbox.admin.get<{ requests: { seq: number }[] }>('/requests');
  return requests.at(-1)?.seq ?? 0;
}

beforeAll(async () => {
  sandbox = await startSandboxProcess({
    config: { fis: { initiatingMs: 5, stoppingMs: 5, durationScale: 0.0005 }, load: { enabled: false } },
  });
  fis = new FisClient({
    endpoint: sandbox.urls.aws,
    region: 'us-east-1',
    credentials: { accessKeyId: 'AKIDSANDBOX', secretAccessKey: 'sandbox' },
  });
  addFisPatches(fis);
  const created = await fis.send(
    new CreateExperimentTemplateCommand({
      description: 'listing test',
      roleArn: 'arn:aws:iam::123456789012:role/FisExperimentRole',
      stopConditions: [{ source: 'none' }],
      targets: {},
      actions: { w: { actionId: 'aws:fis:wait', parameters: { duration: 'PT1M' } } },
      tags: { 'chaos-gate:plan': 'listing' },
    }),
  );
  template = created.experimentTemplate!.id!;
  await seed();
}, 60_000);

afterAll(async () => {
  for (const id of live) await fis.send(new StopExperimentCommand({ id })).catch(() => undefined);
  fis?.destroy();
  await sandbox?.stop();
});

describe("counting the account's live experiments", () => {
  const clients = () => ({ fis, cloudwatch: undefined as unknown as CloudWatchClient, region: 'us-east-1' });

  it('finding fewer than asked for pages through every finished experiment FIS keeps', async () => {
    const since = await mark();
    expect(await activeExperimentCounter(clients()).active(5)).toBe(0);
    expect(await listCalls(since)).toBe(2);
  });

  it("stops paging once FIS's quota of live experiments is found (the stand-in lists newest first); so does the concurrency listing", async () => {
    // Long-lived now: PT1M at 1× while these run.
    await sandbox.admin.send('PATCH', '/fis/timings', { durationScale: 1 });
    for (let i = 0; i < 5; i++) {
      const out = await fis.send(
        new StartExperimentCommand({
          experimentTemplateId: template,
          tags: { 'chaos-gate:plan': `live-${i}` },
        }),
      );
      live.push(out.experiment!.id!);
    }
    let since = await mark();
    expect(await activeExperimentCounter(clients()).active(5)).toBe(5);
    expect(await listCalls(since)).toBe(1);
    since = await mark();
    const running = await experimentLister(clients()).running();
    expect(running.map((e) => e.id).sort()).toEqual([...live].sort());
    expect(await listCalls(since)).toBe(1);
  });
});
