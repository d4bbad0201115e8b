/**
 * The secrets a process inherits: AWS keys (what configure-aws-credentials exports), GitHub and Actions
 * tokens. Both front doors register them before anything can print; Prometheus settings are registered
 * where they are read (`metrics/index.ts`), plan variables where they are expanded (`plan/env.ts`).
 */
import { secrets } from './redact.js';

/** Environment variables whose values are credentials wherever they appear. */
export const SECRET_ENV_VARS = [
  'AWS_ACCESS_KEY_ID',
  'AWS_SECRET_ACCESS_KEY',
  'AWS_SESSION_TOKEN',
  'AWS_SECURITY_TOKEN',
  'AWS_CONTAINER_AUTHORIZATION_TOKEN',
  'GITHUB_TOKEN',
  'GH_TOKEN',
  'ACTIONS_RUNTIME_TOKEN',
  'ACTIONS_ID_TOKEN_REQUEST_TOKEN',
] as const;

/** Registers the inherited credentials of `env` with the redactor. */
export function registerEnvironmentSecrets(env: Record<string, string | undefined>): void {
  for (const name of SECRET_ENV_VARS) secrets.add(env[name]);
}
