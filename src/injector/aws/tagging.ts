/**
 * Tags and candidate counts from the AWS Resource Groups Tagging API (`tag:GetResources`).
 *
 * FIS's ListExperimentResolvedTargets gives only opaque `targetInformation` (usually `{arn}`), so the
 * blast-radius gate cannot prove a resolved target free of forbidden tags without looking the tags up;
 * and `PERCENT(n)` / `maxPercent` need the number of resources a target selects from, which a tag
 * filter query counts. Both fail closed: an ARN the API does not return keeps unknown tags, and a
 * target whose candidates the API cannot count exactly gets no count.
 */
import {
  GetResourcesCommand,
  ResourceGroupsTaggingAPIClient,
  type GetResourcesCommandInput,
  type GetResourcesCommandOutput,
  type ResourceTagMapping,
} from '@aws-sdk/client-resource-groups-tagging-api';
import type { ResolvedTarget } from '../injector.js';
import type { CandidateCounter } from '../ports.js';
import type { FisTarget } from '../../plan/schema.js';
import { DEADLINES, sendWithin } from '../../net/deadline.js';
import { awsClientConfig, type AwsOptions } from './config.js';

/** Most ARNs per GetResources call (model: `ResourceARNListForGet` length 1–100). */
export const MAX_ARNS_PER_GET_RESOURCES = 100;
/** Largest page GetResources serves (model docs of `ResourcesPerPage`: 1–100). */
export const MAX_RESOURCES_PER_PAGE = 100;
/** Longest ARN the API accepts (model: `ResourceARN` length 1–1011). */
export const MAX_ARN_LENGTH = 1011;
/** Most pages one count or lookup follows before giving up, so a looping token cannot hang a run. */
export const MAX_PAGES = 1000;
/** Deadline of one GetResources page (ms), retries included; a page that misses it fails the lookup. */
export const PAGE_DEADLINE_MS = DEADLINES.taggingGetResources;

/** The part of the SDK client this module uses (any client that can send GetResources). */
export interface TaggingSender {
  send(
    command: GetResourcesCommand,
    options?: { abortSignal?: AbortSignal },
  ): Promise<GetResourcesCommandOutput>;
}

/** Options of the lookups below. */
export interface TaggingLookupOptions {
  /** Deadline of one GetResources page (ms), the SDK's retries included; default {@link PAGE_DEADLINE_MS}. */
  pageDeadlineMs?: number | undefined;
}

/**
 * How an FIS target resource type maps onto a Tagging API `ResourceTypeFilters` entry:
 * - `exact`: the filter selects the same resources FIS considers;
 * - `superset`: the filter selects more (FIS narrows further), so a count would only be an upper bound;
 * - `unsupported`: the Tagging API cannot list these resources.
 */
export type TaggingTypeRule =
  | { kind: 'exact'; filter: string }
  | { kind: 'superset'; filter: string; why: string }
  | { kind: 'unsupported'; why: string };

/**
 * FIS target resource types (FIS User Guide, "Targets for AWS FIS": resource types) → Tagging API
 * resource types (the `service:type` of the resource's ARN, per the model's `ResourceTypeFilters`
 * documentation and the Service Authorization Reference's ARN formats). Types left `unsupported` are
 * either not AWS resources or not ones whose Tagging API coverage could be confirmed; they fail closed.
 */
export const FIS_TO_TAGGING_RESOURCE_TYPE: Readonly<Record<string, TaggingTypeRule>> = {
  'aws:ec2:instance': { kind: 'exact', filter: 'ec2:instance' },
  'aws:ec2:spot-instance': {
    kind: 'superset',
    filter: 'ec2:instance',
    why: 'the Tagging API cannot tell Spot Instances from On-Demand ones',
  },
  'aws:ec2:subnet': { kind: 'exact', filter: 'ec2:subnet' },
  'aws:ec2:ebs-volume': { kind: 'exact', filter: 'ec2:volume' },
  'aws:ec2:transit-gateway': { kind: 'exact', filter: 'ec2:transit-gateway' },
  'aws:ecs:task': { kind: 'exact', filter: 'ecs:task' },
  'aws:ecs:cluster': { kind: 'exact', filter: 'ecs:cluster' },
  'aws:eks:nodegroup': { kind: 'exact', filter: 'eks:nodegroup' },
  'aws:eks:cluster': { kind: 'exact', filter: 'eks:cluster' },
  'aws:rds:cluster': { kind: 'exact', filter: 'rds:cluster' },
  'aws:rds:db': { kind: 'exact', filter: 'rds:db' },
  'aws:elasticache:replicationgroup': { kind: 'exact', filter: 'elasticache:replicationgroup' },
  'aws:elasticache:redis-replicationgroup': {
    kind: 'superset',
    filter: 'elasticache:replicationgroup',
    why: 'the Tagging API cannot tell Redis replication groups from other engines',
  },
  'aws:dynamodb:global-table': {
    kind: 'superset',
    filter: 'dynamodb:table',
    why: 'the Tagging API lists every DynamoDB table, not only global tables',
  },
  'aws:kinesis:stream': { kind: 'exact', filter: 'kinesis:stream' },
  'aws:lambda:function': { kind: 'exact', filter: 'lambda:function' },
  'aws:network-firewall:firewall': { kind: 'exact', filter: 'network-firewall:firewall' },
  'aws:s3:bucket': {
    kind: 'superset',
    filter: 's3:bucket',
    why: 'S3 buckets are global and GetResources lists them per Region inconsistently',
  },
  'aws:eks:pod': {
    kind: 'unsupported',
    why: 'EKS pods are Kubernetes objects, not AWS resources: FIS selects them through the cluster API by namespace and label, and the Tagging API never lists them',
  },
  'aws:ec2:autoscaling-group': {
    kind: 'unsupported',
    why: 'Auto Scaling group coverage of the Tagging API is not confirmed, so the count is not trusted',
  },
  'aws:iam:role': {
    kind: 'unsupported',
    why: 'IAM roles are global resources; their Tagging API listing is not Region-scoped like FIS targets',
  },
  'aws:arc:zonal-shift-managed-resource': {
    kind: 'unsupported',
    why: 'zonal-shift managed resources are load balancers, Auto Scaling groups and EKS clusters at once; no one Tagging API type lists them',
  },
  'aws:ec2:vpc-endpoint': {
    kind: 'unsupported',
    why: 'VPC endpoint coverage of the Tagging API is not confirmed, so the count is not trusted',
  },
  'aws:dsql:cluster': {
    kind: 'unsupported',
    why: 'Aurora DSQL coverage of the Tagging API is not confirmed, so the count is not trusted',
  },
  'aws:memorydb:multi-region-cluster': {
    kind: 'unsupported',
    why: 'multi-Region MemoryDB clusters are not Region-scoped like FIS targets',
  },
  'aws:directconnect:virtual-interface': {
    kind: 'unsupported',
    why: 'Direct Connect virtual interface coverage of the Tagging API is not confirmed, so the count is not trusted',
  },
};

/** A candidate count, or why there is none. */
export type CandidateCount = { known: true; count: number } | { known: false; reason: string };

/** `ResourceTagMapping.Tags` as a plain record. */
function tagsOf(mapping: ResourceTagMapping): Record<string, string> {
  const tags: Record<string, string> = {};
  for (const t of mapping.Tags ?? []) if (t.Key !== undefined) tags[t.Key] = t.Value ?? '';
  return tags;
}

async function* pages(
  client: TaggingSender,
  first: GetResourcesCommandInput,
  signal: AbortSignal | undefined,
  pageDeadlineMs: number,
): AsyncGenerator<ResourceTagMapping[]> {
  let input: GetResourcesCommandInput = first;
  for (let n = 0; n < MAX_PAGES; n++) {
    // Each page has its own deadline: a Tagging API that stops answering fails the lookup (the gate
    // reports it and fails closed) instead of holding preflight.
    const out: GetResourcesCommandOutput = await sendWithin(
      client,
      new GetResourcesCommand(input),
      pageDeadlineMs,
      'Tagging GetResources',
      signal,
    );
    yield out.ResourceTagMappingList ?? [];
    // AWS ends with an empty token (the docs say null); both end the listing.
    const token = out.PaginationToken;
    if (!token) return;
    // An ARN-list query may not carry paging parameters (the API rejects them), and a token carries its
    // query, so an ARN-list answer is continued with the token alone.
    input = first.ResourceARNList ? { PaginationToken: token } : { ...first, PaginationToken: token };
  }
  throw new Error(`tag:GetResources returned more than ${MAX_PAGES} pages; giving up`);
}

/**
 * The tags of each ARN, looked up with `tag:GetResources` in batches of {@link MAX_ARNS_PER_GET_RESOURCES}.
 * An ARN that is absent from the map was not returned: the resource does not exist, carries no tags,
 * or is of a type the Tagging API does not cover — its tags are unknown, not empty.
 */
export async function tagsForArns(
  client: TaggingSender,
  arns: Iterable<string>,
  signal?: AbortSignal,
  options: TaggingLookupOptions = {},
): Promise<Map<string, Record<string, string>>> {
  const pageMs = options.pageDeadlineMs ?? PAGE_DEADLINE_MS;
  const unique = [...new Set(arns)].filter((a) => a.startsWith('arn:') && a.length <= MAX_ARN_LENGTH);
  const found = new Map<string, Record<string, string>>();
  const asked = new Set(unique);
  for (let i = 0; i < unique.length; i += MAX_ARNS_PER_GET_RESOURCES) {
    const batch = unique.slice(i, i + MAX_ARNS_PER_GET_RESOURCES);
    for await (const page of pages(client, { ResourceARNList: batch }, signal, pageMs)) {
      for (const m of page)
        if (m.ResourceARN && asked.has(m.ResourceARN)) found.set(m.ResourceARN, tagsOf(m));
    }
  }
  return found;
}

/**
 * The resolved targets with `tags` filled from the Tagging API where FIS gave none. Tags already present
 * are kept as they are; a target whose ARN the API does not return keeps `tags` undefined, so the
 * blast-radius gate still refuses it when tags are guarded.
 */
export async function withTags(
  client: TaggingSender,
  targets: readonly ResolvedTarget[],
  signal?: AbortSignal,
  options: TaggingLookupOptions = {},
): Promise<ResolvedTarget[]> {
  const missing = targets.filter((t) => t.tags === undefined).map((t) => t.arn);
  const found =
    missing.length === 0
      ? new Map<string, Record<string, string>>()
      : await tagsForArns(client, missing, signal, options);
  return targets.map((t) => {
    if (t.tags !== undefined) return { ...t, tags: { ...t.tags } };
    const tags = found.get(t.arn);
    return tags === undefined ? { ...t } : { ...t, tags: { ...tags } };
  });
}

/**
 * Counts the resources an FIS target selects from, before its selection mode:
 * - `resourceArns` → their number;
 * - `resourceTags` → a GetResources query with one tag filter per tag (FIS ANDs the tags; the API ANDs
 *   filters) and the mapped resource type filter;
 * - anything the API cannot count exactly (FIS `filters` or `parameters` that narrow further, a type
 *   the API does not cover or over-covers, no ARNs or tags at all) → unknown, with the reason.
 */
export async function countCandidates(
  client: TaggingSender,
  target: FisTarget,
  signal?: AbortSignal,
  options: TaggingLookupOptions = {},
): Promise<CandidateCount> {
  if (target.resourceArns !== undefined) return { known: true, count: new Set(target.resourceArns).size };
  const tags = target.resourceTags;
  if (tags === undefined || Object.keys(tags).length === 0)
    return {
      known: false,
      reason: `it names neither resourceArns nor resourceTags, so the Tagging API has nothing to count`,
    };
  const rule = FIS_TO_TAGGING_RESOURCE_TYPE[target.resourceType];
  if (rule === undefined)
    return {
      known: false,
      reason: `resource type ${target.resourceType} has no Tagging API mapping (FIS_TO_TAGGING_RESOURCE_TYPE)`,
    };
  if (rule.kind !== 'exact')
    return { known: false, reason: `resource type ${target.resourceType}: ${rule.why}` };
  if ((target.filters?.length ?? 0) > 0)
    return {
      known: false,
      reason: `its filters (${target.filters?.map((f) => f.path).join(', ')}) narrow the selection in ways the Tagging API cannot evaluate`,
    };
  if (Object.keys(target.parameters ?? {}).length > 0)
    return {
      known: false,
      reason: `its parameters (${Object.keys(target.parameters ?? {}).join(', ')}) narrow the selection in ways the Tagging API cannot evaluate`,
    };
  const input: GetResourcesCommandInput = {
    TagFilters: Object.entries(tags).map(([Key, Value]) => ({ Key, Values: [Value] })),
    ResourceTypeFilters: [rule.filter],
    ResourcesPerPage: MAX_RESOURCES_PER_PAGE,
  };
  const seen = new Set<string>();
  for await (const page of pages(client, input, signal, options.pageDeadlineMs ?? PAGE_DEADLINE_MS))
    for (const m of page) if (m.ResourceARN) seen.add(m.ResourceARN);
  return { known: true, count: seen.size };
}

/**
 * A {@link CandidateCounter} backed by the Tagging API. The interface has no "unknown" answer, so a
 * target that cannot be counted rejects with the reason (the gate reports it as `not-run`).
 */
export function candidateCounter(
  client: TaggingSender,
  options: TaggingLookupOptions = {},
): CandidateCounter {
  return {
    async candidates(_targetName, target, signal) {
      // An uncountable target (EKS pods, FIS filters, a superset type) is not an error: the gate then
      // falls back to the rules that need no candidate count.
      const result = await countCandidates(client, target, signal, options);
      return result.known ? result.count : undefined;
    },
  };
}

/** Options of {@link createTaggingClient}. */
export interface TaggingClientOptions extends Omit<AwsOptions, 'region' | 'env'> {
  region: string;
}

/**
 * A Tagging API client in the FIS Region (GetResources is regional). The endpoint comes from the
 * standard `AWS_ENDPOINT_URL_RESOURCE_GROUPS_TAGGING_API` / `AWS_ENDPOINT_URL` variables, as for the
 * FIS and CloudWatch clients, which is how the sandbox is reached. Attempts and HTTP timeouts are
 * those of every chaos-gate AWS client (`awsClientConfig`).
 */
export function createTaggingClient(opts: TaggingClientOptions): ResourceGroupsTaggingAPIClient {
  const { region, ...rest } = opts;
  return new ResourceGroupsTaggingAPIClient(awsClientConfig(region, rest));
}
