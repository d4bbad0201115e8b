/**
 * The FIS safety lever (GetSafetyLever / UpdateSafetyLeverState) is missing from the pinned client, so
 * these two requests are built and SigV4-signed here with the client's own credentials, exactly as the
 * SDK would sign them (service `fis`). Where the endpoint does not know the lever (404/unknown
 * operation), callers learn `unavailable` and carry on with the alarm-based kill switch.
 *
 * Each request, signing included, has a deadline (`DEADLINES.fisSafetyLever`, 5 s) and honours the
 * caller's signal: a lever that does not answer in time counts as unavailable, because the kill-switch
 * alarm stops experiments without it and `kill` must not hang on it.
 */
import type { FisClient } from '@aws-sdk/client-fis';
import { SignatureV4 } from '@smithy/signature-v4';
import { HttpRequest } from '@smithy/protocol-http';
import { Sha256 } from '@aws-crypto/sha256-js';
import { fisEndpoint } from '../aws/config.js';
import { DEADLINES, withDeadline } from '../../net/deadline.js';
import { errorMessage } from '../../errors/message.js';

/** Options of the lever calls. */
export interface LeverCallOptions {
  /** The caller's cancellation (a run being torn down, a signal). */
  signal?: AbortSignal | undefined;
  /** Deadline of the request (ms); default `DEADLINES.fisSafetyLever`. */
  deadlineMs?: number | undefined;
}

/**
 * Where the lever lives: the client's own endpoint when one was configured explicitly (tests, tools),
 * else the standard `AWS_ENDPOINT_URL*` variables or the Regional FIS endpoint.
 */
async function leverEndpoint(client: FisClient, region: string): Promise<URL> {
  if (client.config.isCustomEndpoint && typeof client.config.endpoint === 'function') {
    const e = await client.config.endpoint();
    const port = e.port === undefined ? '' : `:${e.port}`;
    return new URL(`${e.protocol}//${e.hostname}${port}`);
  }
  return new URL(fisEndpoint(region));
}

export type LeverState = 'engaged' | 'disengaged' | 'engaging' | 'disengaging';

export type LeverResult =
  { available: true; state: LeverState | string; reason?: string } | { available: false; detail: string };

async function signedRequest(
  client: FisClient,
  region: string,
  method: 'GET' | 'PATCH',
  path: string,
  body: unknown,
  signal: AbortSignal,
): Promise<{ status: number; json: Record<string, unknown> | null; text: string }> {
  const endpoint = await leverEndpoint(client, region);
  const payload = body === undefined ? undefined : JSON.stringify(body);
  const request = new HttpRequest({
    method,
    protocol: endpoint.protocol,
    hostname: endpoint.hostname,
    ...(endpoint.port ? { port: Number(endpoint.port) } : {}),
    path,
    headers: {
      host: endpoint.host,
      ...(payload !== undefined
        ? { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(payload)) }
        : {}),
    },
    ...(payload !== undefined ? { body: payload } : {}),
  });
  const signer = new SignatureV4({
    credentials: client.config.credentials,
    region,
    service: 'fis',
    sha256: Sha256,
  });
  const signed = await signer.sign(request);
  // The client's own HTTP handler sends it (its agent, timeouts and proxy settings, and no second HTTP
  // stack: Node's fetch would load undici before the run's first AWS call).
  const { response } = await client.config.requestHandler.handle(signed, { abortSignal: signal });
  const text = await bodyText(response.body as AsyncIterable<Uint8Array | string> | undefined);
  let json: Record<string, unknown> | null = null;
  try {
    json = JSON.parse(text) as Record<string, unknown>;
  } catch {
    json = null;
  }
  return { status: response.statusCode, json, text };
}

/** The whole body of a response the handler returned (a Node stream), as UTF-8 text. */
async function bodyText(body: AsyncIterable<Uint8Array | string> | undefined): Promise<string> {
  if (body === undefined) return '';
  const chunks: Buffer[] = [];
  for await (const chunk of body) chunks.push(Buffer.from(chunk));
  return Buffer.concat(chunks).toString('utf8');
}

function leverFrom(json: Record<string, unknown> | null): { state: string; reason?: string } | undefined {
  const lever = json?.safetyLever as { state?: { status?: string; reason?: string } } | undefined;
  const status = lever?.state?.status;
  if (typeof status !== 'string') return undefined;
  return lever?.state?.reason ? { state: status, reason: lever.state.reason } : { state: status };
}

/** Reads the account's default safety lever. */
export async function getSafetyLever(
  client: FisClient,
  region: string,
  options: LeverCallOptions = {},
): Promise<LeverResult> {
  try {
    const r = await withDeadline(
      (signal) => signedRequest(client, region, 'GET', '/safetyLevers/default', undefined, signal),
      options.deadlineMs ?? DEADLINES.fisSafetyLever,
      'FIS GetSafetyLever',
      options.signal,
    );
    const lever = leverFrom(r.json);
    if (r.status === 200 && lever) return { available: true, ...lever };
    return { available: false, detail: `GetSafetyLever answered HTTP ${r.status}: ${r.text.slice(0, 200)}` };
  } catch (error) {
    return {
      available: false,
      detail: `GetSafetyLever failed: ${errorMessage(error)}`,
    };
  }
}

/** Engages or disengages the default safety lever. */
export async function updateSafetyLever(
  client: FisClient,
  region: string,
  status: 'engaged' | 'disengaged',
  reason: string,
  options: LeverCallOptions = {},
): Promise<LeverResult> {
  try {
    const r = await withDeadline(
      (signal) =>
        signedRequest(
          client,
          region,
          'PATCH',
          '/safetyLevers/default/state',
          { state: { status, reason } },
          signal,
        ),
      options.deadlineMs ?? DEADLINES.fisSafetyLever,
      'FIS UpdateSafetyLeverState',
      options.signal,
    );
    const lever = leverFrom(r.json);
    if (r.status === 200 && lever) return { available: true, ...lever };
    return {
      available: false,
      detail: `UpdateSafetyLeverState answered HTTP ${r.status}: ${r.text.slice(0, 200)}`,
    };
  } catch (error) {
    return {
      available: false,
      detail: `UpdateSafetyLeverState failed: ${errorMessage(error)}`,
    };
  }
}
