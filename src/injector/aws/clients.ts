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
import { awsClientConfig, resolveRegion, type AwsOptions } from './config.js';

export interface AwsClients {
  fis: FisClient;
  cloudwatch: CloudWatchClient;
  region: string;
}

export function createAwsClients(opts: AwsOptions = {}): AwsClients {
  const region = resolveRegion(opts);
  const config = awsClientConfig(region, opts);
  return withFisClient(new CloudWatchClient(config), region, config);
}

/** A CloudWatch client alone (`chaos-gate measure`), with the configuration every chaos-gate AWS client has. */
export function createCloudWatchClient(opts: AwsOptions = {}): CloudWatchClient {
  return new CloudWatchClient(awsClientConfig(resolveRegion(opts), opts));
}

/**
 * The clients of a run whose CloudWatch client already exists (compose/early.ts creates it first): a FIS
 * client with the same configuration beside it.
 */
export function withFisClient(
  cloudwatch: CloudWatchClient,
  region: string,
  config: ReturnType<typeof awsClientConfig>,
): AwsClients {
  const fis = new FisClient(config);
  addFisPatches(fis);
  return { fis, cloudwatch, region };
}
