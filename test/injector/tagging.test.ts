/**
 * The product's Tagging API helpers through the real `@aws-sdk/client-resource-groups-tagging-api`
 * client against the sandbox's Tagging API stand-in on loopback (every exchange validated against the
 * official model), and wired into the blast-radius gate.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  FIS_TO_TAGGING_RESOURCE_TYPE,
  MAX_ARNS_PER_GET_RESOURCES,
  candidateCounter,
  countCandidates,
  tagsForArns,
  withTags,
} from '../../src/injector/aws/tagging.js';
import type { ResolvedTarget } from '../../src/injector/injector.js';
import type { JournalEvent } from '../../src/journal/types.js';
import type { FisTarget } from '../../src/plan/schema.js';
import { blastRadiusGate } from '../../src/preflight/blast-radius.js';
import { KNOWN_RESOURCE_TYPES } from '../../src/sandbox/targets.js';
import type { TaggedResource } from '../../src/sandbox/tagging/index.js';
import { startTagging, type TaggingHarness } from '../sandbox/tagging-harness.js';
import { planWith } from '../sim/helpers.js';

const ACCT = '123456789012';
const ec2 = (id: string): string => `arn:aws:ec2:us-east-1:${ACCT}:instance/${id}`;
const subnet = (id: string): string => `arn:aws:ec2:us-east-1:${ACCT}:subnet/${id}`;

function fleet(n: number, tags: (i: number) => Record<string, string>): TaggedResource[] {
  return Array.from({ length: n }, (_, i) => ({
    arn: ec2(`i-${String(i).padStart(4, '0')}`),
    resourceType: 'ec2:instance',
    tags: tags(i),
  }));
}

/** The GetResources request bodies the stand-in saw, in order. */
function requests(h: TaggingHarness): Record<string, unknown>[] {
  return h.exchanges
    .filter((e) => e.operation === 'GetResources')
    .map((e) => JSON.parse(e.requestBody) as Record<string, unknown>);
}

let h: TaggingHarness;
beforeAll(async () => {
  h = await startTagging([]);
});
afterAll(async () => {
  await h.close();
});
afterEach(() => {
  expect(h.drainProblems()).toEqual([]);
});

describe('tagsForArns', () => {
  beforeEach(() => {
    h.resources = fleet(230, (i) => ({
      Environment: i % 10 === 0 ? 'production' : 'staging',
      Index: String(i),
    }));
  });

  it(`looks up 250 ARNs in batches of at most ${MAX_ARNS_PER_GET_RESOURCES} and maps each found ARN to its tags`, async () => {
    const arns = Array.from({ length: 250 }, (_, i) => ec2(`i-${String(i).padStart(4, '0')}`));
    const tags = await tagsForArns(h.client, arns);
    const sent = requests(h).map((r) => (r.ResourceARNList as string[]).length);
    expect(sent).toEqual([100, 100, 50]);
    expect(tags.size).toBe(230);
    expect(tags.get(ec2('i-0010'))).toEqual({ Environment: 'production', Index: '10' });
    expect(tags.get(ec2('i-0011'))).toEqual({ Environment: 'staging', Index: '11' });
    // Not returned (no such resource) means unknown, not untagged.
    expect(tags.has(ec2('i-0240'))).toBe(false);
  });

  it('sends each ARN once and never sends a value that is not an ARN', async () => {
    const tags = await tagsForArns(h.client, [ec2('i-0001'), ec2('i-0001'), 'i-0002', '']);
    expect(requests(h)).toEqual([{ ResourceARNList: [ec2('i-0001')] }]);
    expect([...tags.keys()]).toEqual([ec2('i-0001')]);
  });

  it('sends nothing for an empty list', async () => {
    expect((await tagsForArns(h.client, [])).size).toBe(0);
    expect(h.exchanges).toHaveLength(0);
  });
});

describe('tagsForArns against an endpoint that pages ARN-list answers', () => {
  let paged: TaggingHarness;
  beforeAll(async () => {
    paged = await startTagging(
      fleet(100, (i) => ({ Index: String(i) })),
      { arnListPageSize: 30 },
    );
  });
  afterAll(async () => {
    await paged.close();
  });

  it('follows the PaginationToken alone (no ARN list, which the API forbids with a token) until it ends', async () => {
    const arns = fleet(100, () => ({})).map((r) => r.arn);
    const tags = await tagsForArns(paged.client, arns);
    expect(tags.size).toBe(100);
    const sent = requests(paged);
    expect(sent).toHaveLength(4);
    expect(sent[0]).toEqual({ ResourceARNList: arns });
    for (const r of sent.slice(1)) expect(Object.keys(r)).toEqual(['PaginationToken']);
    expect(paged.drainProblems()).toEqual([]);
  });
});

describe('withTags', () => {
  beforeEach(() => {
    h.resources = [
      { arn: ec2('i-stage'), resourceType: 'ec2:instance', tags: { Environment: 'staging' } },
      { arn: ec2('i-prod'), resourceType: 'ec2:instance', tags: { Environment: 'production' } },
      { arn: ec2('i-known'), resourceType: 'ec2:instance', tags: { Environment: 'production' } },
    ];
  });

  it('fills missing tags, keeps tags FIS already gave, and leaves ARNs the API does not return unknown', async () => {
    const resolved: ResolvedTarget[] = [
      { target: 'nodes', arn: ec2('i-stage') },
      { target: 'nodes', arn: ec2('i-prod') },
      { target: 'nodes', arn: ec2('i-known'), tags: { Environment: 'staging-chaos' } },
      { target: 'pods', arn: `arn:aws:eks:us-east-1:${ACCT}:pod/canary-eks/canary/web-1` },
    ];
    const out = await withTags(h.client, resolved);
    expect(out).toEqual([
      { target: 'nodes', arn: ec2('i-stage'), tags: { Environment: 'staging' } },
      { target: 'nodes', arn: ec2('i-prod'), tags: { Environment: 'production' } },
      { target: 'nodes', arn: ec2('i-known'), tags: { Environment: 'staging-chaos' } },
      { target: 'pods', arn: `arn:aws:eks:us-east-1:${ACCT}:pod/canary-eks/canary/web-1` },
    ]);
    // Only the ARNs without tags were asked for; the input was not modified.
    expect(requests(h)[0]?.ResourceARNList).toEqual([
      ec2('i-stage'),
      ec2('i-prod'),
      `arn:aws:eks:us-east-1:${ACCT}:pod/canary-eks/canary/web-1`,
    ]);
    expect(resolved[0]?.tags).toBeUndefined();
  });

  it('calls the API not at all when every target already has tags', async () => {
    const out = await withTags(h.client, [{ target: 'a', arn: ec2('i-prod'), tags: {} }]);
    expect(out).toEqual([{ target: 'a', arn: ec2('i-prod'), tags: {} }]);
    expect(h.exchanges).toHaveLength(0);
  });

  it('lets the blast-radius gate refuse a resolved target tagged Environment=production, and one with unknown tags', async () => {
    const plan = planWith((p) => {
      p.fis.targets = {
        nodes: { resourceType: 'aws:ec2:instance', resourceTags: { Service: 'redis' }, selectionMode: 'ALL' },
      };
      p.fis.actions = { stop: { actionId: 'aws:ec2:stop-instances', targets: { Instances: 'nodes' } } };
      p.blastRadius = { maxTargets: 10, maxPercent: 100, forbidTags: { Environment: ['production'] } };
    });
    const events: Omit<JournalEvent, 'at'>[] = [];
    const check = async (targets: ResolvedTarget[]) =>
      blastRadiusGate().check({ plan, now: 0, targets, record: (e) => events.push(e) });

    const raw: ResolvedTarget[] = [{ target: 'nodes', arn: ec2('i-stage') }];
    expect((await check(raw)).pass).toBe(false); // unknown tags fail closed
    expect((await check(await withTags(h.client, raw))).pass).toBe(true);

    const prod = await check(await withTags(h.client, [{ target: 'nodes', arn: ec2('i-prod') }]));
    expect(prod).toMatchObject({ pass: false, verdict: 'refused', field: 'blastRadius.forbidTags' });
    expect(prod.pass === false && prod.reason).toContain('is tagged Environment=production');

    const gone = await check(await withTags(h.client, [{ target: 'nodes', arn: ec2('i-gone') }]));
    expect(gone.pass === false && gone.reason).toContain('carries no tag information');
  });
});

describe('countCandidates', () => {
  const byTags = (
    resourceType: string,
    resourceTags: Record<string, string>,
    extra: Partial<FisTarget> = {},
  ) => ({ resourceType, resourceTags, selectionMode: 'ALL', ...extra }) as FisTarget;

  beforeEach(() => {
    h.resources = [
      // 130 redis instances: more than one 100-resource page.
      ...fleet(130, (i) => ({ Service: 'redis', Environment: i < 120 ? 'staging' : 'production' })),
      { arn: ec2('i-web'), resourceType: 'ec2:instance', tags: { Service: 'web', Environment: 'staging' } },
      {
        arn: subnet('subnet-1'),
        resourceType: 'ec2:subnet',
        tags: { Service: 'redis', Environment: 'staging' },
      },
    ];
  });

  it('counts the resources of the mapped type carrying all the tags, across pages', async () => {
    const got = await countCandidates(
      h.client,
      byTags('aws:ec2:instance', { Service: 'redis', Environment: 'staging' }),
    );
    expect(got).toEqual({ known: true, count: 120 });
    const sent = requests(h);
    expect(sent).toHaveLength(2);
    expect(sent[0]).toEqual({
      TagFilters: [
        { Key: 'Service', Values: ['redis'] },
        { Key: 'Environment', Values: ['staging'] },
      ],
      ResourceTypeFilters: ['ec2:instance'],
      ResourcesPerPage: 100,
    });
  });

  it('counts only the target’s resource type (the tagged subnet is not an instance)', async () => {
    expect(await countCandidates(h.client, byTags('aws:ec2:subnet', { Service: 'redis' }))).toEqual({
      known: true,
      count: 1,
    });
  });

  it('counts listed ARNs without calling the API', async () => {
    const target = {
      resourceType: 'aws:ec2:instance',
      resourceArns: [ec2('a'), ec2('b'), ec2('a')],
      selectionMode: 'ALL',
    } as FisTarget;
    expect(await countCandidates(h.client, target)).toEqual({ known: true, count: 2 });
    expect(h.exchanges).toHaveLength(0);
  });

  it.each([
    ['aws:eks:pod', {}, /Kubernetes objects/],
    ['aws:ec2:spot-instance', {}, /Spot Instances/],
    [
      'aws:ec2:instance',
      { filters: [{ path: 'State.Name', values: ['running'] }] },
      /filters \(State\.Name\)/,
    ],
    ['aws:ecs:task', { parameters: { cluster: 'canary-cluster' } }, /parameters \(cluster\)/],
    ['aws:made-up:thing', {}, /no Tagging API mapping/],
  ] as const)('gives no count for %s %j, saying why', async (type, extra, why) => {
    const got = await countCandidates(
      h.client,
      byTags(type, { Service: 'redis' }, extra as Partial<FisTarget>),
    );
    expect(got.known).toBe(false);
    expect(!got.known && got.reason).toMatch(why);
    expect(h.exchanges).toHaveLength(0);
  });

  it('maps every FIS resource type the sandbox knows', () => {
    for (const type of KNOWN_RESOURCE_TYPES) expect(FIS_TO_TAGGING_RESOURCE_TYPE[type], type).toBeDefined();
  });
});

describe('candidateCounter in the blast-radius gate', () => {
  beforeEach(() => {
    h.resources = fleet(5, () => ({ Role: 'cache' }));
  });

  function plan(selectionMode: string, resourceType = 'aws:ec2:instance') {
    return planWith((p) => {
      p.fis.targets = { nodes: { resourceType, resourceTags: { Role: 'cache' }, selectionMode } };
      p.fis.actions = { stop: { actionId: 'aws:ec2:stop-instances', targets: { Instances: 'nodes' } } };
      p.blastRadius = { maxTargets: 10, maxPercent: 40, forbidTags: {} };
    });
  }
  const events: Omit<JournalEvent, 'at'>[] = [];
  const resolved = (n: number): ResolvedTarget[] =>
    fleet(n, () => ({ Role: 'cache' })).map((r) => ({ target: 'nodes', arn: r.arn, tags: r.tags }));

  it('passes PERCENT(40) of the 5 counted candidates (2 ≤ floor(40% of 5))', async () => {
    const outcome = await blastRadiusGate({ candidates: candidateCounter(h.client) }).check({
      plan: plan('PERCENT(40)'),
      now: 0,
      targets: resolved(2),
      record: (e) => events.push(e),
    });
    expect(outcome.pass).toBe(true);
    expect(events.at(-1)?.message).toContain('nodes PERCENT(40) of 5 → 2');
  });

  it('refuses COUNT(3) of the 5 counted candidates against maxPercent 40', async () => {
    const outcome = await blastRadiusGate({ candidates: candidateCounter(h.client) }).check({
      plan: plan('COUNT(3)'),
      now: 0,
      targets: resolved(3),
      record: (e) => events.push(e),
    });
    expect(outcome).toMatchObject({ pass: false, verdict: 'refused', field: 'blastRadius.maxPercent' });
  });

  it('answers undefined for a target it cannot count, and the gate falls back to the rules that need no count', async () => {
    await expect(
      candidateCounter(h.client).candidates('pods', {
        resourceType: 'aws:eks:pod',
        resourceTags: { app: 'canary' },
        selectionMode: 'ALL',
      } as FisTarget),
    ).resolves.toBeUndefined();

    const filtered = planWith((p) => {
      p.fis.targets = {
        nodes: {
          resourceType: 'aws:ec2:instance',
          resourceTags: { Role: 'cache' },
          filters: [{ path: 'State.Name', values: ['running'] }],
          selectionMode: 'COUNT(1)',
        },
      };
      p.fis.actions = { stop: { actionId: 'aws:ec2:stop-instances', targets: { Instances: 'nodes' } } };
    });
    const outcome = await blastRadiusGate({ candidates: candidateCounter(h.client) }).check({
      plan: filtered,
      now: 0,
      targets: resolved(1),
      record: (e) => events.push(e),
    });
    // COUNT(1) within maxTargets needs no candidate count: an uncountable target is not a reason to stop.
    expect(outcome).toMatchObject({ pass: true });
  });
});
