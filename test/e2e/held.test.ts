/**
 * A held run against the sandbox: the canary's fallback is on, so a 12 s Redis partition opens the
 * breaker and every SLI stays in bounds. FIS (the stand-in) must have really run the action on the
 * tagged Redis subnet, and the fault must be off afterwards.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { canaryFaults, eventOf, startE2E, type E2E, type PlanRun } from './harness.js';

const REDIS_SUBNET = 'arn:aws:ec2:us-east-1:123456789012:subnet/subnet-0ed15000000000001';

let e2e: E2E;
let run: PlanRun;

beforeAll(async () => {
  e2e = await startE2E();
  run = await e2e.run('e2e-held.yaml');
}, 120_000);

afterAll(async () => {
  await e2e?.close();
}, 30_000);

describe('chaos-gate run against the sandbox, fallback on', () => {
  it('ends held with exit code 0 and says so on stdout', () => {
    expect(run.json.verdict, run.stderr).toBe('held');
    expect(run.code).toBe(0);
    expect(run.json.exitCode).toBe(0);
    expect(run.json.experimentId).toMatch(/^EXP/);
    expect(run.stderr).toContain(`experiment ${run.json.experimentId} started`);
  });

  it('journals the whole run: provision, dry-run targets, steady state, injection, its end, recovery', () => {
    const j = run.journal;
    expect(j.verdict).toBe('held');
    expect(j.experimentId).toBe(run.json.experimentId);
    expect(j.resolvedTargets?.map((t) => t.arn)).toEqual([REDIS_SUBNET]);
    expect(j.resolvedTargets?.[0]?.tags).toMatchObject({ Environment: 'staging-chaos' });
    const types = j.events.map((e) => e.type);
    for (const t of ['provision', 'targets-resolved', 'steady-state', 'inject', 'fault-ended', 'recovery'])
      expect(types, t).toContain(t);
    // FIS completed the experiment by itself: the gate neither asked to stop it nor says it stopped it.
    expect(types).not.toContain('stop-requested');
    expect(types).not.toContain('stop-verified');
    expect(eventOf(j, 'fault-ended')?.data).toEqual({ status: 'completed', reason: 'Experiment completed.' });
    const t = j.timings;
    expect(t.injectedAt).toBeGreaterThan(t.startedAt ?? Infinity);
    expect(t.stoppedAt).toBeGreaterThan(t.injectedAt ?? Infinity);
    expect(t.recoveredAt).toBeGreaterThanOrEqual(t.stoppedAt ?? Infinity);
    expect(t.firstBreachAt).toBeUndefined();
    // The fault ran its course (12 s), so the fault phase has roughly one measurement per second.
    const during = j.measurements.filter((m) => m.phase === 'fault');
    expect(during.length).toBeGreaterThanOrEqual(10);
    expect(during.every((m) => Object.values(m.slis).every((s) => s.status === 'ok'))).toBe(true);
  });

  it('passes only with positive evidence: FIS reported the action running, and the breaker was seen open', () => {
    const states = run.journal.events.filter((e) => e.type === 'experiment-state');
    expect(states.some((e) => e.data?.injected === true && e.data?.status === 'running')).toBe(true);
    expect(eventOf(run.journal, 'expectation-observed')?.data).toMatchObject({
      expectation: 'breaker_opened',
    });
  });

  it('ran exactly one action on the tagged Redis subnet in the stand-in, to completion', async () => {
    const id = run.json.experimentId ?? '';
    const actions = await e2e.actions(id);
    expect(actions).toHaveLength(1);
    expect(actions[0]).toMatchObject({
      actionId: 'aws:network:disrupt-connectivity',
      targets: [REDIS_SUBNET],
      endedAs: 'completed',
    });
    const experiment = await e2e.experiment(id);
    expect(experiment.state?.status).toBe('completed');
    // The sandbox's own record: no StopExperiment was ever sent for it.
    const stops = await e2e.requests({ service: 'fis', operation: 'StopExperiment' });
    expect(stops.filter((r) => r.path === `/experiments/${id}`)).toEqual([]);
    expect(experiment.tags).toMatchObject({ 'chaos-gate:plan': 'e2e-held' });
  });

  it('resolved targets with a dry run that injected nothing', async () => {
    const starts = await e2e.requests({ service: 'fis', operation: 'StartExperiment' });
    const bodies = starts.map((r) => JSON.stringify(r.body ?? ''));
    // One dry run, or two when a stop condition (the lease alarm, before its first heartbeat counted)
    // stopped the first one before it completed; then exactly one real start.
    const dryRuns = bodies.filter((b) => b.includes('skip-all'));
    expect(dryRuns.length).toBeGreaterThanOrEqual(1);
    expect(dryRuns.length).toBeLessThanOrEqual(2);
    expect(starts.length - dryRuns.length).toBe(1);
    // Only the real experiment appears in the actions log: the dry run ran nothing.
    expect((await e2e.actions()).map((a) => a.experimentId)).toEqual([run.json.experimentId]);
  });

  it('leaves the canary without a fault', async () => {
    expect(await canaryFaults(e2e)).toEqual({});
  });

  it('leaves no experiment running in the stand-in', async () => {
    await e2e.sweep();
    expect(await e2e.liveExperiments()).toEqual([]);
  });
});
