/**
 * Reading the tags of a multi-account experiment's targets. The Resource Groups Tagging API answers for
 * the caller's own account only, so the tags of a resource in a target account are read with that
 * account's credentials: chaos-gate assumes a read-only role there (STS AssumeRole, signed here with the
 * runner's own credentials) and asks that account's Tagging API. Which role is set by the environment:
 *
 *   CHAOS_GATE_TARGET_ACCOUNT_ROLE=chaos-gate-tag-reader              # a role name, in every account
 *   CHAOS_GATE_TARGET_ACCOUNT_ROLE=arn:aws:iam::{account}:role/reader # or an ARN template
 *
 * The role needs `tag:GetResources` only and must trust the runner's role. Without the variable the tags
 * of target-account resources stay unknown, and the blast-radius gate refuses them while tags are
 * guarded (fail closed).
 */
import { ResourceGroupsTaggingAPIClient } from '@aws-sdk/client-resource-groups-tagging-api';
import { HttpRequest } from '@smithy/protocol-http';
import { SignatureV4 } from '@smithy/signature-v4';
import { Sha256 } from '@aws-crypto/sha256-js';
import type { AwsCredentialIdentity, AwsCredentialIdentityProvider } from '@smithy/types';
import { DEADLINES, withDeadline } from '../../net/deadline.js';
import { awsClientConfig, type AwsOptions } from './config.js';
import type { TaggingSender } from './tagging.js';

/** The environment variable naming the role chaos-gate assumes in each target account. */
export const TARGET_ACCOUNT_ROLE_ENV = 'CHAOS_GATE_TARGET_ACCOUNT_ROLE';
/** Session length asked of STS (its minimum, 15 minutes: the credentials only read tags during preflight). */
export const TAG_READER_SESSION_SECONDS = 900;
/** Renew temporary credentials this long before they expire. */
const RENEW_BEFORE_MS = 60_000;

/** The role ARN for an account from the variable's value (a name, or an ARN template with `{account}`). */
export function targetAccountRoleArn(setting: string, accountId: string, partition = 'aws'): string {
  return setting.startsWith('arn:')
    ? setting.replaceAll('{account}', accountId)
    : `arn:${partition}:iam::${accountId}:role/${setting}`;
}

/** The STS endpoint: `AWS_ENDPOINT_URL_STS`, else `AWS_ENDPOINT_URL` (the sandbox), else the Regional one. */
export function stsEndpoint(region: string, env: NodeJS.ProcessEnv = process.env): string {
  return (env.AWS_ENDPOINT_URL_STS || env.AWS_ENDPOINT_URL || `https://sts.${region}.amazonaws.com`).replace(
    /\/+$/,
    '',
  );
}

function xmlText(xml: string, tag: string): string | undefined {
  return new RegExp(`<${tag}>([^<]*)</${tag}>`).exec(xml)?.[1];
}

/** Calls STS AssumeRole (awsQuery), signed with `credentials`; returns the temporary credentials. */
export async function assumeRole(o: {
  roleArn: string;
  sessionName: string;
  region: string;
  credentials: AwsCredentialIdentity | AwsCredentialIdentityProvider;
  endpoint: string;
  signal?: AbortSignal | undefined;
}): Promise<AwsCredentialIdentity> {
  const url = new URL(o.endpoint);
  const body = new URLSearchParams({
    Action: 'AssumeRole',
    Version: '2011-06-15',
    RoleArn: o.roleArn,
    RoleSessionName: o.sessionName,
    DurationSeconds: String(TAG_READER_SESSION_SECONDS),
  }).toString();
  const request = new HttpRequest({
    method: 'POST',
    protocol: url.protocol,
    hostname: url.hostname,
    ...(url.port ? { port: Number(url.port) } : {}),
    path: url.pathname || '/',
    headers: {
      host: url.host,
      'content-type': 'application/x-www-form-urlencoded; charset=utf-8',
      'content-length': String(Buffer.byteLength(body)),
    },
    body,
  });
  const signer = new SignatureV4({
    credentials: o.credentials,
    region: o.region,
    service: 'sts',
    sha256: Sha256,
  });
  const signed = await signer.sign(request);
  const response = await withDeadline(
    (signal) =>
      fetch(`${url.protocol}//${url.host}${url.pathname || '/'}`, {
        method: 'POST',
        headers: signed.headers as Record<string, string>,
        body,
        signal,
      }),
    DEADLINES.taggingGetResources,
    'STS AssumeRole',
    o.signal,
  );
  const text = await response.text();
  if (!response.ok) {
    const code = xmlText(text, 'Code') ?? String(response.status);
    throw new Error(
      `STS AssumeRole ${o.roleArn} failed: ${code}: ${xmlText(text, 'Message') ?? text.slice(0, 200)}`,
    );
  }
  const accessKeyId = xmlText(text, 'AccessKeyId');
  const secretAccessKey = xmlText(text, 'SecretAccessKey');
  const sessionToken = xmlText(text, 'SessionToken');
  const expiration = xmlText(text, 'Expiration');
  if (!accessKeyId || !secretAccessKey)
    throw new Error(`STS AssumeRole ${o.roleArn} answered without credentials`);
  return {
    accessKeyId,
    secretAccessKey,
    ...(sessionToken ? { sessionToken } : {}),
    ...(expiration ? { expiration: new Date(expiration) } : {}),
  };
}

/** Options of {@link targetAccountTagging}. */
export interface TargetAccountTaggingOptions extends Omit<AwsOptions, 'region' | 'env' | 'credentials'> {
  region: string;
  /** The role setting ({@link TARGET_ACCOUNT_ROLE_ENV}). */
  role: string;
  /** The runner's own credentials, which sign AssumeRole. */
  credentials: AwsCredentialIdentity | AwsCredentialIdentityProvider;
  env?: NodeJS.ProcessEnv;
}

/**
 * A Tagging API client per target account, each on the credentials of the role assumed in that account
 * (renewed before they expire).
 */
export function targetAccountTagging(o: TargetAccountTaggingOptions): (accountId: string) => TaggingSender {
  const clients = new Map<string, TaggingSender>();
  const { region, role, credentials, env, ...rest } = o;
  return (accountId) => {
    let client = clients.get(accountId);
    if (client) return client;
    let cached: AwsCredentialIdentity | undefined;
    const provider: AwsCredentialIdentityProvider = async () => {
      if (cached && (!cached.expiration || cached.expiration.getTime() - Date.now() > RENEW_BEFORE_MS))
        return cached;
      cached = await assumeRole({
        roleArn: targetAccountRoleArn(role, accountId),
        sessionName: 'chaos-gate-tags',
        region,
        credentials,
        endpoint: stsEndpoint(region, env),
      });
      return cached;
    };
    client = new ResourceGroupsTaggingAPIClient({ ...awsClientConfig(region, rest), credentials: provider });
    clients.set(accountId, client);
    return client;
  };
}

/**
 * The per-account Tagging clients {@link TARGET_ACCOUNT_ROLE_ENV} asks for, signed with `credentials` (the
 * FIS client's); undefined when the variable is not set.
 */
export function targetAccountTaggingFromEnv(
  env: NodeJS.ProcessEnv,
  region: string,
  credentials: AwsCredentialIdentity | AwsCredentialIdentityProvider,
): ((accountId: string) => TaggingSender) | undefined {
  const role = env[TARGET_ACCOUNT_ROLE_ENV]?.trim();
  return role ? targetAccountTagging({ region, role, credentials, env }) : undefined;
}
