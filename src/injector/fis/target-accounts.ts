/**
 * The target account configurations of a multi-account template (FIS keeps them beside the template:
 * GetExperimentTemplate only counts them), read with ListTargetAccountConfigurations.
 */
import { ListTargetAccountConfigurationsCommand, type FisClient } from '@aws-sdk/client-fis';
import type { TargetAccount } from './template.js';

/** Page size of ListTargetAccountConfigurations (M-FIS `ListTargetAccountConfigurationsMaxResults`: 1–20). */
export const TARGET_ACCOUNTS_PAGE = 20;

/** Every target account configuration of a template. */
export async function listTargetAccounts(fis: FisClient, templateId: string): Promise<TargetAccount[]> {
  const out: TargetAccount[] = [];
  let nextToken: string | undefined;
  do {
    const page = await fis.send(
      new ListTargetAccountConfigurationsCommand({
        experimentTemplateId: templateId,
        maxResults: TARGET_ACCOUNTS_PAGE,
        ...(nextToken ? { nextToken } : {}),
      }),
    );
    for (const c of page.targetAccountConfigurations ?? []) {
      if (!c.accountId || !c.roleArn) continue;
      out.push({
        accountId: c.accountId,
        roleArn: c.roleArn,
        ...(c.description ? { description: c.description } : {}),
      });
    }
    nextToken = page.nextToken;
  } while (nextToken);
  return out;
}
