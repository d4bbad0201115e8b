/**
 * The blast-radius decisions between the rounding tables of blast-radius.test.ts: what an unknown
 * candidate count allows under a maxPercent, how targets FIS selects but the dry run did not list are
 * counted, when a resolved target without tags is refused, and what the gate records and passes on.
 */
import { describe, expect, it } from 'vitest';
import type { ResolvedTarget } from '../../src/injector/injector.js';
import type { JournalEvent } from '../../src/journal/types.js';
import type { PlanInput } from '../../src/plan/schema.js';
import { blastRadiusDecision, blastRadiusGate, type BlastLimits } from '../../src/preflight/blast-radius.js';
import { planWith } from '../sim/helpers.js';

/** A resolved subnet of the primary target; `null` tags: the resolution carried no tag information. */
const subnet = (i: number, tags: Record<string, string> | null = { Environment: 'staging-chaos' }) =>
  ({
    target: 'primary',
    arn: `arn:aws:ec2:us-east-1:111122223333:subnet/subnet-${i}`,
    ...(tags ? { tags } : {}),
  }) as ResolvedTarget;
const withMode = (selectionMode: string) =>
  planWith(
    (p: PlanInput) =>
      void ((p.fis.targets.primary as { selectionMode: string }).selectionMode = selectionMode),
  );
const limits = (l: Partial<BlastLimits> = {}): BlastLimits => ({
  maxTargets: 10,
  maxPercent: 100,
  forbidTags: {},
  requireTags: {},
  ...l,
});

describe('maxPercent with no candidate count', () => {
  const decide = (mode: string) =>
    blastRadiusDecision({
      plan: withMode(mode),
      resolved: [subnet(1)],
      limits: limits({ maxPercent: 25 }),
    }).refusals.map((r) => r.field);

  it('refuses ALL and a PERCENT over the limit as wider than maxPercent', () => {
    expect(decide('ALL')).toEqual(['fis.targets.primary.selectionMode']);
    expect(decide('PERCENT(26)')).toEqual(['fis.targets.primary.selectionMode']);
  });

  it('accepts a PERCENT at the limit, whatever the count', () => {
    expect(decide('PERCENT(25)')).toEqual([]);
  });

  it('refuses COUNT(n), whose share cannot be known', () => {
    const out = blastRadiusDecision({
      plan: withMode('COUNT(1)'),
      resolved: [subnet(1)],
      limits: limits({ maxPercent: 25 }),
    });
    expect(out.refusals).toHaveLength(1);
    expect(out.refusals[0]?.reason).toContain('candidate count is unknown');
  });
});

describe('the total FIS selects', () => {
  it('adds what a target selects beyond what the dry run listed', () => {
    const out = blastRadiusDecision({
      plan: withMode('COUNT(3)'),
      resolved: [subnet(1)],
      available: { primary: 10 },
      limits: limits({ maxTargets: 2 }),
    });
    expect(out.totalSelected).toBe(3);
    expect(out.refusals.map((r) => r.field)).toEqual(['blastRadius.maxTargets']);
  });

  it('counts resolved targets once each, and never less than resolved', () => {
    const out = blastRadiusDecision({
      plan: withMode('COUNT(1)'),
      resolved: [subnet(1), subnet(2), subnet(2)],
      available: { primary: 10 },
      limits: limits({ maxTargets: 2 }),
    });
    expect(out.totalSelected).toBe(2);
    expect(out.ok).toBe(true);
  });
});

describe('resolved targets without tag information', () => {
  const untagged = (l: Partial<BlastLimits>) =>
    blastRadiusDecision({ plan: withMode('COUNT(1)'), resolved: [subnet(1, null)], limits: limits(l) })
      .refusals;

  it('are refused when a forbidden or a required tag is to be checked', () => {
    expect(untagged({ forbidTags: { Environment: ['prod'] } })).toHaveLength(1);
    expect(untagged({ requireTags: { Team: 'payments' } })).toHaveLength(1);
  });

  it('pass when no tag is guarded', () => {
    expect(untagged({})).toEqual([]);
  });
});

describe('the blast-radius gate', () => {
  it('works without a candidate counter, and records each selection', async () => {
    const events: Omit<JournalEvent, 'at'>[] = [];
    const plan = withMode('COUNT(1)');
    const out = await blastRadiusGate().check({
      plan,
      now: 0,
      targets: [subnet(1)],
      record: (e) => void events.push(e),
    });
    expect(out).toEqual({ pass: true, note: 'blast radius 1 target(s): primary COUNT(1) → 1' });
    expect(events[0]?.data).toEqual({
      gate: 'blast-radius',
      totalSelected: 1,
      selections: [
        {
          target: 'primary',
          selectionMode: 'COUNT(1)',
          available: null,
          selected: 1,
          arns: ['arn:aws:ec2:us-east-1:111122223333:subnet/subnet-1'],
        },
      ],
    });
  });

  it('uses the counts a counter gives and refuses with every reason', async () => {
    const plan = withMode('PERCENT(50)');
    const out = await blastRadiusGate({
      candidates: { candidates: async () => 4 },
      limits: () => limits({ maxTargets: 1, maxPercent: 25 }),
    }).check({ plan, now: 0, targets: [subnet(1), subnet(2)], record: () => {} });
    expect(out).toMatchObject({ pass: false, verdict: 'refused', field: 'blastRadius.maxPercent' });
    // 2 of 4 is over 25 % (at most 1 of 4), and 2 targets are over maxTargets 1.
    const reason = (out as { reason: string }).reason;
    expect(reason).toContain('target primary selects 2 of 4 (50%) with PERCENT(50)');
    expect(reason).toContain('the experiment selects 2 targets (primary: 2) > blastRadius.maxTargets 1');
  });
});
