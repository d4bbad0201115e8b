/**
 * One judgement behind every report, as a property over generated journals: a seeded generator
 * (mulberry32, src/sim/random.ts) plants readings outside the bound before and after a settle time,
 * some without data, recovery readings above the steady bound, and sometimes an abort with a stop.
 * For every journal the judgement's counts equal what was planted, and every renderer — console recap
 * (which the step log prints), job summary, check run (summary and annotations), PR comment, findings
 * issue, HTML replay data and the action outputs — states the judgement's numbers: per SLI the outside
 * count, what was tolerated, the first reading outside, the settling readings and the recovery count,
 * and every latency figure; and none of them states a different count for the same SLI.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readJournal } from '../../src/journal/read.js';
import { mulberry32 } from '../../src/sim/random.js';
import { judge, type Tolerance } from '../../src/journal/judgement.js';
import { formatOffset, formatValue } from '../../src/journal/format.js';
import { EXIT_CODES, type Journal, type JournalEvent, type Measurement } from '../../src/journal/types.js';
import { judgementLines } from '../../src/report/progress.js';
import { renderSummary } from '../../src/report/markdown.js';
import { checkRunPayload } from '../../src/report/check-run.js';
import { prComment } from '../../src/report/comment.js';
import { findingsIssue } from '../../src/report/findings.js';
import { journalReplayData } from '../../src/report/html/run-data.js';
import { outputsFromJournal } from '../../src/action/outputs.js';

const T0 = Date.UTC(2026, 5, 1, 12, 0, 0);

/** A seeded stream of numbers in [0, 1). */
function rng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    return mulberry32(state);
  };
}

interface Planted {
  journal: Journal;
  /** Per SLI: fault readings judged (from settle on), outside among them, settling, settling outside, recovery outside. */
  truth: Record<
    string,
    { judged: number; outside: number; settling: number; settlingOutside: number; recoveryOutside: number }
  >;
}

function generate(seed: number): Planted {
  const r = rng(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
  const injectedAt = T0 + 10_000;
  const settleMs = pick([0, 2000, 3000]);
  const tolerance: Tolerance | undefined = pick([
    undefined,
    { outside: 2 },
    { outside: 3, consecutive: 1 },
    { share: 0.1 },
  ]);
  const names = ['p95_latency_s', 'error_ratio', 'queue_depth'].slice(0, 1 + Math.floor(r() * 3));
  const faultCount = 8 + Math.floor(r() * 25);
  const outsideRate = pick([0, 0.05, 0.15]);
  const blindRate = pick([0, 0, 0.05]);
  const aborts = r() < 0.3;
  const truth: Planted['truth'] = {};
  for (const n of names)
    truth[n] = { judged: 0, outside: 0, settling: 0, settlingOutside: 0, recoveryOutside: 0 };
  const measurements: Measurement[] = [];
  const reading = (status: 'ok' | 'breach' | 'no-data', value: number | null, bound: string) => ({
    value,
    status,
    bound,
    query: 'q',
    ...(status === 'no-data' ? { error: 'empty answer' } : {}),
  });
  for (let i = 0; i < 5; i++) {
    const slis: Measurement['slis'] = {};
    for (const n of names) slis[n] = reading('ok', 0.05, '<= 0.11');
    measurements.push({ at: T0 + 5000 + i * 1000, windowMs: 1000, phase: 'steady', requests: 100, slis });
  }
  // The first tick comes a jittered second after the injection; a seed decides whether one lands
  // exactly on the settle time (the boundary: judged).
  for (let i = 1; i <= faultCount; i++) {
    const at = injectedAt + i * 1000 + (r() < 0.5 ? 0 : Math.floor(r() * 40));
    const slis: Measurement['slis'] = {};
    for (const n of names) {
      const settling = at - injectedAt < settleMs;
      const x = r();
      const t = truth[n]!;
      if (x < blindRate) {
        slis[n] = reading('no-data', null, '<= 0.18');
        if (settling) t.settling++;
        else t.judged++;
        continue;
      }
      const outside = x < blindRate + outsideRate || (settling && r() < 0.5);
      const value = outside ? Number((0.19 + r() * 0.2).toFixed(3)) : Number((0.05 + r() * 0.1).toFixed(3));
      slis[n] = reading(outside ? 'breach' : 'ok', value, '<= 0.18');
      if (settling) {
        t.settling++;
        if (outside) t.settlingOutside++;
      } else {
        t.judged++;
        if (outside) t.outside++;
      }
    }
    measurements.push({ at, windowMs: 1000, phase: 'fault', requests: 100, slis });
  }
  const lastFault = measurements[measurements.length - 1]!.at;
  const stopRequestedAt = aborts ? lastFault + 20 + Math.floor(r() * 50) : undefined;
  const stoppedAt = (stopRequestedAt ?? lastFault) + 500 + Math.floor(r() * 2000);
  for (let i = 1; i <= 3; i++) {
    const slis: Measurement['slis'] = {};
    for (const n of names) {
      const high = i < 3 && r() < 0.5;
      slis[n] = reading(high ? 'breach' : 'ok', high ? 0.15 : 0.06, '<= 0.11');
      if (high) truth[n]!.recoveryOutside++;
    }
    measurements.push({ at: stoppedAt + i * 1000, windowMs: 1000, phase: 'recovery', requests: 100, slis });
  }
  const recoveredAt = stoppedAt + 3000;
  const events: JournalEvent[] = [
    { at: T0, type: 'run-started', message: 'run' },
    { at: injectedAt, type: 'inject', message: 'experiment started' },
    {
      at: injectedAt + 300,
      type: 'experiment-state',
      message: 'running',
      data: { status: 'running', injected: true, actions: { partition: 'running' } },
    },
  ];
  if (aborts && stopRequestedAt !== undefined) {
    events.push({
      at: lastFault + 5,
      type: 'abort',
      message: `p95_latency_s above 0.5 for 3 measurements in a row`,
      data: { cause: 'rule', verdict: 'aborted', sli: names[0] },
    });
    events.push({ at: stopRequestedAt, type: 'stop-requested', message: 'StopExperiment sent' });
  }
  events.push({
    at: stoppedAt,
    type: 'experiment-state',
    message: aborts ? 'stopped' : 'completed',
    data: {
      status: aborts ? 'stopped' : 'completed',
      injected: true,
      actions: { partition: aborts ? 'stopped' : 'completed' },
    },
  });
  events.push({ at: recoveredAt, type: 'recovery', message: 'recovered', data: { recovered: true } });
  const slis = names.map((name) => ({
    name,
    bound: '<= 0.18',
    steadyBound: '<= 0.11',
    during: true,
    ...(settleMs > 0 ? { settleMs } : {}),
    ...(tolerance ? { tolerance } : {}),
  }));
  const timings = {
    startedAt: T0,
    injectedAt,
    stoppedAt,
    recoveredAt,
    finishedAt: recoveredAt + 10,
    ...(stopRequestedAt !== undefined ? { stopRequestedAt } : {}),
  };
  const judgement = judge({ slis, expectations: [], measurements, events, timings, startedAt: T0 });
  const journal: Journal = {
    kind: 'chaos-gate-journal',
    version: 1,
    runId: `run-${seed}`,
    planId: 'generated',
    planDigest: 'f'.repeat(64),
    title: 'generated run',
    service: 'svc',
    environment: 'staging',
    slis,
    abortRules: [{ sli: names[0]!, op: 'above', threshold: 0.5, forMs: 3000, count: 3 }],
    intervalMs: 1000,
    startedAt: T0,
    expectations: [],
    verdict: judgement.verdict,
    reason: judgement.reason,
    exitCode: EXIT_CODES[judgement.verdict],
    measurements,
    events,
    timings,
    judgement,
    complete: true,
  };
  return { journal, truth };
}

/** What each renderer says, as plain text. */
function renderings(journal: Journal): Record<string, string> {
  const check = checkRunPayload(journal, { headSha: 'a'.repeat(40) });
  const replay = journalReplayData(journal);
  return {
    console: judgementLines(journal).join('\n'),
    summary: renderSummary(journal),
    'check run': `${check.output.summary}\n${check.output.annotations.map((a) => a.message).join('\n')}`,
    comment: prComment(journal),
    findings: findingsIssue(journal).body,
    html: replay.metrics.map((m) => `${m.label}: ${m.value}`).join('\n'),
  };
}

const SEEDS = Array.from({ length: 40 }, (_, i) => 1 + i * 7919);

describe('every renderer states the one judgement', () => {
  it.each(SEEDS)('seed %i: the judgement counts what was planted', (seed) => {
    const { journal, truth } = generate(seed);
    for (const s of journal.judgement!.slis) {
      const t = truth[s.name]!;
      expect(s.fault).toMatchObject({ measured: t.judged, outside: t.outside });
      expect(s.settling?.measured ?? 0).toBe(t.settling);
      expect(s.settling?.outside ?? 0).toBe(t.settlingOutside);
      expect(s.recovery?.outside).toBe(t.recoveryOutside);
      // What was tolerated is all of the outside readings or none of them, never more than allowed.
      expect([0, s.fault!.outside]).toContain(s.tolerated);
      expect(s.tolerated).toBeLessThanOrEqual(s.allowed);
    }
  });

  it.each(SEEDS)('seed %i: every report states its counts, tolerance, first breach and latency', (seed) => {
    const { journal } = generate(seed);
    const j = journal.judgement!;
    const texts = renderings(journal);
    for (const s of j.slis) {
      const f = s.fault!;
      const outside = `${f.outside} of ${f.measured}`;
      const first = f.first
        ? `${formatValue(f.first.value)} at ${formatOffset(f.first.offsetMs / 1000)}`
        : undefined;
      const tolerated =
        !s.tolerance.outside && !s.tolerance.share && s.tolerance.consecutive === undefined
          ? 'none (strict)'
          : s.held
            ? `${s.tolerated} (`
            : '0 (beyond:';
      const recovery = `${s.recovery!.outside} of ${s.recovery!.measured} outside <= 0.11`;
      for (const [renderer, text] of Object.entries(texts)) {
        // The SLI's line or row: the console and HTML name it per line, Markdown per table row.
        const lines = text.split('\n').filter((l) => l.includes(s.name));
        const said = lines.join('\n');
        expect(said, `${renderer}: ${s.name} outside`).toContain(outside);
        expect(said, `${renderer}: ${s.name} tolerated`).toContain(tolerated);
        if (first) expect(said, `${renderer}: ${s.name} first`).toContain(first);
        expect(said, `${renderer}: ${s.name} recovery`).toContain(recovery);
        if (s.settling)
          expect(said, `${renderer}: ${s.name} settling`).toContain(`${s.settling.measured} in the first`);
        // No renderer states a different "x of y" count for this SLI's fault readings (on lines about
        // this SLI alone: a reason names several).
        const own = lines.filter((l) => j.slis.every((o) => o.name === s.name || !l.includes(o.name)));
        const counts =
          /(?:outside <= 0\.18:? )(\d+ of \d+)|(\d+ of \d+)(?: measurements during the fault outside| \| (?:none|\d+) \()/g;
        const stated = [...own.join('\n').matchAll(counts)].map((m) => m[1] ?? m[2]);
        expect(stated.length, `${renderer}: ${s.name} states its count`).toBeGreaterThan(0);
        for (const c of stated) expect(c, `${renderer}: ${s.name}`).toBe(outside);
      }
    }
    for (const [key, ms] of Object.entries(j.latency)) {
      for (const [renderer, text] of Object.entries(texts)) {
        expect(text, `${renderer}: ${key}`).toContain(`${Math.round(ms)} ms`);
      }
    }
    const outputs = outputsFromJournal(journal, { journal: 'j.json', report: 'r.html' });
    expect(outputs['abort-latency-ms']).toBe(
      j.latency.tripToStopRequestMs === undefined ? '' : String(Math.round(j.latency.tripToStopRequestMs)),
    );
    expect(outputs.verdict).toBe(j.verdict);
  });

  it('generates held, deviated, aborted and inconclusive runs, with and without settle and tolerance', () => {
    const runs = SEEDS.map((s) => generate(s).journal);
    const verdicts = new Set(runs.map((j) => j.verdict));
    for (const v of ['held', 'deviated', 'aborted', 'inconclusive'] as const) expect(verdicts).toContain(v);
    expect(runs.some((j) => j.judgement!.slis.some((s) => s.tolerated > 0))).toBe(true);
    expect(runs.some((j) => j.judgement!.slis.some((s) => (s.settling?.outside ?? 0) > 0))).toBe(true);
    expect(runs.some((j) => j.judgement!.latency.tripToStopRequestMs !== undefined)).toBe(true);
  });
});

describe('settling readings in the per-measurement tables', () => {
  it('marks a reading outside the fault bound before the settle time as settling, not as a breach', () => {
    const journal = SEEDS.map((s) => generate(s).journal).find((j) =>
      j.judgement!.slis.some((s) => (s.settling?.outside ?? 0) > 0),
    )!;
    expect(renderSummary(journal)).toContain('breach (settling, not judged)');
    expect(checkRunPayload(journal, { headSha: 'a'.repeat(40) }).output.text).toContain('(settling)');
  });
});

describe('the committed held, deviated and aborted journals (written before judgements existed)', () => {
  it.each(['held', 'deviated', 'aborted'])(
    '%s: every report states the judgement computed on read',
    (name) => {
      const journal = readJournal(join(import.meta.dirname, `../../fixtures/github/journals/${name}.json`));
      const j = journal.judgement!;
      expect(j.verdict).toBe(journal.verdict);
      const texts = renderings(journal);
      for (const s of j.slis) {
        const c = s.fault ?? s.steady!;
        for (const [renderer, text] of Object.entries(texts)) {
          // Markdown escapes punctuation in values (`\\[40, 60\\]`); the numbers are what is compared.
          const said = text
            .split('\n')
            .filter((l) => l.includes(s.name))
            .join('\n')
            .replace(/\\([[\]>])/g, '$1');
          expect(said, `${renderer}: ${s.name}`).toContain(`${c.outside} of ${c.measured}`);
          if (s.recovery)
            expect(said, `${renderer}: ${s.name}`).toContain(
              `${s.recovery.outside} of ${s.recovery.measured} outside ${s.recovery.bound}`,
            );
        }
      }
      for (const ms of Object.values(j.latency))
        for (const [renderer, text] of Object.entries(texts))
          expect(text, renderer).toContain(`${Math.round(ms)} ms`);
    },
  );
});
