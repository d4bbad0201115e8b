/**
 * Target resolution at an experiment's start: which inventory resources each template target reaches,
 * in every target account, after tags, filters, resource parameters, selection mode and empty-target
 * mode (UG-targets).
 */
import type { SandboxResource } from '../targets.js';
import { KNOWN_RESOURCE_TYPES } from '../targets.js';
import { accountOf, type Experiment, type TemplateTarget } from './store.js';

/**
 * Resolves every target once, at the start (UG-targets), applying selection mode and empty-target mode.
 * A multi-account experiment resolves each target in every target account, and applies the selection
 * mode per account: "An AWS FIS experiment will resolve resources with consistent tags in each target
 * account. An action must resolve at least one target resource in any target account or will fail"
 * (UG "Work with multi-account experiments"). Fills `e.resolved` and, on the first problem,
 * `e.resolutionError`.
 */
export function resolveTargets(
  e: Experiment,
  inventory: readonly SandboxResource[],
  ownAccount: string,
  random: () => number,
): void {
  const accounts = e.accounts.length ? e.accounts.map((a) => a.accountId) : [ownAccount];
  for (const [name, target] of Object.entries(e.snapshot.targets)) {
    const usedByArns = (target.resourceArns?.length ?? 0) > 0;
    const resolved: SandboxResource[] = [];
    for (const account of accounts) {
      const matches = inventory.filter(
        (r) => (r.accountId ?? accountOf(r.arn)) === account && matchesTarget(r, target),
      );
      // ARNs name their own account: only the accounts they are in resolve anything from them.
      if (usedByArns && !target.resourceArns!.some((arn) => arnAccount(arn, inventory) === account)) continue;
      const chosen = select(matches, target.selectionMode, random);
      resolved.push(...chosen);
      const missingArn =
        usedByArns &&
        target.resourceArns!.some(
          (arn) => arnAccount(arn, inventory) === account && !matches.some((r) => r.arn === arn),
        );
      if (
        missingArn ||
        (chosen.length === 0 &&
          (usedByArns || e.snapshot.experimentOptions.emptyTargetResolutionMode === 'fail'))
      ) {
        e.resolutionError ??= {
          code: 'InvalidTarget',
          location: name,
          accountId: account,
          reason:
            KNOWN_RESOURCE_TYPES.has(target.resourceType) &&
            !inventory.some((r) => r.resourceType === target.resourceType)
              ? `Target ${name}: the sandbox has no resources of type ${target.resourceType}.`
              : `Target ${name}: no resources were resolved${accounts.length > 1 ? ` in account ${account}` : ''}.`,
        };
      }
    }
    if (usedByArns && !target.resourceArns!.some((arn) => accounts.includes(accountOf(arn))))
      e.resolutionError ??= {
        code: 'InvalidTarget',
        location: name,
        accountId: accounts[0] ?? ownAccount,
        reason: `Target ${name}: its resources are in none of the experiment's accounts (${accounts.join(', ')}).`,
      };
    e.resolved.set(name, resolved);
  }
}

/** Tags AND together, an empty value matches only empty (UG-targets); filters AND, their values OR. */
function matchesTarget(r: SandboxResource, t: TemplateTarget): boolean {
  if (r.resourceType !== t.resourceType) return false;
  if ((t.resourceArns?.length ?? 0) > 0 && !t.resourceArns!.includes(r.arn)) return false;
  for (const [k, v] of Object.entries(t.resourceTags ?? {})) if (r.tags[k] !== v) return false;
  for (const f of t.filters ?? []) if (!f.values.includes(r.attributes[f.path] ?? '')) return false;
  if (r.resourceType === 'aws:ecs:task' && t.parameters) {
    if (
      t.parameters.cluster !== undefined &&
      !t.parameters.cluster.endsWith(r.attributes.cluster ?? '\u0000')
    )
      return false;
    if (t.parameters.service !== undefined && t.parameters.service !== r.attributes.service) return false;
  }
  if (r.resourceType === 'aws:eks:pod' && t.parameters) {
    const p = t.parameters;
    const pod = r.pod;
    if (!pod) return false;
    if (p.clusterIdentifier !== undefined && !p.clusterIdentifier.endsWith(pod.clusterIdentifier))
      return false;
    if (p.namespace !== undefined && p.namespace !== pod.namespace) return false;
    if (p.selectorType === 'labelSelector' && p.selectorValue) {
      const wanted = p.selectorValue.split(',').map((kv) => kv.split('='));
      if (!wanted.every(([k, v]) => k !== undefined && pod.labels[k] === v)) return false;
    }
    if (p.selectorType === 'deploymentName' && p.selectorValue !== pod.deploymentName) return false;
    if (p.selectorType === 'podName' && p.selectorValue !== pod.podName) return false;
  }
  return true;
}

/** ALL, COUNT(n) (n at random, at most all) or PERCENT(n) (floor(N·n/100) at random, docs/design/fis.md#target-selection). */
export function select<T>(items: T[], mode: string, random: () => number): T[] {
  const count = /^COUNT\((\d+)\)$/.exec(mode);
  const percent = /^PERCENT\((\d+)\)$/.exec(mode);
  let n = items.length;
  if (count) n = Math.min(items.length, Number(count[1]));
  else if (percent) n = Math.floor((items.length * Number(percent[1])) / 100);
  const pool = [...items];
  for (let i = pool.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [pool[i], pool[j]] = [pool[j]!, pool[i]!];
  }
  return n === items.length ? items : pool.slice(0, n);
}

/** The account an ARN is in: its own field, or for an ARN without one (S3) the resource's owner. */
function arnAccount(arn: string, inventory: readonly SandboxResource[]): string {
  return accountOf(arn) || (inventory.find((r) => r.arn === arn)?.accountId ?? '');
}
