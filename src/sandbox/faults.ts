/**
 * Maps an FIS action run on sandbox targets to the canary fault it causes (the effect of each action is
 * in src/sandbox/fis/catalog.ts). Resources marked `app` are the canary's own; `dependency` is what it
 * calls (the Redis node, its replication group, its database); anything else (the production
 * look-alikes, the replication and regional-network resources) leaves the canary untouched. EKS actions reach the canary's pods: pod-delete is an error burst while
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

/** Linux's minimum TCP retransmission timeout: what a lost packet costs the request that waits for it. */
export const RETRANSMIT_MS = 200;
/** FIS's default packet loss for the *-network-packet-loss actions (the reference): 7 %. */
export const DEFAULT_LOSS_PERCENT = 7;
/** FIS's default start-up delay of aws:lambda:invocation-add-delay: 1000 ms. */
export const LAMBDA_DEFAULT_DELAY_MS = 1000;
/** FIS's default read latency of aws:ebs:volume-io-latency: 100 ms. */
export const EBS_DEFAULT_LATENCY_MS = 100;

/** The fault an action run causes, or undefined when it leaves the canary alone. */
export function canaryFaultFor(
  run: ActionRun,
  inventory: SandboxResource[],
  behaviour: CanaryBehaviour,
  now: number,
): CanaryFault | undefined {
  const effect = ACTION_CATALOG.get(run.actionId)?.effect;
  const p = run.parameters;
  const onDependency = run.targets.some((r) => r.role === 'dependency');
  // The canary's share of capacity hit; all of its calls when the target is its dependency.
  const share = onDependency ? 1 : appShare(run.targets, inventory);
  switch (effect) {
    case 'partition':
      if (onDependency) return { kind: 'partition' };
      return share > 0 ? { kind: 'outage', share } : undefined;
    case 'stop-compute': {
      // Stopping the dependency's own host is the failover case's; here only the canary's compute counts.
      const own = appShare(run.targets, inventory);
      // Drain and node-group actions hit their own percentage of the capacity behind the target.
      const part = percent(p.drainagePercentage ?? p.instanceTerminationPercentage, 100);
      return own > 0
        ? { kind: 'error-burst', share: own * part, untilMs: now + behaviour.errorBurstMs }
        : undefined;
    }
    case 'failover':
      return share > 0 ? { kind: 'error-burst', share, untilMs: now + behaviour.errorBurstMs } : undefined;
    case 'cpu-stress':
      return share > 0 ? { kind: 'cpu-stress', addedMs: behaviour.cpuStressLatencyMs, share } : undefined;
    case 'latency': {
      if (share === 0) return undefined;
      if (p.startupDelayMilliseconds !== undefined || run.actionId.startsWith('aws:lambda:'))
        return {
          kind: 'latency',
          addedMs: Number(p.startupDelayMilliseconds ?? LAMBDA_DEFAULT_DELAY_MS),
          jitterMs: 0,
          share: share * percent(p.invocationPercentage, 100),
        };
      if (run.actionId.startsWith('aws:ebs:'))
        return {
          kind: 'latency',
          addedMs: Number(p.readIOLatencyMilliseconds ?? EBS_DEFAULT_LATENCY_MS),
          jitterMs: 0,
          share: share * percent(p.readIOPercentage, 100),
        };
      const delay = Number(p.delayMilliseconds ?? EKS_DEFAULT_DELAY_MS);
      const jitter = Number(p.jitterMilliseconds ?? EKS_DEFAULT_JITTER_MS);
      return {
        kind: 'latency',
        addedMs: delay,
        jitterMs: jitter,
        share: share * percent(p.flowsPercent, 100),
      };
    }
    case 'packet-loss':
      return share > 0
        ? {
            kind: 'latency',
            addedMs: RETRANSMIT_MS,
            jitterMs: 0,
            share: share * percent(p.lossPercent, DEFAULT_LOSS_PERCENT) * percent(p.flowsPercent, 100),
          }
        : undefined;
    case 'errors': {
      if (share === 0) return undefined;
      const status = p.statusCode === undefined ? 503 : Number(p.statusCode);
      // An HTTP integration response below 500 is an answer the caller takes, not an error.
      if (status < 500) return undefined;
      return {
        kind: 'errors',
        share: share * percent(p.percentage ?? p.invocationPercentage, 100),
        status,
        detail: `${run.actionId} injected`,
      };
    }
    case 'io-pause':
      if (onDependency) return { kind: 'partition' };
      return share > 0 ? { kind: 'outage', share } : undefined;
    case 'custom-resource':
      return customResourceFault(run, inventory, behaviour, now);
    default:
      return undefined;
  }
}

/** A percentage parameter as a share (0–1), or its default when unset. */
function percent(value: string | undefined, byDefault: number): number {
  const n = value === undefined ? byDefault : Number(value);
  return Number.isFinite(n) ? Math.min(1, Math.max(0, n / 100)) : byDefault / 100;
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
