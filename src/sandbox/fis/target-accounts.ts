/**
 * Multi-account FIS: the target account configurations of a template (Create, Get, Update, Delete and
 * ListTargetAccountConfigurations) and of a started experiment (Get and
 * ListExperimentTargetAccountConfigurations).
 */
import { FisError, notFound, validation } from './errors.js';
import { accountOf, type FisStore, type Json, type TargetAccountConfiguration } from './store.js';
import { listAnswer } from './wire.js';

/** Target account configurations per experiment template (FIS quotas page: 10). */
export const MAX_TARGET_ACCOUNTS = 10;

/** CreateTargetAccountConfiguration: only on a multi-account template, idempotent on its client token. */
export function createTargetAccount(store: FisStore, input: Json): Json {
  const t = store.template(String(input.experimentTemplateId));
  if (t.experimentOptions.accountTargeting !== 'multi-account')
    throw validation(
      `Experiment template ${t.id} targets a single account; target account configurations need experimentOptions.accountTargeting multi-account.`,
    );
  const accountId = String(input.accountId);
  if (!/^\d{12}$/.test(accountId))
    throw validation(`Account id ${accountId} is not a 12-digit AWS account id.`);
  const config: TargetAccountConfiguration = {
    accountId,
    roleArn: checkTargetRole(String(input.roleArn), accountId),
    ...(input.description !== undefined ? { description: String(input.description) } : {}),
  };
  const token = String(input.clientToken);
  const fields = { templateId: t.id, ...config };
  const prior = store.idempotent('CreateTargetAccountConfiguration', token, fields);
  const configs = store.targetAccounts.get(t.id) ?? new Map<string, TargetAccountConfiguration>();
  if (prior) return { targetAccountConfiguration: { ...(configs.get(accountId) ?? config) } };
  if (configs.has(accountId))
    throw new FisError(
      'ConflictException',
      `Experiment template ${t.id} already has a target account configuration for ${accountId}.`,
    );
  if (configs.size >= MAX_TARGET_ACCOUNTS)
    throw new FisError(
      'ServiceQuotaExceededException',
      `The quota of ${MAX_TARGET_ACCOUNTS} target account configurations per experiment template is reached.`,
    );
  configs.set(accountId, config);
  store.targetAccounts.set(t.id, configs);
  store.remember('CreateTargetAccountConfiguration', token, fields, accountId);
  return { targetAccountConfiguration: { ...config } };
}

/** GetTargetAccountConfiguration. */
export function getTargetAccount(store: FisStore, input: Json): Json {
  return { targetAccountConfiguration: { ...targetAccount(store, input) } };
}

/** UpdateTargetAccountConfiguration: the role and the description, each only when given. */
export function updateTargetAccount(store: FisStore, input: Json): Json {
  const c = targetAccount(store, input);
  if (input.roleArn !== undefined) c.roleArn = checkTargetRole(String(input.roleArn), c.accountId);
  if (input.description !== undefined) c.description = String(input.description);
  return { targetAccountConfiguration: { ...c } };
}

/** DeleteTargetAccountConfiguration. */
export function deleteTargetAccount(store: FisStore, input: Json): Json {
  const c = targetAccount(store, input);
  store.targetAccounts.get(String(input.experimentTemplateId))?.delete(c.accountId);
  return { targetAccountConfiguration: { ...c } };
}

/** ListTargetAccountConfigurations of a template. */
export function listTargetAccounts(store: FisStore, input: Json): Json {
  const t = store.template(String(input.experimentTemplateId));
  return listAnswer(
    'targetAccountConfigurations',
    [...(store.targetAccounts.get(t.id)?.values() ?? [])].map((c) => ({ ...c })),
    input,
  );
}

/** GetExperimentTargetAccountConfiguration: an account as the experiment took it at its start. */
export function getExperimentTargetAccount(store: FisStore, input: Json): Json {
  const e = store.experiment(String(input.experimentId));
  const c = e.accounts.find((a) => a.accountId === String(input.accountId));
  if (!c)
    throw notFound(
      `Target account configuration ${String(input.accountId)} not found in experiment ${e.id}.`,
    );
  return { targetAccountConfiguration: { ...c } };
}

/** ListExperimentTargetAccountConfigurations. */
export function listExperimentTargetAccounts(store: FisStore, input: Json): Json {
  const e = store.experiment(String(input.experimentId));
  return listAnswer(
    'targetAccountConfigurations',
    e.accounts.map((c) => ({ ...c })),
    input,
  );
}

function targetAccount(store: FisStore, input: Json): TargetAccountConfiguration {
  const t = store.template(String(input.experimentTemplateId));
  const c = store.targetAccounts.get(t.id)?.get(String(input.accountId));
  if (!c)
    throw notFound(
      `Target account configuration ${String(input.accountId)} not found for experiment template ${t.id}.`,
    );
  return c;
}

/** A target account's role must be an IAM role in that account: FIS assumes it there. */
function checkTargetRole(roleArn: string, accountId: string): string {
  if (!/^arn:aws[a-z-]*:iam::\d{12}:role\/\S+$/.test(roleArn))
    throw validation(`Role ARN ${roleArn} is not an IAM role ARN.`);
  if (accountOf(roleArn) !== accountId)
    throw validation(`Role ARN ${roleArn} is not in the target account ${accountId}.`);
  return roleArn;
}
