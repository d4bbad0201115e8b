/**
 * Maps an FIS action run on sandbox targets to the canary fault it causes. Resources marked `app` are
 * the canary's own; `dependency` is the node it calls; anything else (the production look-alikes)
 * leaves the canary untouched. EKS actions reach the canary's pods: pod-delete is an error burst while
 * the Deployment replaces them, pod-network-latency adds latency, pod-cpu-stress slows them, and a
 * custom resource (Chaos Mesh, Litmus) does what its kind says to the pods its selector and mode pick.
 */
import { ACTION_CATALOG } from './fis/catalog.js';
import { readCustomResource, selectedCount } from './fis/kubernetes.js';
import type { ActionRun } from './fis/service.js';
import type { CanaryBehaviour, CanaryFault } from './canary.js';
import type { SandboxResource } from './targets.js';

/** FIS's defaults for aws:eks:pod-network-latency (UG-ref): 200 ms of delay, 10 ms of jitter. */
export const EKS_DEFAULT_DELAY_MS = 200;
export const EKS_DEFAULT_JITTER_MS = 10;

/** The fault an action run causes, or undefined when it leaves the canary alone. */
export function canaryFaultFor(
  run: ActionRun,
  inventory: SandboxResource[],
  behaviour: CanaryBehaviour,
  now: number,
): CanaryFault | undefined {
  const effect = ACTION_CATALOG.get(run.actionId)?.effect;
  const share = appShare(run.targets, inventory);
  switch (effect) {
    case 'partition':
      if (run.targets.some((r) => r.role === 'dependency')) return { kind: 'partition' };
      return share > 0 ? { kind: 'outage', share } : undefined;
    case 'stop-compute':
      return share > 0 ? { kind: 'error-burst', share, untilMs: now + behaviour.errorBurstMs } : undefined;
    case 'cpu-stress': {
      if (run.targets.some((r) => r.role === 'dependency'))
        return { kind: 'cpu-stress', addedMs: behaviour.cpuStressLatencyMs, share: 1 };
      return share > 0 ? { kind: 'cpu-stress', addedMs: behaviour.cpuStressLatencyMs, share } : undefined;
    }
    case 'latency': {
      if (share === 0) return undefined;
      const delay = Number(run.parameters.delayMilliseconds ?? EKS_DEFAULT_DELAY_MS);
      const jitter = Number(run.parameters.jitterMilliseconds ?? EKS_DEFAULT_JITTER_MS);
      return { kind: 'latency', addedMs: delay, jitterMs: jitter, share };
    }
    case 'custom-resource':
      return customResourceFault(run, inventory, behaviour, now);
    default:
      return undefined;
  }
}

/** The pods of the targeted clusters a custom resource selects, and what it does to them. */
function customResourceFault(
  run: ActionRun,
  inventory: SandboxResource[],
  behaviour: CanaryBehaviour,
  now: number,
): CanaryFault | undefined {
  const resource = readCustomResource(run.parameters);
  if (!resource) return undefined;
  const clusters = new Set(run.targets.map((r) => r.arn.split('/').pop() ?? ''));
  const accounts = new Set(run.targets.map((r) => r.arn.split(':')[4]));
  const candidates = inventory.filter(
    (r) =>
      r.pod !== undefined &&
      accounts.has(r.arn.split(':')[4]) &&
      clusters.has(r.pod.clusterIdentifier) &&
      resource.namespaces.includes(r.pod.namespace) &&
      Object.entries(resource.labels).every(([k, v]) => r.pod?.labels[k] === v),
  );
  const hit = candidates.slice(0, selectedCount(resource.mode, candidates.length));
  const share = appShare(hit, inventory);
  if (share === 0) return undefined;
  switch (resource.effect.kind) {
    case 'error-burst':
      return { kind: 'error-burst', share, untilMs: now + behaviour.errorBurstMs };
    case 'latency':
      return { kind: 'latency', addedMs: resource.effect.addedMs, jitterMs: resource.effect.jitterMs, share };
    case 'outage':
      return { kind: 'outage', share };
    case 'cpu-stress':
      return { kind: 'cpu-stress', addedMs: behaviour.cpuStressLatencyMs, share };
  }
}

/** Share of one service's capacity (same group and resource type) the run hits, e.g. 1 of 3 instances. */
function appShare(targets: SandboxResource[], inventory: SandboxResource[]): number {
  const hit = new Set(targets.filter((r) => r.role === 'app').map((r) => r.arn));
  if (hit.size === 0) return 0;
  const first = targets.find((r) => r.role === 'app')!;
  const account = first.arn.split(':')[4];
  const total = inventory.filter(
    (r) =>
      r.role === 'app' &&
      r.resourceType === first.resourceType &&
      r.group === first.group &&
      r.arn.split(':')[4] === account,
  ).length;
  return Math.min(1, hit.size / Math.max(1, total));
}
