/**
 * SigV4 verification in the sandbox (config `credentials`): the real SDK clients — FIS restJson1,
 * CloudWatch JSON 1.0 and awsQuery, the Tagging API — and chaos-gate's own raw signed calls (the safety
 * lever, STS AssumeRole) pass with the right secret and are refused as AWS refuses them with a wrong one.
 * A percent-encoded ARN in the path proves the canonical URI is encoded as AWS encodes it. STS temporary
 * keys act in the role's account, where the Tagging API shows that account's resources only.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CreateExperimentTemplateCommand,
  FisClient,
  ListExperimentTemplatesCommand,
  ListTagsForResourceCommand,
  TagResourceCommand,
} from '@aws-sdk/client-fis';
import { CloudWatchClient, DescribeAlarmsCommand } from '@aws-sdk/client-cloudwatch';
import {
  CloudWatchClient as QueryCloudWatchClient,
  DescribeAlarmsCommand as QueryDescribeAlarmsCommand,
} from 'cloudwatch-awsquery-client';
import {
  GetResourcesCommand,
  ResourceGroupsTaggingAPIClient,
} from '@aws-sdk/client-resource-groups-tagging-api';
import { startSandboxProcess, type RunningSandbox } from '../helpers/sandbox.js';
import { getSafetyLever } from '../../src/injector/fis/safety-lever.js';
import { assumeRole, targetAccountTagging } from '../../src/injector/aws/assume-role.js';
import { tagsForArns } from '../../src/injector/aws/tagging.js';

const RIGHT = { accessKeyId: 'AKIASANDBOXSIGV4TEST', secretAccessKey: 'the-right-secret' };
const WRONG_SECRET = { ...RIGHT, secretAccessKey: 'a-wrong-secret' };
const UNKNOWN_KEY = { accessKeyId: 'AKIASOMEONEELSE00001', secretAccessKey: 'the-right-secret' };
const TARGET_ACCOUNT = '210987654321';

let sandbox: RunningSandbox;
const clients: { destroy(): void }[] = [];

function fis(credentials: typeof RIGHT): FisClient {
  const c = new FisClient({ endpoint: sandbox.urls.aws, region: 'us-east-1', credentials, maxAttempts: 1 });
  clients.push(c);
  return c;
}
function cloudwatch(credentials: typeof RIGHT): CloudWatchClient {
  const c = new CloudWatchClient({
    endpoint: sandbox.urls.aws,
    region: 'us-east-1',
    credentials,
    maxAttempts: 1,
  });
  clients.push(c);
  return c;
}
function cloudwatchQuery(credentials: typeof RIGHT): QueryCloudWatchClient {
  const c = new QueryCloudWatchClient({
    endpoint: sandbox.urls.aws,
    region: 'us-east-1',
    credentials,
    maxAttempts: 1,
  });
  clients.push(c);
  return c;
}
function tagging(credentials: { accessKeyId: string; secretAccessKey: string; sessionToken?: string }) {
  const c = new ResourceGroupsTaggingAPIClient({
    endpoint: sandbox.urls.aws,
    region: 'us-east-1',
    credentials,
    maxAttempts: 1,
  });
  clients.push(c);
  return c;
}

beforeAll(async () => {
  sandbox = await startSandboxProcess({ config: { credentials: RIGHT }, args: ['--no-load'] });
});

afterAll(async () => {
  for (const c of clients) c.destroy();
  await sandbox?.stop();
});

describe('with credentials configured, the right signature passes and a wrong one is refused', () => {
  it('FIS (restJson1): InvalidSignatureException 403 for a wrong secret, UnrecognizedClientException for an unknown key', async () => {
    await expect(fis(RIGHT).send(new ListExperimentTemplatesCommand({}))).resolves.toBeDefined();
    await expect(fis(WRONG_SECRET).send(new ListExperimentTemplatesCommand({}))).rejects.toMatchObject({
      name: 'InvalidSignatureException',
      $metadata: { httpStatusCode: 403 },
      message: expect.stringMatching(
        /^The request signature we calculated does not match the signature you provided/,
      ),
    });
    await expect(fis(UNKNOWN_KEY).send(new ListExperimentTemplatesCommand({}))).rejects.toMatchObject({
      name: 'UnrecognizedClientException',
    });
  });

  it('signs a percent-encoded ARN path the way AWS canonicalises it (TagResource, ListTagsForResource)', async () => {
    const client = fis(RIGHT);
    const t = await client.send(
      new CreateExperimentTemplateCommand({
        description: 'signed',
        roleArn: 'arn:aws:iam::123456789012:role/FisExperimentRole',
        stopConditions: [{ source: 'none' }],
        actions: { wait: { actionId: 'aws:fis:wait', parameters: { duration: 'PT1M' } } },
      }),
    );
    const arn = `arn:aws:fis:us-east-1:123456789012:experiment-template/${t.experimentTemplate!.id!}`;
    await client.send(new TagResourceCommand({ resourceArn: arn, tags: { 'team name': 'sre & ops' } }));
    const tags = await client.send(new ListTagsForResourceCommand({ resourceArn: arn }));
    expect(tags.tags).toEqual({ 'team name': 'sre & ops' });
  });

  it('CloudWatch JSON 1.0 and awsQuery: SignatureDoesNotMatch for a wrong secret', async () => {
    await expect(cloudwatch(RIGHT).send(new DescribeAlarmsCommand({}))).resolves.toBeDefined();
    await expect(cloudwatch(WRONG_SECRET).send(new DescribeAlarmsCommand({}))).rejects.toMatchObject({
      name: 'SignatureDoesNotMatch',
      $metadata: { httpStatusCode: 403 },
    });
    await expect(cloudwatchQuery(RIGHT).send(new QueryDescribeAlarmsCommand({}))).resolves.toBeDefined();
    await expect(
      cloudwatchQuery(WRONG_SECRET).send(new QueryDescribeAlarmsCommand({})),
    ).rejects.toMatchObject({
      name: 'SignatureDoesNotMatch',
    });
    await expect(cloudwatchQuery(UNKNOWN_KEY).send(new QueryDescribeAlarmsCommand({}))).rejects.toMatchObject(
      {
        name: 'InvalidClientTokenId',
      },
    );
  });

  it('the Tagging API (awsJson1_1): InvalidSignatureException for a wrong secret', async () => {
    await expect(tagging(RIGHT).send(new GetResourcesCommand({}))).resolves.toBeDefined();
    await expect(tagging(WRONG_SECRET).send(new GetResourcesCommand({}))).rejects.toMatchObject({
      name: 'InvalidSignatureException',
    });
  });

  it("chaos-gate's own signed safety-lever call passes with the right secret only", async () => {
    expect(await getSafetyLever(fis(RIGHT), 'us-east-1')).toMatchObject({
      available: true,
      state: 'disengaged',
    });
    expect(await getSafetyLever(fis(WRONG_SECRET), 'us-east-1')).toMatchObject({
      available: false,
      detail: expect.stringContaining('HTTP 403'),
    });
  });

  it('refuses an unsigned request with MissingAuthenticationTokenException', async () => {
    const res = await fetch(`${sandbox.urls.aws}/experimentTemplates`);
    expect(res.status).toBe(403);
    expect(res.headers.get('x-amzn-errortype')).toBe('MissingAuthenticationTokenException');
  });
});

describe('STS AssumeRole into a target account', () => {
  it('issues keys that act in the role account: its Tagging API shows that account only', async () => {
    const creds = await assumeRole({
      roleArn: `arn:aws:iam::${TARGET_ACCOUNT}:role/chaos-gate-tag-reader`,
      sessionName: 'test',
      region: 'us-east-1',
      credentials: RIGHT,
      endpoint: sandbox.urls.aws,
    });
    expect(creds.accessKeyId).toMatch(/^ASIA/);
    const there = await tagging(creds).send(new GetResourcesCommand({ ResourceTypeFilters: ['ec2:subnet'] }));
    const accounts = new Set((there.ResourceTagMappingList ?? []).map((m) => m.ResourceARN?.split(':')[4]));
    expect([...accounts]).toEqual([TARGET_ACCOUNT]);
    const home = await tagging(RIGHT).send(new GetResourcesCommand({ ResourceTypeFilters: ['ec2:subnet'] }));
    expect(new Set((home.ResourceTagMappingList ?? []).map((m) => m.ResourceARN?.split(':')[4]))).toEqual(
      new Set(['123456789012']),
    );
    // Without its session token the temporary key is refused.
    const { sessionToken: _dropped, ...noToken } = creds;
    await expect(tagging(noToken).send(new GetResourcesCommand({}))).rejects.toMatchObject({
      name: 'UnrecognizedClientException',
    });
  });

  it('refuses a role in an account the sandbox does not hold (AccessDenied), and a wrongly signed AssumeRole', async () => {
    await expect(
      assumeRole({
        roleArn: 'arn:aws:iam::999999999999:role/reader',
        sessionName: 'test',
        region: 'us-east-1',
        credentials: RIGHT,
        endpoint: sandbox.urls.aws,
      }),
    ).rejects.toThrow(/AccessDenied/);
    await expect(
      assumeRole({
        roleArn: `arn:aws:iam::${TARGET_ACCOUNT}:role/reader`,
        sessionName: 'test',
        region: 'us-east-1',
        credentials: WRONG_SECRET,
        endpoint: sandbox.urls.aws,
      }),
    ).rejects.toThrow(/SignatureDoesNotMatch/);
  });

  it("reads a target account's tags through the role chaos-gate assumes there", async () => {
    const forAccount = targetAccountTagging({
      region: 'us-east-1',
      role: 'chaos-gate-tag-reader',
      credentials: RIGHT,
      env: { AWS_ENDPOINT_URL: sandbox.urls.aws },
      endpoint: sandbox.urls.aws,
    });
    const arn = `arn:aws:ec2:us-east-1:${TARGET_ACCOUNT}:subnet/subnet-0ed15000000000001`;
    const tags = await tagsForArns(forAccount(TARGET_ACCOUNT), [arn]);
    expect(tags.get(arn)).toMatchObject({ Environment: 'staging-chaos', Service: 'redis' });
    // The runner's own keys do not see it, as in AWS.
    expect((await tagsForArns(tagging(RIGHT), [arn])).has(arn)).toBe(false);
  });
});
