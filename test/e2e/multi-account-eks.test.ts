/**
 * A multi-account plan and EKS plans, end to end against the sandbox through `chaos-gate run`: the
 * multi-account partition reaches the staging account (its tags read through the role chaos-gate assumes
 * there) and holds; without that role the target account's tags are unknown and the run is refused;
 * an EKS pod-network-latency plan and a Chaos Mesh pod kill run on the canary's pods and hold.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readJournal } from '../../src/journal/read.js';
import type { Journal } from '../../src/journal/types.js';
import { PLANS, canaryFaults, eventOf, startE2E, type E2E, type RunJson } from './harness.js';

const TARGET_ACCOUNT = '210987654321';
let e2e: E2E;

async function run(
  plan: string,
  env: NodeJS.ProcessEnv = {},
): Promise<{ code: number | null; json: RunJson; journal: Journal; stderr: string }> {
  const journalPath = path.join(e2e.dir, `${plan}.${Date.now()}.journal.json`);
  const r = await e2e.cli(['run', path.join(PLANS, plan), '--journal', journalPath, '--json'], env).done;
  const json = JSON.parse(r.stdout.trim().split('\n').at(-1) ?? '{}') as RunJson;
  return { code: r.code, json, journal: readJournal(journalPath), stderr: r.stderr };
}

beforeAll(async () => {
  e2e = await startE2E();
}, 60_000);

afterAll(async () => {
  await e2e?.close();
}, 30_000);

describe('a multi-account plan', () => {
  it('is refused while the target account tags cannot be read, naming the account and the setting', async () => {
    const r = await run('multi-account-partition.yaml');
    expect(r.json.verdict, r.stderr).toBe('refused');
    expect(r.code).toBe(2);
    expect(r.json.reason).toContain(`it is in target account ${TARGET_ACCOUNT}`);
    expect(r.json.reason).toContain('CHAOS_GATE_TARGET_ACCOUNT_ROLE');
    expect(eventOf(r.journal, 'inject')).toBeUndefined();
  }, 120_000);

  it('runs end to end in the target account and holds', async () => {
    const r = await run('multi-account-partition.yaml', {
      CHAOS_GATE_TARGET_ACCOUNT_ROLE: 'chaos-gate-tag-reader',
    });
    expect(r.json.verdict, `${r.json.reason}\n${r.stderr}`).toBe('held');
    expect(r.code).toBe(0);
    // FIS resolved the tagged subnet in the target account, and chaos-gate read that account's tags.
    expect(r.journal.resolvedTargets).toEqual([
      expect.objectContaining({
        arn: `arn:aws:ec2:us-east-1:${TARGET_ACCOUNT}:subnet/subnet-0ed15000000000001`,
        tags: expect.objectContaining({ Environment: 'staging-chaos' }),
      }),
    ]);
    const experiment = await e2e.experiment(r.json.experimentId ?? '');
    expect(experiment.targetAccountConfigurationsCount).toBe(1);
    const actions = await e2e.actions(r.json.experimentId ?? '');
    expect(actions.map((a) => [a.actionId, a.endedAs])).toEqual([
      ['aws:network:disrupt-connectivity', 'completed'],
    ]);
    expect(await canaryFaults(e2e)).toEqual({});
  }, 120_000);
});

describe('EKS plans', () => {
  it('pod-network-latency on one canary pod runs end to end: the pod is slower, the bound holds', async () => {
    const r = await run('eks-pod-network-latency.yaml');
    expect(r.json.verdict, `${r.json.reason}\n${r.stderr}`).toBe('held');
    // The resolved pod is judged by its cluster's tags (pods carry no AWS tags).
    expect(r.journal.resolvedTargets).toHaveLength(1);
    expect(r.journal.resolvedTargets?.[0]?.arn).toMatch(/:pod\/canary-eks\/canary\//);
    expect(r.journal.resolvedTargets?.[0]?.tags).toMatchObject({
      Environment: 'staging-chaos',
      Name: 'canary-eks',
    });
    const actions = await e2e.actions(r.json.experimentId ?? '');
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
    const r = await run('eks-chaos-mesh-pod-kill.yaml');
    expect(['held', 'deviated'], `${r.json.reason}\n${r.stderr}`).toContain(r.json.verdict);
    const actions = await e2e.actions(r.json.experimentId ?? '');
    expect(actions.map((a) => a.actionId)).toEqual(['aws:eks:inject-kubernetes-custom-resource']);
    expect(eventOf(r.journal, 'inject')).toBeDefined();
    expect(await canaryFaults(e2e)).toEqual({});
  }, 120_000);
});
