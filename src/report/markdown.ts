/**
 * The job summary: a pure function of the journal. Verdict, reason, one Mermaid chart per SLI against
 * its bound (with a table fallback), timings, the FIS experiment, targets, budget and the event trace.
 */
import type { Journal, JournalEvent, Measurement, SliValue, Verdict } from '../journal/types.js';
import { formatOffset, formatSeconds, formatValue } from '../journal/format.js';

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

function offsetOf(m: Measurement): string {
  return formatOffset(m.t ?? 0).replace(' s', '');
}

function escapeCell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\n/g, ' ');
}

function chart(name: string, bound: string, points: Point[]): string[] {
  const valued = points.filter((p) => p.v.value !== null && Number.isFinite(p.v.value));
  if (valued.length === 0) return [`_${name}: no values to chart._`];
  const labels = valued.map((p) => `"${offsetOf(p.m)}"`).join(', ');
  const values = valued.map((p) => formatValue(p.v.value)).join(', ');
  const lines = [
    '```mermaid',
    'xychart-beta',
    `  title "${name} (bound ${bound})"`,
    `  x-axis "seconds since injection" [${labels}]`,
    `  y-axis "${name}"`,
    `  line [${values}]`,
  ];
  // The bound as drawn lines: per point, because the steady-state bound is tighter than the fault bound.
  const limits = valued.map((p) => boundLimits(p.v.bound));
  const width = Math.max(...limits.map((l) => l.length));
  for (let k = 0; k < width; k++) {
    lines.push(`  line [${limits.map((l) => formatValue(l[k] ?? l[0] ?? 0)).join(', ')}]`);
  }
  lines.push('```');
  return lines;
}

function table(points: Point[]): string[] {
  const rows = points.map(
    (p) =>
      `| ${offsetOf(p.m)} | ${p.m.phase} | ${formatValue(p.v.value)} | ${p.v.status} | ${escapeCell(p.v.bound ?? '')} | ${formatValue(p.m.requests)} |`,
  );
  return ['| t (s) | phase | value | status | bound | requests |', '|---:|---|---:|---|---|---:|', ...rows];
}

function iso(at: number | undefined): string {
  return at === undefined ? '' : new Date(at).toISOString();
}

function timings(j: Journal): string[] {
  const t = j.timings;
  const rel = (at: number | undefined): string =>
    at === undefined || t.injectedAt === undefined ? '' : formatOffset((at - t.injectedAt) / 1000);
  const rows: [string, number | undefined][] = [
    ['started', t.startedAt],
    ['injected', t.injectedAt],
    ['first breach', t.firstBreachAt],
    ['stop requested', t.stopRequestedAt],
    ['fault ended (FIS terminal)', t.stoppedAt],
    ['recovered', t.recoveredAt],
    ['finished', t.finishedAt],
  ];
  const out = ['| moment | time (UTC) | since injection |', '|---|---|---:|'];
  for (const [label, at] of rows) if (at !== undefined) out.push(`| ${label} | ${iso(at)} | ${rel(at)} |`);
  if (
    t.firstBreachAt !== undefined &&
    t.stopRequestedAt !== undefined &&
    t.stopRequestedAt >= t.firstBreachAt
  ) {
    out.push('', `Breach to stop request: ${formatSeconds(t.stopRequestedAt - t.firstBreachAt)}.`);
  }
  return out;
}

function experiment(j: Journal): string[] {
  const out: string[] = [];
  if (j.templateId) out.push(`- FIS template: \`${j.templateId}\``);
  if (j.experimentId) {
    const region = j.region;
    const link = region
      ? ` — [open in the FIS console](https://${region}.console.aws.amazon.com/fis/home?region=${region}#ExperimentDetails:ExperimentId=${j.experimentId})`
      : '';
    out.push(`- FIS experiment: \`${j.experimentId}\`${link}`);
  }
  const stopFailed = j.events.find((e) => e.type === 'stop-failed');
  const commands = stopFailed?.data?.manualCommands;
  if (Array.isArray(commands)) {
    out.push('', '> [!CAUTION]', '> The stop was not verified. Stop the experiment by hand:', '>', '> ```sh');
    for (const c of commands) out.push(`> ${String(c)}`);
    out.push('> ```');
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
    out.push(`| ${escapeCell(t.target)} | \`${t.arn}\` | ${escapeCell(tags)} |`);
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

function trace(events: JournalEvent[], injectedAt: number | undefined): string[] {
  const out = ['<details><summary>Event trace</summary>', '', '| time | event | message |', '|---|---|---|'];
  for (const e of events) {
    const when = injectedAt === undefined ? iso(e.at) : formatOffset((e.at - injectedAt) / 1000);
    out.push(`| ${when} | ${e.type} | ${escapeCell(e.message)} |`);
  }
  return [...out, '', '</details>', ''];
}

function expectations(j: Journal): string[] {
  const list = j.expectations ?? [];
  if (list.length === 0) return [];
  const out = [
    '### Expectations',
    '',
    '| expectation | condition | within | first seen |',
    '|---|---|---:|---:|',
  ];
  for (const e of list) {
    const seen = j.measurements.find((m) => m.phase === 'fault' && m.expect?.[e.name]?.status === 'ok');
    out.push(
      `| ${e.name} | ${e.bound} | ${formatSeconds(e.withinMs)} | ${seen ? offsetOf(seen) + ' s' : 'not seen'} |`,
    );
  }
  return [...out, ''];
}

/** Renders the job summary for a journal (complete or a crashed prefix). */
export function renderSummary(j: Journal): string {
  const verdict = j.verdict;
  const head = verdict ? HEADLINE[verdict] : '⚠️ unfinished';
  const out: string[] = [`## ${head} — ${escapeCell(j.title)}`, ''];
  out.push(
    `**Plan** \`${j.planId}\` · **service** ${j.service} · **environment** ${j.environment} · **run** \`${j.runId}\``,
    '',
  );
  if (!j.complete) {
    out.push(
      '> [!WARNING]',
      '> This journal has no final record: the run was killed or crashed. Below is what was recorded until then.',
      '',
    );
  }
  if (j.reason) out.push(`**Reason:** ${j.reason}`, '');
  if (j.exitCode !== null) out.push(`Exit code ${j.exitCode}.`, '');
  out.push(...experiment(j), '');

  const measured = j.measurements;
  if (measured.length > 0) {
    out.push('### SLIs over time', '');
    for (const sli of j.slis) {
      const points = measured.flatMap((m) =>
        m.slis[sli.name] ? [{ m, v: m.slis[sli.name] as SliValue }] : [],
      );
      if (points.length === 0) continue;
      const shown = downsample(points, MAX_CHART_POINTS);
      const note =
        shown.length < points.length
          ? ` (${shown.length} of ${points.length} measurements shown, worst of each interval)`
          : '';
      out.push(
        `#### ${sli.name}`,
        '',
        `Bound ${sli.bound} during the fault, ${sli.steadyBound} in the steady state and recovery${note}.`,
        '',
      );
      out.push(...chart(sli.name, sli.bound, shown), '');
      out.push('<details><summary>Table</summary>', '', ...table(shown), '', '</details>', '');
    }
  }
  out.push(...expectations(j));
  if (j.abortRules.length > 0) {
    out.push('### Abort rules', '', '| SLI | threshold | for | measurements |', '|---|---|---:|---:|');
    for (const r of j.abortRules) {
      out.push(`| ${r.sli} | ${r.op} ${formatValue(r.threshold)} | ${formatSeconds(r.forMs)} | ${r.count} |`);
    }
    out.push('');
  }
  out.push('### Timings', '', ...timings(j), '');
  out.push(...targets(j), ...budget(j));
  const body = [...out, ...trace(j.events, j.timings.injectedAt)].join('\n');
  if (Buffer.byteLength(body) <= MAX_SUMMARY_BYTES) return body;
  return [
    ...out,
    '> [!NOTE]',
    `> The event trace was left out: the summary would exceed GitHub's ${MAX_SUMMARY_BYTES} bytes.`,
    '',
  ].join('\n');
}
