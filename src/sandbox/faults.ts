/**
 * Maps an FIS action run on sandbox targets to the canary fault it causes. Resources marked `app` are
 * the canary's own; `dependency` is the node it calls; anything else (the production look-alikes)
 * leaves the canary untouched.
 */
import { ACTION_CATALOG } from './fis/catalog.js';
import type { ActionRun } from './fis/service.js';
import type { CanaryBehaviour, CanaryFault } from './canary.js';
import type { SandboxResource } from './targets.js';

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
    default:
      return undefined;
  }
}

/** Share of one service's capacity (same group and resource type) the run hits, e.g. 1 of 3 instances. */
function appShare(targets: SandboxResource[], inventory: SandboxResource[]): number {
  const hit = new Set(targets.filter((r) => r.role === 'app').map((r) => r.arn));
  if (hit.size === 0) return 0;
  const first = targets.find((r) => r.role === 'app')!;
  const total = inventory.filter(
    (r) => r.role === 'app' && r.resourceType === first.resourceType && r.group === first.group,
  ).length;
  return Math.min(1, hit.size / Math.max(1, total));
}
