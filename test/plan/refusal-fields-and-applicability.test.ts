/**
 * The static refusals' decisions the limit tests (refusal-limits.test.ts) leave open: which field a
 * refusal points at, what it quotes as value and limit, and the branches that decide whether a rule
 * applies at all (an SLI set never measured during the fault, a tag that is absent rather than wrong,
 * a cycle among later actions, SSM's `DurationSeconds`). Each case changes the checkout plan in one place.
 */
import { describe, expect, it } from 'vitest';
import { maxActionDurationMs, staticRefusals, type RefusalRule } from '../../src/plan/refusals.js';
import type { Plan, PlanInput } from '../../src/plan/schema.js';
import { planWith } from '../sim/helpers.js';

type Change = (p: PlanInput) => void;

/** The refusals of the checkout plan after `change`, as [rule, field, value, limit]. */
function refusals(
  change: Change,
  only?: RefusalRule,
): [RefusalRule, string, string | number, string | number][] {
  return staticRefusals(planWith(change))
    .filter((r) => only === undefined || r.rule === only)
    .map((r) => [r.rule, r.field, r.value, r.limit]);
}

/** The checkout plan's only target, as written. */
const primary = (p: PlanInput) => (p.fis.targets as Record<string, Record<string, unknown>>).primary!;

/** Replaces the checkout plan's actions (each a network partition of `primary`, unless told otherwise). */
const actions =
  (spec: Record<string, { startAfter?: string[]; duration?: string; targets?: Record<string, string> }>) =>
  (p: PlanInput) => {
    p.fis.actions = Object.fromEntries(
      Object.entries(spec).map(([name, a]) => [
        name,
        {
          actionId: 'aws:network:disrupt-connectivity',
          parameters: { duration: a.duration ?? 'PT1M', scope: 'all' },
          targets: a.targets ?? { Subnets: 'primary' },
          ...(a.startAfter ? { startAfter: a.startAfter } : {}),
        },
      ]),
    ) as PlanInput['fis']['actions'];
  };

describe('SLIs and abort rules', () => {
  it('refuses a plan whose SLIs are all steady-state only, naming hypothesis.slis and the count', () => {
    const allSteady: Change = (p) => {
      for (const s of p.hypothesis.slis as { during?: boolean }[]) s.during = false;
      p.abort.rules = [];
    };
    expect(refusals(allSteady, 'no-sli-during-fault')).toEqual([
      ['no-sli-during-fault', 'hypothesis.slis', 2, 'at least 1 SLI with during: true'],
    ]);
    // One SLI measured during the fault is enough.
    const oneDuring: Change = (p) => {
      (p.hypothesis.slis[1] as { during?: boolean }).during = false;
    };
    expect(refusals(oneDuring, 'no-sli-during-fault')).toEqual([]);
  });

  it('names the SLIs to choose from when an abort rule names an unknown one', () => {
    expect(
      refusals((p) => {
        p.abort.rules[0]!.sli = 'p99_latency_s';
      }, 'abort-unknown-sli'),
    ).toEqual([['abort-unknown-sli', 'abort.rules[0].sli', 'p99_latency_s', 'success_ratio, p95_latency_s']]);
  });

  it('refuses a placeholder once, quoting it whole, and not again by the rules its value breaks', () => {
    const text = '<fill in: the success ratio query>';
    const out = refusals((p) => {
      (p.hypothesis.slis[0] as { prometheus?: string }).prometheus = text;
    });
    expect(out).toEqual([['placeholder', 'hypothesis.slis[0].prometheus', text, 'a value']]);
  });
});

describe('timing refusals', () => {
  it('does not count measurements at an interval it refuses: only interval-too-short is reported', () => {
    // At 500 ms a 60 s fault would hold 120 measurements; blindAfter 200 is not judged against them.
    const out = refusals((p) => {
      p.hypothesis.interval = '500ms';
      p.abort.blindAfter = 200;
    });
    expect(out.map(([rule]) => rule)).toEqual(['interval-too-short']);
  });

  /** A plan shape holding one SSM action with these `documentParameters` (only `fis.actions` is read). */
  const ssm = (documentParameters: string) =>
    ({
      fis: {
        actions: {
          stress: { actionId: 'aws:ssm:send-command', parameters: { documentParameters } },
        },
      },
    }) as unknown as Plan;

  it.each([
    ['a number', '{"DurationSeconds": 120}', 120_000],
    ['a numeric string', '{"DurationSeconds": "90"}', 90_000],
    ['a boolean (not a duration)', '{"DurationSeconds": true}', 0],
    ['absent', '{"Other": "5"}', 0],
    ['not an object', '"120"', 0],
    ['not JSON', 'DurationSeconds=120', 0],
  ])('reads SSM DurationSeconds when it is %s', (_what, documentParameters, ms) => {
    expect(maxActionDurationMs(ssm(documentParameters))).toBe(ms);
  });
});

describe('target refusals', () => {
  const requireTeam: Change = (p) => {
    p.blastRadius = { ...p.blastRadius, requireTags: { Team: 'payments' } } as PlanInput['blastRadius'];
  };

  it('points an absent required tag at resourceTags, quoting (absent)', () => {
    expect(refusals(requireTeam, 'require-tags')).toEqual([
      ['require-tags', 'fis.targets.primary.resourceTags', '(absent)', 'Team=payments'],
    ]);
  });

  it('leaves a target listed by ARN to the resolved-target check (some FIS actions take only ARNs)', () => {
    // aws:eks:inject-kubernetes-custom-resource takes its cluster by ARN only; the tags of what an ARN
    // names are read once resolved (the blast-radius gate refuses a resolved target without them), as
    // the policy's required tags already are.
    const byArn: Change = (p) => {
      requireTeam(p);
      const t = primary(p);
      delete t.resourceTags;
      t.resourceArns = ['arn:aws:ec2:us-east-1:111122223333:subnet/subnet-1'];
    };
    expect(refusals(byArn, 'require-tags')).toEqual([]);
  });

  it('points a required tag with another value at that tag, quoting the value found', () => {
    const wrong: Change = (p) => {
      p.blastRadius = {
        ...p.blastRadius,
        requireTags: { Environment: 'staging' },
      } as PlanInput['blastRadius'];
    };
    expect(refusals(wrong, 'require-tags')).toEqual([
      [
        'require-tags',
        'fis.targets.primary.resourceTags.Environment',
        'staging-chaos',
        'Environment=staging',
      ],
    ]);
  });

  it('reads a multi-digit COUNT(n): COUNT(10) is over maxTargets 5', () => {
    const ten: Change = (p) => {
      primary(p).selectionMode = 'COUNT(10)';
      p.blastRadius = { ...p.blastRadius, maxTargets: 5 } as PlanInput['blastRadius'];
    };
    expect(refusals(ten, 'count-over-max-targets')).toEqual([
      ['count-over-max-targets', 'fis.targets.primary.selectionMode', 'COUNT(10)', 5],
    ]);
  });

  it('points PERCENT(n) over maxPercent at selectionMode', () => {
    const half: Change = (p) => {
      primary(p).selectionMode = 'PERCENT(50)';
      p.blastRadius = { ...p.blastRadius, maxPercent: 25 } as PlanInput['blastRadius'];
    };
    expect(refusals(half, 'percent-over-max-percent')).toEqual([
      ['percent-over-max-percent', 'fis.targets.primary.selectionMode', 'PERCENT(50)', 25],
    ]);
  });

  it('counts listed ARNs against maxTargets only under ALL: COUNT(1) of 3 ARNs selects one', () => {
    const arns =
      (mode: string): Change =>
      (p) => {
        const t = primary(p);
        delete t.resourceTags;
        t.resourceArns = [1, 2, 3].map((i) => `arn:aws:ec2:us-east-1:111122223333:subnet/subnet-${i}`);
        t.selectionMode = mode;
        p.blastRadius = { ...p.blastRadius, maxPercent: 100 } as PlanInput['blastRadius'];
      };
    expect(refusals(arns('COUNT(1)'), 'arns-over-max-targets')).toEqual([]);
    expect(refusals(arns('ALL'), 'arns-over-max-targets')).toEqual([
      ['arns-over-max-targets', 'fis.targets.primary.resourceArns', 3, 1],
    ]);
  });
});

describe('action refusals', () => {
  it('refuses a startAfter naming no action, at its index, listing the actions', () => {
    const out = refusals(actions({ a: {}, b: { startAfter: ['a', 'nope'] } }));
    expect(out).toEqual([['unknown-start-after', 'fis.actions.b.startAfter[1]', 'nope', 'a, b']]);
  });

  it('lists the defined targets when an action names an unknown one', () => {
    const out = refusals(actions({ a: { targets: { Subnets: 'secondary' } } }), 'unknown-target');
    expect(out).toEqual([['unknown-target', 'fis.actions.a.targets.Subnets', 'secondary', 'primary']]);
  });

  it('quotes a cycle from the action that closes it, not from where the search began', () => {
    const out = refusals(
      actions({ x: { startAfter: ['a'] }, a: { startAfter: ['b'] }, b: { startAfter: ['a'] } }),
    );
    expect(out).toEqual([['start-after-cycle', 'fis.actions.a.startAfter', 'a → b → a', 'no cycles']]);
  });

  it('leaves finished branches out of the quoted cycle', () => {
    const out = refusals(actions({ a: { startAfter: ['p', 'b'] }, p: {}, b: { startAfter: ['a'] } }));
    expect(out).toEqual([['start-after-cycle', 'fis.actions.a.startAfter', 'a → b → a', 'no cycles']]);
  });

  it('finds a cycle that the first action does not reach', () => {
    const out = refusals(actions({ first: {}, a: { startAfter: ['b'] }, b: { startAfter: ['a'] } }));
    expect(out).toEqual([['start-after-cycle', 'fis.actions.a.startAfter', 'a → b → a', 'no cycles']]);
  });

  it('accepts a diamond: two actions waiting for the same one is no cycle', () => {
    const out = refusals(
      actions({ a: {}, b: { startAfter: ['a'] }, c: { startAfter: ['a'] }, d: { startAfter: ['b', 'c'] } }),
    );
    expect(out).toEqual([]);
  });
});

describe('how an action takes its targets (the FIS actions reference)', () => {
  it('refuses ARNs for S3 replication (tags only) and tags for a Kubernetes custom resource (ARNs only)', () => {
    const s3ByArn: Change = (p) => {
      p.fis.targets = {
        bucket: {
          resourceType: 'aws:s3:bucket',
          resourceArns: ['arn:aws:s3:::orders-assets'],
          selectionMode: 'ALL',
        },
      } as PlanInput['fis']['targets'];
      p.fis.actions = {
        pause: {
          actionId: 'aws:s3:bucket-pause-replication',
          parameters: { duration: 'PT1M', region: 'eu-west-1' },
          targets: { Buckets: 'bucket' },
        },
      } as PlanInput['fis']['actions'];
    };
    expect(refusals(s3ByArn, 'action-targeting')).toEqual([
      ['action-targeting', 'fis.targets.bucket.resourceArns', 'resourceArns', 'resourceTags'],
    ]);
    const clusterByTag: Change = (p) => {
      p.fis.targets = {
        cluster: {
          resourceType: 'aws:eks:cluster',
          resourceTags: { Environment: 'staging-chaos' },
          selectionMode: 'COUNT(1)',
        },
      } as PlanInput['fis']['targets'];
      p.fis.actions = {
        chaos: {
          actionId: 'aws:eks:inject-kubernetes-custom-resource',
          parameters: {
            kubernetesApiVersion: 'chaos-mesh.org/v1alpha1',
            kubernetesKind: 'PodChaos',
            kubernetesNamespace: 'default',
            kubernetesSpec: '{"action":"pod-kill","mode":"one"}',
            maxDuration: 'PT1M',
          },
          targets: { Cluster: 'cluster' },
        },
      } as PlanInput['fis']['actions'];
    };
    expect(refusals(clusterByTag, 'action-targeting')).toEqual([
      ['action-targeting', 'fis.targets.cluster.resourceTags', 'resourceTags', 'resourceArns only'],
    ]);
    // The same actions with the targets the reference asks for pass this rule.
    const s3ByTag: Change = (p) => {
      s3ByArn(p);
      const t = (p.fis.targets as Record<string, Record<string, unknown>>).bucket!;
      delete t.resourceArns;
      t.resourceTags = { Environment: 'staging-chaos' };
    };
    expect(refusals(s3ByTag, 'action-targeting')).toEqual([]);
  });
});
