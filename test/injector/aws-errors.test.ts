/**
 * Issue 12.6: which AWS failures mean a broken set-up (the run ends `failed`) and which are transient (a
 * gate may say `not-run`). Every error classified here is made by the pinned SDK clients themselves: the
 * credential provider chain with nothing to find, a connection to a closed loopback port, and AWS-shaped
 * error answers from a loopback stub that the SDK deserializes as it would AWS's.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FisClient, GetExperimentCommand } from '@aws-sdk/client-fis';
import { CloudWatchClient, DescribeAlarmsCommand } from '@aws-sdk/client-cloudwatch';
import {
  describeAwsError,
  isSetupError,
  SETUP_ERROR_NAMES,
  setupErrorOf,
} from '../../src/injector/aws/errors.js';
import { asSetupError } from '../../src/injector/aws/setup-error.js';
import { SetupError } from '../../src/preflight/setup-error.js';

const credentials = { accessKeyId: 'test', secretAccessKey: 'test' };

/** The error a promise rejects with (the test fails if it resolves). */
async function failure(p: Promise<unknown>): Promise<unknown> {
  try {
    await p;
  } catch (error) {
    return error;
  }
  throw new Error('expected the call to fail');
}

// A loopback stand-in that answers every FIS GetExperiment with the error named by the experiment id,
// in FIS's restJson1 wire format (status + x-amzn-errortype), so the SDK builds the exception itself.
const STATUS: Record<string, number> = {
  AccessDeniedException: 403,
  UnrecognizedClientException: 403,
  ExpiredTokenException: 403,
  InvalidSignatureException: 403,
  ThrottlingException: 429,
  InternalServerException: 500,
  ServiceUnavailableException: 503,
};
let stub: Server;
let stubUrl = '';
let closedPortUrl = '';

beforeAll(async () => {
  stub = createServer((req, res) => {
    const code = decodeURIComponent((req.url ?? '').split('/').at(-1) ?? '');
    res.writeHead(STATUS[code] ?? 400, {
      'content-type': 'application/json',
      'x-amzn-errortype': code,
    });
    res.end(JSON.stringify({ message: `stub: ${code}` }));
  });
  await new Promise<void>((r) => stub.listen(0, '127.0.0.1', r));
  stubUrl = `http://127.0.0.1:${(stub.address() as AddressInfo).port}`;
  // A port that was just free: nothing listens there, so connecting is refused.
  const probe = createServer();
  await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
  closedPortUrl = `http://127.0.0.1:${(probe.address() as AddressInfo).port}`;
  await new Promise<void>((r) => probe.close(() => r()));
});

afterAll(async () => {
  await new Promise<void>((r) => stub.close(() => r()));
});

const fisError = (code: string): Promise<unknown> =>
  failure(
    new FisClient({ region: 'us-east-1', endpoint: stubUrl, credentials, maxAttempts: 1 }).send(
      new GetExperimentCommand({ id: code }),
    ),
  );

describe('isSetupError on errors the SDK raises', () => {
  it('no credentials anywhere: CredentialsProviderError is a set-up error', async () => {
    // The default provider chain, with every place it looks emptied: no key variables, empty config
    // and credentials files, no web identity or container variables, instance metadata disabled.
    const dir = mkdtempSync(join(tmpdir(), 'cg-no-creds-'));
    const saved = { ...process.env };
    try {
      for (const k of Object.keys(process.env)) if (k.startsWith('AWS_')) delete process.env[k];
      writeFileSync(join(dir, 'config'), '');
      writeFileSync(join(dir, 'credentials'), '');
      Object.assign(process.env, {
        AWS_CONFIG_FILE: join(dir, 'config'),
        AWS_SHARED_CREDENTIALS_FILE: join(dir, 'credentials'),
        AWS_EC2_METADATA_DISABLED: 'true',
      });
      const client = new CloudWatchClient({ region: 'us-east-1', endpoint: stubUrl, maxAttempts: 1 });
      const error = await failure(client.send(new DescribeAlarmsCommand({})));
      expect((error as Error).name).toBe('CredentialsProviderError');
      expect(isSetupError(error)).toBe(true);
      expect(describeAwsError(error)).toBe(
        'CredentialsProviderError: Could not load credentials from any providers',
      );
    } finally {
      for (const k of Object.keys(process.env)) if (!(k in saved)) delete process.env[k];
      Object.assign(process.env, saved);
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('an endpoint nobody listens on: ECONNREFUSED is a set-up error', async () => {
    const client = new FisClient({
      region: 'us-east-1',
      endpoint: closedPortUrl,
      credentials,
      maxAttempts: 1,
    });
    const error = await failure(client.send(new GetExperimentCommand({ id: 'EXP1' })));
    expect((error as { code?: string }).code).toBe('ECONNREFUSED');
    expect(isSetupError(error)).toBe(true);
    expect(describeAwsError(error)).toMatch(/^connect ECONNREFUSED 127\.0\.0\.1:\d+$/);
  });

  it.each([
    'AccessDeniedException',
    'UnrecognizedClientException',
    'ExpiredTokenException',
    'InvalidSignatureException',
  ])('AWS answering %s is a set-up error', async (code) => {
    const error = await fisError(code);
    expect((error as Error).name).toBe(code);
    expect(isSetupError(error)).toBe(true);
  });

  it.each(['ThrottlingException', 'InternalServerException', 'ServiceUnavailableException'])(
    'AWS answering %s is transient, not a set-up error',
    async (code) => {
      const error = await fisError(code);
      expect((error as Error).name).toBe(code);
      expect(isSetupError(error)).toBe(false);
    },
  );
});

describe('isSetupError on wrapped and other errors', () => {
  it('finds a set-up error behind causes and inside an AggregateError', () => {
    const denied = Object.assign(new Error('User is not authorized'), { name: 'AccessDenied' });
    const wrapped = new Error('gate kill-switch: User is not authorized', { cause: denied });
    expect(setupErrorOf(wrapped)).toBe(denied);
    const refused = Object.assign(new Error('connect ECONNREFUSED ::1:4566'), { code: 'ECONNREFUSED' });
    expect(isSetupError(new AggregateError([refused], 'all attempts failed'))).toBe(true);
  });

  it('leaves resets, timeouts, deadlines and plain errors transient', () => {
    const reset = Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' });
    const timeout = Object.assign(new Error('Connection timed out after 1000 ms'), { name: 'TimeoutError' });
    const deadline = Object.assign(new Error('FIS GetExperiment did not answer within 4 s'), {
      name: 'DeadlineError',
    });
    for (const e of [reset, timeout, deadline, new Error('boom'), 'a string', undefined]) {
      expect(isSetupError(e), String(e)).toBe(false);
    }
  });

  it('lists the names the issue names', () => {
    for (const name of [
      'CredentialsProviderError',
      'ExpiredToken',
      'InvalidClientTokenId',
      'UnrecognizedClientException',
      'AccessDenied',
      'AccessDeniedException',
      'UnauthorizedOperation',
    ]) {
      expect(SETUP_ERROR_NAMES.has(name), name).toBe(true);
    }
  });
});

describe('asSetupError (the probes)', () => {
  it('turns a set-up error into a SetupError naming it and what to check', async () => {
    const error = asSetupError(await fisError('AccessDeniedException'));
    expect(error).toBeInstanceOf(SetupError);
    expect((error as Error).message).toBe(
      "the AWS set-up is broken (AccessDeniedException: stub: AccessDeniedException); check the runner's " +
        "AWS credentials, its role's permissions (docs/fis.md) and the endpoint (AWS_ENDPOINT_URL) and Region",
    );
  });

  it('passes a transient error through unchanged', async () => {
    const throttled = await fisError('ThrottlingException');
    expect(asSetupError(throttled)).toBe(throttled);
  });
});
