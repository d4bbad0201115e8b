/**
 * Pieces every GitHub renderer shares: the verdict headline, the check conclusion of docs/design/verdicts.md, per-SLI
 * statistics over the fault window, breach episodes and the FIS console link. Pure functions of the
 * journal.
 */
import type { Journal, Measurement, SliStatus, SliValue, Verdict } from '../journal/types.js';
import {
  formatDuration,
  formatOffset,
  formatSeconds,
  formatValue,
  offsetSeconds,
  timeOrigin,
} from '../journal/format.js';
import { mdCell, mdCode } from '../security/markdown-text.js';
import { allMeasurements } from '../journal/columns.js';
import {
  judgementOf,
  LATENCY_LABELS,
  toleranceText,
  type LatencyFigures,
  type PhaseCounts,
  type ReadingPoint,
  type SliJudgement,
} from '../journal/judgement.js';

/** Check-run conclusions chaos-gate sets (a subset of GitHub's enum). */
export type Conclusion = 'success' | 'failure' | 'neutral' | 'skipped' | 'cancelled';

/** How the two configurable verdicts map to a conclusion (docs/design/verdicts.md). Inconclusive is never success. */
export interface ConclusionPolicy {
  inconclusive: 'failure' | 'neutral';
  notRun: 'failure' | 'neutral' | 'skipped';
}

export const DEFAULT_CONCLUSIONS: ConclusionPolicy = { inconclusive: 'failure', notRun: 'failure' };

/** The check conclusion for a verdict; `null` (an unfinished run) is `cancelled`. */
export function conclusionFor(
  verdict: Verdict | null,
  policy: ConclusionPolicy = DEFAULT_CONCLUSIONS,
): Conclusion {
  switch (verdict) {
    case 'held':
      return 'success';
    case 'inconclusive':
      return policy.inconclusive;
    case 'not-run':
      return policy.notRun;
    case null:
      return 'cancelled';
    default:
      return 'failure';
  }
}

/** Each verdict's icon, in every Markdown report. */
export const VERDICT_ICONS: Readonly<Record<Verdict, string>> = {
  held: '✅',
  deviated: '❌',
  aborted: '🛑',
  inconclusive: '❔',
  'not-run': '⏸️',
  refused: '⛔',
  failed: '💥',
};

/** `❌ deviated`, or `⏳ unfinished` for a journal without a verdict. */
export function verdictLabel(verdict: Verdict | null): string {
  return verdict === null ? '⏳ unfinished' : `${VERDICT_ICONS[verdict]} ${verdict}`;
}

/** The name of the plan's check run and the key of its comment and findings issue. */
export function checkName(planId: string): string {
  return `chaos-gate / ${planId}`;
}

/** The hidden marker that identifies a plan's PR comment (found together with its author). */
export function commentMarker(planId: string): string {
  return `<!-- chaos-gate:plan=${planId} -->`;
}

/** The hidden marker that identifies a plan's findings issue. */
export function findingsMarker(planId: string): string {
  return `<!-- chaos-gate:findings=${planId} -->`;
}

/** The AWS console page of an experiment. */
export function fisConsoleUrl(region: string, experimentId: string): string {
  const r = encodeURIComponent(region);
  return `https://${r}.console.aws.amazon.com/fis/home?region=${r}#ExperimentDetails:ExperimentId=${encodeURIComponent(experimentId)}`;
}

/** `2026-01-01T00:00:05Z`: UTC, seconds precision unless milliseconds matter. */
export function isoTime(ms: number): string {
  const iso = new Date(ms).toISOString();
  return iso.endsWith('.000Z') ? iso.replace('.000Z', 'Z') : iso;
}

/** Time of `at` on the journal's one clock (`timeOrigin`): `+12.0 s`, `-17.0 s`. */
export function when(journal: Journal, at: number): string {
  return formatOffset(offsetSeconds(journal, at));
}

/** One sentence saying what the report's times count from, so a reader never has to guess the origin. */
export function clockNote(journal: Journal): string {
  const origin = timeOrigin(journal);
  switch (origin.kind) {
    case 'injection':
      return 'Times are seconds from the injection, negative before it.';
    case 'last-steady':
      return 'Nothing was injected: times are seconds from the last steady-state measurement.';
    case 'start':
      return 'Nothing was injected or measured: times are seconds from the start of the run.';
  }
}

/** `-17.0 s to -13.0 s (5 measurements)`: when the steady state was measured, on the journal's clock. */
export function steadySpan(journal: Journal): string | undefined {
  // A long run's sample keeps the first and last of each phase; the summary counts them all.
  const steady = journal.measurements.filter((m) => m.phase === 'steady');
  const first = steady[0];
  const last = steady[steady.length - 1];
  if (!first || !last) return undefined;
  const n = journal.summary?.phases.steady ?? steady.length;
  const count = `${n} measurement${n === 1 ? '' : 's'}`;
  return first === last
    ? `${when(journal, first.at)} (${count})`
    : `${when(journal, first.at)} to ${when(journal, last.at)} (${count})`;
}

/** A value (plain text, possibly untrusted) as the content of a Markdown table cell. */
export const cell = mdCell;

/** A value (plain text, possibly untrusted) as inline code (see `mdCode`). */
export const code = mdCode;

/**
 * Markdown of our own (its values already through `mdText`/`mdCode`) fitted into one table cell: on
 * one line, with our own pipes escaped.
 */
export function markdownCell(markdown: string): string {
  return markdown.replace(/\r\n|\r|\n/g, ' ').replaceAll('|', '\\|');
}

/**
 * One SLI's judgement as report cells, the same text in every report (Markdown tables, the console, the
 * HTML replay): rendered from the journal's judgement (src/journal/judgement.ts), never recounted.
 * Before the injection (or for a steady-state-only SLI) the cells describe the steady state.
 */
export interface SliRow {
  name: string;
  /** `p95_latency_s`, or `name (steady only)`. */
  label: string;
  /** The bound the counts are against. */
  bound: string;
  /** `1 of 58`: readings outside the bound of the measurements judged. */
  outside: string;
  /** `none (strict)`, `1 (at most 2)`, `0 (beyond: at most 2)`. */
  tolerated: string;
  /** `0.304 at +3.0 s`, or `—`. */
  first: string;
  /** The reading furthest toward the wrong side: `0.304 at +3.0 s`, or `—`. */
  worst: string;
  /** Readings without data among those judged. */
  noData: string;
  /** `3 in the first 3.0 s, 1 outside`, or `—`. */
  settling: string;
  /** `2 of 5 outside <= 0.11` while recovering, or `—`. */
  recovery: string;
  /** The judged counts, for annotations. */
  counts: PhaseCounts | undefined;
  sli: SliJudgement;
}

/** The column titles of {@link SliRow} in table order (after the SLI's label). */
export const SLI_COLUMNS = [
  'SLI',
  'bound',
  'outside',
  'tolerated',
  'first outside',
  'worst',
  'no data',
  'settling (not judged)',
  'recovery (steady bound)',
] as const;

/** A reading on the journal's clock: `0.304 at +3.0 s`. */
export function pointText(p: ReadingPoint | undefined): string {
  return p ? `${formatValue(p.value)} at ${formatOffset(p.offsetMs / 1000)}` : '—';
}

function toleratedText(s: SliJudgement): string {
  const declared = toleranceText(s.tolerance);
  if (declared === 'strict') return 'none (strict)';
  if (s.held === false) return `0 (beyond: ${declared})`;
  return `${s.tolerated} (${declared})`;
}

/** The SLI rows of the judgement, in the plan's order. */
export function sliRows(journal: Journal): SliRow[] {
  const judgement = judgementOf(journal);
  return judgement.slis.map((s): SliRow => {
    const c = s.fault ?? s.steady;
    const st = s.settling;
    const rec = s.recovery;
    return {
      name: s.name,
      label: s.during ? s.name : `${s.name} (steady only)`,
      bound: c?.bound ?? '',
      outside: c ? `${c.outside} of ${c.measured}` : '—',
      tolerated: s.fault ? toleratedText(s) : '—',
      first: pointText(c?.first),
      worst: pointText(c?.extreme),
      noData: c ? String(c.noData) : '—',
      settling: st
        ? `${st.measured} in the first ${formatSeconds(s.settleMs)}${st.outside > 0 ? `, ${st.outside} outside` : ''}`
        : '—',
      recovery: rec ? `${rec.outside} of ${rec.measured} outside ${rec.bound}` : '—',
      counts: c,
      sli: s,
    };
  });
}

/** The cells of one row, in {@link SLI_COLUMNS} order. */
export function sliCells(r: SliRow): string[] {
  return [r.label, r.bound, r.outside, r.tolerated, r.first, r.worst, r.noData, r.settling, r.recovery];
}

/** Milliseconds as every report prints a latency figure: `2030 ms`. */
export function formatLatency(ms: number): string {
  return `${Math.round(ms)} ms`;
}

/** The judgement's latency figures as `label: value` rows, in a fixed order. */
export function latencyRows(journal: Journal): [string, string][] {
  const latency = judgementOf(journal).latency;
  const rows: [string, string][] = [];
  for (const key of Object.keys(LATENCY_LABELS) as (keyof LatencyFigures)[]) {
    const ms = latency[key];
    if (ms !== undefined) rows.push([LATENCY_LABELS[key], formatLatency(ms)]);
  }
  return rows;
}

/** What each expectation came to: `met at +1.0 s`, `late: seen at +4.0 s`, `not observed`. */
export function expectationRows(journal: Journal): [string, string][] {
  return judgementOf(journal).expectations.map((e) => {
    const within = `within ${formatSeconds(e.withinMs)}`;
    const seen = e.seen ? formatOffset(e.seen.offsetMs / 1000) : '';
    const what: Record<typeof e.status, string> = {
      met: `met at ${seen} (${within})`,
      late: `late: seen at ${seen} (${within})`,
      unmet: `not observed (${within})`,
      blind: `not observed, no data (${within})`,
      'cut-short': `not observed before the stop (${within})`,
    };
    return [`${e.name} ${e.bound ?? ''}`.trim(), what[e.status]];
  });
}

/** A run of consecutive outside readings of one SLI, among those the judgement judged. */
export interface BreachEpisode {
  sli: string;
  bound: string;
  from: number;
  to: number;
  count: number;
  worst: number;
}

/**
 * The episodes of the judged fault readings outside the fault bound (settling readings excluded), in
 * time order: the counts of an SLI's episodes add up to its judgement's `outside`.
 */
export function breachEpisodes(journal: Journal): BreachEpisode[] {
  const out: BreachEpisode[] = [];
  const judgement = judgementOf(journal);
  const origin = judgement.origin.at;
  const injected = journal.timings.injectedAt !== undefined;
  if (!injected) return out;
  const judged = judgement.slis.flatMap((s) => (s.fault ? [{ s, bound: s.fault.bound }] : []));
  const open = new Map<string, BreachEpisode>();
  // One pass over every measurement (a long run's are read from its columns once, not once per SLI).
  for (const m of allMeasurements(journal)) {
    if (m.phase !== 'fault') continue;
    for (const { s, bound } of judged) {
      if (m.at - (journal.timings.injectedAt ?? origin) < s.settleMs) continue;
      const v = m.slis[s.name];
      const episode = open.get(s.name);
      if (v?.status === 'breach' && v.value !== null) {
        if (episode) {
          episode.to = m.at;
          episode.count++;
          episode.worst = bound.startsWith('>=')
            ? Math.min(episode.worst, v.value)
            : Math.max(episode.worst, v.value);
        } else {
          const next = { sli: s.name, bound, from: m.at, to: m.at, count: 1, worst: v.value };
          open.set(s.name, next);
          out.push(next);
        }
      } else if (v && v.status !== 'no-data' && v.status !== 'error') {
        open.delete(s.name);
      }
    }
  }
  return out.sort((a, b) => a.from - b.from || a.sli.localeCompare(b.sli));
}

/** The key timings as `label: +12.0 s (UTC time)` pairs, in the order they happen. */
export function timingRows(journal: Journal): [string, string][] {
  const t = journal.timings;
  const rows: [string, string][] = [];
  const add = (label: string, at: number | undefined): void => {
    if (at !== undefined) rows.push([label, `${when(journal, at)} (${isoTime(at)})`]);
  };
  // The steady state first: it is measured before the injection, and its span shows how long before.
  const steady = steadySpan(journal);
  if (steady !== undefined) rows.push(['steady state', steady]);
  add('injected', t.injectedAt);
  const first = judgementOf(journal).firstBreach;
  if (first) add(`first breach (${first.sli})`, first.at);
  add('stop requested', t.stopRequestedAt);
  add('stopped', t.stoppedAt);
  add('recovered', t.recoveredAt);
  rows.push(...latencyRows(journal));
  return rows;
}

/** True when a fault measurement of `sli` came before its settle time: shown, not judged. */
export function isSettling(journal: Journal, m: Measurement, sli: string): boolean {
  const injectedAt = journal.timings.injectedAt;
  const settleMs = journal.slis.find((s) => s.name === sli)?.settleMs ?? 0;
  return m.phase === 'fault' && injectedAt !== undefined && m.at - injectedAt < settleMs;
}

/** The formatted value of one SLI in one measurement, with a marker for its status. */
export function measurementCell(m: Measurement, sli: string, settling = false): string {
  const v = m.slis[sli];
  if (!v) return '';
  switch (v.status) {
    case 'ok':
      return formatValue(v.value);
    case 'breach':
      // Outside the fault bound while settling: shown, not judged.
      return settling ? `${formatValue(v.value)} (settling)` : `**${formatValue(v.value)}** ⚠`;
    case 'no-data':
      return 'no data';
    case 'error':
      return 'error';
  }
}

/** Budget figures as table rows, when the run computed them. */
export function budgetRows(journal: Journal): [string, string][] {
  const b = journal.budget;
  if (!b) return [];
  const before = b.chaosAllowance - b.ledgerSpent;
  const rows: [string, string][] = [
    ['objective', `${formatValue(b.objective * 100)} % over ${formatDuration(b.windowMs)}`],
    [
      'chaos allowance',
      `${formatValue(b.chaosAllowance)} bad events (spent before: ${formatValue(b.ledgerSpent)})`,
    ],
    ['remaining before', formatValue(before)],
  ];
  if (b.debit !== undefined) rows.push(['this run', `${formatValue(b.debit)} bad events`]);
  if (b.remainingAfter !== undefined) rows.push(['remaining after', formatValue(b.remainingAfter)]);
  return rows;
}

/** A two-column Markdown table of plain-text rows (every key and value is neutralised). */
export function keyValueTable(rows: [string, string][], head: [string, string] = ['item', 'value']): string {
  return keyValueMarkdown(
    rows.map(([k, v]) => [mdCell(k), mdCell(v)]),
    head,
  );
}

/**
 * A two-column Markdown table whose cells are Markdown of our own (values already neutralised). The
 * header names its columns: an empty header row renders as a blank bar above the table.
 */
export function keyValueMarkdown(
  rows: [string, string][],
  head: [string, string] = ['item', 'value'],
): string {
  if (!rows.length) return '';
  return [
    `| ${head[0]} | ${head[1]} |`,
    '|---|---|',
    ...rows.map(([k, v]) => `| ${markdownCell(k)} | ${markdownCell(v)} |`),
  ].join('\n');
}

/** A reading drawn on a chart: the measurement it belongs to (or a bucket's stand-in) and the reading. */
export interface ChartReading {
  m: Measurement;
  v: SliValue;
}

/**
 * The readings of `name` a chart draws for a long run whose journal keeps only a sample: from the
 * summary's buckets (src/journal/columns.ts), a reading for the bucket's minimum and one for its maximum,
 * so every extreme of the run is on the chart. The lower one comes first and sits at the bucket's start,
 * the higher at its middle; a bucket that outside readings fell into marks the one on the bound's wrong
 * side a breach. A bucket with no value at all is one no-data reading. Undefined when the journal holds
 * every measurement (draw those).
 */
export function summaryReadings(journal: Journal, name: string): ChartReading[] | undefined {
  const summary = journal.summary;
  if (!summary || summary.kept >= summary.measurements) return undefined;
  const series = summary.series.find((s) => s.kind === 'sli' && s.name === name);
  if (!series) return [];
  const header = journal.slis.find((s) => s.name === name);
  const t = journal.timings;
  const boundAt = (at: number): string | undefined => {
    const faultOn =
      t.injectedAt !== undefined && at >= t.injectedAt && (t.stoppedAt === undefined || at <= t.stoppedAt);
    return faultOn ? header?.bound : header?.steadyBound;
  };
  const out: ChartReading[] = [];
  const phaseAt = (at: number): Measurement['phase'] =>
    t.injectedAt === undefined || at < t.injectedAt
      ? 'steady'
      : t.stoppedAt === undefined || at <= t.stoppedAt
        ? 'fault'
        : 'recovery';
  const reading = (at: number, value: number | null, status: SliStatus): ChartReading => {
    const bound = boundAt(at);
    return {
      m: { at, phase: phaseAt(at), requests: null, slis: {} },
      v: { value, status, query: '', ...(bound !== undefined ? { bound } : {}) },
    };
  };
  for (const [from, , min, max, outside] of series.buckets) {
    if (min === null || max === null) {
      out.push(reading(from, null, 'no-data'));
      continue;
    }
    const bound = boundAt(from) ?? '';
    // The side a breach lies on: the minimum for `>=`, the maximum for `<=`, either for a range.
    const lowBad = outside > 0 && !bound.startsWith('<=');
    const highBad = outside > 0 && !bound.startsWith('>=');
    out.push(reading(from, min, lowBad ? 'breach' : 'ok'));
    if (max !== min) out.push(reading(from + summary.bucketMs / 2, max, highBad ? 'breach' : 'ok'));
  }
  return out;
}

/** `every measurement` or `min and max per 1 min 48 s (500 of 43 206 measurements kept)`: the chart's resolution. */
export function resolutionText(journal: Journal): string | undefined {
  const s = journal.summary;
  if (!s || s.kept >= s.measurements) return undefined;
  return `the minimum and maximum of every ${formatSeconds(s.bucketMs)} (${s.kept} of ${s.measurements} measurements kept in the journal's sample)`;
}
