/**
 * The blast radius of `aws:eks:inject-kubernetes-custom-resource`. FIS hands a custom resource to a chaos
 * tool in the cluster — Chaos Mesh (`chaos-mesh.org`: PodChaos, NetworkChaos, StressChaos, …) or Litmus
 * (`litmuschaos.io` ChaosEngine) — and the tool picks the pods, by the resource's own selector and mode.
 * FIS's selection only picks the cluster, so the pods are bounded here, from the resource's spec, by the
 * same limits as FIS targets:
 *
 * - Chaos Mesh `mode: one` → 1 pod, `fixed` n → n pods, per cluster: against `maxTargets`;
 * - `fixed-percent` / `random-max-percent` p → p % of the matching pods: against `maxPercent`;
 * - `mode: all` selects every matching pod, a number `maxTargets` cannot bound: refused;
 * - Litmus `PODS_AFFECTED_PERC` p → p % (0 or absent: one pod, Litmus's default).
 *
 * A spec the gate cannot read is refused: an unbounded fault is never a pass.
 */
import type { ResolvedTarget } from '../injector/injector.js';
import type { Plan } from '../plan/schema.js';
import type { BlastLimits, BlastRefusal } from './blast-limits.js';

/** The action that hands a custom resource to the cluster's chaos tool. */
export const CUSTOM_RESOURCE_ACTION = 'aws:eks:inject-kubernetes-custom-resource';

/** How many pods a custom resource picks. */
export type PodSelection =
  | { kind: 'count'; n: number; how: string }
  | { kind: 'percent'; p: number; how: string }
  | { kind: 'all'; how: string };

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The pod selection of a custom resource, or why it cannot be read. */
export function podSelection(parameters: Record<string, string>): PodSelection | { error: string } {
  let spec: unknown;
  try {
    spec = JSON.parse(parameters.kubernetesSpec ?? '');
  } catch {
    return { error: 'kubernetesSpec is not JSON' };
  }
  if (!isObject(spec)) return { error: 'kubernetesSpec is not a JSON object' };
  if (isObject(spec.spec) && (spec.kind !== undefined || spec.apiVersion !== undefined)) spec = spec.spec;
  const s = spec as Json;
  const group = (parameters.kubernetesApiVersion ?? '').split('/')[0];
  if (group === 'chaos-mesh.org') {
    const value = Number(s.value);
    switch (s.mode ?? 'one') {
      case 'one':
        return { kind: 'count', n: 1, how: 'mode one' };
      case 'fixed':
        return Number.isInteger(value) && value > 0
          ? { kind: 'count', n: value, how: `mode fixed, value ${value}` }
          : { error: `mode fixed needs a whole-number value, got ${JSON.stringify(s.value)}` };
      case 'fixed-percent':
      case 'random-max-percent':
        return Number.isFinite(value) && value > 0 && value <= 100
          ? { kind: 'percent', p: value, how: `mode ${String(s.mode)}, value ${value}` }
          : { error: `mode ${String(s.mode)} needs a value from 1 to 100, got ${JSON.stringify(s.value)}` };
      case 'all':
        return { kind: 'all', how: 'mode all' };
      default:
        return {
          error: `Chaos Mesh mode ${JSON.stringify(s.mode)} is not one, fixed, fixed-percent, random-max-percent or all`,
        };
    }
  }
  if (group === 'litmuschaos.io') {
    const experiment = Array.isArray(s.experiments) && isObject(s.experiments[0]) ? s.experiments[0] : {};
    const components = isObject(experiment.spec) ? experiment.spec.components : undefined;
    const env = isObject(components) && Array.isArray(components.env) ? components.env : [];
    const perc = env.find((e): e is Json => isObject(e) && e.name === 'PODS_AFFECTED_PERC')?.value;
    const p = Number(perc ?? 0);
    if (!Number.isFinite(p) || p < 0 || p > 100)
      return { error: `PODS_AFFECTED_PERC must be 0–100, got ${JSON.stringify(perc)}` };
    return p === 0
      ? { kind: 'count', n: 1, how: 'PODS_AFFECTED_PERC 0 (one pod)' }
      : { kind: 'percent', p, how: `PODS_AFFECTED_PERC ${p}` };
  }
  return {
    error: `apiVersion ${parameters.kubernetesApiVersion ?? '(none)'} is neither Chaos Mesh (chaos-mesh.org) nor Litmus (litmuschaos.io)`,
  };
}

/** Refusals for every custom-resource action whose pods exceed the limits. */
export function customResourceRefusals(
  plan: Plan,
  resolved: readonly ResolvedTarget[],
  limits: BlastLimits,
): BlastRefusal[] {
  const out: BlastRefusal[] = [];
  for (const [name, action] of Object.entries(plan.fis.actions)) {
    if (action.actionId !== CUSTOM_RESOURCE_ACTION) continue;
    const field = `fis.actions.${name}.parameters.kubernetesSpec`;
    const selection = podSelection(action.parameters ?? {});
    if ('error' in selection) {
      out.push({
        field,
        reason: `action ${name}: cannot bound the pods its custom resource selects: ${selection.error}`,
      });
      continue;
    }
    const clusterTarget = action.targets?.Cluster;
    const clusters = Math.max(1, resolved.filter((r) => r.target === clusterTarget).length);
    switch (selection.kind) {
      case 'count': {
        const pods = selection.n * clusters;
        if (pods > limits.maxTargets)
          out.push({
            field,
            reason: `action ${name} deletes or disrupts ${pods} pod${pods === 1 ? '' : 's'} (${selection.how}${clusters > 1 ? ` in each of ${clusters} clusters` : ''}) > blastRadius.maxTargets ${limits.maxTargets}`,
          });
        break;
      }
      case 'percent':
        if (selection.p > limits.maxPercent)
          out.push({
            field,
            reason: `action ${name} selects ${selection.p}% of the matching pods (${selection.how}) > blastRadius.maxPercent ${limits.maxPercent}%`,
          });
        break;
      case 'all':
        out.push({
          field,
          reason: `action ${name} selects every matching pod (${selection.how}), a number blastRadius.maxTargets ${limits.maxTargets} cannot bound; use mode one, fixed or fixed-percent`,
        });
        break;
    }
  }
  return out;
}
