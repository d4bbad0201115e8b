/**
 * The template and tag contract run twice — against the sandbox and against `moto_server` (which
 * keeps FIS templates and tags but runs no experiments) — through the same real FIS client. Both must
 * answer the same way, and both answers must validate against the official model. Skipped, with the
 * reason printed, where moto is absent.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CreateExperimentTemplateCommand,
  DeleteExperimentTemplateCommand,
  GetExperimentTemplateCommand,
  ListExperimentTemplatesCommand,
  ListTagsForResourceCommand,
  TagResourceCommand,
  UntagResourceCommand,
  UpdateExperimentTemplateCommand,
} from '@aws-sdk/client-fis';
import { startMoto, type MotoServer } from '../helpers/moto.js';
import { startSandboxProcess, type RunningSandbox } from '../helpers/sandbox.js';
import { AWS_MODELS_DIR, validateOperationOutput } from '../helpers/smithy.js';
import { recordingFis, type RecordingFis } from './fis-client.js';

const MODEL = `${AWS_MODELS_DIR}/fis.json`;
let sandbox: RunningSandbox;
let moto: MotoServer | undefined;
let skipReason = '';

beforeAll(async () => {
  sandbox = await startSandboxProcess({ args: ['--no-load'] });
  const started = await startMoto();
  if (started.ok) moto = started.server;
  else {
    skipReason = started.skipReason;
    console.warn(`moto comparison skipped: ${skipReason}`);
  }
});

afterAll(async () => {
  await moto?.stop();
  await sandbox?.stop();
});

/**
 * What the contract observes, in a form both back ends must produce identically. moto 5.2.1 implements
 * only Create/DeleteExperimentTemplate and the three tag operations, so the shared part is those; the
 * sandbox-only part adds Get, Update and List.
 */
async function scenario(fis: RecordingFis, full: boolean): Promise<Record<string, unknown>> {
  const created = await fis.client.send(
    new CreateExperimentTemplateCommand({
      description: 'contract template',
      roleArn: 'arn:aws:iam::123456789012:role/FisExperimentRole',
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
          parameters: { duration: 'PT1M', scope: 'all' },
          targets: { Subnets: 'redis' },
        },
      },
      tags: { 'chaos-gate:plan': 'redis-partition' },
    }),
  );
  const t = created.experimentTemplate!;
  const id = t.id!;
  // The ARN of SAR-FIS's resource table (moto does not return `arn`; 3.523.0 would drop it anyway).
  const arn = `arn:aws:fis:us-east-1:123456789012:experiment-template/${id}`;
  await fis.client.send(new TagResourceCommand({ resourceArn: arn, tags: { team: 'sre', tier: 'gold' } }));
  await fis.client.send(new UntagResourceCommand({ resourceArn: arn, tagKeys: ['tier'] }));
  const tags = await fis.client.send(new ListTagsForResourceCommand({ resourceArn: arn }));
  const shared: Record<string, unknown> = {
    description: t.description,
    targets: t.targets,
    actions: t.actions,
    stopConditions: t.stopConditions,
    roleArn: t.roleArn,
    createdTags: t.tags,
    tags: tags.tags,
  };
  if (full) {
    const got = await fis.client.send(new GetExperimentTemplateCommand({ id }));
    const updated = await fis.client.send(
      new UpdateExperimentTemplateCommand({ id, description: 'contract template v2' }),
    );
    const listed = await fis.client.send(new ListExperimentTemplatesCommand({}));
    shared.sandboxOnly = {
      getMatchesCreate: JSON.stringify(got.experimentTemplate?.actions) === JSON.stringify(t.actions),
      updatedDescription: updated.experimentTemplate?.description,
      actionsKeptOnUpdate: JSON.stringify(updated.experimentTemplate?.actions) === JSON.stringify(t.actions),
      listedTags: listed.experimentTemplates?.find((x) => x.id === id)?.tags,
    };
  }
  const deleted = await fis.client.send(new DeleteExperimentTemplateCommand({ id }));
  shared.deletedId = deleted.experimentTemplate?.id === id;
  return shared;
}

function modelProblems(fis: RecordingFis): string[] {
  return fis.exchanges
    .filter((x) => x.status === 200)
    .flatMap((x) =>
      validateOperationOutput(MODEL, x.operation, JSON.parse(x.responseBody), {
        timestamps: 'epoch-seconds',
      }).map((p) => `${x.operation}: ${p}`),
    );
}

describe('FIS templates and tags: sandbox vs moto_server', () => {
  it('the sandbox passes the template/tag contract and its answers validate against fis.json', async () => {
    const fis = recordingFis(sandbox.urls.aws);
    const result = await scenario(fis, true);
    expect(result).toMatchObject({
      createdTags: { 'chaos-gate:plan': 'redis-partition' },
      tags: { 'chaos-gate:plan': 'redis-partition', team: 'sre' },
      deletedId: true,
      sandboxOnly: {
        getMatchesCreate: true,
        updatedDescription: 'contract template v2',
        actionsKeptOnUpdate: true,
        listedTags: { 'chaos-gate:plan': 'redis-partition', team: 'sre' },
      },
    });
    expect(modelProblems(fis)).toEqual([]);
  });

  it('moto_server answers the same contract identically', async (ctx) => {
    if (!moto) {
      console.warn(`skipped: ${skipReason}`);
      ctx.skip();
      return;
    }
    const ours = await scenario(recordingFis(sandbox.urls.aws), false);
    const theirs = await scenario(recordingFis(moto.url), false);
    expect(theirs).toEqual(ours);
  });
});
