/**
 * Test harness for the CloudWatch stand-in: mounts it on a loopback HTTP server, records every request
 * and response on the wire, and validates each against the official model (`cloudwatch.json`).
 */
import http from 'node:http';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { CloudWatchClient } from '@aws-sdk/client-cloudwatch';
import { CloudWatchStandIn } from '../../src/sandbox/cloudwatch/index.js';
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

/** One request/response pair as seen on the wire. */
export interface Exchange {
  protocol: 'json' | 'query';
  operation: string;
  requestHeaders: http.IncomingHttpHeaders;
  requestBody: string;
  status: number;
  responseHeaders: Record<string, string>;
  responseBody: string;
}

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
export interface StandInHarness {
  url: string;
  cw: CloudWatchStandIn;
  clock: FakeClock;
  exchanges: Exchange[];
  /** A real JSON 1.0 client pointed at the stand-in. */
  client: CloudWatchClient;
  /** Validates every recorded exchange against the model and clears the record. */
  drainProblems(): string[];
  close(): Promise<void>;
}

/** Dummy credentials: the stand-in does not check signatures. */
export const DUMMY_CREDENTIALS = { accessKeyId: 'AKIDSANDBOX', secretAccessKey: 'sandbox-secret' };

/** Starts the stand-in on 127.0.0.1:0 with a fake clock at `startMs`. */
export async function startStandIn(startMs: number): Promise<StandInHarness> {
  const clock = new FakeClock(startMs);
  const cw = new CloudWatchStandIn({ now: clock.now, region: 'us-east-1', accountId: '123456789012' });
  const exchanges: Exchange[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      if (!cw.handles(req)) {
        res.writeHead(404).end();
        return;
      }
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
      const origEnd = res.end.bind(res);
      res.end = ((chunk?: unknown, ...rest: unknown[]) => {
        exchanges.push({
          protocol,
          operation,
          requestHeaders: req.headers,
          requestBody,
          status: res.statusCode,
          responseHeaders: Object.fromEntries(
            Object.entries(res.getHeaders()).map(([k, v]) => [k, String(v)]),
          ),
          responseBody:
            chunk === undefined ? '' : Buffer.isBuffer(chunk) ? chunk.toString('utf8') : String(chunk),
        });
        return (origEnd as (...a: unknown[]) => http.ServerResponse)(chunk, ...rest);
      }) as typeof res.end;
      void cw.handle(req, body, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const addr = server.address();
  const url = `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}`;
  const client = new CloudWatchClient({
    endpoint: url,
    region: 'us-east-1',
    credentials: DUMMY_CREDENTIALS,
    maxAttempts: 1,
  });
  return {
    url,
    cw,
    clock,
    exchanges,
    client,
    drainProblems: () => {
      const problems = exchanges.flatMap((ex, i) =>
        validateExchange(ex).map((p) => `#${i} ${ex.protocol} ${ex.operation}: ${p}`),
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

/** Checks one exchange against the model: request input, response output or modeled error. */
export function validateExchange(ex: Exchange): string[] {
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
