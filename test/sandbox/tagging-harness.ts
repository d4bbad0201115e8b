/**
 * Test harness for the Tagging API stand-in: mounts it on a loopback HTTP server, records every request
 * and response on the wire and validates each against the official model
 * (`resourcegroupstaggingapi.json`, awsJson1_1).
 */
import http from 'node:http';
import path from 'node:path';
import { ResourceGroupsTaggingAPIClient } from '@aws-sdk/client-resource-groups-tagging-api';
import {
  TAGGING_TARGET_PREFIX,
  TaggingStandIn,
  type TaggedResource,
} from '../../src/sandbox/tagging/index.js';
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

/** Dummy credentials: the stand-in does not check signatures. */
export const DUMMY_CREDENTIALS = { accessKeyId: 'AKIDSANDBOX', secretAccessKey: 'sandbox-secret' };

/** One request/response pair as seen on the wire. */
export interface Exchange {
  operation: string;
  requestHeaders: http.IncomingHttpHeaders;
  requestBody: string;
  status: number;
  responseHeaders: Record<string, string>;
  responseBody: string;
}

/** A running stand-in on loopback. */
export interface TaggingHarness {
  url: string;
  standIn: TaggingStandIn;
  /** The account's resources; tests replace or edit it freely. */
  resources: TaggedResource[];
  /** The stand-in's clock (ms); tests move it to expire tokens. */
  clock: { t: number };
  exchanges: Exchange[];
  /** A real SDK client pointed at the stand-in. */
  client: ResourceGroupsTaggingAPIClient;
  /** Validates every recorded exchange against the model and clears the record. */
  drainProblems(): string[];
  close(): Promise<void>;
}

/** Options of {@link startTagging}. */
export interface StartTaggingOptions {
  arnListPageSize?: number | undefined;
  maxLiveTokens?: number | undefined;
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
  const exchanges: Exchange[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      if (!standIn.handles(req)) {
        res.writeHead(404).end();
        return;
      }
      const origEnd = res.end.bind(res);
      res.end = ((chunk?: unknown, ...rest: unknown[]) => {
        exchanges.push({
          operation: String(req.headers['x-amz-target'] ?? '').slice(TAGGING_TARGET_PREFIX.length),
          requestHeaders: req.headers,
          requestBody: body.toString('utf8'),
          status: res.statusCode,
          responseHeaders: Object.fromEntries(
            Object.entries(res.getHeaders()).map(([k, v]) => [k, String(v)]),
          ),
          responseBody:
            chunk === undefined ? '' : Buffer.isBuffer(chunk) ? chunk.toString('utf8') : String(chunk),
        });
        return (origEnd as (...a: unknown[]) => http.ServerResponse)(chunk, ...rest);
      }) as typeof res.end;
      void standIn.handle(req, body, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const addr = server.address();
  const url = `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}`;
  const client = new ResourceGroupsTaggingAPIClient({
    endpoint: url,
    region: 'us-east-1',
    credentials: DUMMY_CREDENTIALS,
    maxAttempts: 1,
  });
  return {
    url,
    standIn,
    get resources() {
      return state.resources;
    },
    set resources(r: TaggedResource[]) {
      state.resources = r;
    },
    clock,
    exchanges,
    client,
    drainProblems: () => {
      const problems = exchanges.flatMap((ex, i) =>
        validateExchange(ex).map((p) => `#${i} ${ex.operation}: ${p}`),
      );
      exchanges.length = 0;
      return problems;
    },
    close: async () => {
      client.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/**
 * Checks one exchange against the model: the awsJson1_1 request headers and input, then the output
 * (2xx) or a modeled error whose body, less `__type`, is a valid instance of the error shape.
 */
export function validateExchange(ex: Exchange): string[] {
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
