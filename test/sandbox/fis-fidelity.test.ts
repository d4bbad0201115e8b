/**
 * The FIS stand-in where it had drifted from AWS, through the real pinned `@aws-sdk/client-fis` against a
 * sandbox child process, every exchange validated against the official model: each action's documented
 * parameter limits (a PT15S partition is a ValidationException), the EKS actions and how the canary
 * reacts to them, and target account configurations with multi-account experiments.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CreateExperimentTemplateCommand,
  CreateTargetAccountConfigurationCommand,
  DeleteTargetAccountConfigurationCommand,
  GetActionCommand,
  GetExperimentTargetAccountConfigurationCommand,
  GetTargetAccountConfigurationCommand,
  ListExperimentResolvedTargetsCommand,
  ListExperimentTargetAccountConfigurationsCommand,
  ListTargetAccountConfigurationsCommand,
  ListTargetResourceTypesCommand,
  StartExperimentCommand,
  StopExperimentCommand,
  UpdateExperimentTemplateCommand,
  UpdateTargetAccountConfigurationCommand,
  type CreateExperimentTemplateCommandInput,
} from '@aws-sdk/client-fis';
import { startSandboxProcess, type RunningSandbox } from '../helpers/sandbox.js';
import { AWS_MODELS_DIR, validateOperationInput, validateOperationOutput } from '../helpers/smithy.js';
import { recordingFis, waitForExperiment, wireState, type RecordingFis } from './fis-client.js';

const ROLE = 'arn:aws:iam::123456789012:role/FisExperimentRole';
const TARGET_ACCOUNT = '210987654321';
const TARGET_ROLE = `arn:aws:iam::${TARGET_ACCOUNT}:role/FisTargetRole`;
const CANARY_CLUSTER = 'arn:aws:eks:us-east-1:123456789012:cluster/canary-eks';

let sandbox: RunningSandbox;
let fis: RecordingFis;

beforeAll(async () => {
  sandbox = await startSandboxProcess({
    config: {
      // PT1M × 0.01 = 600 ms: the documented one-minute minimum, without waiting a minute.
      fis: { initiatingMs: 100, stoppingMs: 100, durationScale: 0.01, stopConditionPollMs: 100 },
      load: { rate: 40, concurrency: 32 },
    },
  });
  fis = recordingFis(sandbox.urls.aws);
});

afterAll(async () => {
  await sandbox?.stop();
});

function partition(duration: string): CreateExperimentTemplateCommandInput {
  return {
    description: 'fidelity template',
    roleArn: ROLE,
    stopConditions: [{ source: 'none' }],
    targets: {
      redis: {
        resourceType: 'aws:ec2:subnet',
        resourceTags: { Environment: 'staging-chaos', Service: 'redis' },
        selectionMode: 'COUNT(1)',
      },
    },
    actions: {
      partition: {
        actionId: 'aws:network:disrupt-connectivity',
        parameters: { duration, scope: 'all' },
        targets: { Subnets: 'redis' },
      },
    },
  };
}

const pods = (labels = 'app=canary') => ({
  resourceType: 'aws:eks:pod',
  parameters: {
    clusterIdentifier: CANARY_CLUSTER,
    namespace: 'canary',
    selectorType: 'labelSelector',
    selectorValue: labels,
  },
  selectionMode: 'COUNT(2)',
});

async function create(input: CreateExperimentTemplateCommandInput): Promise<string> {
  return (await fis.client.send(new CreateExperimentTemplateCommand(input))).experimentTemplate!.id!;
}

async function startAndWaitRunning(templateId: string): Promise<string> {
  const id = (await fis.client.send(new StartExperimentCommand({ experimentTemplateId: templateId })))
    .experiment!.id!;
  await waitForExperiment(fis.client, id, (e) => wireState(e).status === 'running');
  return id;
}

async function faultsOf(experimentId: string): Promise<{ kind: string; share?: number; addedMs?: number }[]> {
  const deadline = Date.now() + 5000;
  while (Date.now() < deadline) {
    const { faults } = await sandbox.admin.get<{ faults: Record<string, { kind: string }> }>('/canary');
    const mine = Object.entries(faults).filter(([k]) => k.startsWith(`${experimentId}/`));
    if (mine.length) return mine.map(([, f]) => f);
    await new Promise((r) => setTimeout(r, 20));
  }
  return [];
}

describe('documented action parameter limits', () => {
  it('refuses a PT15S disrupt-connectivity partition with a ValidationException naming the parameter, and takes PT1M', async () => {
    await expect(create(partition('PT15S'))).rejects.toMatchObject({
      name: 'ValidationException',
      message:
        'Action partition: the value PT15S of parameter duration must be an ISO 8601 duration between PT1M and PT12H.',
    });
    await expect(create(partition('PT12H1S'))).rejects.toThrow(/between PT1M and PT12H/);
    const id = await create(partition('PT1M'));
    await expect(
      fis.client.send(
        new UpdateExperimentTemplateCommand({
          id,
          actions: {
            partition: {
              ...partition('PT30S').actions!.partition!,
              actionId: 'aws:network:disrupt-connectivity',
            },
          },
        }),
      ),
    ).rejects.toThrow(/PT30S of parameter duration must be an ISO 8601 duration between PT1M and PT12H/);
  });

  it('refuses a bad scope, a missing service account and an out-of-range percent', async () => {
    const bad = partition('PT1M');
    bad.actions!.partition!.parameters = { duration: 'PT1M', scope: 'everything' };
    await expect(create(bad)).rejects.toThrow(/scope must be one of all, availability-zone/);
    await expect(
      create({
        ...partition('PT1M'),
        targets: { pods: pods() },
        actions: { del: { actionId: 'aws:eks:pod-delete', targets: { Pods: 'pods' } } },
      }),
    ).rejects.toThrow(/parameter kubernetesServiceAccount is required/);
    await expect(
      create({
        ...partition('PT1M'),
        targets: { pods: pods() },
        actions: {
          cpu: {
            actionId: 'aws:eks:pod-cpu-stress',
            parameters: { duration: 'PT1M', percent: '150', kubernetesServiceAccount: 'fis' },
            targets: { Pods: 'pods' },
          },
        },
      }),
    ).rejects.toThrow(/percent must be a whole number between 0 and 100/);
  });
});

describe('EKS actions and the canary', () => {
  it('describes every EKS action with its target key and parameters (GetAction)', async () => {
    for (const [id, key] of [
      ['aws:eks:pod-delete', 'Pods'],
      ['aws:eks:pod-network-latency', 'Pods'],
      ['aws:eks:pod-cpu-stress', 'Pods'],
      ['aws:eks:inject-kubernetes-custom-resource', 'Cluster'],
    ] as const) {
      const a = (await fis.client.send(new GetActionCommand({ id }))).action!;
      expect(Object.keys(a.targets ?? {}), id).toEqual([key]);
      expect(a.parameters, id).toBeDefined();
    }
  });

  it('pod-network-latency adds its delay to 2 of the 5 canary pods (share 0.4)', async () => {
    const id = await startAndWaitRunning(
      await create({
        ...partition('PT1M'),
        targets: { pods: pods() },
        actions: {
          lag: {
            actionId: 'aws:eks:pod-network-latency',
            parameters: { duration: 'PT10M', delayMilliseconds: '300', kubernetesServiceAccount: 'fis' },
            targets: { Pods: 'pods' },
          },
        },
      }),
    );
    expect(await faultsOf(id)).toEqual([{ kind: 'latency', addedMs: 300, jitterMs: 10, share: 0.4 }]);
    await fis.client.send(new StopExperimentCommand({ id }));
  });

  it('pod-cpu-stress slows the pods it stresses', async () => {
    const id = await startAndWaitRunning(
      await create({
        ...partition('PT1M'),
        targets: { pods: pods() },
        actions: {
          cpu: {
            actionId: 'aws:eks:pod-cpu-stress',
            parameters: { duration: 'PT10M', percent: '80', kubernetesServiceAccount: 'fis' },
            targets: { Pods: 'pods' },
          },
        },
      }),
    );
    expect(await faultsOf(id)).toMatchObject([{ kind: 'cpu-stress', share: 0.4 }]);
    await fis.client.send(new StopExperimentCommand({ id }));
  });

  it("a Chaos Mesh PodChaos (mode fixed, value 3) kills 3 of the cluster's 5 canary pods: an error burst of 0.6", async () => {
    const spec = {
      action: 'pod-kill',
      mode: 'fixed',
      value: '3',
      selector: { namespaces: ['canary'], labelSelectors: { app: 'canary' } },
      duration: '10m',
    };
    const id = await startAndWaitRunning(
      await create({
        ...partition('PT1M'),
        targets: {
          cluster: { resourceType: 'aws:eks:cluster', resourceArns: [CANARY_CLUSTER], selectionMode: 'ALL' },
        },
        actions: {
          chaos: {
            actionId: 'aws:eks:inject-kubernetes-custom-resource',
            parameters: {
              kubernetesApiVersion: 'chaos-mesh.org/v1alpha1',
              kubernetesKind: 'PodChaos',
              kubernetesNamespace: 'canary',
              kubernetesSpec: JSON.stringify(spec),
              maxDuration: 'PT10M',
            },
            targets: { Cluster: 'cluster' },
          },
        },
      }),
    );
    expect(await faultsOf(id)).toMatchObject([{ kind: 'error-burst', share: 0.6 }]);
    await fis.client.send(new StopExperimentCommand({ id }));
  });

  it('a Litmus ChaosEngine pod-network-latency delays the share of pods PODS_AFFECTED_PERC names', async () => {
    const spec = {
      appinfo: { appns: 'canary', applabel: 'app=canary', appkind: 'deployment' },
      experiments: [
        {
          name: 'pod-network-latency',
          spec: {
            components: {
              env: [
                { name: 'NETWORK_LATENCY', value: '250' },
                { name: 'PODS_AFFECTED_PERC', value: '40' },
                { name: 'TOTAL_CHAOS_DURATION', value: '600' },
              ],
            },
          },
        },
      ],
    };
    const id = await startAndWaitRunning(
      await create({
        ...partition('PT1M'),
        targets: {
          cluster: { resourceType: 'aws:eks:cluster', resourceArns: [CANARY_CLUSTER], selectionMode: 'ALL' },
        },
        actions: {
          chaos: {
            actionId: 'aws:eks:inject-kubernetes-custom-resource',
            parameters: {
              kubernetesApiVersion: 'litmuschaos.io/v1alpha1',
              kubernetesKind: 'ChaosEngine',
              kubernetesNamespace: 'litmus',
              kubernetesSpec: JSON.stringify(spec),
              maxDuration: 'PT10M',
            },
            targets: { Cluster: 'cluster' },
          },
        },
      }),
    );
    expect(await faultsOf(id)).toEqual([{ kind: 'latency', addedMs: 250, jitterMs: 0, share: 0.4 }]);
    await fis.client.send(new StopExperimentCommand({ id }));
  });
});

describe('target account configurations and multi-account experiments', () => {
  const multi = (): CreateExperimentTemplateCommandInput => ({
    ...partition('PT1M'),
    targets: {
      redis: {
        resourceType: 'aws:ec2:subnet',
        resourceTags: { Environment: 'staging-chaos', 'chaos-target': 'redis-pay-primary-01' },
        selectionMode: 'COUNT(1)',
      },
    },
    experimentOptions: { accountTargeting: 'multi-account' },
  });

  it('creates, reads, updates, lists and deletes a target account configuration, with the modeled errors', async () => {
    const single = await create(partition('PT1M'));
    await expect(
      fis.client.send(
        new CreateTargetAccountConfigurationCommand({
          experimentTemplateId: single,
          accountId: TARGET_ACCOUNT,
          roleArn: TARGET_ROLE,
        }),
      ),
    ).rejects.toMatchObject({ name: 'ValidationException' });
    const id = await create(multi());
    const created = await fis.client.send(
      new CreateTargetAccountConfigurationCommand({
        experimentTemplateId: id,
        accountId: TARGET_ACCOUNT,
        roleArn: TARGET_ROLE,
        description: 'staging',
      }),
    );
    expect(created.targetAccountConfiguration).toEqual({
      accountId: TARGET_ACCOUNT,
      roleArn: TARGET_ROLE,
      description: 'staging',
    });
    await expect(
      fis.client.send(
        new CreateTargetAccountConfigurationCommand({
          experimentTemplateId: id,
          accountId: TARGET_ACCOUNT,
          roleArn: TARGET_ROLE,
        }),
      ),
    ).rejects.toMatchObject({ name: 'ConflictException' });
    await expect(
      fis.client.send(
        new CreateTargetAccountConfigurationCommand({
          experimentTemplateId: id,
          accountId: '333344445555',
          roleArn: TARGET_ROLE,
        }),
      ),
    ).rejects.toThrow(/is not in the target account 333344445555/);
    await fis.client.send(
      new UpdateTargetAccountConfigurationCommand({
        experimentTemplateId: id,
        accountId: TARGET_ACCOUNT,
        description: 'staging-eu',
      }),
    );
    const got = await fis.client.send(
      new GetTargetAccountConfigurationCommand({ experimentTemplateId: id, accountId: TARGET_ACCOUNT }),
    );
    expect(got.targetAccountConfiguration?.description).toBe('staging-eu');
    const listed = await fis.client.send(
      new ListTargetAccountConfigurationsCommand({ experimentTemplateId: id }),
    );
    expect(listed.targetAccountConfigurations?.map((c) => c.accountId)).toEqual([TARGET_ACCOUNT]);
    await fis.client.send(
      new DeleteTargetAccountConfigurationCommand({ experimentTemplateId: id, accountId: TARGET_ACCOUNT }),
    );
    await expect(
      fis.client.send(
        new GetTargetAccountConfigurationCommand({ experimentTemplateId: id, accountId: TARGET_ACCOUNT }),
      ),
    ).rejects.toMatchObject({ name: 'ResourceNotFoundException' });
    // A multi-account template without target accounts has nothing to run against.
    await expect(fis.client.send(new StartExperimentCommand({ experimentTemplateId: id }))).rejects.toThrow(
      /no target account configurations/,
    );
  });

  it('resolves the targets in every target account, selecting per account, and snapshots the accounts', async () => {
    const id = await create(multi());
    for (const accountId of ['123456789012', TARGET_ACCOUNT])
      await fis.client.send(
        new CreateTargetAccountConfigurationCommand({
          experimentTemplateId: id,
          accountId,
          roleArn: `arn:aws:iam::${accountId}:role/FisTargetRole`,
        }),
      );
    const exp = (await fis.client.send(new StartExperimentCommand({ experimentTemplateId: id }))).experiment!;
    expect(exp.targetAccountConfigurationsCount).toBe(2);
    const final = await waitForExperiment(fis.client, exp.id!, (e) =>
      ['completed', 'failed'].includes(String(wireState(e).status)),
    );
    expect(wireState(final).status).toBe('completed');
    const resolved =
      (await fis.client.send(new ListExperimentResolvedTargetsCommand({ experimentId: exp.id! })))
        .resolvedTargets ?? [];
    expect(resolved.map((r) => r.targetInformation?.arn?.split(':')[4]).sort()).toEqual([
      '123456789012',
      TARGET_ACCOUNT,
    ]);
    const listed = await fis.client.send(
      new ListExperimentTargetAccountConfigurationsCommand({ experimentId: exp.id! }),
    );
    expect(listed.targetAccountConfigurations?.map((c) => c.accountId).sort()).toEqual([
      '123456789012',
      TARGET_ACCOUNT,
    ]);
    const one = await fis.client.send(
      new GetExperimentTargetAccountConfigurationCommand({
        experimentId: exp.id!,
        accountId: TARGET_ACCOUNT,
      }),
    );
    expect(one.targetAccountConfiguration?.roleArn).toBe(`arn:aws:iam::${TARGET_ACCOUNT}:role/FisTargetRole`);
  });

  it('fails with InvalidTarget naming the account where a target resolves nothing', async () => {
    const id = await create({
      ...multi(),
      targets: {
        redis: {
          resourceType: 'aws:ec2:subnet',
          resourceArns: [`arn:aws:ec2:us-east-1:${TARGET_ACCOUNT}:subnet/subnet-0000000000000dead`],
          selectionMode: 'ALL',
        },
      },
    });
    await fis.client.send(
      new CreateTargetAccountConfigurationCommand({
        experimentTemplateId: id,
        accountId: TARGET_ACCOUNT,
        roleArn: TARGET_ROLE,
      }),
    );
    const exp = (await fis.client.send(new StartExperimentCommand({ experimentTemplateId: id }))).experiment!;
    const final = await waitForExperiment(fis.client, exp.id!, (e) =>
      ['completed', 'failed'].includes(String(wireState(e).status)),
    );
    expect(wireState(final)).toMatchObject({
      status: 'failed',
      error: { code: 'InvalidTarget', accountId: TARGET_ACCOUNT, location: 'redis' },
    });
  });

  it('lists the target resource types it knows', async () => {
    const types = (await fis.client.send(new ListTargetResourceTypesCommand({}))).targetResourceTypes ?? [];
    expect(types.map((t) => t.resourceType)).toEqual(
      expect.arrayContaining(['aws:eks:pod', 'aws:eks:cluster', 'aws:ec2:subnet']),
    );
  });
});

describe('wire contract of the new operations against the official FIS model', () => {
  it('every accepted request and every 200 response above validates against fis.json', () => {
    const model = `${AWS_MODELS_DIR}/fis.json`;
    const problems: string[] = [];
    for (const x of fis.exchanges) {
      if (x.status !== 200) continue;
      if (x.requestBody)
        for (const p of validateOperationInput(model, x.operation, JSON.parse(x.requestBody), {
          bodyOnly: true,
          timestamps: 'epoch-seconds',
        }))
          problems.push(`${x.operation} request: ${p}`);
      for (const p of validateOperationOutput(model, x.operation, JSON.parse(x.responseBody), {
        timestamps: 'epoch-seconds',
      }))
        problems.push(`${x.operation} response: ${p}`);
    }
    expect(problems).toEqual([]);
    const seen = new Set(fis.exchanges.filter((x) => x.status === 200).map((x) => x.operation));
    for (const op of [
      'CreateTargetAccountConfiguration',
      'GetTargetAccountConfiguration',
      'UpdateTargetAccountConfiguration',
      'DeleteTargetAccountConfiguration',
      'ListTargetAccountConfigurations',
      'GetExperimentTargetAccountConfiguration',
      'ListExperimentTargetAccountConfigurations',
      'ListTargetResourceTypes',
    ])
      expect(seen, op).toContain(op);
  });
});
