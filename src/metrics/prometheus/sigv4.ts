/**
 * AWS Signature Version 4 for Amazon Managed Service for Prometheus (signing name `aps`). The query
 * endpoint of a workspace (`https://aps-workspaces.<region>.amazonaws.com/workspaces/<id>`) speaks the
 * Prometheus HTTP API but accepts only signed requests.
 */
import { Sha256 } from '@aws-crypto/sha256-js';
import { defaultProvider } from '@aws-sdk/credential-provider-node';
import { HttpRequest } from '@smithy/protocol-http';
import { SignatureV4 } from '@smithy/signature-v4';

/** The AWS credentials a request is signed with. */
export interface AwsCredentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string | undefined;
}

/** Supplies credentials on demand (so short-lived ones can be refreshed between ticks). */
export type CredentialsProvider = () => Promise<AwsCredentials>;

/** SigV4 settings of the Prometheus source. */
export interface SigV4Options {
  region: string;
  /** The signing name; `aps` for Amazon Managed Service for Prometheus. */
  service?: 'aps' | undefined;
  /** Defaults to `defaultCredentials()`, the standard AWS credential chain. */
  credentials?: CredentialsProvider | undefined;
}

/**
 * The standard AWS credential chain — the one the FIS and CloudWatch clients use: environment variables,
 * the shared config and credentials files (profiles, SSO, `credential_process`), web identity
 * (`AWS_WEB_IDENTITY_TOKEN_FILE`, what OIDC federation sets up), then container and instance metadata.
 * Memoized: credentials are resolved once and refreshed only when they are about to expire.
 */
export function defaultCredentials(): CredentialsProvider {
  const provider = defaultProvider();
  return async () => {
    const c = await provider();
    return c.sessionToken
      ? { accessKeyId: c.accessKeyId, secretAccessKey: c.secretAccessKey, sessionToken: c.sessionToken }
      : { accessKeyId: c.accessKeyId, secretAccessKey: c.secretAccessKey };
  };
}

/** Credentials from AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY / AWS_SESSION_TOKEN only (tests, tools). */
export function credentialsFromEnv(
  env: Record<string, string | undefined> = process.env,
): CredentialsProvider {
  return () => {
    const accessKeyId = env['AWS_ACCESS_KEY_ID'];
    const secretAccessKey = env['AWS_SECRET_ACCESS_KEY'];
    if (!accessKeyId || !secretAccessKey) {
      return Promise.reject(
        new Error(
          'SigV4: no AWS credentials (set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, e.g. with configure-aws-credentials)',
        ),
      );
    }
    const sessionToken = env['AWS_SESSION_TOKEN'];
    return Promise.resolve(
      sessionToken ? { accessKeyId, secretAccessKey, sessionToken } : { accessKeyId, secretAccessKey },
    );
  };
}

/** A request to sign: the exact method, URL, headers and body that will be sent. */
export interface SignableRequest {
  method: string;
  url: URL;
  headers: Record<string, string>;
  body?: string | undefined;
}

/** Builds the smithy request for `req`; the `host` header is part of the signature. */
function toHttpRequest(req: SignableRequest): HttpRequest {
  const query: Record<string, string | string[]> = {};
  for (const [k, v] of req.url.searchParams) {
    const existing = query[k];
    if (existing === undefined) query[k] = v;
    else query[k] = Array.isArray(existing) ? [...existing, v] : [existing, v];
  }
  return new HttpRequest({
    method: req.method,
    protocol: req.url.protocol,
    hostname: req.url.hostname,
    ...(req.url.port ? { port: Number(req.url.port) } : {}),
    path: decodeURIComponent(req.url.pathname),
    query,
    headers: { ...req.headers, host: req.url.host },
    ...(req.body !== undefined ? { body: req.body } : {}),
  });
}

/**
 * Signs `req` and returns the headers to send (Authorization, X-Amz-Date, X-Amz-Security-Token,
 * X-Amz-Content-Sha256 and the caller's own). `host` is left out: fetch derives the same value from the URL.
 */
export async function signRequest(
  req: SignableRequest,
  options: { region: string; service: string; credentials: AwsCredentials; signingDate?: Date },
): Promise<Record<string, string>> {
  const signer = new SignatureV4({
    service: options.service,
    region: options.region,
    credentials: {
      accessKeyId: options.credentials.accessKeyId,
      secretAccessKey: options.credentials.secretAccessKey,
      ...(options.credentials.sessionToken ? { sessionToken: options.credentials.sessionToken } : {}),
    },
    sha256: Sha256,
  });
  const signed = await signer.sign(
    toHttpRequest(req),
    options.signingDate ? { signingDate: options.signingDate } : {},
  );
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(signed.headers)) if (k.toLowerCase() !== 'host') headers[k] = v;
  return headers;
}
