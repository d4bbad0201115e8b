/**
 * AWS clients for FIS and CloudWatch. Credentials come from the standard provider chain (OIDC via
 * configure-aws-credentials in Actions); endpoints from the standard `AWS_ENDPOINT_URL` /
 * `AWS_ENDPOINT_URL_FIS` / `AWS_ENDPOINT_URL_CLOUDWATCH` variables, which both pinned clients honour —
 * that is how the sandbox is reached, with no special code path.
 */
import { FisClient } from '@aws-sdk/client-fis';
import { CloudWatchClient } from '@aws-sdk/client-cloudwatch';
import { addFisPatches } from '../fis/patches.js';

export interface AwsOptions {
  region?: string | undefined;
  /** SDK attempts per call (the SDK's own retry with backoff for throttling and 5xx). */
  maxAttempts?: number | undefined;
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

export function createAwsClients(opts: AwsOptions = {}): AwsClients {
  const region = resolveRegion(opts);
  const maxAttempts = opts.maxAttempts ?? 4;
  const fis = new FisClient({ region, maxAttempts });
  addFisPatches(fis);
  const cloudwatch = new CloudWatchClient({ region, maxAttempts });
  return { fis, cloudwatch, region };
}
