/**
 * The journal header (src/engine/header.ts): what the run set out to test, from the plan as written —
 * each SLI's bound and steady bound and whether it counts during the fault, each abort rule's direction,
 * threshold and measurement count, each expectation's bound, and the plan path and Region only when the
 * front door gave them.
 */
import { describe, expect, it } from 'vitest';
import { journalHeader } from '../../src/engine/header.js';
import type { RunDeps } from '../../src/engine/run.js';
import type { PlanInput } from '../../src/plan/schema.js';
import { planWith } from '../sim/helpers.js';

const plan = planWith((p: PlanInput) => {
  (p.hypothesis.slis[0] as { during?: boolean }).during = false;
});
const deps = (more: Partial<RunDeps> = {}): RunDeps =>
  ({ plan, planDigest: 'sha256:abc', runId: 'run-7', attempt: 2, ...more }) as RunDeps;

describe('journalHeader', () => {
  it('says what the run set out to test, from the plan as written', () => {
    const h = journalHeader(deps(), 1234);
    expect(h).toEqual({
      kind: 'chaos-gate-journal',
      version: 1,
      runId: 'run-7',
      planId: 'checkout-redis-partition',
      planDigest: 'sha256:abc',
      title: 'Checkout survives a Redis primary partition',
      service: 'checkout',
      environment: 'staging',
      slis: [
        { name: 'success_ratio', bound: '>= 0.998', steadyBound: '>= 0.9995', during: false },
        { name: 'p95_latency_s', bound: '<= 0.18', steadyBound: '<= 0.11', during: true },
      ],
      abortRules: [
        { sli: 'success_ratio', op: 'below', threshold: 0.99, forMs: 5000, count: 5 },
        { sli: 'p95_latency_s', op: 'above', threshold: 0.5, forMs: 3000, count: 3 },
      ],
      intervalMs: 1000,
      startedAt: 1234,
      attempt: 2,
      expectations: [{ name: 'breaker_open', bound: '>= 1', withinMs: 3000 }],
      minRequests: 100,
      blindAfter: 3,
      steadyMs: 5000,
      recoveryMs: 10_000,
    });
  });

  it('gives an SLI without a steady bound its own bound for the steady state', () => {
    const loose = planWith((p: PlanInput) => {
      delete (p.hypothesis.slis[1] as { steady?: unknown }).steady;
    });
    const h = journalHeader({ ...deps(), plan: loose }, 0);
    expect(h.slis[1]).toMatchObject({ bound: '<= 0.18', steadyBound: '<= 0.18' });
  });

  it('records the plan path and the Region only when they were given', () => {
    const given = journalHeader(deps({ planPath: 'plans/checkout.yaml', region: 'eu-west-1' }), 0);
    expect(given.planPath).toBe('plans/checkout.yaml');
    expect(given.region).toBe('eu-west-1');
    const absent = journalHeader(deps(), 0);
    expect('planPath' in absent).toBe(false);
    expect('region' in absent).toBe(false);
  });
});
