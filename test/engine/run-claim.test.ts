/**
 * The run's claim (`RunDeps.claim`, src/engine/run.ts): taken after the steady state and right before
 * the start; a claim that is refused ends the run with its verdict and nothing started; a run that
 * queued measures its steady state again; an experiment that fails the claim's check after the start is
 * stopped and the run fails; and the claim is released on every way out — kept (to expire) only while a
 * fault that was sent a start is not known to have ended.
 */
import { describe, expect, it } from 'vitest';
import type { ClaimOutcome, RunClaim } from '../../src/injector/ports.js';
import type { ResolvedTarget } from '../../src/injector/injector.js';
import { loadScenario } from '../../src/sim/scenario.js';
import { injectorWith, simulate } from '../sim/helpers.js';

const held = () => loadScenario('fixtures/scenarios/held.yaml');

function recordingClaim(outcome: ClaimOutcome, started?: () => Promise<void>) {
  const calls: { acquired: ResolvedTarget[][]; released: boolean[]; startedWith: string[] } = {
    acquired: [],
    released: [],
    startedWith: [],
  };
  const claim: RunClaim = {
    acquire(targets) {
      calls.acquired.push([...targets]);
      return Promise.resolve(outcome);
    },
    async started(id) {
      calls.startedWith.push(id);
      await started?.();
    },
    release(faultEnded) {
      calls.released.push(faultEnded);
      return Promise.resolve(faultEnded ? 'released 1 target claim(s)' : 'left to expire');
    },
  };
  return { claim, calls };
}

describe('the run claim', () => {
  it('is taken with the resolved targets after the steady state and released once the fault ended', async () => {
    const { claim, calls } = recordingClaim({ ok: true, waitedMs: 0, note: 'claimed 1 target(s)' });
    const { result } = await simulate(held(), { deps: () => ({ claim }) });
    expect(result.verdict).toBe('held');
    expect(calls.acquired).toHaveLength(1);
    expect(calls.acquired[0]!.length).toBeGreaterThan(0);
    expect(calls.startedWith).toEqual([result.experimentId]);
    expect(calls.released).toEqual([true]);
    const types = result.journal.events.map((e) => e.type);
    const claimAt = result.journal.events.findIndex((e) => e.message.startsWith('claim: claimed'));
    expect(claimAt).toBeGreaterThan(types.indexOf('steady-state'));
    expect(claimAt).toBeLessThan(types.indexOf('inject'));
  });

  it("refused: the run ends with the claim's verdict and reason, and nothing is started", async () => {
    const { claim, calls } = recordingClaim({
      ok: false,
      verdict: 'not-run',
      reason: 'target arn:x is claimed by run 7 attempt 1 of plan other',
    });
    let starts = 0;
    const { result } = await simulate(held(), {
      deps: (w) => ({
        claim,
        injector: injectorWith(w, {
          start: (p, t, c) => {
            starts++;
            return w.injector.start(p, t, c);
          },
        }),
      }),
    });
    expect(result.verdict).toBe('not-run');
    expect(result.reason).toContain('is claimed by run 7');
    expect(starts).toBe(0);
    expect(calls.released).toEqual([true]);
  });

  it('after queueing, measures the steady state again before the start', async () => {
    const { claim } = recordingClaim({
      ok: true,
      waitedMs: 30_000,
      note: 'claimed 1 target(s) after queueing 30 s',
    });
    const { result } = await simulate(held(), { deps: () => ({ claim }) });
    expect(result.verdict).toBe('held');
    expect(result.journal.events.filter((e) => e.type === 'steady-state')).toHaveLength(2);
  });

  it("an experiment that fails the claim's check after the start is stopped, and the run fails", async () => {
    const { claim, calls } = recordingClaim({ ok: true, waitedMs: 0, note: 'claimed' }, () =>
      Promise.reject(new Error("experiment started without this run's lease")),
    );
    const { result } = await simulate(held(), { deps: () => ({ claim }) });
    expect(result.verdict).toBe('failed');
    expect(result.reason).toContain("without this run's lease");
    expect(result.journal.events.some((e) => e.type === 'stop-verified')).toBe(true);
    expect(calls.released).toEqual([true]);
  });

  it('keeps the claim when a start was sent and its fault was never seen to end', async () => {
    const { claim, calls } = recordingClaim({ ok: true, waitedMs: 0, note: 'claimed' });
    const { result } = await simulate(held(), {
      deps: (w) => ({
        claim,
        injector: injectorWith(w, { start: () => Promise.reject(new Error('socket hang up')) }),
      }),
    });
    expect(result.verdict).toBe('failed');
    expect(calls.released).toEqual([false]);
    expect(result.journal.events.some((e) => e.message === 'claim: left to expire')).toBe(true);
  });
});
