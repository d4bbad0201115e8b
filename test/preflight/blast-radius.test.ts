import { describe, expect, it } from 'vitest';
import type { ResolvedTarget } from '../../src/injector/injector.js';
import type { JournalEvent } from '../../src/journal/types.js';
import type { PlanInput } from '../../src/plan/schema.js';
import {
  allowedByPercent,
  blastRadiusDecision,
  blastRadiusGate,
  parseSelectionMode,
  planLimits,
  selectionCount,
  type BlastLimits,
} from '../../src/preflight/blast-radius.js';
import { planWith } from '../sim/helpers.js';

describe('FIS selection rounding', () => {
  it.each([
    // [mode, available, selected]
    ['ALL', 3, 3],
    ['ALL', 0, 0],
    ['COUNT(1)', 3, 1],
    ['COUNT(5)', 3, 3], // never more than exist
    ['COUNT(2)', 0, 0],
    ['PERCENT(50)', 3, 1], // 1.5 rounds down
    ['PERCENT(50)', 5, 2], // FIS's own example: five instances at 50 % → two
    ['PERCENT(50)', 1, 0],
    ['PERCENT(10)', 5, 0], // 0.5 rounds down to nothing
    ['PERCENT(5)', 4, 0], // FIS: four instances at 5 % selects none
    ['PERCENT(34)', 3, 1],
    ['PERCENT(67)', 3, 2],
    ['PERCENT(100)', 7, 7],
    ['PERCENT(25)', 8, 2],
  ])('%s of %d selects %d', (mode, available, selected) => {
    const parsed = parseSelectionMode(mode);
    expect(parsed).toBeDefined();
    expect(selectionCount(parsed!, available)).toBe(selected);
  });

  it.each([
    // [maxPercent, available, allowed]
    [50, 3, 1],
    [50, 4, 2],
    [33.3, 1000, 333], // binary fractions do not lose one
    [10, 5, 0],
    [100, 7, 7],
    [12.5, 8, 1],
  ])('maxPercent %d of %d allows %d (rounded down)', (maxPercent, available, allowed) => {
    expect(allowedByPercent(maxPercent, available)).toBe(allowed);
  });

  it('rejects anything that is not a FIS selection mode', () => {
    expect(parseSelectionMode('SOME(3)')).toBeUndefined();
    expect(parseSelectionMode('PERCENT(-1)')).toBeUndefined();
  });
});

const target = (
  name: string,
  n: number,
  tags: Record<string, string> | null = { Environment: 'staging' },
): ResolvedTarget => ({
  target: name,
  arn: `arn:aws:ec2:eu-west-1:111122223333:instance/i-${name}${n}`,
  ...(tags ? { tags } : {}),
});

function planWithTarget(selectionMode: string, extra: (p: PlanInput) => void = () => {}) {
  return planWith((p) => {
    p.fis.targets = {
      nodes: { resourceType: 'aws:ec2:instance', resourceTags: { Role: 'cache' }, selectionMode },
    };
    p.fis.actions = { stop: { actionId: 'aws:ec2:stop-instances', targets: { Instances: 'nodes' } } };
    extra(p);
  });
}

const limits = (l: Partial<BlastLimits>): BlastLimits => ({
  maxTargets: 10,
  maxPercent: 100,
  forbidTags: { Environment: ['production', 'prod'] },
  requireTags: {},
  ...l,
});

describe('blastRadiusDecision', () => {
  it.each([
    // [mode, candidates, limits, ok, refusal field]
    ['PERCENT(50)', 3, { maxPercent: 50 }, true, undefined], // 1 of 3, allowed floor(1.5) = 1
    ['PERCENT(50)', 3, { maxPercent: 30 }, false, 'blastRadius.maxPercent'], // 1 of 3, allowed floor(0.9) = 0
    ['PERCENT(10)', 5, {}, false, 'fis.targets.nodes.selectionMode'], // rounds to 0 → empty → refused
    ['COUNT(2)', 4, { maxPercent: 50 }, true, undefined], // 2 of 4 = 50 %
    ['COUNT(3)', 4, { maxPercent: 50 }, false, 'blastRadius.maxPercent'],
    ['COUNT(3)', 4, { maxTargets: 2 }, false, 'blastRadius.maxTargets'],
    ['COUNT(3)', 2, { maxTargets: 2 }, true, undefined], // COUNT(3) of 2 selects 2
    ['ALL', 2, { maxTargets: 2 }, true, undefined],
    ['ALL', 3, { maxTargets: 2 }, false, 'blastRadius.maxTargets'],
    ['ALL', 0, {}, false, 'fis.targets.nodes.selectionMode'],
  ])('%s of %d candidates under %j → ok=%s', (mode, candidates, l, ok, field) => {
    const plan = planWithTarget(mode);
    const selected = selectionCount(parseSelectionMode(mode)!, candidates);
    const resolved = Array.from({ length: selected }, (_, i) => target('nodes', i));
    const d = blastRadiusDecision({ plan, resolved, available: { nodes: candidates }, limits: limits(l) });
    expect(d.ok).toBe(ok);
    expect(d.refusals[0]?.field).toBe(field);
  });

  it('explains an empty selection by its rounding', () => {
    const d = blastRadiusDecision({
      plan: planWithTarget('PERCENT(10)'),
      resolved: [],
      available: { nodes: 5 },
      limits: limits({}),
    });
    expect(d.refusals.map((r) => r.reason)).toEqual([
      'target nodes selects no resource: PERCENT(10) of 5 candidates rounds down to 0',
    ]);
  });

  it('quotes the selection and the rounded-down limit when the share is too wide', () => {
    const d = blastRadiusDecision({
      plan: planWithTarget('COUNT(2)'),
      resolved: [target('nodes', 1), target('nodes', 2)],
      available: { nodes: 5 },
      limits: limits({ maxPercent: 30 }),
    });
    expect(d.refusals[0]?.reason).toBe(
      'target nodes selects 2 of 5 (40%) with COUNT(2); blastRadius.maxPercent 30% allows at most 1 of 5 (rounded down)',
    );
  });

  it('counts listed ARNs as the candidates when no count is given', () => {
    const plan = planWith((p) => {
      p.fis.targets = {
        nodes: {
          resourceType: 'aws:ec2:instance',
          resourceArns: [
            'arn:aws:ec2:eu-west-1:111122223333:instance/i-a',
            'arn:aws:ec2:eu-west-1:111122223333:instance/i-b',
            'arn:aws:ec2:eu-west-1:111122223333:instance/i-c',
          ],
          selectionMode: 'PERCENT(50)',
        },
      };
      p.fis.actions = { stop: { actionId: 'aws:ec2:stop-instances', targets: { Instances: 'nodes' } } };
    });
    const d = blastRadiusDecision({
      plan,
      resolved: [target('nodes', 1)],
      limits: limits({ maxPercent: 50 }),
    });
    expect(d.selections[0]).toMatchObject({ available: 3, selected: 1 });
    expect(d.ok).toBe(true);
  });

  it('fails closed on COUNT(n) under a percent limit when the candidate count is unknown', () => {
    const d = blastRadiusDecision({
      plan: planWithTarget('COUNT(1)'),
      resolved: [target('nodes', 1)],
      limits: limits({ maxPercent: 50 }),
    });
    expect(d.ok).toBe(false);
    expect(d.refusals[0]?.reason).toContain('candidate count is unknown');
  });

  it('uses the resolved count when it exceeds the rounding (never undercounts)', () => {
    const d = blastRadiusDecision({
      plan: planWithTarget('COUNT(1)'),
      resolved: [target('nodes', 1), target('nodes', 2)],
      available: { nodes: 4 },
      limits: limits({ maxTargets: 1 }),
    });
    expect(d.totalSelected).toBe(2);
    expect(d.refusals[0]?.field).toBe('blastRadius.maxTargets');
  });

  it.each([
    [{ Environment: 'production' }, 'is tagged Environment=production, a forbidden tag'],
    [{ Environment: 'Prod' }, 'is tagged Environment=Prod, a forbidden tag'], // case does not smuggle it through
    [null, 'carries no tag information'],
  ])('refuses a resolved target tagged %j', (tags, reason) => {
    const d = blastRadiusDecision({
      plan: planWithTarget('COUNT(1)'),
      resolved: [target('nodes', 1, tags)],
      available: { nodes: 3 },
      limits: limits({}),
    });
    expect(d.refusals.map((r) => r.reason).join()).toContain(reason);
    expect(d.refusals[0]?.field).toBe('blastRadius.forbidTags');
  });

  it('allows untagged resolutions only when told to', () => {
    const d = blastRadiusDecision({
      plan: planWithTarget('COUNT(1)'),
      resolved: [target('nodes', 1, null)],
      available: { nodes: 3 },
      limits: limits({}),
      unknownTags: 'allow',
    });
    expect(d.ok).toBe(true);
  });

  it('refuses a resolved target missing a required tag', () => {
    const d = blastRadiusDecision({
      plan: planWithTarget('COUNT(1)'),
      resolved: [target('nodes', 1, { Environment: 'staging' })],
      available: { nodes: 3 },
      limits: limits({ requireTags: { ChaosReady: 'true' } }),
    });
    expect(d.refusals.map((r) => r.field)).toEqual(['blastRadius.requireTags']);
    expect(d.refusals[0]?.reason).toContain('lacks the required tag ChaosReady=true');
  });
});

describe('blastRadiusGate', () => {
  const events: Omit<JournalEvent, 'at'>[] = [];
  const record = (e: Omit<JournalEvent, 'at'>) => events.push(e);

  it('records the computed selection and passes inside the limits', async () => {
    const plan = planWithTarget('PERCENT(50)', (p) => {
      p.blastRadius = { maxTargets: 1, maxPercent: 50 };
    });
    const outcome = await blastRadiusGate({ candidates: { candidates: async () => 3 } }).check({
      plan,
      now: 0,
      targets: [target('nodes', 1)],
      record,
    });
    expect(outcome.pass).toBe(true);
    expect(events.at(-1)?.message).toBe('blast radius: nodes PERCENT(50) of 3 → 1; 1 target(s) in total');
  });

  it('is refused for the plan’s own limits by default', async () => {
    const plan = planWithTarget('PERCENT(10)');
    const outcome = await blastRadiusGate({ candidates: { candidates: async () => 5 } }).check({
      plan,
      now: 0,
      targets: [],
      targetsComplete: true,
      record,
    });
    expect(outcome).toMatchObject({
      pass: false,
      verdict: 'refused',
      field: 'fis.targets.nodes.selectionMode',
    });
    expect(planLimits(plan).maxTargets).toBe(1);
  });

  it('is refused on an empty set the dry run did not prove empty, and computes a proven-empty one', async () => {
    const plan = planWithTarget('COUNT(1)');
    const unproven = await blastRadiusGate().check({ plan, now: 0, targets: [], record });
    expect(unproven).toMatchObject({ pass: false, verdict: 'refused', field: 'fis.targets' });
    if (unproven.pass) throw new Error('passed');
    expect(unproven.reason).toMatch(/did not prove the set empty/);
    // A proven-empty set is computed like any other (here the selection rules decide).
    const seen: string[] = [];
    await blastRadiusGate().check({
      plan,
      now: 0,
      targets: [],
      targetsComplete: true,
      record: (e) => void seen.push(e.message),
    });
    expect(seen).toEqual([
      expect.stringMatching(/^blast radius: nodes COUNT\(1\) → 0; 0 target\(s\) in total$/),
    ]);
  });

  it('is refused when no dry run resolved the targets', async () => {
    const outcome = await blastRadiusGate().check({ plan: planWithTarget('COUNT(1)'), now: 0, record });
    expect(outcome).toMatchObject({ pass: false, verdict: 'refused', field: 'fis.targets' });
  });

  it('is not-run when the candidates cannot be counted', async () => {
    const outcome = await blastRadiusGate({
      candidates: {
        candidates: async () => {
          throw new Error('AccessDenied');
        },
      },
    }).check({ plan: planWithTarget('COUNT(1)'), now: 0, targets: [target('nodes', 1)], record });
    expect(outcome).toMatchObject({ pass: false, verdict: 'not-run' });
    expect(!outcome.pass && outcome.reason).toContain('AccessDenied');
  });
});
