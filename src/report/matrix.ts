/**
 * The matrix in one view: one job summary over many runs' journals, a row per plan — verdict, reason,
 * first breach → FIS ended, budget spent, link — worst first, inside GitHub's job-summary limit. Every
 * figure is the journal's judgement as the run decided it (journal/history.ts `runEntry`).
 */
import { formatValue } from '../journal/format.js';
import { planKey, uniqueRuns, verdictRank, type RunEntry } from '../journal/history.js';
import type { UnreadJournal } from '../journal/collect.js';
import { VERDICT_ORDER } from '../journal/judgement.js';
import { mdCell, mdText } from '../security/markdown-text.js';
import { fisConsoleUrl, formatLatency, verdictLabel } from './common.js';
import { JOB_SUMMARY_LIMIT_BYTES } from './limits.js';

/** A reason longer than this is cut in its cell (the run's own summary has it whole). */
export const MATRIX_REASON_CHARS = 400;

export interface MatrixOptions {
  /** `https://github.com/owner/repo`: runs link to `<repo>/actions/runs/<runId>` when given. */
  repoUrl?: string | undefined;
  /** Byte limit of the summary; GitHub's 1 MiB by default. */
  limitBytes?: number;
}

function byteLength(text: string): number {
  return Buffer.byteLength(text, 'utf8');
}

function cut(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

/** A URL as a Markdown link target: parentheses and spaces percent-encoded, so it cannot end the link. */
function linkTarget(url: string): string {
  return url.replace(/[()\s<>]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`);
}

/** The link of a run: its workflow run when the repository is known, else its FIS experiment. */
export function runLink(e: RunEntry, repoUrl?: string): string {
  const links: string[] = [];
  if (repoUrl && /^\d+$/.test(e.runId))
    links.push(
      `[run ${e.runId}](${linkTarget(`${repoUrl}/actions/runs/${e.runId}${e.attempt > 1 ? `/attempts/${e.attempt}` : ''}`)})`,
    );
  if (e.region && e.experimentId) links.push(`[FIS](${linkTarget(fisConsoleUrl(e.region, e.experimentId))})`);
  return links.join(' · ') || '—';
}

/** `3.1 of 40 bad events (7.8 %)`, `—` without a budget. */
export function budgetSpent(e: RunEntry): string {
  const b = e.budget;
  if (!b) return '—';
  if (b.debit === undefined) return `not measured (allowance ${formatValue(b.allowance)})`;
  const share = b.allowance > 0 ? ` (${formatValue((b.debit / b.allowance) * 100)} %)` : '';
  return `${formatValue(b.debit)} of ${formatValue(b.allowance)} bad events${share}`;
}

/** Worst verdict first, then by plan, environment and start. */
export function worstFirst(entries: readonly RunEntry[]): RunEntry[] {
  return [...entries].sort(
    (a, b) =>
      verdictRank(a.verdict) - verdictRank(b.verdict) ||
      a.planId.localeCompare(b.planId) ||
      a.environment.localeCompare(b.environment) ||
      a.startedAt - b.startedAt,
  );
}

function countsLine(entries: readonly RunEntry[]): string {
  const parts: string[] = [];
  const unfinished = entries.filter((e) => e.verdict === null).length;
  if (unfinished) parts.push(`${unfinished} ${verdictLabel(null)}`);
  for (const v of VERDICT_ORDER) {
    const n = entries.filter((e) => e.verdict === v).length;
    if (n) parts.push(`${n} ${verdictLabel(v)}`);
  }
  return parts.join(' · ');
}

/**
 * One run per plan and environment: the latest (by start, then attempt). A matrix's artifacts hold one
 * run per plan; journals of several nights passed together are the history's to show.
 */
export function latestPerPlan(entries: readonly RunEntry[]): { latest: RunEntry[]; older: number } {
  const latest = new Map<string, RunEntry>();
  const unique = uniqueRuns(entries);
  for (const e of unique) {
    const prev = latest.get(planKey(e));
    if (!prev || e.startedAt > prev.startedAt || (e.startedAt === prev.startedAt && e.attempt > prev.attempt))
      latest.set(planKey(e), e);
  }
  return { latest: [...latest.values()], older: unique.length - latest.size };
}

/** The matrix summary. Rows that would pass the limit are left off, the best verdicts first, and said so. */
export function renderMatrix(
  entries: readonly RunEntry[],
  unread: readonly UnreadJournal[] = [],
  options: MatrixOptions = {},
): string {
  const limit = options.limitBytes ?? JOB_SUMMARY_LIMIT_BYTES;
  const { latest, older } = latestPerPlan(entries);
  const rows = worstFirst(latest);
  const held = rows.filter((e) => e.verdict === 'held').length;
  const head: string[] = [
    `## chaos-gate matrix — ${held} of ${rows.length + unread.length} held`,
    '',
    countsLine(rows) || 'No journals.',
    '',
  ];
  if (older > 0)
    head.push(
      `${older} older run${older === 1 ? '' : 's'} of the same plans ${older === 1 ? 'is' : 'are'} not shown: a row is a plan's latest run (\`chaos-gate history\` shows every run).`,
      '',
    );
  if (unread.length) {
    head.push(
      '> [!WARNING]',
      `> ${unread.length} journal${unread.length === 1 ? '' : 's'} could not be read; ${unread.length === 1 ? 'it is' : 'they are'} counted as not held:`,
      ...unread.map((u) => `> - ${mdText(u.error)}`),
      '',
    );
  }
  head.push(
    '| plan | environment | verdict | reason | breach → stopped | budget spent | link |',
    '|---|---|---|---|---:|---|---|',
  );
  const lines = rows.map(
    (e) =>
      `| ${mdCell(e.planId)} | ${mdCell(e.environment)} | ${verdictLabel(e.verdict)} | ${mdCell(cut(e.reason ?? '', MATRIX_REASON_CHARS))} | ${e.breachToStoppedMs === undefined ? '—' : formatLatency(e.breachToStoppedMs)} | ${mdCell(budgetSpent(e))} | ${runLink(e, options.repoUrl)} |`,
  );
  const note = (shown: number): string =>
    `\n> ✂️ **Trimmed:** ${rows.length - shown} of ${rows.length} rows are left off to stay within GitHub's job-summary limit of ${limit.toLocaleString('en-US')} bytes; they are the best verdicts of the matrix (sorted worst first). Each run's journal artifact holds its full record.\n`;
  let text = head.join('\n') + '\n';
  const reserve = byteLength(note(rows.length)) + 1;
  let size = byteLength(text);
  let shown = 0;
  for (const line of lines) {
    const add = byteLength(line) + 1;
    if (size + add + reserve > limit) break;
    text += line + '\n';
    size += add;
    shown++;
  }
  if (shown < lines.length) text += note(shown);
  return text;
}
