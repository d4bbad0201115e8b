/**
 * What the CloudWatch contract tests need beyond `test/helpers/contract.ts`: the stand-in on a fake clock,
 * how a request reads on either of its wire protocols (JSON 1.0, awsQuery), and what the official model
 * (`cloudwatch.json`) says each exchange must be.
 */
import type http from 'node:http';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { CloudWatchClient } from '@aws-sdk/client-cloudwatch';
import { CloudWatchStandIn } from '../../src/sandbox/cloudwatch/index.js';
import { sdkConfig, serveRecorded, type Exchange, type RecordedStandIn } from '../helpers/contract.js';
import {
  AWS_MODELS_DIR,
  decodeAwsQueryRequest,
  decodeAwsQueryResponse,
  errorShapeFor,
  loadModel,
  validateOperationInput,
  validateOperationOutput,
  validateShape,
} from '../helpers/smithy.js';

/** The official CloudWatch model beside the repository. */
export const CW_MODEL_PATH = path.join(AWS_MODELS_DIR, 'cloudwatch.json');

/** CloudWatch's two wire protocols. */
export type CloudWatchProtocol = 'json' | 'query';

/** A settable clock for the stand-in. */
export class FakeClock {
  constructor(public t: number) {}
  now = (): number => this.t;
  advance(ms: number): number {
    this.t += ms;
    return this.t;
  }
}

/** A running stand-in on loopback. */
export interface StandInHarness extends RecordedStandIn<CloudWatchClient, CloudWatchProtocol> {
  cw: CloudWatchStandIn;
  clock: FakeClock;
}

/** A real CloudWatch client (JSON 1.0 in the pinned SDK) for an endpoint. */
export function cloudWatchClient(endpoint: string): CloudWatchClient {
  return new CloudWatchClient(sdkConfig(endpoint));
}

/** Starts the stand-in on 127.0.0.1:0 with a fake clock at `startMs`. */
export async function startStandIn(startMs: number): Promise<StandInHarness> {
  const clock = new FakeClock(startMs);
  const cw = new CloudWatchStandIn({ now: clock.now, region: 'us-east-1', accountId: '123456789012' });
  const served = await serveRecorded(
    cw,
    {
      read: readRequest,
      validate: validateExchange,
      name: (ex) => `${ex.protocol} ${ex.operation}`,
    },
    cloudWatchClient,
  );
  return Object.assign(served, { cw, clock });
}

/** The protocol, operation and body of a CloudWatch request; awsQuery URL parameters join the body's. */
function readRequest(
  req: http.IncomingMessage,
  body: Buffer,
): { protocol: CloudWatchProtocol; operation: string; requestBody: string } {
  const target = req.headers['x-amz-target'];
  const plain = req.headers['content-encoding'] === 'gzip' ? gunzipSync(body) : body;
  const protocol = typeof target === 'string' ? 'json' : 'query';
  let requestBody = plain.toString('utf8');
  if (protocol === 'query') {
    // awsQuery parameters may also ride in the URL; record them with the body's.
    const params = new URLSearchParams(requestBody);
    for (const [k, v] of new URLSearchParams((req.url ?? '').split('?')[1] ?? ''))
      if (!params.has(k)) params.append(k, v);
    requestBody = params.toString();
  }
  const operation =
    typeof target === 'string'
      ? (target.split('.')[1] ?? '')
      : (new URLSearchParams(requestBody).get('Action') ?? '');
  return { protocol, operation, requestBody };
}

/** Checks one exchange against the model: request input, response output or modeled error. */
export function validateExchange(ex: Exchange<CloudWatchProtocol>): string[] {
  const model = loadModel(CW_MODEL_PATH);
  const problems: string[] = [];
  if (ex.protocol === 'json') {
    if (ex.requestHeaders['content-type'] !== 'application/x-amz-json-1.0')
      problems.push(`request content-type ${ex.requestHeaders['content-type']}`);
    problems.push(
      ...validateOperationInput(model, ex.operation, JSON.parse(ex.requestBody || '{}'), {
        timestamps: 'epoch-seconds',
      }).map((p) => `request ${p}`),
    );
    if (ex.responseHeaders['content-type'] !== 'application/x-amz-json-1.0')
      problems.push(`response content-type ${ex.responseHeaders['content-type']}`);
    const body = JSON.parse(ex.responseBody) as Record<string, unknown>;
    if (ex.status === 200) {
      problems.push(
        ...validateOperationOutput(model, ex.operation, body, { timestamps: 'epoch-seconds' }).map(
          (p) => `response ${p}`,
        ),
      );
    } else {
      const header = ex.responseHeaders['x-amzn-query-error'];
      if (!header || !/^[A-Za-z]+;(Sender|Receiver)$/.test(header))
        problems.push(`error without a valid x-amzn-query-error header (${header})`);
      const code = header?.split(';')[0] ?? '';
      if (typeof body.__type !== 'string') problems.push('error body has no __type');
      const { __type: _type, ...rest } = body;
      const shape = errorShapeFor(model, ex.operation, code);
      if (shape) {
        problems.push(...validateShape(model, shape, rest).map((p) => `error ${p}`));
        const status = (model.shapes[shape]?.traits?.['smithy.api#httpError'] as number | undefined) ?? 400;
        if (status !== ex.status)
          problems.push(`error ${code} sent with HTTP ${ex.status}, model says ${status}`);
      } else if (typeof rest.message !== 'string') problems.push(`unmodeled error ${code} has no message`);
    }
  } else {
    const req = decodeAwsQueryRequest(model, ex.operation, new URLSearchParams(ex.requestBody));
    problems.push(...req.problems.map((p) => `request ${p}`));
    if (req.version !== '2010-08-01') problems.push(`request Version ${req.version}`);
    problems.push(
      ...validateOperationInput(model, ex.operation, req.input, { timestamps: 'date-time' }).map(
        (p) => `request ${p}`,
      ),
    );
    if (!String(ex.responseHeaders['content-type']).startsWith('text/xml'))
      problems.push(`response content-type ${ex.responseHeaders['content-type']}`);
    const res = decodeAwsQueryResponse(model, ex.operation, ex.responseBody);
    problems.push(...res.problems.map((p) => `response ${p}`));
    if (res.error) {
      const shape = errorShapeFor(model, ex.operation, res.error.code);
      if (res.error.type !== 'Sender' && res.error.type !== 'Receiver')
        problems.push(`error Type ${res.error.type}`);
      if (shape) {
        const member = model.shapes[shape]?.members?.Message ? 'Message' : 'message';
        problems.push(
          ...validateShape(model, shape, { [member]: res.error.message }).map((p) => `error ${p}`),
        );
      }
    } else {
      problems.push(
        ...validateOperationOutput(model, ex.operation, res.output, { timestamps: 'date-time' }).map(
          (p) => `response ${p}`,
        ),
      );
    }
  }
  return problems;
}
