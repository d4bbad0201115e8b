/**
 * The pods an `aws:eks:inject-kubernetes-custom-resource` action reaches, read from the custom resource:
 * each Chaos Mesh mode and Litmus `PODS_AFFECTED_PERC` at the edges of what it accepts, and the refusal
 * against the blast radius counting the pods in every cluster the action's target resolved.
 */
import { describe, expect, it } from 'vitest';
import type { ResolvedTarget } from '../../src/injector/injector.js';
import type { Plan } from '../../src/plan/schema.js';
import {
  CUSTOM_RESOURCE_ACTION,
  customResourceRefusals,
  podSelection,
} from '../../src/preflight/kubernetes-chaos.js';

const chaosMesh = (spec: unknown) => ({
  kubernetesApiVersion: 'chaos-mesh.org/v1alpha1',
  kubernetesSpec: JSON.stringify(spec),
});
const litmus = (env?: unknown[]) => ({
  kubernetesApiVersion: 'litmuschaos.io/v1alpha1',
  kubernetesSpec: JSON.stringify({
    experiments: [{ name: 'pod-delete', spec: { components: env === undefined ? {} : { env } } }],
  }),
});
const perc = (value: unknown) => litmus([{ name: 'PODS_AFFECTED_PERC', value }]);

describe('Chaos Mesh modes', () => {
  it('reads no mode as mode one', () => {
    expect(podSelection(chaosMesh({ action: 'pod-kill' }))).toEqual({ kind: 'count', n: 1, how: 'mode one' });
  });

  it('mode fixed takes a whole number of pods from 1', () => {
    expect(podSelection(chaosMesh({ mode: 'fixed', value: '1' }))).toEqual({
      kind: 'count',
      n: 1,
      how: 'mode fixed, value 1',
    });
    expect(podSelection(chaosMesh({ mode: 'fixed', value: '0' }))).toEqual({
      error: 'mode fixed needs a whole-number value, got "0"',
    });
    expect(podSelection(chaosMesh({ mode: 'fixed', value: '1.5' }))).toHaveProperty('error');
    expect(podSelection(chaosMesh({ mode: 'fixed' }))).toHaveProperty('error');
  });

  it.each([
    ['fixed-percent', '1', 1],
    ['fixed-percent', '100', 100],
    ['random-max-percent', '30', 30],
  ])('mode %s with value %s selects %i percent of the pods', (mode, value, p) => {
    expect(podSelection(chaosMesh({ mode, value }))).toEqual({
      kind: 'percent',
      p,
      how: `mode ${mode}, value ${p}`,
    });
  });

  it.each([
    ['fixed-percent', '0'],
    ['fixed-percent', '101'],
    ['random-max-percent', 'half'],
  ])('mode %s with value %s is refused: 1 to 100 only', (mode, value) => {
    expect(podSelection(chaosMesh({ mode, value }))).toEqual({
      error: `mode ${mode} needs a value from 1 to 100, got ${JSON.stringify(value)}`,
    });
  });

  it('refuses a mode it does not know', () => {
    expect(podSelection(chaosMesh({ mode: 'random' }))).toEqual({
      error: 'Chaos Mesh mode "random" is not one, fixed, fixed-percent, random-max-percent or all',
    });
  });

  it('reads the spec inside a whole resource (kind or apiVersion beside spec), and only then', () => {
    expect(podSelection(chaosMesh({ kind: 'PodChaos', spec: { mode: 'fixed', value: '2' } }))).toMatchObject({
      kind: 'count',
      n: 2,
    });
    expect(
      podSelection(chaosMesh({ apiVersion: 'chaos-mesh.org/v1alpha1', spec: { mode: 'all' } })),
    ).toMatchObject({ kind: 'all' });
    // A bare spec that happens to have a `spec` member is read as it stands.
    expect(podSelection(chaosMesh({ mode: 'one', spec: { mode: 'all' } }))).toMatchObject({
      kind: 'count',
      n: 1,
    });
  });

  it('refuses a spec that is not a JSON object', () => {
    expect(
      podSelection({ kubernetesApiVersion: 'chaos-mesh.org/v1alpha1', kubernetesSpec: 'mode: one' }),
    ).toEqual({
      error: 'kubernetesSpec is not JSON',
    });
    expect(podSelection(chaosMesh([{ mode: 'one' }]))).toEqual({
      error: 'kubernetesSpec is not a JSON object',
    });
    expect(podSelection(chaosMesh(null))).toEqual({ error: 'kubernetesSpec is not a JSON object' });
  });
});

describe('Litmus PODS_AFFECTED_PERC', () => {
  it('absent or 0 is one pod (Litmus default)', () => {
    const one = { kind: 'count', n: 1, how: 'PODS_AFFECTED_PERC 0 (one pod)' };
    expect(podSelection(litmus())).toEqual(one);
    expect(podSelection(litmus([{ name: 'OTHER', value: '50' }]))).toEqual(one);
    expect(podSelection(perc('0'))).toEqual(one);
  });

  it('1 to 100 is that share of the pods', () => {
    expect(podSelection(perc('1'))).toEqual({ kind: 'percent', p: 1, how: 'PODS_AFFECTED_PERC 1' });
    expect(podSelection(perc('100'))).toEqual({ kind: 'percent', p: 100, how: 'PODS_AFFECTED_PERC 100' });
  });

  it.each(['-1', '101', 'many'])('%s is refused', (value) => {
    expect(podSelection(perc(value))).toEqual({
      error: `PODS_AFFECTED_PERC must be 0–100, got ${JSON.stringify(value)}`,
    });
  });
});

describe('custom-resource refusals against the blast radius', () => {
  const plan = (parameters: Record<string, string>, actionId = CUSTOM_RESOURCE_ACTION) =>
    ({
      fis: { actions: { kill: { actionId, parameters, targets: { Cluster: 'clusters' } } } },
    }) as unknown as Plan;
  const cluster = (n: number, target = 'clusters'): ResolvedTarget => ({
    target,
    arn: `arn:aws:eks:us-east-1:123456789012:cluster/c${n}`,
    tags: {},
  });
  const reasons = (p: Plan, resolved: ResolvedTarget[], maxTargets: number, maxPercent = 100) =>
    customResourceRefusals(p, resolved, { maxTargets, maxPercent } as never).map((r) => [r.field, r.reason]);

  it('counts the pods in each cluster the action reaches, and only its own target', () => {
    const one = plan(chaosMesh({ mode: 'one' }));
    expect(reasons(one, [cluster(1), cluster(2)], 2)).toEqual([]);
    expect(reasons(one, [cluster(1), cluster(2), cluster(3, 'other')], 1)).toEqual([
      [
        'fis.actions.kill.parameters.kubernetesSpec',
        'action kill deletes or disrupts 2 pods (mode one in each of 2 clusters) > blastRadius.maxTargets 1',
      ],
    ]);
    // With no cluster resolved (a dry run without targets) the action still counts one cluster.
    expect(reasons(plan(chaosMesh({ mode: 'fixed', value: '2' })), [], 1)).toEqual([
      [
        'fis.actions.kill.parameters.kubernetesSpec',
        'action kill deletes or disrupts 2 pods (mode fixed, value 2) > blastRadius.maxTargets 1',
      ],
    ]);
  });

  it('allows a share up to maxPercent, and refuses one over it', () => {
    const half = plan(chaosMesh({ mode: 'fixed-percent', value: '50' }));
    expect(reasons(half, [cluster(1)], 1, 50)).toEqual([]);
    expect(reasons(half, [cluster(1)], 1, 49)).toHaveLength(1);
  });

  it('refuses mode all and an unreadable spec, and ignores other actions', () => {
    expect(reasons(plan(chaosMesh({ mode: 'all' })), [cluster(1)], 100)).toHaveLength(1);
    expect(reasons(plan({ kubernetesApiVersion: 'chaos-mesh.org/v1alpha1' }), [cluster(1)], 100)).toEqual([
      [
        'fis.actions.kill.parameters.kubernetesSpec',
        'action kill: cannot bound the pods its custom resource selects: kubernetesSpec is not JSON',
      ],
    ]);
    expect(reasons(plan(chaosMesh({ mode: 'all' }), 'aws:eks:pod-delete'), [cluster(1)], 1)).toEqual([]);
  });
});
