/**
 * The same GetResources queries against the Tagging API stand-in and against moto_server (moto 5.2.1),
 * through the real client, over the same account: EC2 instances and a subnet created in moto with
 * signed EC2 query requests (RunInstances with TagSpecification, CreateTags), and the same ARNs and
 * tags given to the stand-in. Both must return the same resources with the same tags, page by page
 * and in total.
 *
 * Where moto departs from AWS nothing is compared: moto 5.2.1 ignores `ResourceARNList` (it answers
 * every tagged resource) and answers an unknown token with PaginationTokenExpiredException; the
 * stand-in's behaviour there is covered by tagging.test.ts alone.
 */
import { Sha256 } from '@aws-crypto/sha256-js';
import {
  ResourceGroupsTaggingAPIClient,
  paginateGetResources,
  type GetResourcesCommandInput,
  GetResourcesCommand,
} from '@aws-sdk/client-resource-groups-tagging-api';
import { HttpRequest } from '@smithy/protocol-http';
import { SignatureV4 } from '@smithy/signature-v4';
import { expect, it } from 'vitest';
import type { TaggedResource } from '../../src/sandbox/tagging/index.js';
import { DUMMY_CREDENTIALS, describeAgainstMoto, startMotoForContract } from '../helpers/contract.js';
import { startTagging, taggingClient } from './tagging-harness.js';

const REGION = 'us-east-1';
/** moto's default account. */
const ACCOUNT = '123456789012';

const moto = await startMotoForContract('tagging-moto');

/** Sends one signed EC2 query request (API version 2016-11-15) to moto; returns the XML answer. */
async function ec2(url: string, params: Record<string, string>): Promise<string> {
  const { hostname, port } = new URL(url);
  const body = new URLSearchParams({ Version: '2016-11-15', ...params }).toString();
  const signer = new SignatureV4({
    service: 'ec2',
    region: REGION,
    credentials: DUMMY_CREDENTIALS,
    sha256: Sha256,
  });
  const signed = await signer.sign(
    new HttpRequest({
      method: 'POST',
      protocol: 'http:',
      hostname,
      port: Number(port),
      path: '/',
      headers: {
        host: `${hostname}:${port}`,
        'content-type': 'application/x-www-form-urlencoded; charset=utf-8',
      },
      body,
    }),
  );
  const res = await fetch(`${url}/`, {
    method: 'POST',
    headers: signed.headers,
    body,
    // moto's first DescribeImages loads its whole AMI catalogue: seconds, more on a busy machine.
    signal: AbortSignal.timeout(30_000),
  });
  const text = await res.text();
  if (res.status !== 200)
    throw new Error(`EC2 ${params.Action} answered ${res.status}: ${text.slice(0, 300)}`);
  return text;
}

const all = (xml: string, tag: string): string[] =>
  [...xml.matchAll(new RegExp(`<${tag}>([^<]+)</${tag}>`, 'g'))].map((m) => m[1] as string);

/** Launches `count` instances tagged `tags` in moto; returns their ids. */
async function launch(
  url: string,
  image: string,
  count: number,
  tags: Record<string, string>,
): Promise<string[]> {
  const params: Record<string, string> = {
    Action: 'RunInstances',
    ImageId: image,
    InstanceType: 't3.micro',
    MinCount: String(count),
    MaxCount: String(count),
    'TagSpecification.1.ResourceType': 'instance',
  };
  Object.entries(tags).forEach(([k, v], i) => {
    params[`TagSpecification.1.Tag.${i + 1}.Key`] = k;
    params[`TagSpecification.1.Tag.${i + 1}.Value`] = v;
  });
  return all(await ec2(url, params), 'instanceId');
}

/** A listing normalised for comparison: ARNs sorted, tags as sorted key=value strings. */
type Listing = { arn: string; tags: string[] }[];

async function listing(
  client: ResourceGroupsTaggingAPIClient,
  input: GetResourcesCommandInput,
): Promise<{
  resources: Listing;
  pageSizes: number[];
}> {
  const resources: Listing = [];
  const pageSizes: number[] = [];
  for await (const page of paginateGetResources({ client, pageSize: 2 }, { ...input })) {
    const items = page.ResourceTagMappingList ?? [];
    pageSizes.push(items.length);
    for (const m of items)
      resources.push({
        arn: m.ResourceARN ?? '',
        tags: (m.Tags ?? []).map((t) => `${t.Key}=${t.Value}`).sort(),
      });
  }
  resources.sort((a, b) => a.arn.localeCompare(b.arn));
  return { resources, pageSizes };
}

describeAgainstMoto(
  'Tagging API stand-in and moto_server agree on GetResources',
  moto,
  {
    client: taggingClient,
    // The stand-in is given the same account moto holds: EC2 instances and a subnet created in moto first.
    standIn: async ({ url }) => {
      const account: TaggedResource[] = [];
      const image = all(await ec2(url, { Action: 'DescribeImages', 'Owner.1': 'amazon' }), 'imageId')[0];
      if (!image) throw new Error('moto lists no Amazon-owned image to launch instances from');
      const groups: [number, Record<string, string>][] = [
        [3, { Env: 'staging', Tier: 'web' }],
        [1, { Env: 'staging', Tier: 'db' }],
        [1, { Env: 'production', Tier: 'web' }],
        [1, { Env: 'dev' }],
      ];
      for (const [count, tags] of groups) {
        for (const id of await launch(url, image, count, tags))
          account.push({
            arn: `arn:aws:ec2:${REGION}:${ACCOUNT}:instance/${id}`,
            resourceType: 'ec2:instance',
            tags,
          });
      }
      const subnet = all(await ec2(url, { Action: 'DescribeSubnets' }), 'subnetId')[0];
      if (!subnet) throw new Error('moto lists no default subnet');
      const subnetTags = { Env: 'staging', Tier: 'net' };
      await ec2(url, {
        Action: 'CreateTags',
        'ResourceId.1': subnet,
        'Tag.1.Key': 'Env',
        'Tag.1.Value': subnetTags.Env,
        'Tag.2.Key': 'Tier',
        'Tag.2.Value': subnetTags.Tier,
      });
      account.push({
        arn: `arn:aws:ec2:${REGION}:${ACCOUNT}:subnet/${subnet}`,
        resourceType: 'ec2:subnet',
        tags: subnetTags,
      });
      return startTagging(account);
    },
  },
  (backends) => {
    it('both answer a filter that matches nothing with an empty list and no further page', async () => {
      const input = { TagFilters: [{ Key: 'Env', Values: ['no-such-environment'] }] };
      const [ours, theirs] = await backends.both((c) => c.send(new GetResourcesCommand(input)));
      expect(ours.ResourceTagMappingList).toEqual([]);
      expect(theirs.ResourceTagMappingList).toEqual([]);
      // AWS ends with an empty token, moto with null: either way no paginator goes on.
      expect(ours.PaginationToken || undefined).toBeUndefined();
      expect(theirs.PaginationToken || undefined).toBeUndefined();
    });

    const queries: [string, GetResourcesCommandInput, number][] = [
      ['one tag value', { TagFilters: [{ Key: 'Env', Values: ['staging'] }] }, 5],
      ['values of one filter ORed', { TagFilters: [{ Key: 'Env', Values: ['production', 'dev'] }] }, 2],
      [
        'filters ANDed',
        {
          TagFilters: [
            { Key: 'Env', Values: ['staging', 'production'] },
            { Key: 'Tier', Values: ['web'] },
          ],
        },
        4,
      ],
      ['a key with any value', { TagFilters: [{ Key: 'Tier' }] }, 6],
      ['type ec2:instance', { TagFilters: [{ Key: 'Env' }], ResourceTypeFilters: ['ec2:instance'] }, 6],
      ['type ec2:subnet', { TagFilters: [{ Key: 'Env' }], ResourceTypeFilters: ['ec2:subnet'] }, 1],
      ['the whole ec2 service', { TagFilters: [{ Key: 'Env' }], ResourceTypeFilters: ['ec2'] }, 7],
    ];
    for (const [what, input, expected] of queries) {
      it(`both return the same resources and tags, 2 per page, for ${what}`, async () => {
        const [ours, theirs] = await backends.both((c) => listing(c, input));
        expect(ours.resources).toHaveLength(expected);
        expect(ours.resources).toEqual(theirs.resources);
        expect(ours.pageSizes).toEqual(theirs.pageSizes);
      });
    }
  },
);
