import { describe, expect, it } from 'vitest';
import { VirtualClock } from '../../src/clock/clock.js';
import type { Lease } from '../../src/injector/injector.js';
import type { Gate } from '../../src/engine/gates.js';
import { loadScenario, type Scenario } from '../../src/sim/scenario.js';
import { planWith, simulate } from '../sim/helpers.js';
import { scriptedSource, type Scripted } from '../sim/scripted.js';

const held = (): Scenario => loadScenario('fixtures/scenarios/held.yaml');

/** Runs the held world with p95 replaced by a script (seconds after injection → value). */
async function withP95(script: (s: number) => Scripted | undefined, scenario = held()) {
  return simulate(scenario, {
    deps: (world) => ({
      sources: {
        ...world.sources,
        prometheus: scriptedSource(world, 'prometheus', { p95_latency_s: script }),
      },
    }),
  });
}

describe('abort rules', () => {
  it('aborts after 3 consecutive p95 breaches and stops FIS', async () => {
    const { result, world } = await withP95((s) => (s >= 4 ? 0.61 : 0.1));
    expect(result.verdict).toBe('aborted');
    expect(result.reason).toBe('p95_latency_s 0.61 > 0.5 for 3 measurements in a row, 3.0 s (+6.0 s)');
    expect(world.injector.stopCount).toBeGreaterThanOrEqual(1);
    const stop = world.injector.calls.find((c) => c.method === 'stop');
    expect(stop?.args[1]).toContain('p95_latency_s 0.61 > 0.5');
    const j = result.journal;
    expect(j.timings.firstBreachAt).toBe(j.timings.injectedAt! + 4000);
    expect(j.timings.stopRequestedAt).toBe(j.timings.injectedAt! + 6000);
    expect(j.timings.stoppedAt).toBeGreaterThan(j.timings.stopRequestedAt!);
  });

  it('does not abort on 2 breaches, an ok, then 2 breaches again (an ok resets the streak)', async () => {
    const pattern = (s: number): number => [0.6, 0.6, 0.1][(s - 1) % 3] ?? 0.1;
    const { result } = await withP95(pattern);
    expect(result.journal.events.some((e) => e.type === 'abort')).toBe(false);
    expect(result.verdict).toBe('deviated');
  });

  it('aborts on the third breach of a new streak after an ok one', async () => {
    const script = (s: number): number => (s === 1 || s === 2 || s === 4 || s === 5 || s === 6 ? 0.6 : 0.1);
    const { result } = await withP95(script);
    expect(result.verdict).toBe('aborted');
    expect(result.reason).toMatch(/for 3 measurements in a row, 3\.0 s \(\+6\.0 s\)$/);
  });

  it('treats a gap as neither breach nor reset: breach, breach, no-data, breach aborts at the 4th tick', async () => {
    const script = (s: number): Scripted => (s === 3 ? null : s <= 5 ? 0.6 : 0.1);
    const { result } = await withP95(script);
    expect(result.verdict).toBe('aborted');
    expect(result.reason).toMatch(/\(\+4\.0 s\)$/);
  });

  it('computes the count as ceil(for / interval): 2.5s at 1s needs 3 measurements', async () => {
    const plan = planWith((p) => {
      p.abort.rules = [{ sli: 'p95_latency_s', above: 0.5, for: '2500ms' }];
    });
    const { result } = await simulate(held(), {
      plan,
      deps: (world) => ({
        sources: {
          ...world.sources,
          prometheus: scriptedSource(world, 'prometheus', { p95_latency_s: (s) => (s >= 2 ? 0.6 : 0.1) }),
        },
      }),
    });
    expect(result.journal.abortRules[0]?.count).toBe(3);
    expect(result.reason).toMatch(/for 3 measurements in a row, 3\.0 s \(\+4\.0 s\)$/);
  });
});

describe('blindness', () => {
  it('stops after blindAfter (3) consecutive failed measurements with inconclusive', async () => {
    const { result, world } = await withP95((s) => (s >= 5 && s <= 7 ? 'error' : undefined));
    expect(result.verdict).toBe('inconclusive');
    expect(result.reason).toMatch(
      /^blind: 3 measurements in a row without data \(p95_latency_s: scripted error\) \(\+7\.0 s\)$/,
    );
    expect(world.injector.stopCount).toBeGreaterThanOrEqual(1);
  });

  it('does not stop on 2 failed, 1 ok, 2 failed, but still refuses to call it held', async () => {
    const { result } = await withP95((s) => (s === 3 || s === 4 || s === 6 || s === 7 ? null : undefined));
    expect(result.journal.events.some((e) => e.type === 'abort')).toBe(false);
    expect(result.verdict).toBe('inconclusive');
    expect(result.reason).toMatch(/p95_latency_s had no data in 4 of 20 measurements/);
  });
});

describe('minRequests', () => {
  it('marks every SLI of a window no-data when the request count is below minRequests, and accepts it at the limit', async () => {
    const script = (s: number): number | undefined => (s === 5 ? 99 : s === 6 ? 100 : undefined);
    const { result } = await simulate(held(), {
      deps: (world) => ({
        sources: {
          ...world.sources,
          prometheus: scriptedSource(world, 'prometheus', { __requests: script }),
        },
      }),
    });
    const fault = result.journal.measurements.filter((m) => m.phase === 'fault');
    const low = fault.find((m) => m.requests === 99);
    const atLimit = fault.find((m) => m.requests === 100);
    expect(Object.values(low?.slis ?? {}).map((v) => v.status)).toEqual(['no-data', 'no-data']);
    expect(low?.slis.success_ratio?.error).toBe('99 requests < minRequests 100');
    expect(Object.values(atLimit?.slis ?? {}).map((v) => v.status)).toEqual(['ok', 'ok']);
    expect(result.verdict).toBe('inconclusive');
  });
});

describe('expectations and recovery', () => {
  it('is deviated when the expectation is seen only after its within', async () => {
    const s = held();
    s.metrics.breaker_open = {
      baseline: 0,
      noise: 0,
      gaps: [],
      effect: { to: 1, shape: 'step', delay: 5000, rampOver: 0, recoveryLag: 0 },
    };
    const { result } = await simulate(s);
    expect(result.verdict).toBe('deviated');
    expect(result.reason).toBe(
      'expectation breaker_open observed only at +5.0 s; expected within 3.0 s of injection',
    );
  });

  it('is deviated when an SLI is not back within recovery.within, and held when it is', async () => {
    const late = loadScenario('fixtures/scenarios/deviated-recovery.yaml');
    const { result } = await simulate(late);
    expect(result.verdict).toBe('deviated');
    expect(result.reason).toMatch(
      /^not recovered within 10\.0 s after the fault ended: p95_latency_s .* > 0\.11 \(steady-state bound\)/,
    );
    const ok = await simulate(held());
    expect(ok.result.verdict).toBe('held');
    expect(ok.result.journal.timings.recoveredAt).toBeDefined();
  });

  it('requires FIS evidence of injection for held', async () => {
    const s = held();
    s.injector.injected = false;
    s.metrics.breaker_open = { baseline: 1, noise: 0, gaps: [] };
    const { result } = await simulate(s);
    expect(result.verdict).toBe('inconclusive');
    // The simulated FIS reports the action cancelled when it never ran: either way, no evidence of a fault.
    expect(result.reason).toMatch(/no evidence that the fault was injected|did not run as planned/);
  });
});

describe('stop on every exit path', () => {
  it('stops FIS when the reporter (onTick) throws mid-fault, with verdict failed', async () => {
    const { result, world } = await simulate(held(), {
      deps: () => {
        let faultTicks = 0;
        return {
          onTick: (m) => {
            if (m.phase === 'fault' && ++faultTicks >= 3) throw new Error('summary writer exploded');
          },
        };
      },
    });
    expect(result.verdict).toBe('failed');
    expect(result.reason).toContain('summary writer exploded');
    expect(world.injector.stopCount).toBe(1);
    expect(result.journal.events.some((e) => e.type === 'stop-verified')).toBe(true);
  });

  it('aborts on a mid-run check (an incident opened) and stops FIS', async () => {
    const { result, world } = await simulate(held(), {
      deps: (w) => ({
        midRun: [
          {
            name: 'incidents',
            check: async (now) =>
              w.injector.startedAt !== undefined && now - w.injector.startedAt >= 4000
                ? 'incident INC-7 opened'
                : null,
          },
        ],
      }),
    });
    expect(result.verdict).toBe('aborted');
    expect(result.reason).toBe('incidents: incident INC-7 opened (+4.0 s)');
    expect(world.injector.stopCount).toBe(1);
  });

  it('fails and stops FIS when a mid-run check keeps failing (blindAfter times in a row)', async () => {
    const { result, world } = await simulate(held(), {
      deps: () => ({
        midRun: [{ name: 'kill-switch', check: async () => Promise.reject(new Error('alarm API down')) }],
      }),
    });
    expect(result.verdict).toBe('failed');
    expect(result.reason).toMatch(/^mid-run check kill-switch failed 3 times in a row: alarm API down/);
    expect(world.injector.stopCount).toBe(1);
  });

  it('goes on through one failed or slow mid-run check: a check is polled beside the ticks', async () => {
    const { result } = await simulate(held(), {
      deps: (w) => {
        let n = 0;
        return {
          midRun: [
            {
              name: 'incidents',
              check: async () => {
                n++;
                if (n === 2) throw new Error('Prometheus 503');
                // The third answer takes 4 s: ticks must not wait for it.
                if (n === 3) await w.clock.sleep(4000);
                return null;
              },
            },
          ],
        };
      },
    });
    expect(result.verdict).toBe('held');
    const fault = result.journal.measurements.filter((m) => m.phase === 'fault');
    const gaps = fault.slice(1).map((m, i) => m.at - fault[i]!.at);
    expect(Math.max(...gaps)).toBeLessThanOrEqual(1000);
    expect(result.journal.events.some((e) => e.type === 'error' && /Prometheus 503/.test(e.message))).toBe(
      true,
    );
  });

  it('aborts on the tick a `tick` check answers (the abort file), journaled under the check’s name', async () => {
    const { result, world } = await simulate(held(), {
      deps: (w) => ({
        midRun: [
          {
            name: 'abort-file',
            cadence: 'tick',
            check: async (now) =>
              w.injector.startedAt !== undefined && now - w.injector.startedAt >= 7000
                ? 'abort file /tmp/ABORT found'
                : null,
          },
        ],
      }),
    });
    expect(result.verdict).toBe('aborted');
    expect(result.reason).toBe('abort file /tmp/ABORT found (+7.0 s)');
    const abort = result.journal.events.find((e) => e.type === 'abort');
    expect(abort?.data).toEqual({ cause: 'abort-file', verdict: 'aborted' });
    expect(world.injector.stopCount).toBe(1);
  });

  it('fails closed when a `tick` check keeps failing, journaling each miss before', async () => {
    const { result, world } = await simulate(held(), {
      deps: () => ({
        midRun: [
          { name: 'abort-file', cadence: 'tick', check: async () => Promise.reject(new Error('EIO')) },
        ],
      }),
    });
    expect(result.verdict).toBe('failed');
    expect(result.reason).toMatch(/^mid-run check abort-file failed 3 times in a row: EIO/);
    expect(
      result.journal.events.filter((e) => e.type === 'error' && /abort-file: EIO/.test(e.message)),
    ).toHaveLength(2);
    expect(world.injector.stopCount).toBe(1);
  });

  it('fails with the manual commands when the stop is never verified', async () => {
    const { result, world } = await simulate('failed-stop-unverified');
    expect(result.verdict).toBe('failed');
    const id = world.injector.experimentId!;
    expect(result.reason).toContain(`aws fis stop-experiment --id ${id}`);
    const event = result.journal.events.find((e) => e.type === 'stop-failed');
    expect(event?.data?.manualCommands).toEqual([
      `aws fis stop-experiment --id ${id}`,
      `aws fis get-experiment --id ${id}`,
    ]);
    // Retried with backoff inside the 20 s bound.
    expect(world.injector.stopCount).toBeGreaterThan(2);
    const stops = world.injector.calls.filter((c) => c.method === 'stop').map((c) => c.at);
    expect(stops.at(-1)! - stops[0]!).toBeLessThanOrEqual(20_000);
  });

  it('prints the manual stop command with the Region the experiment runs in', async () => {
    const { result, world } = await simulate('failed-stop-unverified', {
      deps: () => ({ region: 'eu-west-1' }),
    });
    const id = world.injector.experimentId!;
    expect(result.reason).toContain(`aws fis stop-experiment --id ${id} --region eu-west-1`);
    const event = result.journal.events.find((e) => e.type === 'stop-failed');
    expect(event?.data?.manualCommands).toEqual([
      `aws fis stop-experiment --id ${id} --region eu-west-1`,
      `aws fis get-experiment --id ${id} --region eu-west-1`,
    ]);
  });

  it('verifies the stop by state even when StopExperiment answers with an error', async () => {
    const s = loadScenario('fixtures/scenarios/aborted-rule.yaml');
    s.injector.stopThrows = 'ValidationException: experiment is stopping';
    const { result } = await simulate(s);
    expect(result.verdict).toBe('aborted');
    expect(result.journal.events.some((e) => e.type === 'stop-verified')).toBe(true);
  });

  it('stops on SIGINT via the signal and names the signal', async () => {
    const { result, world } = await simulate('aborted-signal');
    expect(result.reason).toBe('cancelled by SIGINT (+6.5 s)');
    expect(world.injector.stopCount).toBe(1);
    expect(result.journal.events.some((e) => e.type === 'signal')).toBe(true);
    // No recovery wait after a human cancelled.
    expect(result.journal.measurements.some((m) => m.phase === 'recovery')).toBe(false);
  });
});

describe('gates, lease and hooks', () => {
  const refuse: Gate = {
    name: 'blast-radius',
    stage: 'after-targets',
    check: async (ctx) =>
      ctx.targets && ctx.targets.length > 0
        ? {
            pass: false,
            verdict: 'refused',
            reason: `1 target > maxTargets 0`,
            field: 'blastRadius.maxTargets',
          }
        : { pass: true },
  };

  it('refuses with exit 2 before anything is started, after the dry run', async () => {
    const { result, world } = await simulate(held(), { deps: () => ({ gates: [refuse] }) });
    expect(result.verdict).toBe('refused');
    expect(result.exitCode).toBe(2);
    expect(world.injector.calls.map((c) => c.method)).toEqual(['provision', 'resolveTargets']);
  });

  it('refuses a plan that breaks a static rule without calling the injector', async () => {
    const { staticRefusalGate } = await import('../../src/engine/static-gate.js');
    const plan = planWith((p) => {
      p.abort.rules = [];
    });
    const { result, world } = await simulate(held(), {
      plan,
      deps: () => ({ gates: [staticRefusalGate()] }),
    });
    expect(result.verdict).toBe('refused');
    expect(result.exitCode).toBe(2);
    expect(world.injector.calls).toEqual([]);
  });

  it('beats the lease from just before the start until FIS reports the fault ended', async () => {
    const beats: number[] = [];
    let clockNow = (): number => 0;
    const lease: Lease = { intervalMs: 5000, beat: async () => void beats.push(clockNow()) };
    const { result, world, clock } = await simulate(held(), {
      deps: (w) => {
        clockNow = () => w.clock.now();
        return { lease };
      },
    });
    expect(result.verdict).toBe('held');
    const start = world.injector.calls.find((c) => c.method === 'start')!.at;
    // FIS completed it by itself: its end is the `fault-ended` event (no stop was needed).
    const verified = result.journal.events.find((e) => e.type === 'fault-ended')!.at;
    expect(beats[0]).toBeLessThanOrEqual(start);
    expect(beats.at(-1)).toBeLessThanOrEqual(verified);
    for (let i = 1; i < beats.length; i++) expect(beats[i]! - beats[i - 1]!).toBe(5000);
    expect(beats.length).toBe(Math.floor((verified - beats[0]!) / 5000) + 1);
    expect(clock.now()).toBeGreaterThan(verified);
  });

  it('retries a failed lease heartbeat after 1 s and keeps a fixed 5 s cadence when beats are slow', async () => {
    const beats: { at: number; ok: boolean }[] = [];
    let now = (): number => 0;
    let advance = (_ms: number): void => undefined;
    let calls = 0;
    const lease: Lease = {
      intervalMs: 5000,
      beat: async () => {
        calls += 1;
        const at = now();
        advance(400); // every PutMetricData takes 400 ms
        const ok = calls !== 3; // the third heartbeat is throttled away
        beats.push({ at, ok });
        if (!ok) throw new Error('ThrottlingException');
      },
    };
    const { result } = await simulate(held(), {
      deps: (w) => {
        now = () => w.clock.now();
        const clock = w.clock;
        if (!(clock instanceof VirtualClock)) throw new Error('the simulated world runs on a VirtualClock');
        advance = (ms) => clock.advance(ms);
        return { lease };
      },
    });
    expect(
      result.journal.events.some((e) => /lease heartbeat failed \(retrying in 1 s\)/.test(e.message)),
    ).toBe(true);
    const failed = beats.findIndex((b) => !b.ok);
    // The retry comes 1 s after the failed call returned, not a whole interval later.
    expect(beats[failed + 1]!.at - beats[failed]!.at).toBe(1400);
    // Successful beats keep the 5 s cadence despite 400 ms calls; across the failure the gap is one
    // interval plus the retry (6.4 s) — still well inside the lease alarm's 10 s period.
    const gaps = beats.slice(1).map((b, i) => ({ gap: b.at - beats[i]!.at, aroundFailure: i === failed }));
    for (const g of gaps) expect(g.gap).toBe(g.aroundFailure ? 1400 : 5000);
    const ok = beats.filter((b) => b.ok).map((b) => b.at);
    expect(Math.max(...ok.slice(1).map((t, i) => t - ok[i]!))).toBe(6400);
  });

  it('hands the experiment id to onExperimentId before the first state read', async () => {
    const seen: { id: string; stateCalls: number }[] = [];
    const { world } = await simulate(held(), {
      deps: (w) => ({
        onExperimentId: (id) =>
          void seen.push({ id, stateCalls: w.injector.calls.filter((c) => c.method === 'state').length }),
      }),
    });
    expect(seen).toEqual([{ id: world.injector.experimentId, stateCalls: 0 }]);
  });

  it('runs a simulated 15-minute fault at a 1 s interval on the virtual clock', async () => {
    const plan = planWith((p) => {
      p.hypothesis.expect = [];
      p.blastRadius = { ...p.blastRadius, maxActionDuration: '15m', maxRunDuration: '20m' };
    });
    const s = held();
    s.injector.actionDuration = 15 * 60_000;
    const { result } = await simulate(s, { plan });
    expect(result.verdict).toBe('held');
    expect(result.journal.measurements.filter((m) => m.phase === 'fault')).toHaveLength(900);
  });
});

describe('a start whose answer was lost', () => {
  it('asks again with the same context, learns the experiment id and watches the fault to its end', async () => {
    const { result, world } = await simulate(held(), {
      deps: (w) => {
        const real = w.injector;
        let first = true;
        // The first StartExperiment reaches FIS (the fault starts) but its answer never arrives.
        const lossy = Object.create(real) as typeof real;
        lossy.start = async (plan, templateId, ctx) => {
          const started = await real.start(plan, templateId, ctx);
          if (first) {
            first = false;
            throw new Error('socket hang up');
          }
          return started;
        };
        return { injector: lossy };
      },
    });
    const starts = world.injector.calls.filter((c) => c.method === 'start');
    expect(starts).toHaveLength(2);
    expect(starts[0]?.args[2]).toEqual(starts[1]?.args[2]);
    expect(result.experimentId).toBeDefined();
    expect(result.journal.events.some((e) => e.type === 'fault-ended')).toBe(true);
    expect(
      result.journal.events.some((e) => e.message.includes('asking again with the same idempotency key')),
    ).toBe(true);
  });

  it('finds the experiment by its run tags when both answers were lost, stops it, reports its id, and is never held', async () => {
    const scenario = held();
    scenario.injector.startAnswersLost = 2;
    const ids: string[] = [];
    const { result, world } = await simulate(scenario, {
      deps: () => ({ onExperimentId: (id: string) => void ids.push(id) }),
    });
    expect(world.injector.calls.map((c) => c.method)).toContain('find');
    expect(world.injector.calls.filter((c) => c.method === 'start')).toHaveLength(2);
    expect(result.experimentId).toBe(world.injector.experimentId);
    expect(result.journal.experimentId).toBe(world.injector.experimentId);
    expect(ids).toEqual([world.injector.experimentId]);
    expect(world.injector.stopCount).toBe(1);
    expect(result.journal.events.some((e) => e.type === 'stop-verified')).toBe(true);
    expect(result.verdict).toBe('failed');
    expect(result.reason).toContain(`FIS lists experiment ${world.injector.experimentId} of this run`);
    // Its fault's start is unknown: nothing is measured against it.
    expect(result.journal.measurements.filter((m) => m.phase === 'fault')).toEqual([]);
  });

  it('says none is known to have started when both answers were lost and FIS lists no experiment of the run', async () => {
    const { result, world } = await simulate('failed-start');
    expect(world.injector.calls.map((c) => c.method)).toContain('find');
    expect(result.verdict).toBe('failed');
    expect(result.reason).toMatch(
      /FIS lists no experiment tagged with run .* attempt 1, so none is known to have started/,
    );
    expect(world.injector.stopCount).toBe(0);
  });
});
