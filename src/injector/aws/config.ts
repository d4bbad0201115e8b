/**
 * What every chaos-gate AWS client is configured with: the Region, bounded attempts and HTTP timeouts,
 * and an explicit endpoint or credentials when given. Apart from the clients (clients.ts) so that code
 * needing only the configuration — the safety lever's signed request, a run's first read — does not load
 * the FIS client.
 */
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
