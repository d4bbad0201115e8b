/**
 * Test-side FIS plumbing: the real pinned `@aws-sdk/client-fis` pointed at the sandbox, with a
 * recorder that keeps every request and raw response for model validation, a build middleware that
 * adds what 3.523.0 drops (experimentOptions, the experimentTemplateId filter), and SigV4-signed raw
 * calls for the safety-lever operations the client lacks.
 */
import {
  FisClient,
  GetExperimentCommand,
  type Experiment,
  type ServiceInputTypes,
  type ServiceOutputTypes,
} from '@aws-sdk/client-fis';
import { HttpRequest } from '@smithy/protocol-http';
import { SignatureV4 } from '@smithy/signature-v4';
import { Sha256 } from '@aws-crypto/sha256-js';
import type { DeserializeMiddleware } from '@smithy/types';

/** Dummy credentials: the sandbox accepts any. */
export const credentials = { accessKeyId: 'AKIDSANDBOX', secretAccessKey: 'sandbox-secret' };

/** One request/response pair as it crossed the wire. */
export interface Exchange {
  operation: string;
  method: string;
  path: string;
  query: Record<string, string | string[] | null>;
  requestBody: string | undefined;
  status: number;
  responseBody: string;
}

/** Extra wire fields for the next commands (what the pinned client cannot express). */
export interface WirePatch {
  experimentOptions?: Record<string, string>;
  experimentTemplateId?: string;
}

/** A FIS client with a recorder and a patch slot. */
export interface RecordingFis {
  client: FisClient;
  exchanges: Exchange[];
  /** Applied to every StartExperiment / ListExperiments call while set. */
  patch: WirePatch;
}

/** Builds a FIS client for the sandbox at `endpoint`. */
export function recordingFis(endpoint: string, opts: { maxAttempts?: number } = {}): RecordingFis {
  const client = new FisClient({
    endpoint,
    region: 'us-east-1',
    credentials,
    maxAttempts: opts.maxAttempts ?? 3,
  });
  const exchanges: Exchange[] = [];
  const patch: WirePatch = {};

  client.middlewareStack.add(
    (next, context) => async (args) => {
      const req = args.request as HttpRequest;
      if (HttpRequest.isInstance(req)) {
        if (
          context.commandName === 'StartExperimentCommand' &&
          patch.experimentOptions &&
          typeof req.body === 'string'
        ) {
          req.body = JSON.stringify({ ...JSON.parse(req.body), experimentOptions: patch.experimentOptions });
          req.headers['content-length'] = String(Buffer.byteLength(req.body));
        }
        if (context.commandName === 'ListExperimentsCommand' && patch.experimentTemplateId)
          req.query = { ...req.query, experimentTemplateId: patch.experimentTemplateId };
      }
      return next(args);
    },
    { step: 'build', priority: 'high', name: 'sandboxTestPatch' },
  );

  const recorder: DeserializeMiddleware<ServiceInputTypes, ServiceOutputTypes> =
    (next, context) => async (args) => {
      const req = args.request as HttpRequest;
      const out = await next(args);
      const res = out.response as { statusCode: number; body: AsyncIterable<Uint8Array> | Uint8Array };
      const chunks: Buffer[] = [];
      if (res.body instanceof Uint8Array) chunks.push(Buffer.from(res.body));
      else for await (const c of res.body) chunks.push(Buffer.from(c));
      const raw = Buffer.concat(chunks);
      res.body = new Uint8Array(raw);
      exchanges.push({
        operation: String(context.commandName).replace(/Command$/, ''),
        method: req.method,
        path: req.path,
        query: (req.query ?? {}) as Exchange['query'],
        requestBody: typeof req.body === 'string' ? req.body : undefined,
        status: res.statusCode,
        responseBody: raw.toString('utf8'),
      });
      return out;
    };
  client.middlewareStack.addRelativeTo(recorder, {
    relation: 'after',
    toMiddleware: 'deserializerMiddleware',
    name: 'sandboxTestRecorder',
  });
  return { client, exchanges, patch };
}

/** A SigV4-signed raw FIS call (for GetSafetyLever / UpdateSafetyLeverState, absent from 3.523.0). */
export async function signedFisCall(
  endpoint: string,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; errorType: string | null; json: Record<string, unknown> }> {
  const url = new URL(path, endpoint);
  const text = body === undefined ? undefined : JSON.stringify(body);
  const signer = new SignatureV4({ credentials, region: 'us-east-1', service: 'fis', sha256: Sha256 });
  const signed = await signer.sign(
    new HttpRequest({
      method,
      protocol: url.protocol,
      hostname: url.hostname,
      port: Number(url.port),
      path: url.pathname,
      headers: { host: url.host, ...(text ? { 'content-type': 'application/json' } : {}) },
      ...(text ? { body: text } : {}),
    }),
  );
  const res = await fetch(url, { method, headers: signed.headers, ...(text ? { body: text } : {}) });
  return {
    status: res.status,
    errorType: res.headers.get('x-amzn-errortype'),
    json: (await res.json()) as Record<string, unknown>,
  };
}

/** FIS's experiment state as it arrives on the wire: 3.523.0's types lack `error` and `cancelled`. */
export interface WireState {
  status?: string;
  reason?: string;
  error?: { accountId?: string; code?: string; location?: string };
}

/** The wire state of an experiment (the SDK passes `state` through untouched). */
export function wireState(e: Experiment): WireState {
  return (e.state ?? {}) as WireState;
}

/** Polls GetExperiment until `done` holds; returns the experiment (fails after `timeoutMs`). */
export async function waitForExperiment(
  client: FisClient,
  id: string,
  done: (e: Experiment) => boolean,
  timeoutMs = 20_000,
): Promise<Experiment> {
  const deadline = Date.now() + timeoutMs;
  let last: Experiment | undefined;
  while (Date.now() < deadline) {
    last = (await client.send(new GetExperimentCommand({ id }))).experiment;
    if (last && done(last)) return last;
    await new Promise((r) => setTimeout(r, 40));
  }
  throw new Error(`experiment ${id} did not reach the expected state; last: ${JSON.stringify(last?.state)}`);
}

/** Collects the distinct experiment statuses seen while polling until a terminal one. */
export async function watchStatuses(
  client: FisClient,
  id: string,
  timeoutMs = 20_000,
): Promise<{ seen: string[]; final: Experiment }> {
  const seen: string[] = [];
  const final = await waitForExperiment(
    client,
    id,
    (e) => {
      const s = String(wireState(e).status);
      if (seen[seen.length - 1] !== s) seen.push(s);
      return ['completed', 'stopped', 'failed', 'cancelled'].includes(s);
    },
    timeoutMs,
  );
  return { seen, final };
}
