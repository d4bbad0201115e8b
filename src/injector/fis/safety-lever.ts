/**
 * The FIS safety lever (GetSafetyLever / UpdateSafetyLeverState) is missing from the pinned client, so
 * these two requests are built and SigV4-signed here with the client's own credentials, exactly as the
 * SDK would sign them (service `fis`). Where the endpoint does not know the lever (404/unknown
 * operation), callers learn `unavailable` and carry on with the alarm-based kill switch.
 *
 * Each request, signing included, has a deadline (`DEADLINES.fisSafetyLever`, 5 s) and honours the
 * caller's signal; a throttled or 5xx answer, or a dropped connection, is tried again (like the SDK's own
 * retry) inside that deadline.
 *
 * Only an endpoint that does not know the lever is `unavailable`. A read that fails — refused (403),
 * throttled beyond the retries, 5xx, no answer in time — is a failure with an `error` naming the call
 * and what came back: the kill-switch read then fails closed (kill-switch-state.ts), because a lever that
 * cannot be read is not shown released.
 */
import { clampTimerMs } from '../../net/timer.js';
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
  | { available: true; state: LeverState | string; reason?: string }
  /** `error` is set when the call failed; without it, the endpoint has no lever. */
  | { available: false; detail: string; error?: LeverCallError };

/**
 * A lever call that failed. Its `cause` carries AWS's error code as its name (`AccessDeniedException`,
 * `ThrottlingException`), so the preflight's classification (injector/aws/errors.ts) reads it like an SDK
 * error: a refused permission is a broken set-up, throttling is transient.
 */
export class LeverCallError extends Error {
  override name = 'LeverCallError';
  constructor(
    message: string,
    readonly status: number | undefined,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** Attempts per lever call, the first included, and the pause before the second (doubling). */
const LEVER_ATTEMPTS = 3;
const LEVER_RETRY_PAUSE_MS = 200;

/** Answers worth another attempt: throttling and server errors (a dropped connection throws). */
function retryable(status: number): boolean {
  return status === 429 || status >= 500;
}

/** The endpoint does not have the lever: no such path, or an operation it does not implement. */
function unknownOperation(status: number, code: string | undefined): boolean {
  return status === 404 || status === 501 || code === 'UnknownOperationException';
}

type SignedAnswer = { status: number; json: Record<string, unknown> | null; text: string; code?: string };

function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, clampTimerMs(ms));
    signal.addEventListener('abort', () => (clearTimeout(timer), resolve()), { once: true });
  });
}

/** One lever request, tried again on throttling, 5xx or a dropped connection while the deadline allows. */
async function withRetries(
  send: (signal: AbortSignal) => Promise<SignedAnswer>,
  signal: AbortSignal,
): Promise<SignedAnswer> {
  for (let attempt = 1; ; attempt++) {
    try {
      const r = await send(signal);
      if (!retryable(r.status) || attempt >= LEVER_ATTEMPTS || signal.aborted) return r;
    } catch (error) {
      if (attempt >= LEVER_ATTEMPTS || signal.aborted) throw error;
    }
    await pause(LEVER_RETRY_PAUSE_MS * 2 ** (attempt - 1), signal);
  }
}

/** The failure of a lever call as a {@link LeverResult}: `error` named after the call and the answer. */
function failed(call: string, r: SignedAnswer): LeverResult {
  const code = r.code ?? (typeof r.json?.__type === 'string' ? r.json.__type.split('#').pop() : undefined);
  const message = typeof r.json?.message === 'string' ? r.json.message : r.text.slice(0, 200);
  const what = `${call} answered HTTP ${r.status}${code ? ` ${code}` : ''}${message ? `: ${message}` : ''}`;
  if (unknownOperation(r.status, code)) return { available: false, detail: what };
  const cause = Object.assign(new Error(what), { name: code ?? `HTTP${r.status}` });
  return { available: false, detail: what, error: new LeverCallError(what, r.status, { cause }) };
}

/** A lever call that threw (deadline, connection, signing) as a {@link LeverResult}. */
function threw(call: string, error: unknown): LeverResult {
  const what = `${call} failed: ${errorMessage(error)}`;
  return { available: false, detail: what, error: new LeverCallError(what, undefined, { cause: error }) };
}

async function signedRequest(
  client: FisClient,
  region: string,
  method: 'GET' | 'PATCH',
  path: string,
  body: unknown,
  signal: AbortSignal,
): Promise<SignedAnswer> {
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
  const errorType = response.headers['x-amzn-errortype'] ?? response.headers['x-amzn-ErrorType'];
  const code = typeof errorType === 'string' ? errorType.split(':')[0] : undefined;
  return { status: response.statusCode, json, text, ...(code ? { code } : {}) };
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
      (signal) =>
        withRetries(
          (s) => signedRequest(client, region, 'GET', '/safetyLevers/default', undefined, s),
          signal,
        ),
      options.deadlineMs ?? DEADLINES.fisSafetyLever,
      'FIS GetSafetyLever',
      options.signal,
    );
    const lever = leverFrom(r.json);
    if (r.status === 200 && lever) return { available: true, ...lever };
    return failed('FIS GetSafetyLever', r);
  } catch (error) {
    return threw('FIS GetSafetyLever', error);
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
        withRetries(
          (s) =>
            signedRequest(
              client,
              region,
              'PATCH',
              '/safetyLevers/default/state',
              { state: { status, reason } },
              s,
            ),
          signal,
        ),
      options.deadlineMs ?? DEADLINES.fisSafetyLever,
      'FIS UpdateSafetyLeverState',
      options.signal,
    );
    const lever = leverFrom(r.json);
    if (r.status === 200 && lever) return { available: true, ...lever };
    return failed('FIS UpdateSafetyLeverState', r);
  } catch (error) {
    return threw('FIS UpdateSafetyLeverState', error);
  }
}
