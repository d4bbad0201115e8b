/**
 * What the Tagging API contract tests need beyond `test/helpers/contract.ts`: the stand-in over an
 * editable resource list and a settable clock, how its awsJson1_1 requests read, and what the official
 * model (`resourcegroupstaggingapi.json`) says each exchange must be.
 */
import type http from 'node:http';
import path from 'node:path';
import { ResourceGroupsTaggingAPIClient } from '@aws-sdk/client-resource-groups-tagging-api';
import {
  TAGGING_TARGET_PREFIX,
  TaggingStandIn,
  type TaggedResource,
} from '../../src/sandbox/tagging/index.js';
import { sdkConfig, serveRecorded, type Exchange, type RecordedStandIn } from '../helpers/contract.js';
import {
  AWS_MODELS_DIR,
  errorShapeFor,
  loadModel,
  validateOperationInput,
  validateOperationOutput,
  validateShape,
} from '../helpers/smithy.js';

/** The official Resource Groups Tagging API model beside the repository. */
export const TAGGING_MODEL_PATH = path.join(AWS_MODELS_DIR, 'resourcegroupstaggingapi.json');

/** Errors of the awsJson protocol itself, which no service model lists. */
const PROTOCOL_ERRORS = new Set(['UnknownOperationException', 'SerializationException']);

/** The Tagging API speaks one protocol, awsJson1_1. */
export type TaggingProtocol = 'json';

/** A running stand-in on loopback. */
export interface TaggingHarness extends RecordedStandIn<ResourceGroupsTaggingAPIClient, TaggingProtocol> {
  standIn: TaggingStandIn;
  /** The account's resources; tests replace or edit it freely. */
  resources: TaggedResource[];
  /** The stand-in's clock (ms); tests move it to expire tokens. */
  clock: { t: number };
}

/** Options of {@link startTagging}. */
export interface StartTaggingOptions {
  arnListPageSize?: number | undefined;
  maxLiveTokens?: number | undefined;
}

/** A real Resource Groups Tagging API client for an endpoint. */
export function taggingClient(endpoint: string): ResourceGroupsTaggingAPIClient {
  return new ResourceGroupsTaggingAPIClient(sdkConfig(endpoint));
}

/** Starts the stand-in on 127.0.0.1:0 over `resources`. */
export async function startTagging(
  resources: TaggedResource[],
  opts: StartTaggingOptions = {},
): Promise<TaggingHarness> {
  const clock = { t: Date.UTC(2026, 0, 1) };
  const state = { resources };
  const standIn = new TaggingStandIn({
    resources: () => state.resources,
    now: () => clock.t,
    arnListPageSize: opts.arnListPageSize,
    maxLiveTokens: opts.maxLiveTokens,
  });
  const served = await serveRecorded(
    standIn,
    { read: readRequest, validate: validateExchange },
    taggingClient,
  );
  return {
    ...served,
    standIn,
    get resources() {
      return state.resources;
    },
    set resources(r: TaggedResource[]) {
      state.resources = r;
    },
    clock,
  };
}

/** The operation (from `X-Amz-Target`) and body of a Tagging API request. */
function readRequest(
  req: http.IncomingMessage,
  body: Buffer,
): { protocol: TaggingProtocol; operation: string; requestBody: string } {
  return {
    protocol: 'json',
    operation: String(req.headers['x-amz-target'] ?? '').slice(TAGGING_TARGET_PREFIX.length),
    requestBody: body.toString('utf8'),
  };
}

/**
 * Checks one exchange against the model: the awsJson1_1 request headers and input, then the output
 * (2xx) or a modeled error whose body, less `__type`, is a valid instance of the error shape.
 */
export function validateExchange(ex: Exchange<TaggingProtocol>): string[] {
  const model = loadModel(TAGGING_MODEL_PATH);
  const problems: string[] = [];
  if (ex.requestHeaders['content-type'] !== 'application/x-amz-json-1.1')
    problems.push(`request content-type ${ex.requestHeaders['content-type']}`);
  if (ex.responseHeaders['content-type'] !== 'application/x-amz-json-1.1')
    problems.push(`response content-type ${ex.responseHeaders['content-type']}`);
  let request: unknown;
  try {
    request = JSON.parse(ex.requestBody || '{}');
  } catch {
    request = undefined;
  }
  const modeled = Object.hasOwn(model.shapes, `com.amazonaws.resourcegroupstaggingapi#${ex.operation}`);
  if (request !== undefined && modeled)
    problems.push(...validateOperationInput(model, ex.operation, request).map((p) => `request ${p}`));
  const body = JSON.parse(ex.responseBody) as Record<string, unknown>;
  if (ex.status >= 200 && ex.status < 300) {
    if (!modeled) problems.push(`answered ${ex.status} to an operation the model does not have`);
    else
      problems.push(
        ...validateOperationOutput(model, ex.operation, body, { timestamps: 'epoch-seconds' }).map(
          (p) => `response ${p}`,
        ),
      );
    return problems;
  }
  const type = body.__type;
  if (typeof type !== 'string') return [...problems, `error ${ex.status} without __type`];
  if (ex.responseHeaders['x-amzn-errortype'] !== type)
    problems.push(`x-amzn-errortype ${ex.responseHeaders['x-amzn-errortype']} ≠ __type ${type}`);
  const { __type: _ignored, ...rest } = body;
  if (PROTOCOL_ERRORS.has(type)) {
    if (typeof rest.Message !== 'string') problems.push(`${type} without a Message`);
    return problems;
  }
  const shape = modeled ? errorShapeFor(model, ex.operation, type) : undefined;
  if (!shape) return [...problems, `error type ${type} is not modeled for ${ex.operation}`];
  problems.push(...validateShape(model, shape, rest).map((p) => `error ${p}`));
  return problems;
}
