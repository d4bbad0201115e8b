/**
 * CloudWatch's two wire protocols, AWS JSON 1.0 and awsQuery (docs/design/cloudwatch.md#wire-protocols): recognises CloudWatch
 * traffic, decodes a request (gzip, JSON body or form parameters, Action and Version) into an operation
 * and its input, and writes the answer or the error the way that protocol does.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { gunzipSync } from 'node:zlib';
import { errorMessage } from '../../errors/message.js';
import {
  CloudWatchError,
  invalidAction,
  invalidParameterValue,
  missingParameter,
  serializationError,
  tooLarge,
} from './errors.js';
import type { Input, Output } from './operation.js';
import {
  API_VERSION,
  decodeJsonValue,
  decodeQueryParams,
  encodeJson,
  encodeJsonError,
  encodeXmlError,
  encodeXmlResponse,
  INPUT_SCHEMAS,
  SERVICE_TARGET,
} from './wire.js';

/** PutMetricData takes at most 1 MB per request (GR-CW; docs/design/cloudwatch.md#quotas). */
export const MAX_PUT_METRIC_DATA_BYTES = 1_000_000;
/** A decompressed body above this is refused, so a small gzip body cannot expand without bound. */
export const MAX_DECOMPRESSED_BYTES = 8 * 1024 * 1024;

/** Runs one decoded operation; throws a CloudWatchError for an error answer. */
export type Dispatch = (operation: string, input: Input) => Output;

/**
 * True for CloudWatch traffic: an `X-Amz-Target: GraniteServiceVersion20100801.*` header, or an
 * awsQuery request (form POST, or `?Action=`) that is unsigned or signed for `monitoring`.
 */
export function isCloudWatchRequest(req: IncomingMessage): boolean {
  const target = req.headers['x-amz-target'];
  if (typeof target === 'string') return target.startsWith(`${SERVICE_TARGET}.`);
  const auth = req.headers.authorization;
  if (typeof auth === 'string') {
    const scope = /Credential=[^/]+\/\d{8}\/[^/]+\/([^/]+)\/aws4_request/.exec(auth);
    if (scope && scope[1] !== 'monitoring') return false;
  }
  const type = String(req.headers['content-type'] ?? '');
  if (req.method === 'POST' && type.startsWith('application/x-www-form-urlencoded')) return true;
  return /[?&]Action=/.test(req.url ?? '');
}

/** Answers one request (the body already read). Never throws: failures become protocol errors. */
export function serveRequest(
  req: IncomingMessage,
  body: Buffer,
  res: ServerResponse,
  dispatch: Dispatch,
): void {
  const requestId = randomUUID();
  const target = req.headers['x-amz-target'];
  const json = typeof target === 'string';
  let operation = json ? target.slice(SERVICE_TARGET.length + 1) : 'Unknown';
  try {
    let raw = body;
    if (String(req.headers['content-encoding'] ?? '').toLowerCase() === 'gzip') {
      try {
        raw = gunzipSync(body, { maxOutputLength: MAX_DECOMPRESSED_BYTES });
      } catch {
        throw serializationError('The request body is not valid gzip, or expands beyond the size limit.');
      }
    }
    let input: Input;
    if (json) {
      const schema = INPUT_SCHEMAS[operation];
      if (!schema)
        throw invalidAction(`The operation ${operation} is not supported by the CloudWatch stand-in.`);
      let parsed: unknown;
      try {
        parsed = raw.length ? JSON.parse(raw.toString('utf8')) : {};
      } catch {
        throw serializationError('The request body is not valid JSON.');
      }
      input = decodeJsonValue({ M: schema }, parsed, '') as Input;
    } else {
      const params = new URLSearchParams(raw.toString('utf8'));
      const query = (req.url ?? '').split('?')[1];
      if (query) for (const [k, v] of new URLSearchParams(query)) if (!params.has(k)) params.set(k, v);
      const action = params.get('Action');
      if (!action) throw missingParameter('The request must contain the parameter Action.');
      operation = action;
      const version = params.get('Version');
      if (version !== null && version !== API_VERSION)
        throw invalidParameterValue(`The Version ${version} is not supported; use ${API_VERSION}.`);
      const schema = INPUT_SCHEMAS[operation];
      if (!schema) throw invalidAction(`The action ${operation} is not valid for this web service.`);
      input = decodeQueryParams(schema, params);
    }
    if (operation === 'PutMetricData' && raw.length > MAX_PUT_METRIC_DATA_BYTES)
      throw tooLarge(`PutMetricData requests are limited to ${MAX_PUT_METRIC_DATA_BYTES} bytes.`);
    const output = dispatch(operation, input);
    if (json) {
      send(
        res,
        200,
        { 'content-type': 'application/x-amz-json-1.0', 'x-amzn-requestid': requestId },
        encodeJson(output ?? {}),
      );
    } else {
      send(
        res,
        200,
        { 'content-type': 'text/xml', 'x-amzn-requestid': requestId },
        encodeXmlResponse(operation, output, requestId),
      );
    }
  } catch (e) {
    const err =
      e instanceof CloudWatchError
        ? e
        : new CloudWatchError(
            'InternalServiceError',
            `Internal error in the CloudWatch stand-in: ${errorMessage(e)}`,
            500,
            'com.amazonaws.cloudwatch#InternalServiceFault',
            'Receiver',
          );
    if (json) {
      const headers = {
        'content-type': 'application/x-amz-json-1.0',
        'x-amzn-requestid': requestId,
        'x-amzn-query-error': `${err.code};${err.fault}`,
      };
      send(res, err.status, headers, encodeJsonError(err));
    } else {
      send(
        res,
        err.status,
        { 'content-type': 'text/xml', 'x-amzn-requestid': requestId },
        encodeXmlError(err, requestId),
      );
    }
  }
}

/** Sets headers with setHeader so that a mounting server (and its tests) can read them back. */
function send(res: ServerResponse, status: number, headers: Record<string, string>, body: string): void {
  for (const [k, v] of Object.entries(headers)) res.setHeader(k, v);
  res.statusCode = status;
  res.end(body);
}
