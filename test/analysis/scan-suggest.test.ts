/**
 * `scan`'s suggestion from a held run's journal (src/analysis/scan.ts `suggestHypothesis`): the settle
 * time the onset needed, the readings outside after it with their longest run, and a bound with a margin
 * over the worst reading; none from a run that did not hold.
 */
import { describe, expect, it } from 'vitest';
import { scanJournal, suggestHypothesis } from '../../src/analysis/scan.js';
import { formatScanText } from '../../src/analysis/scan-text.js';
import type { Journal, Measurement } from '../../src/journal/types.js';

const T0 = 1_000_000;
const INJECTED_AT = T0 + 10_000;

/** A held run: p95 0.10 in the steady state, 0.30 at +1 and +2 s (the onset), then 0.12–0.16 and one 0.2 at +10 s. */
function heldJournal(verdict: Journal['verdict'] = 'held'): Journal {
  const m = (
    at: number,
    phase: Measurement['phase'],
    value: number,
    bound: string,
    limit: number,
  ): Measurement => ({
    at,
    windowMs: 1000,
    phase,
    requests: 100,
    slis: { p95: { value, status: value > limit ? 'breach' : 'ok', bound, query: 'q' } },
  });
  const measurements: Measurement[] = [];
  for (let i = 0; i < 5; i++) measurements.push(m(T0 + 5000 + i * 1000, 'steady', 0.1, '<= 0.11', 0.11));
  const fault = [0.3, 0.3, 0.12, 0.16, 0.14, 0.13, 0.15, 0.12, 0.14, 0.2, 0.13, 0.12];
  fault.forEach((v, i) => measurements.push(m(INJECTED_AT + (i + 1) * 1000, 'fault', v, '<= 0.18', 0.18)));
  return {
    kind: 'chaos-gate-journal',
    version: 1,
    runId: 'r',
    planId: 'p',
    planDigest: 'd',
    title: 't',
    service: 's',
    environment: 'e',
    slis: [
      {
        name: 'p95',
        bound: '<= 0.18',
        steadyBound: '<= 0.11',
        during: true,
        settleMs: 3000,
        tolerance: { outside: 1 },
      },
    ],
    abortRules: [],
    intervalMs: 1000,
    startedAt: T0,
    verdict,
    reason: 'r',
    exitCode: 0,
    measurements,
    events: [],
    timings: { startedAt: T0, injectedAt: INJECTED_AT },
    complete: true,
  };
}

describe('scan suggests a hypothesis from a held run', () => {
  it('suggests the settle time the onset needed, the tolerance after it and a bound over the worst reading', () => {
    const s = suggestHypothesis(heldJournal());
    expect(s.slis).toEqual([
      {
        sli: 'p95',
        bound: '<= 0.18',
        // Worst after settle 0.2, 0.1 above the steady median 0.1: margin 0.01, so 0.21.
        suggestedBound: '<= 0.21',
        settleMs: 3000,
        outside: 1,
        longestRun: 1,
        measured: 10,
      },
    ]);
  });

  it('prints the suggestion as plan fields in the text report', () => {
    const text = formatScanText(scanJournal(heldJournal()));
    expect(text).toContain('suggested hypothesis (from this one held run');
    expect(text).toMatch(/p95\s+<= 0\.18\s+<= 0\.21\s+3s\s+1 of 10\s+1\s+\{ outside: 1 \}/);
  });

  it('suggests nothing from a run that did not hold, and says why', () => {
    const s = suggestHypothesis(heldJournal('deviated'));
    expect(s.slis).toBeNull();
    expect(s.why).toContain('not held');
  });
});
