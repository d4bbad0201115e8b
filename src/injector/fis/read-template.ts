/**
 * An experiment template as FIS holds it, for `chaos-gate import`: GetExperimentTemplate (with the
 * report configuration the pinned client drops, restored by `patches.ts`) and, for a multi-account
 * template, its target account configurations.
 */
import { GetExperimentTemplateCommand, type FisClient } from '@aws-sdk/client-fis';
import type { TemplateInput } from '../../plan/import.js';
import { listTargetAccounts } from './target-accounts.js';

/** Reads template `id`; FIS's ResourceNotFoundException propagates to the caller. */
export async function readTemplate(fis: FisClient, id: string): Promise<TemplateInput> {
  const out = await fis.send(new GetExperimentTemplateCommand({ id }));
  const t = (out.experimentTemplate ?? {}) as TemplateInput & {
    experimentOptions?: { accountTargeting?: string };
    targetAccountConfigurationsCount?: number;
  };
  const multi =
    t.experimentOptions?.accountTargeting === 'multi-account' ||
    (t.targetAccountConfigurationsCount ?? 0) > 0;
  const accounts = multi ? await listTargetAccounts(fis, id) : [];
  return {
    id: t.id ?? id,
    description: t.description,
    roleArn: t.roleArn,
    targets: t.targets,
    actions: t.actions,
    stopConditions: t.stopConditions,
    tags: t.tags,
    logConfiguration: t.logConfiguration,
    experimentOptions: t.experimentOptions,
    experimentReportConfiguration: t.experimentReportConfiguration,
    ...(accounts.length ? { targetAccountConfigurations: accounts } : {}),
  };
}
