/**
 * A long run's journal (issue 29): 30 simulated minutes × 60 SLIs at 1 s through `chaos-gate simulate`
 * and `chaos-gate report` in this process, on the virtual clock. The journal is appended as NDJSON while
 * the run goes and ends with a bounded final record; a prefix cut by a crash reads; every report agrees
 * with the engine's one judgement, which counted every measurement. bench/long-run.ts runs 12 h × 60.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync, openSync, readSync, closeSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import type { CliIo } from '../../src/cli/command.js';
import { parseJournal, readJournal } from '../../src/journal/read.js';
import { judge, judgeInputOf, judgementOf } from '../../src/journal/judgement.js';
import { allMeasurements, MAX_KEPT_MEASUREMENTS, MAX_SUMMARY_BUCKETS } from '../../src/journal/columns.js';
import type { Journal } from '../../src/journal/types.js';
import { FileJournalWriter } from '../../src/journal/writer.js';
import { renderSummary } from '../../src/report/markdown.js';
import { renderReplayHtml } from '../../src/report/html.js';
import { checkRunPayload } from '../../src/report/check-run.js';
import { prComment } from '../../src/report/comment.js';
import { breachEpisodes } from '../../src/report/common.js';
import { hypothesisCases } from '../../src/notify/summary.js';
import { longPlan, longScenario } from '../helpers/long-run.js';

const SLIS = 60;
const FAULT_MS = 30 * 60_000;
/** SLIs whose fault readings dip around their bound: thousands of outside readings in many episodes. */
const BREACHING = [3, 41];

const dir = mkdtempSync(join(tmpdir(), 'chaos-gate-long-'));
const journalPath = join(dir, 'journal.json');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function cli(args: string[]): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const io: CliIo = {
    out: (t) => void out.push(t),
    err: (t) => void err.push(t),
    tty: false,
    env: {},
    cwd: dir,
  };
  const code = await main(args, io);
  return { code, out: out.join('\n'), err: err.join('\n') };
}

let run: { verdict: string; reason: string; exitCode: number };
let text: string;
let lines: string[];
let read: Journal;

beforeAll(async () => {
  writeFileSync(join(dir, 'plan.yaml'), longPlan(SLIS, FAULT_MS));
  writeFileSync(join(dir, 'scenario.yaml'), longScenario(SLIS, FAULT_MS, { breach: BREACHING }));
  const r = await cli([
    'simulate',
    'plan.yaml',
    '--scenario',
    'scenario.yaml',
    '--journal',
    'journal.json',
    '--json',
  ]);
  run = JSON.parse(r.out) as typeof run;
  text = readFileSync(journalPath, 'utf8');
  lines = text.split('\n').filter((l) => l !== '');
  read = readJournal(journalPath);
}, 120_000);

describe('a 30-minute run with 60 SLIs', () => {
  it('ends with its verdict on stdout: deviated, by the two SLIs that dipped below their bound', () => {
    expect(run.verdict).toBe('deviated');
    expect(run.exitCode).toBe(1);
    expect(run.reason).toMatch(/^sli_(3|41) /);
  });

  it('leaves an NDJSON journal: a header, then one record per line, every measurement on its own line, the final record last', () => {
    const records = lines.map((l) => JSON.parse(l) as { record: string });
    expect(records[0]?.record).toBe('header');
    expect(records.at(-1)?.record).toBe('final');
    const measurements = records.filter((r) => r.record === 'measurement').length;
    // The steady state (5 s), the 30-minute fault and the recovery: one line per tick.
    expect(measurements).toBeGreaterThan(FAULT_MS / 1000);
    expect(read.summary?.measurements).toBe(measurements);
    expect(records.filter((r) => r.record === 'final')).toHaveLength(1);
  });

  it('ends with a bounded final record: verdict, judgement, timings and a summary of at most 400 buckets a series', () => {
    const final = JSON.parse(lines.at(-1) ?? '') as Journal & {
      record: string;
      summary: NonNullable<Journal['summary']>;
    };
    expect(final.verdict).toBe(run.verdict);
    expect(final.reason).toBe(run.reason);
    expect(final.judgement?.verdict).toBe(run.verdict);
    expect(final.timings.injectedAt).toBeTypeOf('number');
    expect(final.timings.finishedAt).toBeTypeOf('number');
    expect(final.summary.series).toHaveLength(SLIS + 1);
    for (const s of final.summary.series) expect(s.buckets.length).toBeLessThanOrEqual(MAX_SUMMARY_BUCKETS);
    // No measurement array in it: its size follows the SLIs and the bucket budget, not the run's length.
    expect(final).not.toHaveProperty('measurements');
    const budget = (SLIS + 1) * MAX_SUMMARY_BUCKETS * 80 + 200_000;
    expect(Buffer.byteLength(lines.at(-1) ?? '')).toBeLessThan(budget);
  });

  it('reads back with a bounded sample of whole measurements and the judgement the engine wrote', () => {
    expect(read.complete).toBe(true);
    expect(read.verdict).toBe(run.verdict);
    expect(read.measurements.length).toBeLessThanOrEqual(MAX_KEPT_MEASUREMENTS + 1);
    expect(read.summary?.kept).toBe(read.measurements.length);
    // The sample keeps the first and the last measurement of every phase.
    for (const phase of ['steady', 'fault', 'recovery'] as const) {
      expect(read.measurements.filter((m) => m.phase === phase).length).toBeGreaterThanOrEqual(2);
    }
    expect(read.judgement?.reason).toBe(run.reason);
  });

  it('holds every measurement in its columns, exactly: judging them again gives the judgement on record', () => {
    const all = allMeasurements(read);
    expect(all.length).toBe(read.summary?.measurements);
    const again = judge(judgeInputOf(read));
    expect(again).toEqual(read.judgement);
    const fault = read.judgement?.slis.find((s) => s.name === 'sli_3')?.fault;
    expect(fault?.measured).toBe(read.summary?.phases.fault);
    expect(fault?.outside).toBeGreaterThan(100);
    expect(fault?.within).toBeGreaterThan(100);
  });

  it('renders reports that agree with the judgement: episodes add up to its counts, charts keep the extremes', () => {
    const judgement = judgementOf(read);
    const episodes = breachEpisodes(read);
    for (const name of BREACHING.map((i) => `sli_${i}`)) {
      const outside = judgement.slis.find((s) => s.name === name)?.fault?.outside;
      const counted = episodes.filter((e) => e.sli === name).reduce((n, e) => n + e.count, 0);
      expect(counted).toBe(outside);
    }
    const cases = hypothesisCases(read);
    const sli3 = cases.find((c) => c.name === 'sli_3');
    expect(sli3?.breaches).toBe(judgement.slis.find((s) => s.name === 'sli_3')?.fault?.outside);

    const md = renderSummary(read);
    expect(md).toContain(run.reason.slice(0, 40));
    expect(md).toMatch(/drawn from the minimum and maximum of every/);
    const check = checkRunPayload(read, { headSha: 'a'.repeat(40) });
    expect(check.conclusion).toBe('failure');
    expect(check.output.text).toContain(
      `${read.summary?.kept} of ${read.summary?.measurements} measurements`,
    );
    expect(prComment(read)).toContain('deviated');

    const html = renderReplayHtml(read);
    expect(html).toContain('the minimum and maximum of every');
    // Bounded: the sample and the buckets, not every reading (the run has over 100 000 of them).
    expect(Buffer.byteLength(html)).toBeLessThan(6 * 1024 * 1024);
    // The lowest reading of a breaching SLI in the summary is the lowest of all its readings.
    let lowest = Infinity;
    for (const m of allMeasurements(read)) {
      const v = m.slis.sli_3?.value;
      if (typeof v === 'number') lowest = Math.min(lowest, v);
    }
    const series = read.summary?.series.find((s) => s.name === 'sli_3');
    expect(Math.min(...(series?.buckets ?? []).map((b) => b[2] ?? Infinity))).toBe(lowest);
  });

  it('reads the prefix a crash leaves (cut in the middle of a measurement line) as an unfinished run with every whole line', () => {
    const cut = Math.floor(text.length * 0.6);
    const prefix = text.slice(0, cut);
    expect(prefix.endsWith('\n')).toBe(false);
    const prefixPath = join(dir, 'crashed.json');
    writeFileSync(prefixPath, prefix);
    const crashed = readJournal(prefixPath);
    expect(crashed.complete).toBe(false);
    expect(crashed.verdict).toBeNull();
    const whole = prefix.split('\n').slice(0, -1);
    const measured = whole.filter((l) => l.startsWith('{"record":"measurement"')).length;
    expect(allMeasurements(crashed).length).toBe(measured);
    expect(crashed.measurements.length).toBeLessThanOrEqual(MAX_KEPT_MEASUREMENTS + 1);
    // The judgement of what it recorded, computed on read by the engine's own function.
    expect(judgementOf(crashed).slis.find((s) => s.name === 'sli_3')?.fault?.measured).toBe(
      measured - (crashed.summary?.phases.steady ?? 0),
    );
    expect(renderSummary(crashed)).toContain('This journal has no final record');
  });

  it('still reads a long journal written as one JSON document (older versions): same judgement, bounded sample', () => {
    // As older engines wrote it: every measurement in one array, no summary, no judgement (computed on read).
    const { summary: _s, judgement: _j, ...rest } = read;
    const old = parseJournal(
      JSON.stringify({ ...rest, measurements: [...allMeasurements(read)] }),
      'legacy.json',
    );
    expect(old.measurements.length).toBeLessThanOrEqual(MAX_KEPT_MEASUREMENTS + 1);
    expect(old.summary?.measurements).toBe(read.summary?.measurements);
    expect(old.judgement).toEqual(read.judgement);
  });

  it('`chaos-gate report` reads the journal and writes the replay, exit 0', async () => {
    const r = await cli(['report', 'journal.json', '--markdown', '--html', 'replay.html']);
    expect(r.code).toBe(0);
    expect(r.out).toContain('deviated');
    const fd = openSync(join(dir, 'replay.html'), 'r');
    const head = Buffer.alloc(15);
    readSync(fd, head, 0, 15, 0);
    closeSync(fd);
    expect(head.toString().toLowerCase()).toBe('<!doctype html>');
  });
});

describe('a run of 1 500 measurements and 3 SLIs (4 500 readings)', () => {
  it('ends as one JSON document holding every measurement, though the writer kept only a sample of them as objects', async () => {
    const path = join(dir, 'mid.json');
    const writer = new FileJournalWriter(path);
    const slis = ['a', 'b', 'c'].map((name) => ({ name, bound: '<= 1', steadyBound: '<= 1', during: true }));
    writer.begin({
      kind: 'chaos-gate-journal',
      version: 1,
      runId: 'r',
      planId: 'p',
      planDigest: 'd',
      title: 't',
      service: 's',
      environment: 'e',
      slis,
      abortRules: [],
      intervalMs: 1000,
      startedAt: 0,
    });
    for (let i = 0; i < 1500; i++) {
      const reading = { value: (i % 10) / 10, status: 'ok' as const, bound: '<= 1', query: 'q' };
      writer.measurement({
        at: i * 1000,
        phase: 'steady',
        requests: 100,
        slis: { a: reading, b: reading, c: reading },
      });
    }
    const journal = await writer.finish({ verdict: 'not-run', reason: 'r', exitCode: 1 });
    expect(journal.measurements.length).toBeLessThanOrEqual(MAX_KEPT_MEASUREMENTS + 1);
    const document = JSON.parse(readFileSync(path, 'utf8')) as Journal;
    expect(document.measurements).toHaveLength(1500);
    expect(document.measurements[777]?.slis.b?.value).toBe(0.7);
    expect(document).not.toHaveProperty('summary');
    expect(allMeasurements(readJournal(path)).length).toBe(1500);
  });
});
