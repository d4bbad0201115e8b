/**
 * Pieces every GitHub renderer shares: the verdict headline, the check conclusion of SPEC §4, per-SLI
 * statistics over the fault window, breach episodes and the FIS console link. Pure functions of the
 * journal.
 */
import type { Journal, Measurement, Verdict } from '../journal/types.js';
import {
  formatDuration,
  formatOffset,
  formatSeconds,
  formatValue,
  offsetSeconds,
  timeOrigin,
} from '../journal/format.js';
import { mdCell, mdCode } from '../security/markdown-text.js';

/** Check-run conclusions chaos-gate sets (a subset of GitHub's enum). */
export type Conclusion = 'success' | 'failure' | 'neutral' | 'skipped' | 'cancelled';

/** How the two configurable verdicts map to a conclusion (SPEC §4). Inconclusive is never success. */
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

const ICONS: Record<Verdict, string> = {
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
  return verdict === null ? '⏳ unfinished' : `${ICONS[verdict]} ${verdict}`;
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
  const steady = journal.measurements.filter((m) => m.phase === 'steady');
  const first = steady[0];
  const last = steady[steady.length - 1];
  if (!first || !last) return undefined;
  const count = `${steady.length} measurement${steady.length === 1 ? '' : 's'}`;
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

export interface SliStats {
  name: string;
  bound: string;
  during: boolean;
  /** Measurements of this SLI while the fault was on. */
  measured: number;
  breaches: number;
  noData: number;
  errors: number;
  /** The value furthest on the wrong side of the bound during the fault (or the extreme for ranges). */
  worst: number | null;
}

/** The direction a bound string points: `<= x` wants low values, `>= x` high ones. */
function direction(bound: string): 'max' | 'min' | 'range' {
  if (bound.startsWith('<=')) return 'max';
  if (bound.startsWith('>=')) return 'min';
  return 'range';
}

/**
 * Statistics per SLI over the fault window (or every measurement when nothing was injected); a
 * steady-state-only SLI is summarized over the steady state, where it applies.
 */
export function sliStats(journal: Journal): SliStats[] {
  const fault = journal.measurements.filter((m) => m.phase === 'fault');
  const steady = journal.measurements.filter((m) => m.phase === 'steady');
  return journal.slis.map((s) => {
    const pool = !s.during ? steady : fault.length ? fault : journal.measurements;
    const values = pool.map((m) => m.slis[s.name]).filter((v) => v !== undefined);
    const numbers = values.map((v) => v.value).filter((v): v is number => v !== null && Number.isFinite(v));
    const dir = direction(s.bound);
    let worst: number | null = null;
    if (numbers.length) worst = dir === 'min' ? Math.min(...numbers) : Math.max(...numbers);
    return {
      name: s.name,
      bound: fault.length && s.during ? s.bound : s.steadyBound,
      during: s.during,
      measured: values.length,
      breaches: values.filter((v) => v.status === 'breach').length,
      noData: values.filter((v) => v.status === 'no-data').length,
      errors: values.filter((v) => v.status === 'error').length,
      worst,
    };
  });
}

/** A run of consecutive breaching measurements of one SLI. */
export interface BreachEpisode {
  sli: string;
  bound: string;
  from: number;
  to: number;
  count: number;
  worst: number;
}

/** Every breach episode, in time order. */
export function breachEpisodes(journal: Journal): BreachEpisode[] {
  const out: BreachEpisode[] = [];
  for (const s of journal.slis) {
    const dir = direction(s.bound);
    let open: BreachEpisode | undefined;
    for (const m of journal.measurements) {
      const v = m.slis[s.name];
      if (v?.status === 'breach' && v.value !== null) {
        if (open) {
          open.to = m.at;
          open.count++;
          open.worst = dir === 'min' ? Math.min(open.worst, v.value) : Math.max(open.worst, v.value);
        } else {
          open = { sli: s.name, bound: s.bound, from: m.at, to: m.at, count: 1, worst: v.value };
          out.push(open);
        }
      } else if (v && v.status !== 'no-data' && v.status !== 'error') {
        open = undefined;
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
  add('first breach', t.firstBreachAt);
  add('stop requested', t.stopRequestedAt);
  add('stopped', t.stoppedAt);
  add('recovered', t.recoveredAt);
  if (t.firstBreachAt !== undefined && t.stopRequestedAt !== undefined) {
    rows.push(['breach → stop request', formatSeconds(t.stopRequestedAt - t.firstBreachAt)]);
  }
  return rows;
}

/** The formatted value of one SLI in one measurement, with a marker for its status. */
export function measurementCell(m: Measurement, sli: string): string {
  const v = m.slis[sli];
  if (!v) return '';
  switch (v.status) {
    case 'ok':
      return formatValue(v.value);
    case 'breach':
      return `**${formatValue(v.value)}** ⚠`;
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
export function keyValueTable(rows: [string, string][]): string {
  return keyValueMarkdown(rows.map(([k, v]) => [mdCell(k), mdCell(v)]));
}

/** A two-column Markdown table whose cells are Markdown of our own (values already neutralised). */
export function keyValueMarkdown(rows: [string, string][]): string {
  if (!rows.length) return '';
  return ['| | |', '|---|---|', ...rows.map(([k, v]) => `| ${markdownCell(k)} | ${markdownCell(v)} |`)].join(
    '\n',
  );
}
