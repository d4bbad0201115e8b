/**
 * EKS plans end to end against the sandbox through `chaos-gate run`: a pod-network-latency plan and a
 * Chaos Mesh pod kill run on the canary's pods and hold.
 */
import { describe, expect, it } from 'vitest';
import { canaryFaults, eventOf, useE2E } from './harness.js';

const e2e = useE2E();

describe('EKS plans', () => {
  it('pod-network-latency on one canary pod runs end to end: the pod is slower, the bound holds', async () => {
    const r = await e2e().run('eks-pod-network-latency.yaml');
    expect(r.json.verdict, `${r.json.reason}\n${r.stderr}`).toBe('held');
    // The resolved pod is judged by its cluster's tags (pods carry no AWS tags).
    expect(r.journal.resolvedTargets).toHaveLength(1);
    expect(r.journal.resolvedTargets?.[0]?.arn).toMatch(/:pod\/canary-eks\/canary\//);
    expect(r.journal.resolvedTargets?.[0]?.tags).toMatchObject({
      Environment: 'staging-chaos',
      Name: 'canary-eks',
    });
    const actions = await e2e().actions(r.json.experimentId ?? '');
    expect(actions.map((a) => [a.actionId, a.endedAs])).toEqual([
      ['aws:eks:pod-network-latency', 'completed'],
    ]);
    // The fault was visible: p95 latency during the fault rose above its steady level.
    const p95 = (phase: string) =>
      Math.max(
        ...r.journal.measurements
          .filter((m) => m.phase === phase)
          .map((m) => m.slis.p95_latency_s?.value ?? 0),
      );
    expect(p95('fault')).toBeGreaterThan(p95('steady'));
  }, 120_000);

  it('a Chaos Mesh PodChaos through inject-kubernetes-custom-resource runs end to end', async () => {
    const r = await e2e().run('eks-chaos-mesh-pod-kill.yaml');
    expect(['held', 'deviated'], `${r.json.reason}\n${r.stderr}`).toContain(r.json.verdict);
    const actions = await e2e().actions(r.json.experimentId ?? '');
    expect(actions.map((a) => a.actionId)).toEqual(['aws:eks:inject-kubernetes-custom-resource']);
    // The run's log ends by pointing at the experiment in the FIS console.
    expect(r.stderr).toContain(
      `chaos-gate: FIS console https://us-east-1.console.aws.amazon.com/fis/home?region=us-east-1#ExperimentDetails:ExperimentId=${r.json.experimentId}`,
    );
    expect(eventOf(r.journal, 'inject')).toBeDefined();
    expect(await canaryFaults(e2e())).toEqual({});
  }, 120_000);
});
