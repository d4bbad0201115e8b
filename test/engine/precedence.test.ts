/**
 * Verdict precedence (README "Verdicts"): when a run has several reasons, the worst verdict wins —
 * failed > refused > not-run > aborted > deviated > inconclusive > held; between reasons with the same
 * verdict, what the engine decided (a journal event) wins over what the measurements imply, then the
 * earlier one. Every pair of reasons is put into one journal and assessed.
 */
import { describe, expect, it } from 'vitest';
import { assess, VERDICT_ORDER, type AssessInput } from '../../src/engine/assess.js';
import type { JournalEvent, Measurement, SliValue, Verdict } from '../../src/journal/types.js';

/** The documented order, written out here so a change to VERDICT_ORDER has to change the docs too. */
const DOCUMENTED: readonly Verdict[] = [
  'failed',
  'refused',
  'not-run',
  'aborted',
  'deviated',
  'inconclusive',
  'held',
];

const INJECTED_AT = 10_000;
const FAULT_TICKS = [11_000, 12_000, 13_000, 14_000, 15_000];
const WITHIN_MS = 3_000;

const ok = (value: number, bound: string): SliValue => ({ value, status: 'ok', bound, query: 'q' });

/** A run that held: 5 fault ticks in bounds, the expectation seen at +1 s, FIS injected, recovered. */
function heldRun(): AssessInput {
  const measurements: Measurement[] = FAULT_TICKS.map((at) => ({
    at,
    windowMs: 1000,
    phase: 'fault',
    requests: 800,
    slis: { success_ratio: ok(0.9991, '>= 0.998'), p95_latency_s: ok(0.14, '<= 0.18') },
    expect: { breaker_open: ok(1, '>= 1') },
  }));
  measurements.push({
    at: 21_000,
    windowMs: 1000,
    phase: 'recovery',
    requests: 800,
    slis: { success_ratio: ok(0.9997, '>= 0.9995'), p95_latency_s: ok(0.09, '<= 0.11') },
  });
  return {
    slis: [
      { name: 'success_ratio', during: true },
      { name: 'p95_latency_s', during: true },
    ],
    expectations: [{ name: 'breaker_open', withinMs: WITHIN_MS }],
    measurements,
    events: [
      {
        at: 10_500,
        type: 'experiment-state',
        message: 'running',
        data: { status: 'running', injected: true },
      },
      {
        at: 21_000,
        type: 'recovery',
        message: 'recovered 1.0 s after the fault ended',
        data: { recovered: true },
      },
    ],
    timings: { injectedAt: INJECTED_AT, stoppedAt: 20_000, recoveredAt: 21_000 },
  };
}

const tick = (input: AssessInput, at: number): Measurement => {
  const m = input.measurements.find((x) => x.at === at);
  if (!m) throw new Error(`no measurement at ${at}`);
  return m;
};
const addEvent = (input: AssessInput, e: JournalEvent): void => {
  input.events = [...input.events, e];
};
const dropEvent = (input: AssessInput, type: string): void => {
  input.events = input.events.filter((e) => e.type !== type);
};

interface Reason {
  name: string;
  verdict: Verdict;
  /** Journaled by the engine as an event (preferred over what measurements imply at the same verdict). */
  explicit: boolean;
  /** When the candidate is dated (ties at one verdict go to the earlier). */
  at: number;
  /** Reasons that describe the same thing differently and cannot both be in one journal. */
  excludes?: string[];
  apply(input: AssessInput): void;
  reason: RegExp;
}

const REASONS: Reason[] = [
  {
    name: 'fatal error (the tool failed)',
    verdict: 'failed',
    explicit: true,
    at: 15_500,
    apply: (i) => addEvent(i, { at: 15_500, type: 'error', message: 'tool crashed', data: { fatal: true } }),
    reason: /^tool crashed$/,
  },
  {
    name: 'FIS reports the experiment failed',
    verdict: 'failed',
    explicit: true,
    at: 16_000,
    apply: (i) =>
      addEvent(i, {
        at: 16_000,
        type: 'experiment-state',
        message: 'FIS failed',
        data: { status: 'failed' },
      }),
    reason: /^FIS failed$/,
  },
  {
    name: 'stop not verified',
    verdict: 'failed',
    explicit: true,
    at: 17_000,
    apply: (i) => addEvent(i, { at: 17_000, type: 'stop-failed', message: 'stop unverified' }),
    reason: /^stop unverified$/,
  },
  {
    name: 'refused',
    verdict: 'refused',
    explicit: true,
    at: 9_000,
    apply: (i) => addEvent(i, { at: 9_000, type: 'refused', message: 'refused by policy' }),
    reason: /^refused by policy$/,
  },
  {
    name: 'not run',
    verdict: 'not-run',
    explicit: true,
    at: 9_500,
    apply: (i) => addEvent(i, { at: 9_500, type: 'not-run', message: 'steady state broken' }),
    reason: /^steady state broken$/,
  },
  {
    name: 'abort rule',
    verdict: 'aborted',
    explicit: true,
    at: 14_200,
    apply: (i) =>
      addEvent(i, {
        at: 14_200,
        type: 'abort',
        message: 'rule tripped',
        data: { cause: 'rule', verdict: 'aborted' },
      }),
    reason: /^rule tripped$/,
  },
  {
    name: 'kill switch (mid-run check)',
    verdict: 'aborted',
    explicit: true,
    at: 14_500,
    apply: (i) =>
      addEvent(i, {
        at: 14_500,
        type: 'abort',
        message: 'kill-switch engaged',
        data: { cause: 'mid-run', check: 'kill-switch', verdict: 'aborted' },
      }),
    reason: /^kill-switch engaged$/,
  },
  {
    name: 'kill switch (FIS stopped by its stop condition)',
    verdict: 'aborted',
    explicit: true,
    at: 14_600,
    apply: (i) =>
      addEvent(i, {
        at: 14_600,
        type: 'abort',
        message: 'FIS stopped the experiment',
        data: { cause: 'fis-stopped', verdict: 'aborted' },
      }),
    reason: /^FIS stopped the experiment$/,
  },
  {
    name: 'signal',
    verdict: 'aborted',
    explicit: true,
    at: 14_700,
    apply: (i) => {
      addEvent(i, { at: 14_700, type: 'signal', message: 'cancelled by SIGINT', data: { signal: 'SIGINT' } });
      addEvent(i, {
        at: 14_700,
        type: 'abort',
        message: 'cancelled by SIGINT',
        data: { cause: 'cancelled', verdict: 'aborted' },
      });
    },
    reason: /^cancelled by SIGINT$/,
  },
  {
    name: 'blind abort (blindAfter reached)',
    verdict: 'inconclusive',
    explicit: true,
    at: 14_300,
    apply: (i) =>
      addEvent(i, {
        at: 14_300,
        type: 'abort',
        message: 'blind: 3 in a row',
        data: { cause: 'blind', verdict: 'inconclusive' },
      }),
    reason: /^blind: 3 in a row$/,
  },
  {
    name: 'breach of a bound',
    verdict: 'deviated',
    explicit: false,
    at: 12_000,
    apply: (i) => {
      tick(i, 12_000).slis.success_ratio = { value: 0.95, status: 'breach', bound: '>= 0.998', query: 'q' };
    },
    reason: /^success_ratio 0\.95 < 0\.998 \(\+2\.0 s\); 1 of 5 measurements/,
  },
  {
    name: 'blindness (an SLI without data)',
    verdict: 'inconclusive',
    explicit: false,
    at: 14_000,
    apply: (i) => {
      tick(i, 14_000).slis.p95_latency_s = { value: null, status: 'no-data', query: 'q', error: 'empty' };
    },
    reason: /^p95_latency_s had no data in 1 of 5 measurements during the fault, first \(\+4\.0 s\): empty$/,
  },
  {
    name: 'expectation not observed',
    verdict: 'deviated',
    explicit: false,
    at: INJECTED_AT + WITHIN_MS,
    excludes: ['expectation blind'],
    apply: (i) => {
      for (const m of i.measurements)
        if (m.expect) m.expect.breaker_open = { ...ok(0, '>= 1'), status: 'breach' };
    },
    reason: /^expectation breaker_open not observed/,
  },
  {
    name: 'expectation blind',
    verdict: 'inconclusive',
    explicit: false,
    at: INJECTED_AT + WITHIN_MS,
    apply: (i) => {
      for (const m of i.measurements)
        if (m.expect) m.expect.breaker_open = { value: null, status: 'error', query: 'q', error: '5xx' };
    },
    reason: /^expectation breaker_open not observed, and it had no data/,
  },
  {
    name: 'not recovered in time',
    verdict: 'deviated',
    explicit: true,
    at: 21_000,
    excludes: ['recovery blind', 'recovery not measured'],
    apply: (i) => {
      dropEvent(i, 'recovery');
      addEvent(i, { at: 21_000, type: 'recovery', message: 'not recovered', data: { recovered: false } });
    },
    reason: /^not recovered$/,
  },
  {
    name: 'recovery blind',
    verdict: 'inconclusive',
    explicit: true,
    at: 21_000,
    excludes: ['recovery not measured'],
    apply: (i) => {
      dropEvent(i, 'recovery');
      addEvent(i, {
        at: 21_000,
        type: 'recovery',
        message: 'recovery unknown: no data',
        data: { recovered: false, blind: true },
      });
    },
    reason: /^recovery unknown: no data$/,
  },
  {
    name: 'recovery not measured',
    verdict: 'inconclusive',
    explicit: false,
    at: INJECTED_AT,
    excludes: ['no evidence of injection'],
    apply: (i) => dropEvent(i, 'recovery'),
    reason: /^recovery was not measured$/,
  },
  {
    name: 'no evidence of injection',
    verdict: 'inconclusive',
    explicit: false,
    at: INJECTED_AT,
    // A fault that never ran is never aborted: judgement-settle-tolerance-fis-states.test.ts proves what those pairs give.
    excludes: [
      'abort rule',
      'kill switch (mid-run check)',
      'kill switch (FIS stopped by its stop condition)',
      'signal',
    ],
    apply: (i) => {
      i.events = i.events.filter((e) => !(e.type === 'experiment-state' && e.data?.injected === true));
    },
    reason: /no evidence that the fault was injected$/,
  },
  {
    name: 'a non-fatal error (journaled, not a decision)',
    verdict: 'held',
    explicit: true,
    at: 13_500,
    apply: (i) =>
      addEvent(i, { at: 13_500, type: 'error', message: 'one scrape failed', data: { fatal: false } }),
    reason: /^every SLI within its bound in 5 measurements during the fault/,
  },
  {
    name: 'decision fields on an event that does not decide (status failed, recovered false)',
    verdict: 'held',
    explicit: true,
    at: 13_700,
    apply: (i) =>
      addEvent(i, {
        at: 13_700,
        type: 'stop-verified',
        message: 'verified',
        data: { status: 'failed', recovered: false, blind: true },
      }),
    reason: /^every SLI within its bound/,
  },
  {
    name: 'a fatal flag on an event that is not an error',
    verdict: 'held',
    explicit: true,
    at: 13_600,
    apply: (i) => addEvent(i, { at: 13_600, type: 'preflight', message: 'checked', data: { fatal: true } }),
    reason: /^every SLI within its bound/,
  },
];

/** The winner as the README states the rule: worse verdict, then engine decision, then earlier. */
function expectedWinner(a: Reason, b: Reason): Reason {
  const rank = (r: Reason): number => DOCUMENTED.indexOf(r.verdict);
  if (rank(a) !== rank(b)) return rank(a) < rank(b) ? a : b;
  if (a.explicit !== b.explicit) return a.explicit ? a : b;
  return a.at <= b.at ? a : b;
}

const compatible = (a: Reason, b: Reason): boolean =>
  !(a.excludes ?? []).includes(b.name) && !(b.excludes ?? []).includes(a.name);

const PAIRS: [Reason, Reason][] = REASONS.flatMap((a, i) =>
  REASONS.slice(i + 1)
    .filter((b) => compatible(a, b))
    .map((b): [Reason, Reason] => [a, b]),
);

describe('verdict precedence', () => {
  it('implements the documented order in VERDICT_ORDER', () => {
    expect(VERDICT_ORDER).toEqual(DOCUMENTED);
  });

  it('assesses the base journal as held, with the reason that quotes the measurements', () => {
    expect(assess(heldRun())).toEqual({
      verdict: 'held',
      reason:
        'every SLI within its bound in 5 measurements during the fault; breaker_open observed at +1.0 s; recovered 1.0 s after the fault ended',
    });
  });

  it.each(REASONS.map((r) => [r.name, r] as const))('alone: %s', (_name, r) => {
    const input = heldRun();
    r.apply(input);
    const got = assess(input);
    expect(got.verdict).toBe(r.verdict);
    expect(got.reason).toMatch(r.reason);
  });

  it.each(PAIRS.map(([a, b]) => [`${a.name} + ${b.name}`, a, b] as const))('%s', (_name, a, b) => {
    const winner = expectedWinner(a, b);
    for (const order of [
      [a, b],
      [b, a],
    ]) {
      const input = heldRun();
      for (const r of order) r.apply(input);
      const got = assess(input);
      expect(got.verdict).toBe(winner.verdict);
      expect(got.reason).toMatch(winner.reason);
    }
  });

  it('covers every verdict but held as a reason, and tests more than 150 pairs', () => {
    expect(new Set(REASONS.map((r) => r.verdict))).toEqual(new Set(DOCUMENTED));
    expect(PAIRS.length).toBeGreaterThan(150);
  });
});

describe('verdict precedence before injection (only events count)', () => {
  const before = (events: JournalEvent[]): AssessInput => ({
    slis: [{ name: 'success_ratio', during: true }],
    expectations: [],
    measurements: [],
    events,
    timings: {},
  });
  const EVENTS: Record<string, { event: JournalEvent; verdict: Verdict }> = {
    refused: { event: { at: 3, type: 'refused', message: 'kill switch engaged' }, verdict: 'refused' },
    'not-run': {
      event: { at: 2, type: 'not-run', message: 'cancelled by SIGTERM before injection' },
      verdict: 'not-run',
    },
    failed: { event: { at: 4, type: 'error', message: 'no role', data: { fatal: true } }, verdict: 'failed' },
  };

  it.each([
    ['refused', 'not-run', 'refused'],
    ['failed', 'refused', 'failed'],
    ['failed', 'not-run', 'failed'],
  ] as const)('%s + %s → %s', (a, b, want) => {
    const got = assess(before([EVENTS[a]!.event, EVENTS[b]!.event]));
    expect(got.verdict).toBe(want);
    expect(got.reason).toBe(EVENTS[want]!.event.message);
  });

  it('is failed when the run ended before injection without any decision', () => {
    expect(assess(before([{ at: 1, type: 'error', message: 'one scrape failed' }]))).toEqual({
      verdict: 'failed',
      reason: 'the run ended before injection without a decision',
    });
  });

  it('is inconclusive when nothing was measured while the fault was on', () => {
    const input = heldRun();
    input.measurements = input.measurements.filter((m) => m.phase !== 'fault');
    expect(assess(input)).toEqual({
      verdict: 'inconclusive',
      reason: 'no measurement was taken while the fault was on',
    });
  });
});

describe('an expectation whose window the gate cut short', () => {
  const unseen = (): AssessInput => {
    const input = heldRun();
    for (const m of input.measurements)
      if (m.expect) m.expect.breaker_open = { ...ok(0, '>= 1'), status: 'breach' };
    return input;
  };

  it('is inconclusive, not deviated, when blindness stopped the fault before `within` was over', () => {
    const input = unseen();
    input.measurements = input.measurements.filter((m) => m.phase !== 'fault' || m.at <= 12_000);
    addEvent(input, {
      at: 12_000,
      type: 'abort',
      message: 'blind: 3 measurements in a row without data',
      data: { cause: 'blind', verdict: 'inconclusive' },
    });
    expect(assess(input)).toEqual({
      verdict: 'inconclusive',
      reason: 'blind: 3 measurements in a row without data',
    });
  });

  it('is still deviated when the fault ran past `within` and the expectation never appeared', () => {
    const input = unseen();
    addEvent(input, {
      at: 14_300,
      type: 'abort',
      message: 'blind: 3 in a row',
      data: { cause: 'blind', verdict: 'inconclusive' },
    });
    const got = assess(input);
    expect(got.verdict).toBe('deviated');
    expect(got.reason).toBe(
      'expectation breaker_open not observed (>= 1 never met in 5 measurements, values 0..0); expected within 3.0 s of injection',
    );
  });
});

describe('expectation timing at its `within` (3 s after injection)', () => {
  /** The expectation's readings: 0 (not met) everywhere except as given, by tick time. */
  const expectation = (at: Record<number, SliValue>): AssessInput => {
    const input = heldRun();
    for (const m of input.measurements)
      if (m.expect) m.expect.breaker_open = at[m.at] ?? { ...ok(0, '>= 1'), status: 'breach' };
    return input;
  };
  const blind: SliValue = { value: null, status: 'no-data', query: 'q' };

  it('holds when the expectation is first seen exactly at `within`, and deviates when first seen 1 s later', () => {
    expect(assess(expectation({ 13_000: ok(1, '>= 1') })).verdict).toBe('held');
    expect(assess(expectation({ 14_000: ok(1, '>= 1') }))).toMatchObject({
      verdict: 'deviated',
      reason: 'expectation breaker_open observed only at +4.0 s; expected within 3.0 s of injection',
    });
  });

  it('is inconclusive when its reading was blind exactly at `within`, deviated when blind only after it', () => {
    expect(assess(expectation({ 13_000: blind })).verdict).toBe('inconclusive');
    expect(assess(expectation({ 14_000: blind })).verdict).toBe('deviated');
  });

  it('counts a stop exactly at `within` as a full window: not seen is then deviated', () => {
    const stoppedAt = (at: number): AssessInput => {
      const input = expectation({});
      addEvent(input, { at, type: 'abort', message: 'blind', data: { verdict: 'inconclusive' } });
      return input;
    };
    expect(assess(stoppedAt(12_999)).verdict).toBe('inconclusive');
    expect(assess(stoppedAt(13_000)).verdict).toBe('deviated');
  });
});
