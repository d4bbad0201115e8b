/**
 * The sandbox's stand-in for the AWS Resource Groups Tagging API (awsJson1_1, model
 * `resourcegroupstaggingapi.json`, API version 2017-01-26): GetResources, GetTagKeys and GetTagValues
 * over the sandbox account's resources, so that chaos-gate can look up the tags of the targets an FIS
 * dry run resolved and count a tag filter's candidates exactly as it does against AWS.
 *
 * Behaviour follows the model's documentation: tag filters AND together and the values of one filter
 * OR together; a filter without values matches the key with any value; resources without tags are not
 * returned; `ResourceARNList` cannot be combined with `TagFilters` or with the pagination parameters.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { errorMessage } from '../../errors/message.js';

/** The `X-Amz-Target` prefix of every operation (the service shape's name in the model). */
export const TAGGING_TARGET_PREFIX = 'ResourceGroupsTaggingAPI_20170126.';

/** Most ARNs in one `ResourceARNList` (model: `ResourceARNListForGet` length 1–100). */
export const MAX_RESOURCE_ARN_LIST = 100;
/** Most tag filters per request (model: `TagFilterList` length ≤ 50). */
export const MAX_TAG_FILTERS = 50;
/** Most values per tag filter (model: `TagValueList` length ≤ 20). */
export const MAX_TAG_FILTER_VALUES = 20;
/** Most resource type filters per request (model docs of `ResourceTypeFilters`: "up to 100 items"). */
export const MAX_RESOURCE_TYPE_FILTERS = 100;
/** `ResourcesPerPage` bounds (model docs: "a minimum of 1 and a maximum value of 100"). */
export const RESOURCES_PER_PAGE_RANGE = { min: 1, max: 100 } as const;
/** `TagsPerPage` bounds (model docs: "a minimum of 100 items up to a maximum of 500 items"). */
export const TAGS_PER_PAGE_RANGE = { min: 100, max: 500 } as const;
/** Page size when `ResourcesPerPage` is absent: AWS does not document one; moto 5.2.1 uses 50. */
export const DEFAULT_RESOURCES_PER_PAGE = 50;
/** Lifetime of a pagination token (model: `PaginationTokenExpiredException`, "a maximum of 15 minutes"). */
export const PAGINATION_TOKEN_TTL_MS = 15 * 60 * 1000;
/** Page size of GetTagKeys / GetTagValues, which take no page-size parameter (the sandbox's choice). */
export const TAG_KEYS_PAGE_SIZE = 50;
/** Pagination tokens kept at most (the sandbox's choice: ≤ 1000 queries of ≤ 100 ARNs stays a few MB). */
export const MAX_LIVE_TOKENS = 1000;
/** Largest request body the stand-in parses; a full GetResources input is far below it. */
const MAX_BODY_BYTES = 1024 * 1024;

/** A resource as the Tagging API sees it. */
export interface TaggedResource {
  arn: string;
  /** The Tagging API's `service:resourceType`, e.g. `ec2:instance`, `ecs:task` (as in the ARN). */
  resourceType: string;
  tags: Record<string, string>;
}

/** Options of {@link TaggingStandIn}. */
export interface TaggingStandInOptions {
  /** The account's resources, read on every request so the sandbox may change them. */
  resources: () => readonly TaggedResource[];
  /** Clock for pagination-token expiry; `Date.now` by default. */
  now?: (() => number) | undefined;
  /**
   * Pages `ResourceARNList` answers this many resources at a time. AWS documents no paging for an ARN
   * list (it forbids the paging parameters with one), so the default is none; tests use it to check
   * that a client still follows a `PaginationToken` that comes back with such an answer.
   */
  arnListPageSize?: number | undefined;
  /** Live pagination tokens kept at most; {@link MAX_LIVE_TOKENS} by default. */
  maxLiveTokens?: number | undefined;
}

/** An awsJson1_1 error: `__type` names a shape of the model (or coral's for protocol errors). */
export class TaggingError extends Error {
  override name = 'TaggingError';
  constructor(
    readonly type: string,
    message: string,
    readonly status = 400,
  ) {
    super(message);
  }
}

const invalidParameter = (message: string) => new TaggingError('InvalidParameterException', message);

type Json = Record<string, unknown>;

/** The query a pagination token continues: the filters and the position reached. */
interface PageState {
  /**
   * Canonical form of the query, so a token cannot be replayed with other filters. Kept here rather
   * than in the token, which the model caps at 2048 characters (a 100-ARN query is longer).
   */
  query: string;
  offset: number;
  issuedAt: number;
}

interface ResourceQuery {
  arns?: string[] | undefined;
  tagFilters: { key: string; values: string[] }[];
  typeFilters: string[];
  compliance: boolean;
  excludeCompliant: boolean;
}

/** ARN prefixes whose resource part carries no type: the Tagging API files them under this type. */
const TYPE_OF_UNTYPED_ARN: Readonly<Record<string, string>> = { s3: 's3:bucket' };

/**
 * The Tagging API resource type of an ARN (`service:type`, the type being the resource part up to its
 * first `/` or `:`), as the model's `ResourceTypeFilters` documentation describes it.
 */
export function taggingTypeOfArn(arn: string): string | undefined {
  const parts = arn.split(':');
  const service = parts[2];
  if (parts[0] !== 'arn' || parts.length < 6 || !service) return undefined;
  const resource = parts.slice(5).join(':');
  const sep = /[/:]/.exec(resource);
  if (!sep) return TYPE_OF_UNTYPED_ARN[service] ?? service;
  return `${service}:${resource.slice(0, sep.index)}`;
}

/**
 * The resources of an FIS-style inventory (`aws:ec2:instance`, …) that the Tagging API lists. EKS pods
 * are Kubernetes objects, not AWS resources, so GetResources never returns them; untyped ARNs are
 * dropped too.
 */
export function taggableResources(
  inventory: readonly { arn: string; resourceType: string; tags: Record<string, string> }[],
): TaggedResource[] {
  const out: TaggedResource[] = [];
  for (const r of inventory) {
    if (r.resourceType === 'aws:eks:pod') continue;
    const resourceType = taggingTypeOfArn(r.arn);
    if (resourceType) out.push({ arn: r.arn, resourceType, tags: { ...r.tags } });
  }
  return out;
}

function isObject(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function stringList(input: Json, field: string, max: number, maxLength: number, minLength = 0): string[] {
  const v = input[field];
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v) || v.some((s) => typeof s !== 'string'))
    throw invalidParameter(`${field} must be a list of strings.`);
  const list = v as string[];
  if (list.length > max)
    throw invalidParameter(`${field} has ${list.length} items; at most ${max} are allowed.`);
  for (const s of list) {
    if (s.length > maxLength || s.length < minLength)
      throw invalidParameter(
        `${field} item ${JSON.stringify(s.slice(0, 64))} must be ${minLength}-${maxLength} characters.`,
      );
  }
  return list;
}

function optionalInteger(
  input: Json,
  field: string,
  range: { min: number; max: number },
): number | undefined {
  const v = input[field];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'number' || !Number.isInteger(v))
    throw invalidParameter(`${field} must be an integer, got ${JSON.stringify(v)}.`);
  if (v < range.min || v > range.max)
    throw invalidParameter(`${field} must be between ${range.min} and ${range.max}, got ${v}.`);
  return v;
}

function optionalBoolean(input: Json, field: string): boolean {
  const v = input[field];
  if (v === undefined || v === null) return false;
  if (typeof v !== 'boolean') throw invalidParameter(`${field} must be a boolean, got ${JSON.stringify(v)}.`);
  return v;
}

function optionalToken(input: Json): string | undefined {
  const v = input.PaginationToken;
  if (v === undefined || v === null || v === '') return undefined;
  if (typeof v !== 'string') throw invalidParameter('PaginationToken must be a string.');
  return v;
}

function parseTagFilters(input: Json): { key: string; values: string[] }[] {
  const v = input.TagFilters;
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) throw invalidParameter('TagFilters must be a list of {Key, Values}.');
  if (v.length > MAX_TAG_FILTERS)
    throw invalidParameter(`TagFilters has ${v.length} filters; at most ${MAX_TAG_FILTERS} are allowed.`);
  return v.map((f: unknown, i) => {
    if (!isObject(f)) throw invalidParameter(`TagFilters[${i}] must be an object with Key and Values.`);
    const key = f.Key;
    if (typeof key !== 'string' || key.length < 1 || key.length > 128)
      throw invalidParameter(`TagFilters[${i}].Key must be a string of 1-128 characters.`);
    const values = stringList(f, 'Values', MAX_TAG_FILTER_VALUES, 256);
    return { key, values };
  });
}

function matchesTags(tags: Record<string, string>, filters: ResourceQuery['tagFilters']): boolean {
  return filters.every((f) => {
    if (!Object.hasOwn(tags, f.key)) return false;
    return f.values.length === 0 || f.values.includes(tags[f.key] as string);
  });
}

function matchesType(resourceType: string, filters: string[]): boolean {
  if (filters.length === 0) return true;
  return filters.some((f) => (f.includes(':') ? resourceType === f : resourceType.split(':')[0] === f));
}

function tagList(tags: Record<string, string>): { Key: string; Value: string }[] {
  return Object.entries(tags).map(([Key, Value]) => ({ Key, Value }));
}

/** The AWS Resource Groups Tagging API stand-in; mount it on the sandbox's AWS port. */
export class TaggingStandIn {
  private readonly now: () => number;
  private readonly tokens = new Map<string, PageState>();

  constructor(private readonly opts: TaggingStandInOptions) {
    this.now = opts.now ?? Date.now;
  }

  /** True for Tagging API traffic: an `X-Amz-Target: ResourceGroupsTaggingAPI_20170126.*` header. */
  handles(req: IncomingMessage): boolean {
    const target = req.headers['x-amz-target'];
    return typeof target === 'string' && target.startsWith(TAGGING_TARGET_PREFIX);
  }

  /** Answers one request whose body was already read. Never throws: failures become awsJson1_1 errors. */
  handle(req: IncomingMessage, body: Buffer, res: ServerResponse): Promise<void> {
    this.answer(req, body, res);
    return Promise.resolve();
  }

  private answer(req: IncomingMessage, body: Buffer, res: ServerResponse): void {
    const target = String(req.headers['x-amz-target'] ?? '');
    const operation = target.slice(TAGGING_TARGET_PREFIX.length);
    try {
      if (req.method !== 'POST')
        throw new TaggingError('UnknownOperationException', 'Only POST is accepted.');
      if (body.length > MAX_BODY_BYTES)
        throw new TaggingError(
          'SerializationException',
          `The request body exceeds ${MAX_BODY_BYTES} bytes.`,
          413,
        );
      let input: unknown;
      try {
        input = body.length === 0 ? {} : JSON.parse(body.toString('utf8'));
      } catch {
        throw new TaggingError('SerializationException', 'The request body is not valid JSON.');
      }
      if (!isObject(input))
        throw new TaggingError('SerializationException', 'The request body must be a JSON object.');
      let output: Json;
      switch (operation) {
        case 'GetResources':
          output = this.getResources(input);
          break;
        case 'GetTagKeys':
          output = this.getTagKeys(input);
          break;
        case 'GetTagValues':
          output = this.getTagValues(input);
          break;
        default:
          throw new TaggingError(
            'UnknownOperationException',
            `The operation ${operation || '(none)'} is not supported by the sandbox's Tagging API stand-in ` +
              '(GetResources, GetTagKeys and GetTagValues are).',
          );
      }
      this.send(res, 200, output);
    } catch (error) {
      const err =
        error instanceof TaggingError
          ? error
          : new TaggingError('InternalServiceException', errorMessage(error), 500);
      this.send(res, err.status, { __type: err.type, Message: err.message }, err.type);
    }
  }

  private send(res: ServerResponse, status: number, body: Json, errorType?: string): void {
    const text = JSON.stringify(body);
    // setHeader rather than writeHead's argument, so a wrapping server can still read the headers.
    res.setHeader('content-type', 'application/x-amz-json-1.1');
    res.setHeader('content-length', Buffer.byteLength(text));
    res.setHeader('x-amzn-requestid', randomUUID());
    if (errorType) res.setHeader('x-amzn-errortype', errorType);
    res.writeHead(status);
    res.end(text);
  }

  private issueToken(query: string, offset: number): string {
    const now = this.now();
    // Past the cap the oldest tokens go (a Map iterates in insertion order). Expired ones stay until
    // then, so that reusing one is answered PaginationTokenExpiredException, as AWS does.
    for (const id of this.tokens.keys()) {
      if (this.tokens.size < (this.opts.maxLiveTokens ?? MAX_LIVE_TOKENS)) break;
      this.tokens.delete(id);
    }
    const id = randomUUID();
    this.tokens.set(id, { query, offset, issuedAt: now });
    return id;
  }

  /** Reads a token this stand-in issued; `query` undefined accepts the token's own query. */
  private readToken(token: string, query: string | undefined): PageState {
    const state = this.tokens.get(token);
    if (!state)
      throw invalidParameter('The PaginationToken is not one this service issued, or it was evicted.');
    if (this.now() - state.issuedAt > PAGINATION_TOKEN_TTL_MS)
      throw new TaggingError(
        'PaginationTokenExpiredException',
        'The PaginationToken has expired; tokens are valid for 15 minutes.',
      );
    if (query !== undefined && state.query !== query)
      throw invalidParameter('The PaginationToken belongs to a request with other filters.');
    return state;
  }

  private getResources(input: Json): Json {
    const arnsGiven = input.ResourceARNList !== undefined && input.ResourceARNList !== null;
    const arns = arnsGiven ? stringList(input, 'ResourceARNList', MAX_RESOURCE_ARN_LIST, 1011, 1) : undefined;
    if (arns && arns.length === 0) throw invalidParameter('ResourceARNList must name at least one ARN.');
    for (const arn of arns ?? []) {
      if (!arn.startsWith('arn:') || arn.split(':').length < 6)
        throw invalidParameter(`ResourceARNList item ${JSON.stringify(arn.slice(0, 64))} is not an ARN.`);
    }
    const tagFilters = parseTagFilters(input);
    const typeFilters = stringList(input, 'ResourceTypeFilters', MAX_RESOURCE_TYPE_FILTERS, 256);
    const perPage = optionalInteger(input, 'ResourcesPerPage', RESOURCES_PER_PAGE_RANGE);
    const tagsPerPage = optionalInteger(input, 'TagsPerPage', TAGS_PER_PAGE_RANGE);
    const compliance = optionalBoolean(input, 'IncludeComplianceDetails');
    const excludeCompliant = optionalBoolean(input, 'ExcludeCompliantResources');
    let token = optionalToken(input);
    if (excludeCompliant && !compliance)
      throw invalidParameter(
        'ExcludeCompliantResources can be used only with IncludeComplianceDetails true.',
      );
    if (arns && tagFilters.length > 0)
      throw invalidParameter('ResourceARNList and TagFilters cannot be used in the same request.');
    if (arns && (perPage !== undefined || tagsPerPage !== undefined || token !== undefined))
      throw invalidParameter(
        'ResourceARNList cannot be used with ResourcesPerPage, TagsPerPage or PaginationToken in the same request.',
      );

    let query: ResourceQuery = { arns, tagFilters, typeFilters, compliance, excludeCompliant };
    let offset = 0;
    const hasQuery = arns !== undefined || tagFilters.length > 0 || typeFilters.length > 0 || compliance;
    if (token !== undefined) {
      // A token carries its query, so a token-only request continues it (how an ARN-list answer pages).
      const state = this.readToken(token, hasQuery ? JSON.stringify(query) : undefined);
      query = JSON.parse(state.query) as ResourceQuery;
      offset = state.offset;
      token = undefined;
    }

    const wanted = query.arns ? new Set(query.arns) : undefined;
    const matches = this.opts.resources().filter(
      (r) =>
        Object.keys(r.tags).length > 0 &&
        (!wanted || wanted.has(r.arn)) &&
        matchesType(r.resourceType, query.typeFilters) &&
        matchesTags(r.tags, query.tagFilters) &&
        // The sandbox has no tag policy, so every resource is compliant.
        !query.excludeCompliant,
    );
    if (offset > matches.length)
      throw invalidParameter('The PaginationToken is past the end of the results.');

    const limit = query.arns
      ? (this.opts.arnListPageSize ?? MAX_RESOURCE_ARN_LIST)
      : (perPage ?? DEFAULT_RESOURCES_PER_PAGE);
    const page: TaggedResource[] = [];
    let tagCount = 0;
    for (let i = offset; i < matches.length && page.length < limit; i++) {
      const r = matches[i] as TaggedResource;
      // TagsPerPage counts a resource without tags as one tag and never splits a resource across pages.
      const cost = Math.max(1, Object.keys(r.tags).length);
      if (tagsPerPage !== undefined && page.length > 0 && tagCount + cost > tagsPerPage) break;
      page.push(r);
      tagCount += cost;
    }
    const next = offset + page.length;
    return {
      ResourceTagMappingList: page.map((r) => ({
        ResourceARN: r.arn,
        Tags: tagList(r.tags),
        ...(query.compliance
          ? {
              ComplianceDetails: {
                NoncompliantKeys: [],
                KeysWithNoncompliantValues: [],
                ComplianceStatus: true,
              },
            }
          : {}),
      })),
      // AWS answers the last page with an empty token; the SDK paginators stop on it.
      PaginationToken: next < matches.length ? this.issueToken(JSON.stringify(query), next) : '',
    };
  }

  private pageOf(items: string[], input: Json, query: string, field: string): Json {
    const token = optionalToken(input);
    const offset = token === undefined ? 0 : this.readToken(token, query).offset;
    const page = items.slice(offset, offset + TAG_KEYS_PAGE_SIZE);
    const next = offset + page.length;
    return { [field]: page, PaginationToken: next < items.length ? this.issueToken(query, next) : '' };
  }

  private getTagKeys(input: Json): Json {
    const keys = new Set<string>();
    for (const r of this.opts.resources()) for (const k of Object.keys(r.tags)) keys.add(k);
    return this.pageOf([...keys].sort(), input, 'keys', 'TagKeys');
  }

  private getTagValues(input: Json): Json {
    const key = input.Key;
    if (key === undefined || key === null) throw invalidParameter('Key is required.');
    if (typeof key !== 'string' || key.length < 1 || key.length > 128)
      throw invalidParameter('Key must be a string of 1-128 characters.');
    const values = new Set<string>();
    for (const r of this.opts.resources()) {
      const v = r.tags[key];
      if (v !== undefined) values.add(v);
    }
    return this.pageOf([...values].sort(), input, `values:${key}`, 'TagValues');
  }
}
