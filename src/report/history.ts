/**
 * A plan's verdict history (`chaos-gate history`): per plan and environment the last verdicts, time to
 * stop, budget spent and flakiness, then what was not exercised within the period (the untested set).
 * Markdown for the job summary, and a self-contained HTML page in the replay's style. Every figure is
 * a run's judgement as the run decided it (journal/history.ts).
 */
import { formatDuration, formatValue } from '../journal/format.js';
import type { UnreadJournal } from '../journal/collect.js';
import type { PlanHistory, RunEntry, Untested } from '../journal/history.js';
import type { Verdict } from '../journal/types.js';
import { mdCell, mdText } from '../security/markdown-text.js';
import { formatLatency, isoTime, VERDICT_ICONS, verdictLabel } from './common.js';
import { escapeHtml } from './html/page.js';
import { JOB_SUMMARY_LIMIT_BYTES, trimToLimit } from './limits.js';

export interface HistoryView {
  histories: PlanHistory[];
  untested: Untested;
  unread: UnreadJournal[];
  /** How many of each plan's runs are shown, newest last. */
  last: number;
  /** The untested period (ms) and the time it ends at. */
  periodMs: number;
  now: number;
}

/** The page's chips: letters, which every font has (emoji need a font the viewer may lack). */
const LETTER: Record<Verdict, string> = {
  held: 'H',
  deviated: 'D',
  aborted: 'A',
  inconclusive: '?',
  'not-run': 'N',
  refused: 'R',
  failed: 'F',
};

function shortVerdict(v: Verdict | null): string {
  return v === null ? '⏳' : VERDICT_ICONS[v];
}

/** `2 of 9` (22 %): verdict changes among consecutive runs of an unchanged plan. */
export function flakinessText(h: PlanHistory): string {
  const { pairs, changes } = h.flaky;
  if (pairs === 0) return 'no two runs of the same plan yet';
  return `${changes} of ${pairs} (${formatValue((changes / pairs) * 100)} %)`;
}

/** Time to stop over the runs that stopped a breach: median and worst. */
export function timeToStopText(runs: readonly RunEntry[]): string {
  const ms = runs.flatMap((r) => (r.breachToStoppedMs === undefined ? [] : [r.breachToStoppedMs]));
  if (ms.length === 0) return '—';
  const sorted = [...ms].sort((a, b) => a - b);
  const median = sorted[Math.floor((sorted.length - 1) / 2)]!;
  return `median ${formatLatency(median)}, worst ${formatLatency(sorted[sorted.length - 1]!)} (${ms.length} run${ms.length === 1 ? '' : 's'})`;
}

function totalSpent(runs: readonly RunEntry[]): string {
  const debits = runs.flatMap((r) => (r.budget?.debit === undefined ? [] : [r.budget.debit]));
  if (debits.length === 0) return '—';
  return `${formatValue(debits.reduce((a, b) => a + b, 0))} bad events over ${debits.length} run${debits.length === 1 ? '' : 's'}`;
}

function ago(now: number, at: number | undefined): string {
  return at === undefined
    ? 'never (in this history)'
    : `${isoTime(at)} (${formatDuration(Math.max(0, now - at))} ago)`;
}

/** The history as job-summary Markdown (within GitHub's 1 MiB). */
export function renderHistoryMarkdown(view: HistoryView): string {
  const out: string[] = ['## chaos-gate history', ''];
  const runs = view.histories.reduce((n, h) => n + h.runs.length, 0);
  out.push(
    `${view.histories.length} plan${view.histories.length === 1 ? '' : 's'}, ${runs} run${runs === 1 ? '' : 's'}. Verdicts oldest → newest (last ${view.last} shown). Flakiness counts verdict changes between consecutive runs of the same plan digest; a change of the plan is not a flake.`,
    '',
  );
  if (view.unread.length) {
    out.push(
      '> [!WARNING]',
      `> ${view.unread.length} journal${view.unread.length === 1 ? '' : 's'} could not be read and ${view.unread.length === 1 ? 'is' : 'are'} not in this history:`,
      ...view.unread.map((u) => `> - ${mdText(u.error)}`),
      '',
    );
  }
  out.push(
    '| plan | environment | last verdicts | latest | time to stop | budget spent | flakiness | plan changes |',
    '|---|---|---|---|---|---|---|---:|',
  );
  for (const h of view.histories) {
    const shown = h.runs.slice(-view.last);
    const latest = h.runs[h.runs.length - 1]!;
    out.push(
      `| ${mdCell(h.planId)} | ${mdCell(h.environment)} | ${shown.map((r) => shortVerdict(r.verdict)).join(' ')} | ${verdictLabel(latest.verdict)} ${mdCell(isoTime(latest.startedAt))} | ${mdCell(timeToStopText(shown))} | ${mdCell(totalSpent(shown))} | ${mdCell(flakinessText(h))} | ${h.planChanges} |`,
    );
  }
  out.push('', ...untestedMarkdown(view), '');
  out.push(
    `Key: ${(Object.keys(VERDICT_ICONS) as Verdict[]).map((v) => `${VERDICT_ICONS[v]} ${v}`).join(' · ')} · ⏳ unfinished`,
    '',
  );
  return trimToLimit(out.join('\n'), JOB_SUMMARY_LIMIT_BYTES, 'job summary', 'bytes');
}

function untestedMarkdown(view: HistoryView): string[] {
  const period = formatDuration(view.periodMs);
  const since = isoTime(view.now - view.periodMs);
  const { plans, services } = view.untested;
  const out = [`### Not exercised within ${period} (since ${since})`, ''];
  if (plans.length === 0 && services.length === 0) {
    out.push(
      `Every plan and service in this history had a run whose fault ran within ${period}. A plan with no journal here is not known to this history; pass its plan files with \`--plans\` to include it.`,
    );
    return out;
  }
  if (plans.length) {
    out.push('| plan | environment | service | last exercised |', '|---|---|---|---|');
    for (const p of plans)
      out.push(
        `| ${mdCell(p.planId)} | ${mdCell(p.environment)} | ${mdCell(p.service)} | ${mdCell(ago(view.now, p.lastExercisedAt))} |`,
      );
    out.push('');
  }
  if (services.length) {
    out.push(
      `Services none of whose plans was exercised: ${services.map((s) => `${mdText(s.service)} (last ${mdText(ago(view.now, s.lastExercisedAt))})`).join(', ')}.`,
    );
  }
  return out;
}

const CSS = `
:root { --fg:#1d2330; --muted:#5b6577; --bg:#fbfcfe; --card:#fff; --line:#d9dee8; --ok:#1f7a3a; --bad:#b42318; }
* { box-sizing: border-box; }
body { margin:0; font:14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; color:var(--fg); background:var(--bg); }
header, main { max-width:1100px; margin:0 auto; padding:10px 16px; }
h1 { font-size:20px; margin:8px 0 2px; } h2 { font-size:16px; margin:18px 0 6px; }
.muted { color:var(--muted); }
.panel { margin:0 0 12px; background:var(--card); border:1px solid var(--line); border-radius:8px; padding:8px; overflow-x:auto; }
table { border-collapse:collapse; width:100%; }
th, td { text-align:left; padding:4px 8px; border-bottom:1px solid var(--line); vertical-align:top; }
th { color:var(--muted); font-weight:600; }
.runs { display:flex; gap:3px; flex-wrap:wrap; }
.run { display:inline-block; min-width:18px; height:18px; line-height:18px; border-radius:4px; background:#eef1f6; font-size:11px; font-weight:700; text-align:center; }
.run[data-verdict="held"] { background:#dcf5e3; color:var(--ok); }
.run[data-verdict="deviated"], .run[data-verdict="aborted"], .run[data-verdict="failed"] { background:#fde4e1; color:var(--bad); }
#key { align-items:center; } #key .run { margin-left:10px; }
.flaky[data-flaky="true"] { color:var(--bad); font-weight:600; }
.warn { color:var(--bad); }
`;

/** The history as one self-contained HTML page (no script, nothing fetched). */
export function renderHistoryHtml(view: HistoryView): string {
  const rows = view.histories.map((h) => {
    const shown = h.runs.slice(-view.last);
    const runs = shown
      .map(
        (r) =>
          `<span class="run" data-verdict="${escapeHtml(r.verdict ?? 'unfinished')}" title="${escapeHtml(`${r.verdict ?? 'unfinished'} · ${isoTime(r.startedAt)} · run ${r.runId} · ${r.reason ?? ''}`)}">${r.verdict === null ? '…' : LETTER[r.verdict]}</span>`,
      )
      .join('');
    return `<tr data-plan="${escapeHtml(h.planId)}"><td>${escapeHtml(h.planId)}<div class="muted">${escapeHtml(h.title)}</div></td><td>${escapeHtml(h.environment)}</td><td>${escapeHtml(h.service)}</td><td><div class="runs">${runs}</div></td><td>${escapeHtml(timeToStopText(shown))}</td><td>${escapeHtml(totalSpent(shown))}</td><td class="flaky" data-flaky="${String(h.flaky.changes > 0)}">${escapeHtml(flakinessText(h))}</td><td>${h.planChanges}</td></tr>`;
  });
  const { plans, services } = view.untested;
  const untestedRows = plans.map(
    (p) =>
      `<tr><td>${escapeHtml(p.planId)}</td><td>${escapeHtml(p.environment)}</td><td>${escapeHtml(p.service)}</td><td>${escapeHtml(ago(view.now, p.lastExercisedAt))}</td></tr>`,
  );
  const period = formatDuration(view.periodMs);
  const unread = view.unread.length
    ? `<section class="panel warn"><h2>Journals not read</h2><ul>${view.unread.map((u) => `<li>${escapeHtml(u.error)}</li>`).join('')}</ul></section>`
    : '';
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
<title>chaos-gate history</title>
<style>${CSS}</style>
</head>
<body>
<header>
<h1>chaos-gate history</h1>
<p class="muted">${view.histories.length} plans · last ${view.last} runs each, oldest → newest · generated ${escapeHtml(isoTime(view.now))}. Flakiness: verdict changes between consecutive runs of the same plan digest.</p>
<p class="runs" id="key">${(Object.keys(LETTER) as Verdict[]).map((v) => `<span class="run" data-verdict="${v}">${LETTER[v]}</span>&nbsp;${v}`).join(' ')} <span class="run">…</span>&nbsp;unfinished</p>
</header>
<main>
${unread}
<section class="panel"><h2>Plans</h2>
<table id="plans"><thead><tr><th>plan</th><th>environment</th><th>service</th><th>last verdicts</th><th>time to stop</th><th>budget spent</th><th>flakiness</th><th>plan changes</th></tr></thead>
<tbody>${rows.join('\n')}</tbody></table></section>
<section class="panel" id="untested"><h2>Not exercised within ${escapeHtml(period)}</h2>
${untestedRows.length ? `<table><thead><tr><th>plan</th><th>environment</th><th>service</th><th>last exercised</th></tr></thead><tbody>${untestedRows.join('\n')}</tbody></table>` : `<p>Every plan and service in this history was exercised within ${escapeHtml(period)}.</p>`}
${services.length ? `<p>Services not exercised: ${services.map((s) => escapeHtml(s.service)).join(', ')}.</p>` : ''}
</section>
</main>
</body>
</html>
`;
}
