/**
 * AWS clients for FIS and CloudWatch. Credentials come from the standard provider chain (OIDC via
 * configure-aws-credentials in Actions); endpoints from the standard `AWS_ENDPOINT_URL` /
 * `AWS_ENDPOINT_URL_FIS` / `AWS_ENDPOINT_URL_CLOUDWATCH` variables, which both pinned clients honour —
 * that is how the sandbox is reached, with no special code path.
 *
 * Every client gets bounded attempts and HTTP timeouts (src/net/deadline.ts, `AWS_HTTP`), so no call can
 * wait on a dead connection for ever even without a deadline; callers bound whole calls with
 * `sendWithin` and the `DEADLINES` of their call class.
 */
import { FisClient } from '@aws-sdk/client-fis';
import { CloudWatchClient } from '@aws-sdk/client-cloudwatch';
import { addFisPatches } from '../fis/patches.js';
import { AWS_HTTP, awsRequestHandlerOptions } from '../../net/deadline.js';

export interface AwsOptions {
  region?: string | undefined;
  /** SDK attempts per call (the SDK's own retry with backoff for throttling, 5xx and timeouts). */
  maxAttempts?: number | undefined;
  /** TCP connection set-up limit per attempt (ms); default `AWS_HTTP.connectionTimeoutMs`. */
  connectionTimeoutMs?: number | undefined;
  /** Limit of one attempt (ms; a silent socket on the FIS client); default `AWS_HTTP.attemptTimeoutMs`. */
  attemptTimeoutMs?: number | undefined;
  /** An explicit endpoint (tests, tools); by default the standard `AWS_ENDPOINT_URL*` variables decide. */
  endpoint?: string | undefined;
  /** Explicit credentials (tests); by default the standard provider chain. */
  credentials?: { accessKeyId: string; secretAccessKey: string; sessionToken?: string } | undefined;
  env?: NodeJS.ProcessEnv;
}

export interface AwsClients {
  fis: FisClient;
  cloudwatch: CloudWatchClient;
  region: string;
}

/** Default region when neither the input nor the environment names one. */
export const DEFAULT_REGION = 'us-east-1';

export function resolveRegion(opts: AwsOptions = {}): string {
  const env = opts.env ?? process.env;
  return opts.region || env.AWS_REGION || env.AWS_DEFAULT_REGION || DEFAULT_REGION;
}

/** The FIS endpoint a signed request outside the typed client must go to (safety lever). */
export function fisEndpoint(region: string, env: NodeJS.ProcessEnv = process.env): string {
  return (env.AWS_ENDPOINT_URL_FIS || env.AWS_ENDPOINT_URL || `https://fis.${region}.amazonaws.com`).replace(
    /\/+$/,
    '',
  );
}

/**
 * The configuration every chaos-gate AWS client shares: region, bounded attempts, HTTP timeouts and,
 * when given, an explicit endpoint and credentials. Also used for the Tagging API client.
 */
export function awsClientConfig(
  region: string,
  opts: Omit<AwsOptions, 'region' | 'env'> = {},
): {
  region: string;
  maxAttempts: number;
  requestHandler: ReturnType<typeof awsRequestHandlerOptions>;
  endpoint?: string;
  credentials?: { accessKeyId: string; secretAccessKey: string; sessionToken?: string };
} {
  return {
    region,
    maxAttempts: opts.maxAttempts ?? AWS_HTTP.maxAttempts,
    requestHandler: awsRequestHandlerOptions({
      connectionTimeoutMs: opts.connectionTimeoutMs,
      attemptTimeoutMs: opts.attemptTimeoutMs,
    }),
    ...(opts.endpoint !== undefined ? { endpoint: opts.endpoint } : {}),
    ...(opts.credentials !== undefined ? { credentials: opts.credentials } : {}),
  };
}

export function createAwsClients(opts: AwsOptions = {}): AwsClients {
  const region = resolveRegion(opts);
  const config = awsClientConfig(region, opts);
  const fis = new FisClient(config);
  addFisPatches(fis);
  const cloudwatch = new CloudWatchClient(config);
  return { fis, cloudwatch, region };
}
