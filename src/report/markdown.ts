/**
 * The job summary: a pure function of the journal. Verdict, reason, one Mermaid chart per SLI on a
 * time-proportional axis against its bound and abort threshold with the fault window shaded (with a table
 * fallback), timings, the FIS experiment, targets, budget and the event trace.
 */
import type { Journal, JournalEvent, Measurement, SliValue, Verdict } from '../journal/types.js';
import {
  formatOffset,
  formatSeconds,
  formatValue,
  secondsFrom,
  timeOrigin,
  type TimeOrigin,
} from '../journal/format.js';
import {
  clockNote,
  expectationRows,
  fisConsoleUrl,
  isSettling,
  latencyRows,
  resolutionText,
  summaryReadings,
} from './common.js';
import { mdCell, mdChartLabel, mdCode, mdCodeBlock, mdText } from '../security/markdown-text.js';
import { sliTable } from './check-run.js';
import { judgementOf } from '../journal/judgement.js';

/** GitHub rejects a step summary over 1 MiB (docs: "Adding a job summary"). */
export const MAX_SUMMARY_BYTES = 1024 * 1024;
/** Points per chart and rows per table: more is unreadable in a summary and bloats it. */
export const MAX_CHART_POINTS = 60;

const HEADLINE: Record<Verdict, string> = {
  held: '✅ held',
  deviated: '❌ deviated',
  aborted: '🛑 aborted',
  inconclusive: '❔ inconclusive',
  'not-run': '⏸️ not-run',
  refused: '⛔ refused',
  failed: '💥 failed',
};

interface Point {
  m: Measurement;
  v: SliValue;
}

/** Parses the limits of a bound string (`<= 0.18`, `>= 0.998`, `in [40, 60]`). */
function boundLimits(bound: string | undefined): number[] {
  if (!bound) return [];
  const nums = bound.match(/-?\d+(?:\.\d+)?(?:e-?\d+)?/gi) ?? [];
  return nums.map(Number).filter((n) => Number.isFinite(n));
}

/** Keeps at most `max` points; each bucket keeps its point furthest toward a breach, so spikes stay visible. */
export function downsample(points: Point[], max: number): Point[] {
  if (points.length <= max) return points;
  const out: Point[] = [];
  const size = points.length / max;
  for (let i = 0; i < max; i++) {
    const bucket = points.slice(Math.floor(i * size), Math.floor((i + 1) * size));
    const worst =
      bucket.find((p) => p.v.status !== 'ok') ??
      bucket.reduce((a, b) => {
        const bound = a.v.bound ?? '';
        const va = a.v.value ?? 0;
        const vb = b.v.value ?? 0;
        if (bound.startsWith('<=')) return vb > va ? b : a;
        if (bound.startsWith('>=')) return vb < va ? b : a;
        return a;
      });
    if (worst) out.push(worst);
  }
  return out;
}

/** A measurement's time on the journal's clock, without the unit: `-17.0`, `+3.0`. */
function offsetOf(origin: TimeOrigin, m: Measurement): string {
  return formatOffset(secondsFrom(origin, m.at)).replace(' s', '');
}

/**
 * Grid steps (s) a chart may use: each is exact in binary floating point, so Mermaid's own stepping of a
 * numeric axis (`min + k × step`, summed) lands on the same grid as ours.
 */
const GRID_STEPS = [0.25, 0.5, 1, 2, 4, 5, 10, 15, 20, 30, 60, 120, 300, 600, 900, 1800, 3600];

/** Colours of the chart's series (Mermaid draws them in declaration order from this palette). */
const SERIES_COLOR = { fault: '#fde2c8', value: '#2457c5', bound: '#1f7a3a', abort: '#b42318' };

/**
 * A number as Mermaid's xychart grammar reads it: digits and a point, never an exponent. `digits`
 * significant digits: values as the reports quote them (4); axis ends finer (6), so that rounding never
 * puts a value outside its axis.
 */
function mermaidNumber(value: number, digits = 4): string {
  const text = digits === 4 ? formatValue(value) : String(Number(value.toPrecision(digits)));
  if (!/e/i.test(text)) return text;
  return value.toFixed(12).replace(/\.?0+$/, '');
}

/** True when `candidate` is further toward a breach of `bound` than `current` (`<=` up, `>=` down). */
function worseFor(bound: string | undefined, candidate: number, current: number): boolean {
  const b = (bound ?? '').trim();
  if (b.startsWith('<')) return candidate > current;
  if (b.startsWith('>')) return candidate < current;
  const [lo, hi] = boundLimits(b);
  if (lo === undefined || hi === undefined) return false;
  return Math.min(candidate - lo, hi - candidate) < Math.min(current - lo, hi - current);
}

/** The time grid of a chart: `count` points `from`, `from + step`, … (seconds on the journal's clock). */
export interface ChartGrid {
  from: number;
  step: number;
  count: number;
}

/**
 * The even time grid a chart is drawn on: the smallest step from {@link GRID_STEPS} that is at least the
 * measurement interval and keeps the chart within {@link MAX_CHART_POINTS} + 1 points, with ends on it.
 */
export function chartGrid(first: number, last: number, intervalS: number): ChartGrid {
  const span = Math.max(last - first, 0);
  const wanted = Math.max(intervalS, span / MAX_CHART_POINTS);
  const step = GRID_STEPS.find((s) => s >= wanted - 1e-9) ?? Math.ceil(wanted / 3600) * 3600;
  const from = Math.floor(first / step + 1e-9) * step;
  const to = Math.max(Math.ceil(last / step - 1e-9) * step, from + step);
  return { from, step, count: Math.round((to - from) / step) + 1 };
}

/**
 * One SLI as a Mermaid xychart on a time-proportional axis. Mermaid's xychart has no (x, y) points: a
 * line's values are spread evenly over the x axis. On a numeric axis (`x-axis min --> max`) the k-th of
 * n values sits at min + k × (max − min) / (n − 1), so the measurements are resampled onto an even time
 * grid (the worst reading of each step; a step without a reading repeats the previous value) and the
 * axis runs over exactly that grid: gaps stay gaps in time, not evenly spaced categories. Named series:
 * the value, its bound (the steady-state bound where it applied), each abort threshold, and the fault
 * window as shaded bars.
 */
function chart(j: Journal, origin: TimeOrigin, name: string, points: Point[]): string[] {
  const valued = points
    .filter((p) => p.v.value !== null && Number.isFinite(p.v.value))
    .map((p) => ({ t: secondsFrom(origin, p.m.at), v: p.v.value as number, bound: p.v.bound }));
  if (valued.length === 0) return [`_${mdText(name)}: no values to chart._`];
  const grid = chartGrid(valued[0]!.t, valued[valued.length - 1]!.t, j.intervalMs / 1000);
  const at = (k: number): number => grid.from + k * grid.step;

  // The worst reading nearest each grid time; empty steps repeat the previous value.
  const cells: ({ v: number; bound: string | undefined } | undefined)[] = Array.from({ length: grid.count });
  for (const p of valued) {
    const k = Math.min(grid.count - 1, Math.max(0, Math.round((p.t - grid.from) / grid.step)));
    const cell = cells[k];
    if (!cell || worseFor(p.bound, p.v, cell.v)) cells[k] = { v: p.v, bound: p.bound };
  }
  let held = false;
  let previous = cells.find((c) => c !== undefined)!;
  const filled = cells.map((c) => {
    if (c) previous = c;
    else held = true;
    return previous;
  });

  const values = filled.map((c) => c.v);
  const limits = filled.map((c) => boundLimits(c.bound));
  const width = Math.max(...limits.map((l) => l.length));
  const boundSeries: { title: string; values: number[] }[] = [];
  const sliHeader = j.slis.find((s) => s.name === name);
  for (let k = 0; k < width; k++) {
    const title = width > 1 ? `bound ${k === 0 ? 'min' : 'max'}` : `bound ${sliHeader?.bound ?? ''}`.trim();
    boundSeries.push({ title, values: limits.map((l) => l[k] ?? l[0] ?? NaN) });
  }
  const aborts = j.abortRules
    .filter((r) => r.sli === name)
    .map((r) => ({
      title: `abort ${r.op === 'above' ? '>' : '<'} ${formatValue(r.threshold)}`,
      values: values.map(() => r.threshold),
    }));

  const everything = [
    ...values,
    ...boundSeries.flatMap((b) => b.values),
    ...aborts.map((a) => a.values[0]!),
  ].filter((v) => Number.isFinite(v));
  let lo = Math.min(...everything);
  let hi = Math.max(...everything);
  const pad = (hi - lo) * 0.05 || Math.abs(hi) * 0.05 || 1;
  lo -= pad;
  hi += pad;

  // The fault window: bars up to the top of the axis while the fault was on, none elsewhere.
  const faultFrom = j.timings.injectedAt;
  const faultEnd =
    j.timings.stoppedAt ?? j.events.find((e) => e.type === 'fault-ended' || e.type === 'stop-verified')?.at;
  const window =
    faultFrom === undefined
      ? undefined
      : {
          from: secondsFrom(origin, faultFrom),
          to: faultEnd === undefined ? at(grid.count - 1) : secondsFrom(origin, faultEnd),
        };
  const palette: string[] = [];
  const series: string[] = [];
  if (window) {
    palette.push(SERIES_COLOR.fault);
    const bars = values.map((_, k) => (at(k) >= window.from - 1e-9 && at(k) <= window.to + 1e-9 ? hi : lo));
    series.push(`  bar "fault window" [${bars.map((v) => mermaidNumber(v, 6)).join(', ')}]`);
  }
  palette.push(SERIES_COLOR.value);
  series.push(`  line "${mdChartLabel(name)}" [${values.map((v) => mermaidNumber(v)).join(', ')}]`);
  for (const b of boundSeries) {
    palette.push(SERIES_COLOR.bound);
    series.push(
      `  line "${mdChartLabel(b.title)}" [${b.values.map((v) => mermaidNumber(Number.isFinite(v) ? v : lo)).join(', ')}]`,
    );
  }
  for (const a of aborts) {
    palette.push(SERIES_COLOR.abort);
    series.push(`  line "${mdChartLabel(a.title)}" [${a.values.map((v) => mermaidNumber(v)).join(', ')}]`);
  }
  const init = JSON.stringify({ themeVariables: { xyChart: { plotColorPalette: palette.join(', ') } } });
  const legend = [
    ...(window
      ? [`shaded: the fault window (${formatOffset(window.from)} to ${formatOffset(window.to)})`]
      : []),
    `blue: ${mdText(name)}`,
    ...(boundSeries.length
      ? [
          `green: its bound (${sliHeader ? mdText(sliHeader.bound) : 'as measured'} during the fault${sliHeader && sliHeader.steadyBound !== sliHeader.bound ? `, ${mdText(sliHeader.steadyBound)} in the steady state and recovery` : ''})`,
        ]
      : []),
    ...aborts.map((a) => `red: ${mdText(a.title)} (abort threshold)`),
  ];
  return [
    '```mermaid',
    `%%{init: ${init}}%%`,
    'xychart-beta',
    `  title "${mdChartLabel(name)}"`,
    `  x-axis "seconds from ${origin.label}" ${mermaidNumber(grid.from)} --> ${mermaidNumber(at(grid.count - 1))}`,
    `  y-axis "${mdChartLabel(name)}" ${mermaidNumber(lo, 6)} --> ${mermaidNumber(hi, 6)}`,
    ...series,
    '```',
    '',
    `Time axis to scale: one point every ${formatSeconds(grid.step * 1000)} (the worst reading of each step${held ? '; a step without a reading repeats the previous value' : ''}). ${legend.join(' · ')}.`,
  ];
}

function table(j: Journal, sli: string, origin: TimeOrigin, points: Point[]): string[] {
  const status = (p: Point): string =>
    p.v.status === 'breach' && isSettling(j, p.m, sli) ? 'breach (settling, not judged)' : p.v.status;
  const rows = points.map(
    (p) =>
      `| ${offsetOf(origin, p.m)} | ${p.m.phase} | ${formatValue(p.v.value)} | ${status(p)} | ${mdCell(p.v.bound ?? '')} | ${formatValue(p.m.requests)} |`,
  );
  return ['| t (s) | phase | value | status | bound | requests |', '|---:|---|---:|---|---|---:|', ...rows];
}

function iso(at: number | undefined): string {
  return at === undefined ? '' : new Date(at).toISOString();
}

function timings(j: Journal, origin: TimeOrigin): string[] {
  const t = j.timings;
  const rel = (at: number | undefined): string =>
    at === undefined ? '' : formatOffset(secondsFrom(origin, at));
  const rows: [string, number | undefined][] = [
    ['started', t.startedAt],
    ['injected', t.injectedAt],
    ['first breach', judgementOf(j).firstBreach?.at],
    ['stop requested', t.stopRequestedAt],
    ['fault ended (FIS terminal)', t.stoppedAt],
    ['recovered', t.recoveredAt],
    ['finished', t.finishedAt],
  ];
  const out = [`| moment | time (UTC) | from ${origin.label} |`, '|---|---|---:|'];
  for (const [label, at] of rows) if (at !== undefined) out.push(`| ${label} | ${iso(at)} | ${rel(at)} |`);
  const latency = latencyRows(j);
  if (latency.length > 0) {
    out.push('', '| latency | figure |', '|---|---:|', ...latency.map(([k, v]) => `| ${k} | ${v} |`));
  }
  return out;
}

function experiment(j: Journal): string[] {
  const out: string[] = [];
  if (j.templateId) out.push(`- FIS template: ${mdCode(j.templateId)}`);
  if (j.experimentId) {
    const region = j.region;
    const link = region ? ` — [open in the FIS console](${fisConsoleUrl(region, j.experimentId)})` : '';
    out.push(`- FIS experiment: ${mdCode(j.experimentId)}${link}`);
  }
  const stopFailed = j.events.find((e) => e.type === 'stop-failed');
  const commands = stopFailed?.data?.manualCommands;
  if (Array.isArray(commands)) {
    const block = mdCodeBlock(commands.map((c) => String(c).replace(/\r\n|\r|\n/g, ' ')).join('\n'), 'sh');
    out.push('', '> [!CAUTION]', '> The stop was not verified. Stop the experiment by hand:', '>');
    for (const line of block.split('\n')) out.push(`> ${line}`);
  }
  return out;
}

function targets(j: Journal): string[] {
  if (!j.resolvedTargets || j.resolvedTargets.length === 0) return [];
  const out = [
    '### Blast radius',
    '',
    `${j.resolvedTargets.length} resolved target(s):`,
    '',
    '| target | ARN | tags |',
    '|---|---|---|',
  ];
  for (const t of j.resolvedTargets) {
    const tags = Object.entries(t.tags ?? {})
      .map(([k, v]) => `${k}=${v}`)
      .join(', ');
    out.push(`| ${mdCell(t.target)} | ${mdCode(t.arn)} | ${mdCell(tags)} |`);
  }
  return [...out, ''];
}

function budget(j: Journal): string[] {
  const b = j.budget;
  if (!b) return [];
  const out = [
    '### Error budget',
    '',
    '| figure | value |',
    '|---|---:|',
    `| objective | ${formatValue(b.objective)} over ${formatSeconds(b.windowMs)} |`,
    `| allowed bad events | ${formatValue(b.allowedBadEvents)} |`,
    `| service bad events (before) | ${formatValue(b.serviceBadEvents)} |`,
    `| chaos allowance | ${formatValue(b.chaosAllowance)} |`,
    `| chaos ledger spent (before) | ${formatValue(b.ledgerSpent)} |`,
  ];
  if (b.debit !== undefined) out.push(`| this run's debit | ${formatValue(b.debit)} |`);
  if (b.remainingAfter !== undefined) out.push(`| remaining after | ${formatValue(b.remainingAfter)} |`);
  return [...out, ''];
}

/** Dollars: cents for a cent or more, two significant digits below (a price per request). */
const usd = (x: number): string =>
  `$${x >= 0.01 || x === 0 ? x.toFixed(2) : String(Number(x.toPrecision(2)))}`;

/** The cost the engine estimated (journal `cost`), with the prices it used; nothing is recounted here. */
function cost(j: Journal): string[] {
  const c = j.cost;
  if (!c) return [];
  const calls = Object.values(c.calls).reduce((a, b) => a + b, 0);
  const out = [
    '### Estimated AWS cost',
    '',
    `About **${usd(c.totalUsd)}** for this run: ${c.fisActionMinutes} FIS action-minute(s), ${calls} AWS API call(s).`,
  ];
  if (c.lines.length > 0) out.push('', '| item | quantity | unit price | cost |', '|---|---:|---:|---:|');
  for (const l of c.lines)
    out.push(`| ${mdCell(l.item)} | ${l.quantity} ${mdCell(l.unit)} | ${usd(l.unitUsd)} | ${usd(l.usd)} |`);
  out.push(
    '',
    `List prices for ${mdCell(c.prices.region)} read ${mdCell(c.prices.asOf)} (${mdCell(c.prices.source)}); free tiers not applied. FIS API calls are not billed.`,
    '',
  );
  return out;
}

function trace(events: JournalEvent[], origin: TimeOrigin): string[] {
  const out = ['<details><summary>Event trace</summary>', '', '| time | event | message |', '|---|---|---|'];
  for (const e of events) {
    out.push(`| ${formatOffset(secondsFrom(origin, e.at))} | ${e.type} | ${mdCell(e.message)} |`);
  }
  return [...out, '', '</details>', ''];
}

function expectations(j: Journal): string[] {
  const rows = expectationRows(j);
  if (rows.length === 0) return [];
  const out = ['### Expectations', '', '| expectation | judged |', '|---|---|'];
  for (const [k, v] of rows) out.push(`| ${mdCell(k)} | ${mdCell(v)} |`);
  return [...out, ''];
}

/** Renders the job summary for a journal (complete or a crashed prefix). */
export function renderSummary(j: Journal): string {
  const verdict = j.verdict;
  const head = verdict ? HEADLINE[verdict] : '⚠️ unfinished';
  const out: string[] = [`## ${head} — ${mdText(j.title)}`, ''];
  out.push(
    `**Plan** ${mdCode(j.planId)} · **service** ${mdText(j.service)} · **environment** ${mdText(j.environment)} · **run** ${mdCode(j.runId)}`,
    '',
  );
  if (!j.complete) {
    out.push(
      '> [!WARNING]',
      '> This journal has no final record: the run was killed or crashed. Below is what was recorded until then.',
      '',
    );
  }
  if (j.reason) out.push(`**Reason:** ${mdText(j.reason)}`, '');
  if (j.exitCode !== null) out.push(`Exit code ${j.exitCode}.`, '');
  out.push(...experiment(j), '');

  // Every time below is on this one clock (see `timeOrigin`); charts, tables and the trace agree.
  const origin = timeOrigin(j);
  const measured = j.measurements;
  if (measured.length > 0) {
    out.push('### SLIs over time', '', clockNote(j), '');
    for (const sli of j.slis) {
      // A long run's journal keeps a sample: its chart is drawn from the summary's min/max buckets.
      const summarized = summaryReadings(j, sli.name);
      const points =
        summarized ??
        measured.flatMap((m) => (m.slis[sli.name] ? [{ m, v: m.slis[sli.name] as SliValue }] : []));
      if (points.length === 0) continue;
      const shown = downsample(points, MAX_CHART_POINTS);
      const note = summarized
        ? ` (drawn from ${resolutionText(j) ?? 'the summary'}; the table shows ${shown.length} of those readings, the worst of each interval)`
        : shown.length < points.length
          ? ` (${shown.length} of ${points.length} measurements shown, worst of each interval)`
          : '';
      out.push(
        `#### ${mdText(sli.name)}`,
        '',
        `Bound ${mdText(sli.bound)} during the fault, ${mdText(sli.steadyBound)} in the steady state and recovery${note}.`,
        '',
      );
      out.push(...chart(j, origin, sli.name, points), '');
      out.push(
        '<details><summary>Table</summary>',
        '',
        ...table(j, sli.name, origin, shown),
        '',
        '</details>',
        '',
      );
    }
  }
  const judged = sliTable(j);
  if (judged) {
    out.push(
      '### Judgement',
      '',
      'Counts during the fault are against the fault bound from each SLI’s settle time on; recovery readings against the steady bound.',
      '',
      judged,
      '',
    );
  }
  out.push(...expectations(j));
  if (j.abortRules.length > 0) {
    out.push('### Abort rules', '', '| SLI | threshold | for | measurements |', '|---|---|---:|---:|');
    for (const r of j.abortRules) {
      out.push(
        `| ${mdCell(r.sli)} | ${r.op} ${formatValue(r.threshold)} | ${formatSeconds(r.forMs)} | ${r.count} |`,
      );
    }
    out.push('');
  }
  out.push('### Timings', '', ...timings(j, origin), '');
  out.push(...targets(j), ...budget(j), ...cost(j));
  const body = [...out, ...trace(j.events, origin)].join('\n');
  if (Buffer.byteLength(body) <= MAX_SUMMARY_BYTES) return body;
  return [
    ...out,
    '> [!NOTE]',
    `> The event trace was left out: the summary would exceed GitHub's ${MAX_SUMMARY_BYTES} bytes.`,
    '',
  ].join('\n');
}
