/**
 * The computed blast radius for the FIS features teams use: a multi-account experiment is checked in
 * every target account (selection, forbidden and required tags, the policy's accounts); an EKS custom
 * resource (Chaos Mesh, Litmus) is bounded by the pods its own mode selects; an EKS pod is judged by its
 * cluster's tags.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { ResolvedTarget } from '../../src/injector/injector.js';
import { parsePlan } from '../../src/plan/load.js';
import type { Plan } from '../../src/plan/schema.js';
import { blastRadiusDecision, planLimits, type BlastLimits } from '../../src/preflight/blast-radius.js';
import { podSelection } from '../../src/preflight/kubernetes-chaos.js';
import { parsePolicy, policyRefusals } from '../../src/preflight/policy.js';
import { tagResolvedTargets, tagSubjectOf } from '../../src/injector/fis/resolved-tags.js';
import type { TaggingSender } from '../../src/injector/aws/tagging.js';

const load = (file: string, edit: (t: string) => string = (t) => t): Plan =>
  parsePlan(edit(readFileSync(`fixtures/plans/${file}`, 'utf8')), file).plan;

const STAGING = { Environment: 'staging-chaos' };
const subnet = (account: string, id = 'subnet-0ed15000000000001'): ResolvedTarget => ({
  target: 'redisPrimarySubnet',
  arn: `arn:aws:ec2:us-east-1:${account}:subnet/${id}`,
  tags: { ...STAGING },
});

describe('multi-account blast radius', () => {
  const twoAccounts = load('multi-account-partition.yaml', (t) =>
    t.replace(
      '      description: staging\n',
      "      description: staging\n    - accountId: '333344445555'\n      roleArn: arn:aws:iam::333344445555:role/chaos-gate-fis-target\n",
    ),
  );
  const limits = planLimits(twoAccounts);

  it('applies maxTargets per account: one subnet in each of two accounts passes', () => {
    const d = blastRadiusDecision({
      plan: twoAccounts,
      resolved: [subnet('210987654321'), subnet('333344445555')],
      limits,
    });
    expect(d.refusals).toEqual([]);
    expect(d.totalSelected).toBe(2);
  });

  it('refuses an account whose selection exceeds maxTargets, naming the account', () => {
    const d = blastRadiusDecision({
      plan: twoAccounts,
      resolved: [
        subnet('210987654321'),
        subnet('333344445555'),
        subnet('333344445555', 'subnet-0ed15000000000002'),
      ],
      limits,
    });
    expect(d.refusals.map((r) => r.reason)).toEqual([
      'the experiment selects 2 targets in account 333344445555 (redisPrimarySubnet: 2) > blastRadius.maxTargets 1',
    ]);
  });

  it('refuses a target account where the target resolved nothing', () => {
    const d = blastRadiusDecision({ plan: twoAccounts, resolved: [subnet('210987654321')], limits });
    expect(d.refusals.map((r) => r.reason)).toEqual([
      'target redisPrimarySubnet selects no resource in account 333344445555: the dry run resolved no resource',
    ]);
  });

  it('checks forbidden tags in every account, and says how to read a target account without tags', () => {
    const prod = { ...subnet('333344445555'), tags: { Environment: 'production' } };
    const { tags: _none, ...blind } = subnet('210987654321');
    const d = blastRadiusDecision({ plan: twoAccounts, resolved: [blind, prod], limits });
    expect(d.refusals.map((r) => r.reason)).toEqual([
      expect.stringMatching(
        /subnet-0ed15000000000001 \(redisPrimarySubnet\) carries no tag information.*it is in target account 210987654321.*CHAOS_GATE_TARGET_ACCOUNT_ROLE/,
      ),
      expect.stringMatching(
        /333344445555:subnet\/subnet-0ed15000000000001 \(redisPrimarySubnet\) is tagged Environment=production, a forbidden tag/,
      ),
      expect.stringMatching(/lacks the required tag Environment=staging-chaos/),
    ]);
  });

  it("refuses a resolved target in an account outside the policy's accounts, and the plan's target accounts statically", () => {
    const withAccounts: BlastLimits = { ...limits, accounts: ['123456789012', '210987654321'] };
    const d = blastRadiusDecision({
      plan: twoAccounts,
      resolved: [subnet('210987654321'), subnet('333344445555')],
      limits: withAccounts,
    });
    expect(d.refusals).toEqual([
      {
        field: 'fis.targetAccountConfigurations',
        reason:
          'resolved target arn:aws:ec2:us-east-1:333344445555:subnet/subnet-0ed15000000000001 (redisPrimarySubnet) is in account 333344445555, which the policy does not allow (allowed: 123456789012, 210987654321)',
      },
    ]);
    const policy = parsePolicy("accounts: ['123456789012', '210987654321']\n", 'policy.yaml');
    expect(policyRefusals(twoAccounts, policy).map((r) => r.message)).toEqual([
      'fis.targetAccountConfigurations[1] targets account 333344445555, which the policy does not allow (allowed: 123456789012, 210987654321) (policy.yaml:1)',
      'fis.targetAccountConfigurations[1].roleArn arn:aws:iam::333344445555:role/chaos-gate-fis-target is in account 333344445555, which the policy does not allow (allowed: 123456789012, 210987654321) (policy.yaml:1)',
    ]);
  });
});

describe('EKS custom resources: the pods the chaos tool selects', () => {
  const chaosMesh = (spec: object) =>
    load('eks-chaos-mesh-pod-kill.yaml', (t) =>
      t.replace(/kubernetesSpec: '.*'/, `kubernetesSpec: '${JSON.stringify(spec)}'`),
    );
  const cluster: ResolvedTarget = {
    target: 'canaryCluster',
    arn: 'arn:aws:eks:us-east-1:123456789012:cluster/canary-eks',
    tags: { ...STAGING },
  };
  const decide = (plan: Plan, limits: Partial<BlastLimits> = {}) =>
    blastRadiusDecision({
      plan,
      resolved: [cluster],
      limits: { ...planLimits(plan), ...limits },
    }).refusals.map((r) => r.reason);

  it('passes Chaos Mesh mode one within maxTargets 1 (the fixture)', () => {
    expect(decide(load('eks-chaos-mesh-pod-kill.yaml'))).toEqual([]);
  });

  it('refuses mode fixed 3 over maxTargets 1, mode all always, and fixed-percent over maxPercent', () => {
    expect(decide(chaosMesh({ action: 'pod-kill', mode: 'fixed', value: '3' }))).toEqual([
      'action killOnePod deletes or disrupts 3 pods (mode fixed, value 3) > blastRadius.maxTargets 1',
    ]);
    expect(decide(chaosMesh({ action: 'pod-kill', mode: 'all' }))[0]).toMatch(
      /selects every matching pod \(mode all\), a number blastRadius.maxTargets 1 cannot bound/,
    );
    expect(
      decide(chaosMesh({ action: 'pod-kill', mode: 'fixed-percent', value: '50' }), { maxPercent: 25 }),
    ).toContain(
      'action killOnePod selects 50% of the matching pods (mode fixed-percent, value 50) > blastRadius.maxPercent 25%',
    );
  });

  it('reads Litmus PODS_AFFECTED_PERC, and refuses a spec it cannot bound', () => {
    expect(
      podSelection({
        kubernetesApiVersion: 'litmuschaos.io/v1alpha1',
        kubernetesSpec: JSON.stringify({
          experiments: [
            {
              name: 'pod-delete',
              spec: { components: { env: [{ name: 'PODS_AFFECTED_PERC', value: '30' }] } },
            },
          ],
        }),
      }),
    ).toEqual({ kind: 'percent', p: 30, how: 'PODS_AFFECTED_PERC 30' });
    expect(podSelection({ kubernetesApiVersion: 'example.com/v1', kubernetesSpec: '{}' })).toEqual({
      error: 'apiVersion example.com/v1 is neither Chaos Mesh (chaos-mesh.org) nor Litmus (litmuschaos.io)',
    });
  });
});

describe('EKS pods are judged by their cluster', () => {
  const plan = load('eks-pod-network-latency.yaml');
  const pod: ResolvedTarget = {
    target: 'canaryPods',
    arn: 'arn:aws:eks:us-east-1:123456789012:pod/canary-eks/canary/canary-7d9f8b6c5-ax1',
  };

  it('looks up the tags of the cluster named by clusterIdentifier, in the pod account', async () => {
    expect(tagSubjectOf(plan, pod)).toBe('arn:aws:eks:us-east-1:123456789012:cluster/canary-eks');
    const asked: string[][] = [];
    const tagging: TaggingSender = {
      async send(command) {
        const arns = command.input.ResourceARNList ?? [];
        asked.push(arns);
        return {
          ResourceTagMappingList: arns.map((ResourceARN) => ({
            ResourceARN,
            Tags: [{ Key: 'Environment', Value: 'production' }],
          })),
          $metadata: {},
        };
      },
    };
    const [tagged] = await tagResolvedTargets(plan, [pod], { own: tagging, ownAccount: '123456789012' });
    expect(asked).toEqual([['arn:aws:eks:us-east-1:123456789012:cluster/canary-eks']]);
    // A pod in a production cluster is refused like any production resource.
    const d = blastRadiusDecision({ plan, resolved: [tagged!], limits: planLimits(plan) });
    expect(d.refusals.map((r) => r.reason)).toEqual([
      expect.stringMatching(/is tagged Environment=production, a forbidden tag/),
    ]);
  });

  it("leaves a target account's resources untagged without a client for that account", async () => {
    const other = { ...pod, arn: pod.arn.replace('123456789012', '210987654321') };
    const never: TaggingSender = { send: () => Promise.reject(new Error('must not be asked')) };
    const [t] = await tagResolvedTargets(plan, [other], { own: never, ownAccount: '123456789012' });
    expect(t?.tags).toBeUndefined();
  });
});
