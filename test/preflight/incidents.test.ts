import { describe, expect, it } from 'vitest';
import type { JournalEvent } from '../../src/journal/types.js';
import { incidentGate, incidentMidRunCheck, type IncidentProbe } from '../../src/preflight/incidents.js';
import { killSwitchGate, killSwitchMidRunCheck } from '../../src/preflight/kill-switch.js';
import { loadTestPlan, simulate } from '../sim/helpers.js';

const plan = loadTestPlan();

/** An incident that opens at `opensAt` (virtual ms); reads after that see it open. */
function incidentAt(opensAt: number): IncidentProbe & { reads: number[] } {
  const reads: number[] = [];
  return {
    reads,
    async open(at) {
      reads.push(at);
      return at >= opensAt
        ? { open: true, detail: 'INC-42 checkout 5xx (sev2)' }
        : { open: false, detail: 'no firing alert' };
    },
  };
}

describe('incidentGate', () => {
  const events: Omit<JournalEvent, 'at'>[] = [];
  const ctx = (now: number) => ({ plan, now, record: (e: Omit<JournalEvent, 'at'>) => events.push(e) });

  it.each([
    // [probe result, outcome]
    [
      { open: false, detail: 'no firing alert' },
      { pass: true, note: 'no incident open (no firing alert)' },
    ],
    [
      { open: true, detail: 'INC-42' },
      { pass: false, verdict: 'not-run', reason: 'an incident is open: INC-42', field: 'schedule.incidents' },
    ],
    [
      { open: false, detail: '', error: 'HTTP 503' },
      {
        pass: false,
        verdict: 'not-run',
        reason: 'cannot tell whether an incident is open (HTTP 503); refusing to start blind',
        field: 'schedule.incidents',
      },
    ],
  ])('probe %j → %j', async (result, outcome) => {
    expect(await incidentGate({ open: async () => result }).check(ctx(0))).toEqual(outcome);
  });

  it('fails closed when the probe throws, and reports it', async () => {
    const outcome = await incidentGate({
      open: async () => {
        throw new Error('ECONNREFUSED 127.0.0.1:9090');
      },
    }).check(ctx(0));
    expect(outcome).toMatchObject({ pass: false, verdict: 'not-run' });
    expect(events.at(-1)?.message).toContain('ECONNREFUSED');
  });
});

describe('incidentMidRunCheck', () => {
  it('returns a reason at the first tick at or after the incident opens', async () => {
    const probe = incidentAt(7_000);
    const check = incidentMidRunCheck(probe, { errorsBeforeAbort: 3 });
    const results: (string | null)[] = [];
    for (let t = 0; t <= 9_000; t += 1_000) results.push(await check.check(t));
    expect(results.findIndex((r) => r !== null)).toBe(7);
    expect(results[7]).toBe('an incident opened: INC-42 checkout 5xx (sev2)');
  });

  it('aborts only after consecutive probe failures, and a good read resets the count', async () => {
    const answers: ({ error: string } | { open: boolean })[] = [
      { error: 'e1' },
      { error: 'e2' },
      { open: false },
      { error: 'e3' },
      { error: 'e4' },
      { error: 'e5' },
    ];
    const check = incidentMidRunCheck(
      { open: async () => ({ open: false, detail: '', ...answers.shift() }) },
      { errorsBeforeAbort: 3 },
    );
    const results: (string | null)[] = [];
    for (let i = 0; i < 6; i += 1) results.push(await check.check(i));
    expect(results).toEqual([
      null,
      null,
      null,
      null,
      null,
      'incident probe failed 3 times in a row (last: e5)',
    ]);
  });
});

describe('an incident opening mid-run, through the engine (virtual clock)', () => {
  it('aborts the run at the tick after it opens and stops the fault within one interval', async () => {
    // The held scenario, with an incident that opens 4.5 s after the fault is injected.
    const OPENS_AFTER_INJECTION_MS = 4_500;
    let opensAt = Number.NaN;
    const { result, world } = await simulate('held', {
      deps: (w) => ({
        midRun: [
          incidentMidRunCheck(
            {
              async open(at) {
                opensAt = (w.injector.startedAt ?? Number.POSITIVE_INFINITY) + OPENS_AFTER_INJECTION_MS;
                return incidentAt(opensAt).open(at);
              },
            },
            { errorsBeforeAbort: plan.abort.blindAfter },
          ),
        ],
      }),
    });
    expect(result.verdict).toBe('aborted');
    expect(result.reason).toMatch(/^incidents: an incident opened: INC-42 checkout 5xx \(sev2\)/);
    const stopRequestedAt = world.injector.stopRequestedAt ?? Number.NaN;
    expect(stopRequestedAt).toBeGreaterThanOrEqual(opensAt);
    expect(stopRequestedAt - opensAt).toBeLessThanOrEqual(plan.hypothesis.interval);
    expect(result.journal.events.some((e) => e.type === 'stop-verified')).toBe(true);
  });
});

describe('kill switch', () => {
  const ctx = { plan, now: 0, record: () => {} };
  it.each([
    [{ engaged: false }, { pass: true, note: 'kill switch released' }],
    [
      { engaged: true, reason: 'game day halted by @oncall' },
      {
        pass: false,
        verdict: 'refused',
        reason:
          'the kill switch is engaged: game day halted by @oncall; release it with `chaos-gate kill --release`',
      },
    ],
  ])('%j → %j', async (state, outcome) => {
    expect(await killSwitchGate({ engaged: async () => state }).check(ctx)).toEqual(outcome);
  });

  it('is not-run when the kill switch cannot be read', async () => {
    const outcome = await killSwitchGate({
      engaged: async () => {
        throw new Error('AccessDenied');
      },
    }).check(ctx);
    expect(outcome).toMatchObject({ pass: false, verdict: 'not-run' });
  });

  it('aborts mid-run once engaged', async () => {
    let engaged = false;
    const check = killSwitchMidRunCheck({ engaged: async () => ({ engaged, reason: 'stop all' }) });
    expect(await check.check(0)).toBeNull();
    engaged = true;
    expect(await check.check(1000)).toBe('the kill switch was engaged: stop all');
  });
});
