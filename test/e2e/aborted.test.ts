/**
 * An aborted run against the sandbox: with the canary's fallback off, a Redis partition turns into 503s,
 * the error_ratio abort rule completes, chaos-gate sends StopExperiment and verifies `stopped` — long
 * before the 30 s action would have ended by itself.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { canaryFaults, eventOf, startE2E, type E2E, type PlanRun } from './harness.js';

/** The plan's action lasts 30 s; an abort must stop it well before that. */
const ACTION_MS = 30_000;

let e2e: E2E;
let run: PlanRun;

beforeAll(async () => {
  e2e = await startE2E({ canary: { fallback: false } });
  run = await e2e.run('e2e-abort.yaml');
}, 120_000);

afterAll(async () => {
  await e2e?.close();
}, 30_000);

describe('chaos-gate run against the sandbox, fallback off', () => {
  it('ends aborted with exit code 1, naming the abort rule', () => {
    expect(run.json.verdict, run.stderr).toBe('aborted');
    expect(run.code).toBe(1);
    expect(run.json.reason).toMatch(/error_ratio/);
    expect(run.json.reason).toMatch(/> 0\.2/);
  });

  it('journals firstBreachAt ≤ stopRequestedAt ≤ stoppedAt, all after injection', () => {
    const t = run.journal.timings;
    expect(t.injectedAt).toBeDefined();
    expect(t.firstBreachAt).toBeGreaterThanOrEqual(t.injectedAt ?? Infinity);
    expect(t.stopRequestedAt).toBeGreaterThanOrEqual(t.firstBreachAt ?? Infinity);
    expect(t.stoppedAt).toBeGreaterThanOrEqual(t.stopRequestedAt ?? Infinity);
    expect((t.stoppedAt ?? Infinity) - (t.injectedAt ?? 0)).toBeLessThan(ACTION_MS);
    for (const type of ['first-breach', 'abort', 'stop-requested', 'stop-verified'])
      expect(eventOf(run.journal, type), type).toBeDefined();
    expect(eventOf(run.journal, 'stop-verified')?.data).toMatchObject({ status: 'stopped' });
  });

  it('sent StopExperiment for its experiment, and the stand-in stopped it', async () => {
    const id = run.json.experimentId ?? '';
    const stops = await e2e.requests({ service: 'fis', operation: 'StopExperiment' });
    expect(stops.filter((r) => r.path === `/experiments/${id}` && r.status === 200)).toHaveLength(1);
    const experiment = await e2e.experiment(id);
    expect(experiment.state?.status).toBe('stopped');
    // Stopped by the runner's request, not by a stop condition.
    expect(experiment.state?.reason ?? '').not.toMatch(/stop condition/i);
    const actions = await e2e.actions(id);
    expect(actions.map((a) => a.endedAs)).toEqual(['stopped']);
  });

  it('leaves the canary without a fault', async () => {
    expect(await canaryFaults(e2e)).toEqual({});
  });

  it('leaves no experiment running in the stand-in', async () => {
    await e2e.sweep();
    expect(await e2e.liveExperiments()).toEqual([]);
  });
});
