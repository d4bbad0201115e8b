/**
 * The FIS stand-in driven through the real pinned `@aws-sdk/client-fis@3.523.0` against a sandbox
 * child process: the experiment state machine, target resolution, the dry run, the safety lever,
 * idempotency, error shapes, and the canary's faults switching off on every way an experiment ends.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CreateExperimentTemplateCommand,
  DeleteExperimentTemplateCommand,
  GetExperimentTemplateCommand,
  ListExperimentResolvedTargetsCommand,
  ListExperimentsCommand,
  ListExperimentTemplatesCommand,
  ListTagsForResourceCommand,
  StartExperimentCommand,
  StopExperimentCommand,
  TagResourceCommand,
  UntagResourceCommand,
  UpdateExperimentTemplateCommand,
  type CreateExperimentTemplateCommandInput,
} from '@aws-sdk/client-fis';
import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import { startSandboxProcess, type RunningSandbox } from '../helpers/sandbox.js';
import {
  AWS_MODELS_DIR,
  validateOperationInput,
  validateOperationOutput,
  validateShape,
} from '../helpers/smithy.js';
import {
  recordingFis,
  signedFisCall,
  waitForExperiment,
  watchStatuses,
  wireState,
  type RecordingFis,
} from './fis-client.js';

const ROLE = 'arn:aws:iam::123456789012:role/FisExperimentRole';
const REDIS_SUBNET = 'arn:aws:ec2:us-east-1:123456789012:subnet/subnet-0ed15000000000001';

let sandbox: RunningSandbox;
let fis: RecordingFis;

interface CanaryView {
  faults: Record<string, unknown>;
  breakerOpen: boolean;
}
interface ActionView {
  experimentId: string;
  actionName: string;
  endedAs: string | null;
  endTime: string | null;
}

beforeAll(async () => {
  sandbox = await startSandboxProcess({
    config: {
      // PT1M × 0.005 = 300 ms: every state is visible, nothing waits minutes.
      fis: {
        initiatingMs: 150,
        stoppingMs: 150,
        durationScale: 0.005,
        stopConditionPollMs: 100,
        leverEngagingMs: 200,
      },
      load: { rate: 40, concurrency: 32 },
    },
  });
  fis = recordingFis(sandbox.urls.aws);
});

afterAll(async () => {
  await sandbox?.stop();
});

function template(
  overrides: Partial<CreateExperimentTemplateCommandInput> = {},
): CreateExperimentTemplateCommandInput {
  return {
    description: 'sandbox test template',
    roleArn: ROLE,
    stopConditions: [{ source: 'none' }],
    targets: {
      redis: { resourceType: 'aws:ec2:subnet', resourceArns: [REDIS_SUBNET], selectionMode: 'ALL' },
    },
    actions: {
      partition: {
        actionId: 'aws:network:disrupt-connectivity',
        parameters: { duration: 'PT1M', scope: 'all' },
        targets: { Subnets: 'redis' },
      },
    },
    tags: { 'chaos-gate:plan': 'sandbox-test' },
    ...overrides,
  };
}

async function createTemplate(
  overrides: Partial<CreateExperimentTemplateCommandInput> = {},
): Promise<string> {
  const out = await fis.client.send(new CreateExperimentTemplateCommand(template(overrides)));
  return out.experimentTemplate!.id!;
}

async function start(
  templateId: string,
  extra: { tags?: Record<string, string>; clientToken?: string } = {},
): Promise<string> {
  const out = await fis.client.send(
    new StartExperimentCommand({ experimentTemplateId: templateId, ...extra }),
  );
  return out.experiment!.id!;
}

async function canaryFaults(): Promise<CanaryView> {
  return sandbox.admin.get<CanaryView>('/canary');
}

async function actionsOf(experimentId: string): Promise<ActionView[]> {
  return (await sandbox.admin.get<{ actions: ActionView[] }>(`/actions?experimentId=${experimentId}`))
    .actions;
}

async function waitForFault(experimentId: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    const { faults } = await canaryFaults();
    if (Object.keys(faults).some((k) => k.startsWith(`${experimentId}/`))) return;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`no canary fault appeared for ${experimentId}`);
}

function faultKeysOf(view: CanaryView, experimentId: string): string[] {
  return Object.keys(view.faults).filter((k) => k.startsWith(`${experimentId}/`));
}

describe('experiment lifecycle', () => {
  it('goes initiating → running → completed and runs startAfter actions in order', async () => {
    const id = await createTemplate({
      targets: {},
      actions: {
        first: { actionId: 'aws:fis:wait', parameters: { duration: 'PT1M' } },
        second: { actionId: 'aws:fis:wait', parameters: { duration: 'PT1M' }, startAfter: ['first'] },
      },
    });
    const started = await fis.client.send(new StartExperimentCommand({ experimentTemplateId: id }));
    expect(started.experiment?.state).toEqual({ status: 'initiating', reason: 'Experiment is initiating.' });
    expect(started.experiment?.actions?.first?.state).toEqual({ status: 'pending', reason: 'Initial state' });

    const { seen, final } = await watchStatuses(fis.client, started.experiment!.id!);
    // The start's own answer counts as the first status seen: on a busy machine the first GetExperiment
    // can come after the 150 ms of initiating have passed.
    const statuses = ['initiating', ...seen].filter((s, i, all) => s !== all[i - 1]);
    expect(statuses).toEqual(['initiating', 'running', 'completed']);
    const first = final.actions!.first!;
    const second = final.actions!.second!;
    expect(first.state?.status).toBe('completed');
    expect(second.state?.status).toBe('completed');
    expect(second.startTime!.getTime()).toBeGreaterThanOrEqual(first.endTime!.getTime());
    expect(final.endTime).toBeInstanceOf(Date);
    expect(final.startTime).toBeInstanceOf(Date);
  });

  it('starts pending when a pending time is configured, then initiates', async () => {
    await sandbox.admin.send('PUT', '/fis/timings', { pendingMs: 200 });
    try {
      const id = await createTemplate({
        targets: {},
        actions: { w: { actionId: 'aws:fis:wait', parameters: { duration: 'PT1M' } } },
      });
      const started = await fis.client.send(new StartExperimentCommand({ experimentTemplateId: id }));
      expect(started.experiment?.state?.status).toBe('pending');
      const { seen } = await watchStatuses(fis.client, started.experiment!.id!);
      expect(seen).toEqual(['pending', 'initiating', 'running', 'completed']);
    } finally {
      await sandbox.admin.send('PUT', '/fis/timings', { pendingMs: 0 });
    }
  });

  it('StopExperiment answers stopping, ends stopped, and cancels actions that had not started', async () => {
    const id = await createTemplate({
      actions: {
        partition: {
          actionId: 'aws:network:disrupt-connectivity',
          parameters: { duration: 'PT10M' },
          targets: { Subnets: 'redis' },
        },
        later: { actionId: 'aws:fis:wait', parameters: { duration: 'PT1M' }, startAfter: ['partition'] },
      },
    });
    const exp = await start(id);
    await waitForExperiment(fis.client, exp, (e) => e.state?.status === 'running');
    await waitForFault(exp);
    const stopping = await fis.client.send(new StopExperimentCommand({ id: exp }));
    expect(stopping.experiment?.state).toEqual({ status: 'stopping', reason: 'Stopping Experiment.' });
    const final = await waitForExperiment(fis.client, exp, (e) => e.state?.status === 'stopped');
    // Once stopped, the reason is the final one, no longer the request's "Stopping Experiment.".
    expect(final.state).toEqual({ status: 'stopped', reason: 'Experiment stopped.' });
    expect(final.actions?.partition?.state?.status).toBe('stopped');
    expect(final.actions?.later?.state?.status).toBe('cancelled');
    expect(faultKeysOf(await canaryFaults(), exp)).toEqual([]);
  });

  it('refuses to stop an experiment that already finished', async () => {
    const id = await createTemplate({
      targets: {},
      actions: { w: { actionId: 'aws:fis:wait', parameters: { duration: 'PT1M' } } },
    });
    const exp = await start(id);
    await waitForExperiment(fis.client, exp, (e) => e.state?.status === 'completed');
    await expect(fis.client.send(new StopExperimentCommand({ id: exp }))).rejects.toMatchObject({
      name: 'ValidationException',
      $metadata: { httpStatusCode: 400 },
    });
  });
});

describe('canary faults end with the experiment', () => {
  it('switches the partition on while running and off when the experiment completes', async () => {
    const exp = await start(await createTemplate());
    await waitForFault(exp);
    expect(Object.values((await canaryFaults()).faults)).toContainEqual({ kind: 'partition' });
    await waitForExperiment(fis.client, exp, (e) => e.state?.status === 'completed');
    expect(faultKeysOf(await canaryFaults(), exp)).toEqual([]);
    const [action] = await actionsOf(exp);
    expect(action).toMatchObject({ actionName: 'partition', endedAs: 'completed' });
  });

  it('switches the fault off when an admin-forced failure fails the experiment with its FIS error code', async () => {
    const id = await createTemplate({
      actions: {
        partition: {
          actionId: 'aws:network:disrupt-connectivity',
          parameters: { duration: 'PT10M' },
          targets: { Subnets: 'redis' },
        },
      },
    });
    const exp = await start(id);
    await waitForFault(exp);
    await sandbox.admin.send('POST', '/fis/fail', { experimentId: exp, code: 'DependentServiceFailure' });
    const final = await waitForExperiment(fis.client, exp, (e) => e.state?.status === 'failed');
    expect(wireState(final).error).toMatchObject({
      code: 'DependentServiceFailure',
      accountId: '123456789012',
      location: 'partition',
    });
    expect(final.actions?.partition?.state?.status).toBe('failed');
    expect(faultKeysOf(await canaryFaults(), exp)).toEqual([]);
    expect((await actionsOf(exp))[0]?.endedAs).toBe('failed');
  });

  it('switches the fault off when the safety lever stops a running experiment, and cancels new ones', async () => {
    const id = await createTemplate({
      actions: {
        partition: {
          actionId: 'aws:network:disrupt-connectivity',
          parameters: { duration: 'PT10M' },
          targets: { Subnets: 'redis' },
        },
      },
    });
    const running = await start(id);
    await waitForFault(running);

    const before = await signedFisCall(sandbox.urls.aws, 'GET', '/safetyLevers/default');
    expect(before.json).toEqual({
      safetyLever: {
        id: 'default',
        arn: 'arn:aws:fis:us-east-1:123456789012:safety-lever/default',
        state: { status: 'disengaged', reason: 'Safety lever is disengaged.' },
      },
    });
    const engage = await signedFisCall(sandbox.urls.aws, 'PATCH', '/safetyLevers/default/state', {
      state: { status: 'engaged', reason: 'game day halted' },
    });
    expect(engage.status).toBe(200);
    expect((engage.json.safetyLever as { state: { status: string } }).state.status).toBe('engaging');
    try {
      const stopped = await waitForExperiment(fis.client, running, (e) => e.state?.status === 'stopped');
      expect(stopped.state?.reason).toContain('safety lever');
      expect(faultKeysOf(await canaryFaults(), running)).toEqual([]);

      const prevented = await start(id);
      const final = await waitForExperiment(
        fis.client,
        prevented,
        (e) => wireState(e).status === 'cancelled',
      );
      expect(final.actions?.partition?.state?.status).toBe('cancelled');
      expect(await actionsOf(prevented)).toEqual([]);

      const lever = await signedFisCall(sandbox.urls.aws, 'GET', '/safetyLevers/default');
      expect((lever.json.safetyLever as { state: { status: string } }).state.status).toBe('engaged');
      const again = await signedFisCall(sandbox.urls.aws, 'PATCH', '/safetyLevers/default/state', {
        state: { status: 'engaged', reason: 'twice' },
      });
      expect(again).toMatchObject({ status: 409, errorType: 'ConflictException' });
    } finally {
      // The lever cannot change while `engaging` (409); on a slow machine it may still be engaging here, and a
      // lever left engaged would cancel every later experiment of this file.
      await waitForLever('engaged').catch(() => undefined);
      const off = await signedFisCall(sandbox.urls.aws, 'PATCH', '/safetyLevers/default/state', {
        state: { status: 'disengaged', reason: 'resumed' },
      });
      expect(off.status).toBe(200);
    }
  });

  it('rejects a lever update without a reason, and an unknown lever id', async () => {
    const noReason = await signedFisCall(sandbox.urls.aws, 'PATCH', '/safetyLevers/default/state', {
      state: { status: 'engaged' },
    });
    expect(noReason).toMatchObject({ status: 400, errorType: 'ValidationException' });
    expect(String(noReason.json.message)).toContain("'state.reason'");
    const unknown = await signedFisCall(sandbox.urls.aws, 'GET', '/safetyLevers/other');
    expect(unknown).toMatchObject({ status: 404, errorType: 'ResourceNotFoundException' });
  });
});

describe('dry run (actionsMode skip-all)', () => {
  it('resolves targets, skips every action, echoes the option and injects nothing', async () => {
    const id = await createTemplate();
    fis.patch.experimentOptions = { actionsMode: 'skip-all' };
    let exp: string;
    try {
      const started = await fis.client.send(new StartExperimentCommand({ experimentTemplateId: id }));
      exp = started.experiment!.id!;
      expect(started.experiment?.experimentOptions).toMatchObject({ actionsMode: 'skip-all' });
    } finally {
      delete fis.patch.experimentOptions;
    }
    const final = await waitForExperiment(fis.client, exp, (e) => e.state?.status === 'completed');
    expect(final.actions?.partition?.state?.status).toBe('skipped');
    const resolved = await fis.client.send(new ListExperimentResolvedTargetsCommand({ experimentId: exp }));
    expect(resolved.resolvedTargets).toEqual([
      { resourceType: 'aws:ec2:subnet', targetName: 'redis', targetInformation: { arn: REDIS_SUBNET } },
    ]);
    expect(await actionsOf(exp)).toEqual([]);
    expect(faultKeysOf(await canaryFaults(), exp)).toEqual([]);
  });
});

describe('target resolution', () => {
  async function resolvedCount(
    target: Record<string, unknown>,
    actions: CreateExperimentTemplateCommandInput['actions'],
  ) {
    const id = await createTemplate({ targets: { t: target as never }, actions });
    const exp = await start(id);
    await waitForExperiment(fis.client, exp, (e) => e.state?.status !== 'pending');
    const out = await fis.client.send(new ListExperimentResolvedTargetsCommand({ experimentId: exp }));
    await waitForExperiment(fis.client, exp, (e) =>
      ['completed', 'failed', 'stopped'].includes(String(e.state?.status)),
    );
    return { exp, arns: (out.resolvedTargets ?? []).map((r) => r.targetInformation?.arn) };
  }
  const podDelete = {
    del: {
      actionId: 'aws:eks:pod-delete',
      parameters: { kubernetesServiceAccount: 'fis' },
      targets: { Pods: 't' },
    },
  };
  const pods = {
    resourceType: 'aws:eks:pod',
    parameters: {
      clusterIdentifier: 'canary-eks',
      namespace: 'canary',
      selectorType: 'labelSelector',
      selectorValue: 'app=canary',
    },
  };

  it('PERCENT(50) of 5 pods resolves 2 (FIS rounds down)', async () => {
    const { arns } = await resolvedCount({ ...pods, selectionMode: 'PERCENT(50)' }, podDelete);
    expect(arns).toHaveLength(2);
    expect(new Set(arns).size).toBe(2);
  });

  it('COUNT(2) of the 3 tagged canary instances resolves 2, and COUNT(9) resolves all 3', async () => {
    const stop = { s: { actionId: 'aws:ec2:stop-instances', targets: { Instances: 't' } } };
    const instances = {
      resourceType: 'aws:ec2:instance',
      resourceTags: { Service: 'canary', Environment: 'staging-chaos' },
    };
    expect((await resolvedCount({ ...instances, selectionMode: 'COUNT(2)' }, stop)).arns).toHaveLength(2);
    expect((await resolvedCount({ ...instances, selectionMode: 'COUNT(9)' }, stop)).arns).toHaveLength(3);
  });

  it('PERCENT(10) of 5 pods selects none: failed with InvalidTarget in fail mode', async () => {
    const { exp } = await resolvedCount({ ...pods, selectionMode: 'PERCENT(10)' }, podDelete);
    const final = await waitForExperiment(fis.client, exp, () => true);
    expect(final.state?.status).toBe('failed');
    expect(wireState(final).error).toMatchObject({ code: 'InvalidTarget', location: 't' });
  });

  it('skips the action instead when emptyTargetResolutionMode is skip', async () => {
    const id = await createTemplate({
      targets: { t: { ...pods, selectionMode: 'PERCENT(10)' } },
      actions: podDelete,
      experimentOptions: { emptyTargetResolutionMode: 'skip' },
    });
    const exp = await start(id);
    const final = await waitForExperiment(fis.client, exp, (e) =>
      ['completed', 'failed'].includes(String(e.state?.status)),
    );
    expect(final.state?.status).toBe('completed');
    expect(final.actions?.del?.state?.status).toBe('skipped');
  });

  it('fails with InvalidTarget for a resource type the sandbox has none of', async () => {
    const id = await createTemplate({
      targets: {
        // A type FIS knows that no action of the reference targets, and the sandbox owns none of.
        db: {
          resourceType: 'aws:network-firewall:firewall',
          resourceTags: { Environment: 'staging-chaos' },
          selectionMode: 'ALL',
        },
      },
      actions: { w: { actionId: 'aws:fis:wait', parameters: { duration: 'PT1M' } } },
    });
    const final = await waitForExperiment(fis.client, await start(id), (e) => e.state?.status === 'failed');
    expect(wireState(final).error?.code).toBe('InvalidTarget');
    expect(final.state?.reason).toContain('aws:network-firewall:firewall');
  });

  it('filters by tag: the production-tagged Redis subnet is not selected by the staging tag', async () => {
    const { arns } = await resolvedCount(
      {
        resourceType: 'aws:ec2:subnet',
        resourceTags: { Service: 'redis', Environment: 'staging-chaos' },
        selectionMode: 'ALL',
      },
      {
        p: {
          actionId: 'aws:network:disrupt-connectivity',
          parameters: { duration: 'PT1M' },
          targets: { Subnets: 't' },
        },
      },
    );
    expect(arns).toEqual([REDIS_SUBNET]);
  });
});

describe('the fixture plans resolve in the sandbox', () => {
  const cases: [string, string, number][] = [
    ['redis-partition.yaml', 'redisPrimarySubnet', 1],
    ['sandbox-redis-partition.yaml', 'redisPrimarySubnet', 1],
    ['ecs-stop-task.yaml', 'ordersTasks', 2],
    ['eks-pod-delete.yaml', 'checkoutPods', 1],
    ['eks-pod-network-latency.yaml', 'canaryPods', 1],
    ['eks-pod-cpu-stress.yaml', 'canaryPods', 2],
    ['eks-chaos-mesh-pod-kill.yaml', 'canaryCluster', 1],
    ['fis-template.yaml', 'redisPrimarySubnet', 1],
    ['ec2-cpu-stress-ssm.yaml', 'searchNode', 1],
  ];
  it.each(cases)(
    '%s: a dry run of its FIS section resolves %s to the expected count, none production-tagged',
    async (file, target, count) => {
      const plan = parseYaml(
        readFileSync(new URL(`../../fixtures/plans/${file}`, import.meta.url), 'utf8'),
      ) as {
        fis: {
          targets: NonNullable<CreateExperimentTemplateCommandInput['targets']>;
          actions: NonNullable<CreateExperimentTemplateCommandInput['actions']>;
        };
      };
      const id = await createTemplate({ targets: plan.fis.targets, actions: plan.fis.actions });
      fis.patch.experimentOptions = { actionsMode: 'skip-all' };
      let exp: string;
      try {
        exp = await start(id);
      } finally {
        delete fis.patch.experimentOptions;
      }
      const final = await waitForExperiment(fis.client, exp, (e) =>
        ['completed', 'failed'].includes(String(wireState(e).status)),
      );
      expect(wireState(final)).toMatchObject({ status: 'completed' });
      const resolved =
        (
          await fis.client.send(
            new ListExperimentResolvedTargetsCommand({ experimentId: exp, targetName: target }),
          )
        ).resolvedTargets ?? [];
      expect(resolved).toHaveLength(count);
      const inventory = (
        await sandbox.admin.get<{ targets: { arn: string; tags: Record<string, string> }[] }>('/targets')
      ).targets;
      for (const r of resolved)
        expect(inventory.find((t) => t.arn === r.targetInformation?.arn)?.tags.Environment).toBe(
          'staging-chaos',
        );
      expect(await actionsOf(exp)).toEqual([]);
    },
  );
});

describe('idempotency and errors', () => {
  it('returns the same experiment for the same clientToken and Conflict for a different payload', async () => {
    const id = await createTemplate();
    const token = `run-42/attempt-1/${id}`;
    const a = await start(id, { clientToken: token, tags: { run: '42' } });
    const b = await start(id, { clientToken: token, tags: { run: '42' } });
    expect(b).toBe(a);
    await expect(start(id, { clientToken: token, tags: { run: '43' } })).rejects.toMatchObject({
      name: 'ConflictException',
      $metadata: { httpStatusCode: 409 },
    });
    const listed = await fis.client.send(new ListExperimentsCommand({}));
    expect(listed.experiments?.filter((e) => e.id === a)).toHaveLength(1);
    await fis.client.send(new StopExperimentCommand({ id: a }));
  });

  it('answers ResourceNotFoundException 404 for an unknown template and experiment', async () => {
    await expect(fis.client.send(new GetExperimentTemplateCommand({ id: 'EXTnope' }))).rejects.toMatchObject({
      name: 'ResourceNotFoundException',
      $metadata: { httpStatusCode: 404 },
    });
    await expect(start('EXTnope')).rejects.toMatchObject({ name: 'ResourceNotFoundException' });
  });

  it('answers ValidationException 400 naming the field for model violations and bad templates', async () => {
    const missing = fis.client.send(
      new CreateExperimentTemplateCommand({ ...template(), roleArn: undefined as never }),
    );
    await expect(missing).rejects.toMatchObject({
      name: 'ValidationException',
      $metadata: { httpStatusCode: 400 },
    });
    await expect(missing).rejects.toThrow(/'roleArn'/);
    const spaces = fis.client.send(
      new CreateExperimentTemplateCommand(
        template({
          actions: { w: { actionId: 'aws:fis:wait', parameters: { duration: 'PT1M with spaces' } } },
          targets: {},
        }),
      ),
    );
    await expect(spaces).rejects.toThrow(/pattern/);
    const unknown = fis.client.send(
      new CreateExperimentTemplateCommand(template({ actions: { x: { actionId: 'aws:nope:boom' } } })),
    );
    await expect(unknown).rejects.toThrow(/aws:nope:boom/);
    const both = fis.client.send(
      new CreateExperimentTemplateCommand(
        template({
          targets: {
            redis: {
              resourceType: 'aws:ec2:subnet',
              resourceArns: [REDIS_SUBNET],
              resourceTags: { a: 'b' },
              selectionMode: 'ALL',
            },
          },
        }),
      ),
    );
    await expect(both).rejects.toThrow(/not both/);
  });

  it('answers ServiceQuotaExceededException 402 past 5 active experiments', async () => {
    const id = await createTemplate({
      targets: {},
      actions: { w: { actionId: 'aws:fis:wait', parameters: { duration: 'PT1H' } } },
    });
    const live: string[] = [];
    try {
      let error: unknown;
      for (let i = 0; i < 6 && !error; i++) {
        try {
          live.push(await start(id));
        } catch (e) {
          error = e;
        }
      }
      expect(error).toMatchObject({
        name: 'ServiceQuotaExceededException',
        $metadata: { httpStatusCode: 402 },
      });
    } finally {
      for (const e of live)
        await fis.client.send(new StopExperimentCommand({ id: e })).catch(() => undefined);
      for (const e of live) await waitForExperiment(fis.client, e, (x) => x.state?.status === 'stopped');
    }
  });
});

describe('the active-experiments quota (lowered through the admin endpoint)', () => {
  it('counts a live dry run, answers ServiceQuotaExceededException 402 past it, and records the peak', async () => {
    const id = await createTemplate({
      targets: {},
      actions: { w: { actionId: 'aws:fis:wait', parameters: { duration: 'PT1H' } } },
    });
    await sandbox.admin.send('PATCH', '/fis/quotas', { activeExperiments: 2 });
    const live: string[] = [];
    try {
      live.push(await start(id));
      // The dry run is still initiating (150 ms), so it is an active experiment like any other.
      fis.patch.experimentOptions = { actionsMode: 'skip-all' };
      try {
        live.push(await start(id));
      } finally {
        delete fis.patch.experimentOptions;
      }
      await expect(start(id)).rejects.toMatchObject({
        name: 'ServiceQuotaExceededException',
        message: 'The quota of 2 active experiments is reached.',
        $metadata: { httpStatusCode: 402 },
      });
      const { quotas } = await sandbox.admin.get<{
        quotas: { activeExperiments: number; peakLive: number; quotaAnswers: number };
      }>('/fis/quotas');
      expect(quotas.activeExperiments).toBe(2);
      expect(quotas.peakLive).toBeGreaterThanOrEqual(2);
      expect(quotas.quotaAnswers).toBeGreaterThanOrEqual(1);
    } finally {
      await sandbox.admin.send('PATCH', '/fis/quotas', { activeExperiments: 5 });
      for (const e of live)
        await fis.client.send(new StopExperimentCommand({ id: e })).catch(() => undefined);
      for (const e of live)
        await waitForExperiment(fis.client, e, (x) =>
          ['stopped', 'completed'].includes(String(x.state?.status)),
        );
    }
  });

  it('refuses a quota above what FIS allows, naming the field', async () => {
    await expect(sandbox.admin.send('PATCH', '/fis/quotas', { activeExperiments: 6 })).rejects.toThrow(
      /400.*activeExperiments/,
    );
  });
});

describe('templates, tags and listing', () => {
  it('creates, updates (present fields replace), lists, tags and deletes a template', async () => {
    const created = await fis.client.send(new CreateExperimentTemplateCommand(template()));
    const t = created.experimentTemplate!;
    expect(t.id).toMatch(/^EXT/);
    // 3.523.0's deserializer drops the template ARN; read it from the wire.
    const wire = JSON.parse(fis.exchanges.at(-1)!.responseBody) as { experimentTemplate: { arn: string } };
    const arn = wire.experimentTemplate.arn;
    expect(arn).toBe(`arn:aws:fis:us-east-1:123456789012:experiment-template/${t.id}`);
    expect(t.experimentOptions).toEqual({
      accountTargeting: 'single-account',
      emptyTargetResolutionMode: 'fail',
    });
    expect(t.creationTime).toBeInstanceOf(Date);

    const updated = await fis.client.send(
      new UpdateExperimentTemplateCommand({ id: t.id!, description: 'changed' }),
    );
    expect(updated.experimentTemplate?.description).toBe('changed');
    expect(updated.experimentTemplate?.actions).toEqual(t.actions);

    await fis.client.send(new TagResourceCommand({ resourceArn: arn, tags: { team: 'sre', tier: 'gold' } }));
    await fis.client.send(new UntagResourceCommand({ resourceArn: arn, tagKeys: ['tier'] }));
    const tags = await fis.client.send(new ListTagsForResourceCommand({ resourceArn: arn }));
    expect(tags.tags).toEqual({ 'chaos-gate:plan': 'sandbox-test', team: 'sre' });

    const listed = await fis.client.send(new ListExperimentTemplatesCommand({ maxResults: 100 }));
    expect(listed.experimentTemplates?.find((x) => x.id === t.id)?.tags).toEqual({
      'chaos-gate:plan': 'sandbox-test',
      team: 'sre',
    });

    await fis.client.send(new DeleteExperimentTemplateCommand({ id: t.id! }));
    await expect(fis.client.send(new GetExperimentTemplateCommand({ id: t.id! }))).rejects.toMatchObject({
      name: 'ResourceNotFoundException',
    });
  });

  it('filters ListExperiments by experimentTemplateId when the query carries it', async () => {
    const id = await createTemplate({
      targets: {},
      actions: { w: { actionId: 'aws:fis:wait', parameters: { duration: 'PT1M' } } },
    });
    const exp = await start(id);
    fis.patch.experimentTemplateId = id;
    try {
      const listed = await fis.client.send(new ListExperimentsCommand({}));
      expect(listed.experiments?.map((e) => e.id)).toEqual([exp]);
    } finally {
      delete fis.patch.experimentTemplateId;
    }
  });

  it('paginates with maxResults and nextToken', async () => {
    for (let i = 0; i < 3; i++) await createTemplate();
    const first = await fis.client.send(new ListExperimentTemplatesCommand({ maxResults: 2 }));
    expect(first.experimentTemplates).toHaveLength(2);
    expect(first.nextToken).toBeTruthy();
    const second = await fis.client.send(
      new ListExperimentTemplatesCommand({ maxResults: 2, nextToken: first.nextToken! }),
    );
    expect(second.experimentTemplates?.[0]?.id).not.toBe(first.experimentTemplates?.[0]?.id);
  });
});

describe('API faults from the admin endpoint', () => {
  it('throttles GetExperimentTemplate once with 429 ThrottlingException; the SDK retries and succeeds', async () => {
    const id = await createTemplate();
    await sandbox.admin.send('POST', '/faults', {
      service: 'fis',
      operation: 'GetExperimentTemplate',
      kind: 'throttle',
      count: 1,
    });
    const before =
      (await sandbox.admin.get<{ requests: { seq: number }[] }>('/requests')).requests.at(-1)?.seq ?? 0;
    const out = await fis.client.send(new GetExperimentTemplateCommand({ id }));
    expect(out.experimentTemplate?.id).toBe(id);
    const log = (
      await sandbox.admin.get<{ requests: { operation: string; status: number; fault?: string }[] }>(
        `/requests?since=${before}&operation=GetExperimentTemplate`,
      )
    ).requests;
    expect(log.map((r) => r.status)).toEqual([429, 200]);
    expect(log[0]?.fault).toMatch(/^throttle#/);
  });

  it('answers 5xx for a time-limited error fault and reports it as InternalServerException without retries left', async () => {
    const plain = recordingFis(sandbox.urls.aws, { maxAttempts: 1 });
    await sandbox.admin.send('POST', '/faults', {
      service: 'fis',
      operation: 'ListExperiments',
      kind: 'error',
      status: 503,
      durationMs: 60_000,
    });
    try {
      await expect(plain.client.send(new ListExperimentsCommand({}))).rejects.toMatchObject({
        name: 'InternalServerException',
        $metadata: { httpStatusCode: 503 },
      });
    } finally {
      await sandbox.admin.send('DELETE', '/faults');
    }
  });

  it('drops the connection for a drop fault', async () => {
    const plain = recordingFis(sandbox.urls.aws, { maxAttempts: 1 });
    await sandbox.admin.send('POST', '/faults', {
      service: 'fis',
      operation: 'ListExperimentTemplates',
      kind: 'drop',
      count: 1,
    });
    await expect(plain.client.send(new ListExperimentTemplatesCommand({}))).rejects.toThrow();
    const ok = await plain.client.send(new ListExperimentTemplatesCommand({}));
    expect(ok.experimentTemplates?.length).toBeGreaterThan(0);
  });

  it('starts the experiment but loses its answer for a drop-answer fault; the same token finds it again', async () => {
    const id = await createTemplate();
    const plain = recordingFis(sandbox.urls.aws, { maxAttempts: 1 });
    await sandbox.admin.send('POST', '/faults', {
      service: 'fis',
      operation: 'StartExperiment',
      kind: 'drop-answer',
      count: 1,
    });
    const input = {
      experimentTemplateId: id,
      clientToken: `lost-answer-${Date.now()}`,
      tags: { 'chaos-gate:run': 'lost-answer' },
    };
    await expect(plain.client.send(new StartExperimentCommand(input))).rejects.toThrow();
    const listed = await plain.client.send(new ListExperimentsCommand({}));
    const mine = listed.experiments?.filter((e) => e.tags?.['chaos-gate:run'] === 'lost-answer') ?? [];
    expect(mine).toHaveLength(1);
    const again = await plain.client.send(new StartExperimentCommand(input));
    expect(again.experiment?.id).toBe(mine[0]!.id);
    await plain.client.send(new StopExperimentCommand({ id: mine[0]!.id! }));
    await waitForExperiment(plain.client, mine[0]!.id!, (e) => e.state?.status === 'stopped');
  });

  it('refuses a drop-answer fault for CloudWatch: only FIS answers can be lost that way', async () => {
    await expect(
      sandbox.admin.send('POST', '/faults', { service: 'cloudwatch', kind: 'drop-answer' }),
    ).rejects.toThrow(/drop-answer faults apply to FIS only/);
  });

  it('rejects a malformed fault with the field and the expectation', async () => {
    await expect(sandbox.admin.send('POST', '/faults', { kind: 'latency' })).rejects.toThrow(
      /latency faults need latencyMs/,
    );
    await expect(sandbox.admin.send('POST', '/faults', { kind: 'explode' })).rejects.toThrow(/kind/);
  });
});

describe('wire contract against the official FIS model', () => {
  const model = `${AWS_MODELS_DIR}/fis.json`;
  const IMPLEMENTED = [
    'CreateExperimentTemplate',
    'GetExperimentTemplate',
    'UpdateExperimentTemplate',
    'DeleteExperimentTemplate',
    'ListExperimentTemplates',
    'StartExperiment',
    'GetExperiment',
    'StopExperiment',
    'ListExperiments',
    'ListExperimentResolvedTargets',
    'TagResource',
    'UntagResource',
    'ListTagsForResource',
  ];

  it('every accepted request body and every 200 response validates against fis.json', async () => {
    const { ListActionsCommand, GetActionCommand } = await import('@aws-sdk/client-fis');
    await fis.client.send(new ListActionsCommand({}));
    await fis.client.send(new GetActionCommand({ id: 'aws:fis:wait' }));
    const problems: string[] = [];
    for (const x of fis.exchanges) {
      // Requests the stand-in accepted must be valid; the rejected ones are the deliberate bad inputs.
      if (x.requestBody && x.status === 200)
        for (const p of validateOperationInput(model, x.operation, JSON.parse(x.requestBody), {
          bodyOnly: true,
          timestamps: 'epoch-seconds',
        }))
          problems.push(`${x.operation} request: ${p}`);
      if (x.status === 200)
        for (const p of validateOperationOutput(model, x.operation, JSON.parse(x.responseBody), {
          timestamps: 'epoch-seconds',
        }))
          problems.push(`${x.operation} response: ${p}`);
    }
    expect(problems).toEqual([]);
    const seen = new Set(fis.exchanges.filter((x) => x.status === 200).map((x) => x.operation));
    expect(IMPLEMENTED.filter((op) => !seen.has(op))).toEqual([]);
  });

  it('error responses carry x-amzn-ErrorType with a modeled error of the operation and a message', async () => {
    const errors = fis.exchanges.filter((x) => x.status >= 400 && x.status < 500 && x.status !== 429);
    expect(errors.length).toBeGreaterThan(3);
    for (const x of errors) {
      const body = JSON.parse(x.responseBody) as { message?: unknown };
      expect(typeof body.message, `${x.operation} ${x.status}`).toBe('string');
      const code = {
        400: 'ValidationException',
        402: 'ServiceQuotaExceededException',
        404: 'ResourceNotFoundException',
        409: 'ConflictException',
      }[x.status];
      expect(code, `${x.operation} ${x.status}`).toBeDefined();
      expect(validateShape(model, code!, body)).toEqual([]);
    }
  });

  it('the safety-lever operations validate against the model both ways', async () => {
    const input = { state: { status: 'engaged', reason: 'contract test' } };
    expect(validateOperationInput(model, 'UpdateSafetyLeverState', { id: 'default', ...input })).toEqual([]);
    const engaged = await signedFisCall(sandbox.urls.aws, 'PATCH', '/safetyLevers/default/state', input);
    expect(
      validateOperationOutput(model, 'UpdateSafetyLeverState', engaged.json, { timestamps: 'epoch-seconds' }),
    ).toEqual([]);
    const got = await signedFisCall(sandbox.urls.aws, 'GET', '/safetyLevers/default');
    expect(
      validateOperationOutput(model, 'GetSafetyLever', got.json, { timestamps: 'epoch-seconds' }),
    ).toEqual([]);
    await waitForLever('engaged');
    const off = await signedFisCall(sandbox.urls.aws, 'PATCH', '/safetyLevers/default/state', {
      state: { status: 'disengaged', reason: 'done' },
    });
    expect(off.status).toBe(200);
  });
});

async function waitForLever(status: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    const got = await signedFisCall(sandbox.urls.aws, 'GET', '/safetyLevers/default');
    if ((got.json.safetyLever as { state: { status: string } }).state.status === status) return;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`the safety lever never became ${status}`);
}
