/**
 * The tags of the targets a dry run resolved, for the blast-radius gate's forbidden and required tags.
 * FIS returns only ARNs, so the tags come from the Resource Groups Tagging API — of the account each
 * resource is in (a multi-account experiment reaches other accounts, whose tags only their own Tagging
 * API answers). EKS pods are Kubernetes objects without AWS tags: a pod is judged by the tags of the EKS
 * cluster it runs in, which is the AWS resource FIS reaches it through.
 */
import type { ResolvedTarget } from '../injector.js';
import type { Plan } from '../../plan/schema.js';
import { tagsForArns, type TaggingSender } from '../aws/tagging.js';

/** Where tags are read: the runner's own account, and optionally each target account. */
export interface TagSources {
  own: TaggingSender;
  /** The runner's account; resources elsewhere need {@link TagSources.forAccount}. Unknown: all are "own". */
  ownAccount?: string | undefined;
  /** A Tagging API client in a target account (see `aws/assume-role.ts`); undefined: tags stay unknown. */
  forAccount?: ((accountId: string) => TaggingSender | undefined) | undefined;
}

function accountOf(arn: string): string {
  return arn.split(':')[4] ?? '';
}

/**
 * The ARN whose tags stand for a resolved target: the resource itself, or for an EKS pod its cluster
 * (named by the target's `clusterIdentifier`, in the pod's own account and Region).
 */
export function tagSubjectOf(plan: Plan, target: ResolvedTarget): string {
  const spec = plan.fis.targets[target.target];
  if (spec?.resourceType !== 'aws:eks:pod') return target.arn;
  const cluster = spec.parameters?.clusterIdentifier;
  if (!cluster) return target.arn;
  const parts = target.arn.split(':');
  const name = cluster.split('/').pop() ?? cluster;
  const partition = parts[1] || 'aws';
  const region = parts[3] || cluster.split(':')[3] || '';
  const account = parts[4] || cluster.split(':')[4] || '';
  return `arn:${partition}:eks:${region}:${account}:cluster/${name}`;
}

/**
 * The resolved targets with `tags` filled where the right account's Tagging API knows them. Tags FIS
 * already gave are kept; a target whose tags cannot be read keeps `tags` undefined (the gate refuses it
 * while tags are guarded).
 */
export async function tagResolvedTargets(
  plan: Plan,
  targets: readonly ResolvedTarget[],
  sources: TagSources,
  signal?: AbortSignal,
): Promise<ResolvedTarget[]> {
  const subjects = new Map<ResolvedTarget, string>();
  const byAccount = new Map<string, Set<string>>();
  for (const t of targets) {
    if (t.tags !== undefined) continue;
    const subject = tagSubjectOf(plan, t);
    subjects.set(t, subject);
    const account = accountOf(subject);
    byAccount.set(account, new Set([...(byAccount.get(account) ?? []), subject]));
  }
  const found = new Map<string, Record<string, string>>();
  for (const [account, arns] of byAccount) {
    const own = sources.ownAccount === undefined || account === sources.ownAccount;
    const client = own ? sources.own : sources.forAccount?.(account);
    if (!client) continue;
    for (const [arn, tags] of await tagsForArns(client, arns, signal)) found.set(arn, tags);
  }
  return targets.map((t) => {
    if (t.tags !== undefined) return { ...t, tags: { ...t.tags } };
    const tags = found.get(subjects.get(t) ?? t.arn);
    return tags === undefined ? { ...t } : { ...t, tags: { ...tags } };
  });
}
