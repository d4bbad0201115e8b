/**
 * A multi-account plan end to end against the sandbox through `chaos-gate run`: the partition reaches
 * the staging account (its tags read through the role chaos-gate assumes there) and holds; without that
 * role the target account's tags are unknown and the run is refused. EKS plans are in ./eks.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { canaryFaults, eventOf, useE2E } from './harness.js';

const TARGET_ACCOUNT = '210987654321';
const e2e = useE2E();

describe('a multi-account plan', () => {
  it('is refused while the target account tags cannot be read, naming the account and the setting', async () => {
    const r = await e2e().run('multi-account-partition.yaml');
    expect(r.json.verdict, r.stderr).toBe('refused');
    expect(r.code).toBe(2);
    expect(r.json.reason).toContain(`it is in target account ${TARGET_ACCOUNT}`);
    expect(r.json.reason).toContain('CHAOS_GATE_TARGET_ACCOUNT_ROLE');
    expect(eventOf(r.journal, 'inject')).toBeUndefined();
  }, 120_000);

  it('runs end to end in the target account and holds', async () => {
    const r = await e2e().run('multi-account-partition.yaml', [], {
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
    const experiment = await e2e().experiment(r.json.experimentId ?? '');
    expect(experiment.targetAccountConfigurationsCount).toBe(1);
    const actions = await e2e().actions(r.json.experimentId ?? '');
    expect(actions.map((a) => [a.actionId, a.endedAs])).toEqual([
      ['aws:network:disrupt-connectivity', 'completed'],
    ]);
    expect(await canaryFaults(e2e())).toEqual({});
  }, 120_000);
});
