/**
 * The Tagging API stand-in through the real `@aws-sdk/client-resource-groups-tagging-api` client: every
 * request and response is validated against the official model after each test.
 */
import {
  GetResourcesCommand,
  GetTagKeysCommand,
  GetTagValuesCommand,
  TagResourcesCommand,
  paginateGetResources,
  paginateGetTagKeys,
  type GetResourcesCommandInput,
} from '@aws-sdk/client-resource-groups-tagging-api';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  MAX_RESOURCE_ARN_LIST,
  PAGINATION_TOKEN_TTL_MS,
  TAG_KEYS_PAGE_SIZE,
  taggableResources,
  taggingTypeOfArn,
  type TaggedResource,
} from '../../src/sandbox/tagging/index.js';
import { sandboxInventory } from '../../src/sandbox/targets.js';
import { startTagging, type TaggingHarness } from './tagging-harness.js';

const ACCT = '123456789012';
const ec2 = (id: string): string => `arn:aws:ec2:us-east-1:${ACCT}:instance/${id}`;
const task = (id: string): string => `arn:aws:ecs:us-east-1:${ACCT}:task/canary-cluster/${id}`;

/** A small account: three tiers × two environments, plus ECS tasks and one untagged instance. */
function account(): TaggedResource[] {
  return [
    { arn: ec2('i-01'), resourceType: 'ec2:instance', tags: { Env: 'staging', Tier: 'web' } },
    { arn: ec2('i-02'), resourceType: 'ec2:instance', tags: { Env: 'staging', Tier: 'db' } },
    { arn: ec2('i-03'), resourceType: 'ec2:instance', tags: { Env: 'production', Tier: 'web' } },
    { arn: ec2('i-04'), resourceType: 'ec2:instance', tags: { Env: 'dev' } },
    { arn: ec2('i-05'), resourceType: 'ec2:instance', tags: { Env: '', Tier: 'web' } },
    { arn: ec2('i-06'), resourceType: 'ec2:instance', tags: {} },
    { arn: task('t1'), resourceType: 'ecs:task', tags: { Env: 'staging', Tier: 'web' } },
    { arn: task('t2'), resourceType: 'ecs:task', tags: { Env: 'production' } },
  ];
}

let h: TaggingHarness;
beforeAll(async () => {
  h = await startTagging(account());
});
afterAll(async () => {
  await h.close();
});
beforeEach(() => {
  h.resources = account();
});
afterEach(() => {
  expect(h.drainProblems()).toEqual([]);
});

async function arnsOf(input: GetResourcesCommandInput): Promise<string[]> {
  const out = await h.client.send(new GetResourcesCommand(input));
  return (out.ResourceTagMappingList ?? []).map((m) => m.ResourceARN ?? '').sort();
}

async function errorOf(
  p: Promise<unknown>,
): Promise<{ name: string; status: number | undefined; message: string }> {
  try {
    await p;
  } catch (error) {
    const e = error as { name: string; message: string; $metadata?: { httpStatusCode?: number } };
    return { name: e.name, status: e.$metadata?.httpStatusCode, message: e.message };
  }
  throw new Error('expected the call to fail');
}

describe('GetResources by ResourceARNList', () => {
  it('returns the named tagged resources with their tags as Key/Value pairs and omits unknown ARNs', async () => {
    const out = await h.client.send(
      new GetResourcesCommand({ ResourceARNList: [ec2('i-03'), ec2('i-99'), task('t1')] }),
    );
    expect(out.ResourceTagMappingList).toEqual([
      {
        ResourceARN: ec2('i-03'),
        Tags: [
          { Key: 'Env', Value: 'production' },
          { Key: 'Tier', Value: 'web' },
        ],
      },
      {
        ResourceARN: task('t1'),
        Tags: [
          { Key: 'Env', Value: 'staging' },
          { Key: 'Tier', Value: 'web' },
        ],
      },
    ]);
    expect(out.PaginationToken ?? '').toBe('');
  });

  it('does not return a resource that carries no tags, even when named', async () => {
    expect(await arnsOf({ ResourceARNList: [ec2('i-06'), ec2('i-01')] })).toEqual([ec2('i-01')]);
  });

  it(`rejects more than ${MAX_RESOURCE_ARN_LIST} ARNs with InvalidParameterException 400`, async () => {
    const arns = Array.from({ length: MAX_RESOURCE_ARN_LIST + 1 }, (_, i) => ec2(`i-x${i}`));
    const err = await errorOf(h.client.send(new GetResourcesCommand({ ResourceARNList: arns })));
    expect(err).toMatchObject({ name: 'InvalidParameterException', status: 400 });
    expect(err.message).toMatch(/101 items; at most 100/);
    // The model agrees the request is out of bounds; the error answer itself is valid.
    expect(h.drainProblems()).toEqual([
      '#0 GetResources: request $.ResourceARNList: list size 101 is above the maximum length 100',
    ]);
  });

  it('accepts exactly 100 ARNs', async () => {
    const arns = [
      ec2('i-01'),
      ...Array.from({ length: MAX_RESOURCE_ARN_LIST - 1 }, (_, i) => ec2(`i-x${i}`)),
    ];
    expect(await arnsOf({ ResourceARNList: arns })).toEqual([ec2('i-01')]);
  });

  it('rejects ResourceARNList together with TagFilters', async () => {
    const err = await errorOf(
      h.client.send(
        new GetResourcesCommand({ ResourceARNList: [ec2('i-01')], TagFilters: [{ Key: 'Env' }] }),
      ),
    );
    expect(err).toMatchObject({ name: 'InvalidParameterException', status: 400 });
  });

  it('rejects ResourceARNList together with a paging parameter', async () => {
    const err = await errorOf(
      h.client.send(new GetResourcesCommand({ ResourceARNList: [ec2('i-01')], ResourcesPerPage: 10 })),
    );
    expect(err).toMatchObject({ name: 'InvalidParameterException', status: 400 });
  });

  it('rejects an entry that is not an ARN', async () => {
    const err = await errorOf(h.client.send(new GetResourcesCommand({ ResourceARNList: ['i-01'] })));
    expect(err.name).toBe('InvalidParameterException');
    expect(err.message).toMatch(/"i-01" is not an ARN/);
  });
});

describe('GetResources tag filters', () => {
  it('ORs the values of one filter', async () => {
    expect(await arnsOf({ TagFilters: [{ Key: 'Env', Values: ['dev', 'production'] }] })).toEqual(
      [ec2('i-03'), ec2('i-04'), task('t2')].sort(),
    );
  });

  it('ANDs separate filters', async () => {
    expect(
      await arnsOf({
        TagFilters: [
          { Key: 'Env', Values: ['staging', 'production'] },
          { Key: 'Tier', Values: ['web'] },
        ],
      }),
    ).toEqual([ec2('i-01'), ec2('i-03'), task('t1')].sort());
  });

  it('matches any value, the empty one included, when a filter has no values', async () => {
    expect(await arnsOf({ TagFilters: [{ Key: 'Tier' }] })).toEqual(
      [ec2('i-01'), ec2('i-02'), ec2('i-03'), ec2('i-05'), task('t1')].sort(),
    );
  });

  it('matches an empty tag value only with an empty value in the filter', async () => {
    expect(await arnsOf({ TagFilters: [{ Key: 'Env', Values: [''] }] })).toEqual([ec2('i-05')]);
  });

  it('compares keys and values case-sensitively', async () => {
    expect(await arnsOf({ TagFilters: [{ Key: 'env' }] })).toEqual([]);
    expect(await arnsOf({ TagFilters: [{ Key: 'Env', Values: ['Production'] }] })).toEqual([]);
  });

  it('returns every tagged resource and no untagged one without filters', async () => {
    const all = await arnsOf({});
    expect(all).toHaveLength(7);
    expect(all).not.toContain(ec2('i-06'));
  });

  it('rejects more than 20 values in one filter', async () => {
    const values = Array.from({ length: 21 }, (_, i) => `v${i}`);
    const err = await errorOf(
      h.client.send(new GetResourcesCommand({ TagFilters: [{ Key: 'Env', Values: values }] })),
    );
    expect(err).toMatchObject({ name: 'InvalidParameterException', status: 400 });
    expect(h.drainProblems()).toEqual([
      '#0 GetResources: request $.TagFilters[0].Values: list size 21 is above the maximum length 20',
    ]);
  });
});

describe('GetResources resource type filters', () => {
  it('selects one resource type by service:type', async () => {
    expect(await arnsOf({ ResourceTypeFilters: ['ecs:task'] })).toEqual([task('t1'), task('t2')].sort());
  });

  it('selects every type of a service by the service name alone', async () => {
    expect(await arnsOf({ ResourceTypeFilters: ['ec2'] })).toHaveLength(5);
  });

  it('ORs several type filters and ANDs them with tag filters', async () => {
    expect(
      await arnsOf({
        ResourceTypeFilters: ['ecs:task', 'ec2:subnet'],
        TagFilters: [{ Key: 'Env', Values: ['production'] }],
      }),
    ).toEqual([task('t2')]);
  });

  it('does not treat a type prefix as the type (ec2:inst is not ec2:instance)', async () => {
    expect(await arnsOf({ ResourceTypeFilters: ['ec2:inst'] })).toEqual([]);
  });
});

describe('GetResources pagination', () => {
  function many(n: number): TaggedResource[] {
    return Array.from({ length: n }, (_, i) => ({
      arn: ec2(`i-p${String(i).padStart(3, '0')}`),
      resourceType: 'ec2:instance',
      tags: { Env: 'staging', Index: String(i) },
    }));
  }

  it('pages by ResourcesPerPage with the SDK paginator and ends on an empty token', async () => {
    h.resources = many(7);
    const sizes: number[] = [];
    const arns: string[] = [];
    const tokens: (string | undefined)[] = [];
    for await (const page of paginateGetResources(
      { client: h.client, pageSize: 3 },
      { TagFilters: [{ Key: 'Env' }] },
    )) {
      sizes.push(page.ResourceTagMappingList?.length ?? 0);
      arns.push(...(page.ResourceTagMappingList ?? []).map((m) => m.ResourceARN ?? ''));
      tokens.push(page.PaginationToken);
    }
    expect(sizes).toEqual([3, 3, 1]);
    expect(arns).toEqual(many(7).map((r) => r.arn));
    expect(tokens[2]).toBe('');
    expect(tokens[0]).not.toBe('');
  });

  it(`serves 50 resources per page by default`, async () => {
    h.resources = many(51);
    const first = await h.client.send(new GetResourcesCommand({}));
    expect(first.ResourceTagMappingList).toHaveLength(50);
    const second = await h.client.send(new GetResourcesCommand({ PaginationToken: first.PaginationToken }));
    expect(second.ResourceTagMappingList?.map((m) => m.ResourceARN)).toEqual([ec2('i-p050')]);
  });

  it('never splits a resource across pages when paging by TagsPerPage', async () => {
    // 60 resources × 2 tags: TagsPerPage 101 fits 50 resources (100 tags), not 51.
    h.resources = many(60);
    const first = await h.client.send(new GetResourcesCommand({ TagsPerPage: 101, ResourcesPerPage: 100 }));
    expect(first.ResourceTagMappingList).toHaveLength(50);
    expect(first.PaginationToken).not.toBe('');
  });

  it('rejects ResourcesPerPage outside 1–100', async () => {
    for (const n of [0, 101]) {
      const err = await errorOf(h.client.send(new GetResourcesCommand({ ResourcesPerPage: n })));
      expect(err).toMatchObject({ name: 'InvalidParameterException', status: 400 });
    }
  });

  it('rejects a token replayed with other filters', async () => {
    h.resources = many(4);
    const first = await h.client.send(
      new GetResourcesCommand({ ResourcesPerPage: 2, TagFilters: [{ Key: 'Env' }] }),
    );
    const err = await errorOf(
      h.client.send(
        new GetResourcesCommand({
          ResourcesPerPage: 2,
          TagFilters: [{ Key: 'Index' }],
          PaginationToken: first.PaginationToken,
        }),
      ),
    );
    expect(err).toMatchObject({ name: 'InvalidParameterException', status: 400 });
  });

  it('rejects a token it did not issue', async () => {
    const err = await errorOf(h.client.send(new GetResourcesCommand({ PaginationToken: 'not-a-token' })));
    expect(err).toMatchObject({ name: 'InvalidParameterException', status: 400 });
  });

  it('forgets the oldest token once the live-token cap is reached', async () => {
    const small = await startTagging(many(2), { maxLiveTokens: 3 });
    try {
      const send = (token?: string) =>
        small.client.send(new GetResourcesCommand({ ResourcesPerPage: 1, PaginationToken: token }));
      const tokens: (string | undefined)[] = [];
      for (let i = 0; i < 4; i++) tokens.push((await send()).PaginationToken);
      const err = await errorOf(send(tokens[0]));
      expect(err).toMatchObject({ name: 'InvalidParameterException', status: 400 });
      expect(err.message).toMatch(/evicted/);
      expect((await send(tokens[1])).ResourceTagMappingList).toHaveLength(1);
      expect(small.drainProblems()).toEqual([]);
    } finally {
      await small.close();
    }
  });

  it('answers PaginationTokenExpiredException after 15 minutes', async () => {
    h.resources = many(4);
    const first = await h.client.send(new GetResourcesCommand({ ResourcesPerPage: 2 }));
    h.clock.t += PAGINATION_TOKEN_TTL_MS + 1;
    // Issuing another token in between must not turn the expiry into an unknown token.
    await h.client.send(new GetResourcesCommand({ ResourcesPerPage: 2 }));
    const err = await errorOf(
      h.client.send(new GetResourcesCommand({ ResourcesPerPage: 2, PaginationToken: first.PaginationToken })),
    );
    expect(err).toMatchObject({ name: 'PaginationTokenExpiredException', status: 400 });
  });
});

describe('GetResources compliance details', () => {
  it('reports every resource compliant (the sandbox has no tag policy) and excludes them all on request', async () => {
    const out = await h.client.send(
      new GetResourcesCommand({ ResourceTypeFilters: ['ecs:task'], IncludeComplianceDetails: true }),
    );
    expect(out.ResourceTagMappingList?.map((m) => m.ComplianceDetails?.ComplianceStatus)).toEqual([
      true,
      true,
    ]);
    expect(await arnsOf({ IncludeComplianceDetails: true, ExcludeCompliantResources: true })).toEqual([]);
  });

  it('rejects ExcludeCompliantResources without IncludeComplianceDetails', async () => {
    const err = await errorOf(h.client.send(new GetResourcesCommand({ ExcludeCompliantResources: true })));
    expect(err.name).toBe('InvalidParameterException');
  });
});

describe('GetTagKeys and GetTagValues', () => {
  it('lists the distinct tag keys, sorted', async () => {
    const out = await h.client.send(new GetTagKeysCommand({}));
    expect(out.TagKeys).toEqual(['Env', 'Tier']);
    expect(out.PaginationToken ?? '').toBe('');
  });

  it(`pages tag keys ${TAG_KEYS_PAGE_SIZE} at a time`, async () => {
    h.resources = Array.from({ length: TAG_KEYS_PAGE_SIZE + 10 }, (_, i) => ({
      arn: ec2(`i-k${i}`),
      resourceType: 'ec2:instance',
      tags: { [`key-${String(i).padStart(3, '0')}`]: 'x' },
    }));
    const pages: number[] = [];
    const keys: string[] = [];
    for await (const page of paginateGetTagKeys({ client: h.client }, {})) {
      pages.push(page.TagKeys?.length ?? 0);
      keys.push(...(page.TagKeys ?? []));
    }
    expect(pages).toEqual([TAG_KEYS_PAGE_SIZE, 10]);
    expect(new Set(keys).size).toBe(TAG_KEYS_PAGE_SIZE + 10);
  });

  it('lists the distinct values of one key, the empty value included', async () => {
    const out = await h.client.send(new GetTagValuesCommand({ Key: 'Env' }));
    expect(out.TagValues).toEqual(['', 'dev', 'production', 'staging']);
  });

  it('rejects GetTagValues without a Key', async () => {
    const err = await errorOf(h.client.send(new GetTagValuesCommand({} as { Key: string })));
    expect(err).toMatchObject({ name: 'InvalidParameterException', status: 400 });
    expect(h.drainProblems()).toEqual([
      '#0 GetTagValues: request $.Key: required member of GetTagValuesInput is missing',
    ]);
  });
});

describe('protocol edges', () => {
  it('answers an operation it does not implement with UnknownOperationException', async () => {
    const err = await errorOf(
      h.client.send(new TagResourcesCommand({ ResourceARNList: [ec2('i-01')], Tags: { a: 'b' } })),
    );
    expect(err).toMatchObject({ name: 'UnknownOperationException', status: 400 });
  });

  it('answers a body that is not JSON with SerializationException', async () => {
    const res = await fetch(h.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-amz-json-1.1',
        'x-amz-target': 'ResourceGroupsTaggingAPI_20170126.GetResources',
      },
      body: '{not json',
    });
    expect(res.status).toBe(400);
    expect(res.headers.get('x-amzn-errortype')).toBe('SerializationException');
    expect(await res.json()).toMatchObject({ __type: 'SerializationException' });
  });

  it('claims only requests whose X-Amz-Target names the Tagging API', () => {
    const req = (target?: string) =>
      ({ headers: target === undefined ? {} : { 'x-amz-target': target } }) as Parameters<
        typeof h.standIn.handles
      >[0];
    expect(h.standIn.handles(req('ResourceGroupsTaggingAPI_20170126.GetResources'))).toBe(true);
    expect(h.standIn.handles(req('GraniteServiceVersion20100801.GetMetricData'))).toBe(false);
    expect(h.standIn.handles(req())).toBe(false);
  });
});

describe('the sandbox inventory as the Tagging API sees it', () => {
  it('derives service:type from ARNs', () => {
    expect(taggingTypeOfArn(ec2('i-1'))).toBe('ec2:instance');
    expect(taggingTypeOfArn(task('t'))).toBe('ecs:task');
    expect(taggingTypeOfArn(`arn:aws:elasticache:us-east-1:${ACCT}:replicationgroup:pay`)).toBe(
      'elasticache:replicationgroup',
    );
    expect(taggingTypeOfArn('arn:aws:s3:::my-bucket')).toBe('s3:bucket');
    expect(taggingTypeOfArn('i-123')).toBeUndefined();
  });

  it('lists every inventory resource except EKS pods, and finds the production look-alikes by tag', async () => {
    const inventory = sandboxInventory();
    h.resources = taggableResources(inventory);
    const listed = await arnsOf({});
    const expected = inventory.filter((r) => r.resourceType !== 'aws:eks:pod').map((r) => r.arn);
    expect(listed).toEqual([...expected].sort());
    expect(listed.some((a) => a.includes(':pod/'))).toBe(false);
    const prod = await arnsOf({ TagFilters: [{ Key: 'Environment', Values: ['production'] }] });
    expect(prod).toEqual(
      inventory
        .filter((r) => r.tags.Environment === 'production')
        .map((r) => r.arn)
        .sort(),
    );
    expect(prod.length).toBeGreaterThan(0);
  });
});
