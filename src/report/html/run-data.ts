/** A run journal as replay data: each SLI against its bounds over time, on the journal's one clock. */
import { secondsFrom, timeOrigin } from '../../journal/format.js';
import type { Journal } from '../../journal/types.js';
import { judgementOf } from '../../journal/judgement.js';
import { latencyRows, resolutionText, sliRows, summaryReadings } from '../common.js';
import type { ReplayData, ReplayPanel, ReplayPoint, ReplayReadout } from './types.js';

/** The numbers in a bound string as written by the engine: `<= 0.18`, `>= 0.998`, `in [40, 60]`. */
export function boundValues(bound: string | undefined): { op: '<=' | '>=' | 'in'; values: number[] } | null {
  if (!bound) return null;
  const text = bound.trim();
  const between = /^in\s*\[\s*([-+0-9.eE]+)\s*,\s*([-+0-9.eE]+)\s*\]$/.exec(text);
  if (between) return { op: 'in', values: [Number(between[1]), Number(between[2])] };
  const single = /^(<=|>=|<|>|≤|≥)\s*([-+0-9.eE]+)$/.exec(text);
  if (!single) return null;
  const op = single[1] === '<=' || single[1] === '<' || single[1] === '≤' ? '<=' : '>=';
  return { op, values: [Number(single[2])] };
}

function secondsLabel(s: number): string {
  return `${s >= 0 ? '+' : ''}${Number(s.toFixed(1))} s`;
}

/** Builds the replay of a run. Times are seconds on the clock every report shares (`timeOrigin`). */
export function journalReplayData(journal: Journal): ReplayData {
  const origin = timeOrigin(journal);
  const sec = (at: number): number => secondsFrom(origin, at);

  const names = journal.slis.map((s) => s.name);
  for (const m of journal.measurements)
    for (const name of Object.keys(m.slis)) if (!names.includes(name)) names.push(name);

  const times = [...journal.measurements.map((m) => sec(m.at)), ...journal.events.map((e) => sec(e.at))];
  const start = times.length ? Math.min(...times) : 0;
  let end = times.length ? Math.max(...times) : 1;
  if (end <= start) end = start + 1;

  const faultFrom = journal.timings.injectedAt;
  const faultTo =
    journal.timings.stoppedAt ??
    journal.events.find((e) => e.type === 'fault-ended' || e.type === 'stop-verified')?.at;
  const bands =
    faultFrom === undefined
      ? []
      : [{ from: sec(faultFrom), to: faultTo === undefined ? end : sec(faultTo), label: 'fault' }];

  const panels: ReplayPanel[] = [];
  const readouts: ReplayReadout[] = [];
  names.forEach((name) => {
    const header = journal.slis.find((s) => s.name === name);
    const points: ReplayPoint[] = [];
    // A long run's journal keeps a sample: its panels are drawn from the summary's min/max buckets.
    const summarized = summaryReadings(journal, name);
    if (summarized) for (const r of summarized) points.push([sec(r.m.at), r.v.value, r.v.status]);
    else
      for (const m of journal.measurements) {
        const v = m.slis[name];
        if (v) points.push([sec(m.at), v.value, v.status]);
      }
    const bounds: ReplayPanel['bounds'] = [];
    const hypothesis = boundValues(header?.bound);
    for (const value of hypothesis?.values ?? [])
      bounds.push({ label: `bound ${header?.bound}`, value, cls: 'bound-h' });
    if (header && header.steadyBound !== header.bound) {
      for (const value of boundValues(header.steadyBound)?.values ?? []) {
        bounds.push({ label: `steady ${header.steadyBound}`, value, cls: 'bound-s' });
      }
    }
    for (const rule of journal.abortRules.filter((r) => r.sli === name)) {
      bounds.push({
        label: `abort ${rule.op === 'above' ? '>' : '<'} ${rule.threshold} ×${rule.count}`,
        value: rule.threshold,
        cls: 'abort',
      });
    }
    const magnitude = Math.max(0, ...points.map((p) => Math.abs(p[1] ?? 0)));
    const decimals = magnitude >= 100 ? 1 : magnitude >= 1 ? 3 : 4;
    panels.push({
      id: slug(name),
      title: name,
      unit: '',
      series: [{ name, cls: 's0', points }],
      bounds,
      bands,
    });
    readouts.push({ id: slug(name), label: name, unit: '', decimals, points });
  });
  const requests = journal.summary?.series.find((s) => s.kind === 'requests');
  if (summaryReadings(journal, '') !== undefined && requests) {
    // The request counts of a long run: each bucket's lowest count (a dip in traffic is what matters).
    readouts.push({
      id: 'requests',
      label: 'requests in the window (lowest per bucket)',
      unit: '',
      decimals: 0,
      points: requests.buckets.map((b) => [sec(b[0]), b[2]]),
    });
  } else if (journal.measurements.some((m) => m.requests !== null)) {
    readouts.push({
      id: 'requests',
      label: 'requests in the window',
      unit: '',
      decimals: 0,
      points: journal.measurements.map((m) => [sec(m.at), m.requests]),
    });
  }

  const t = journal.timings;
  const first = judgementOf(journal).firstBreach;
  // The moments every chart marks, on the same clock as the points (first breach, stop, recovery…).
  const marked: [string, string, number | undefined][] = [
    ['injected', 'injection', t.injectedAt],
    ['first-breach', 'first breach', first?.at],
    ['stop-requested', 'stop requested', t.stopRequestedAt],
    ['stopped', 'stopped', t.stoppedAt],
    ['recovered', 'recovered', t.recoveredAt],
  ];
  const markers = marked.flatMap(([id, label, at]) => (at === undefined ? [] : [{ id, label, t: sec(at) }]));
  const rel = (at: number | undefined): string => (at === undefined ? '—' : secondsLabel(sec(at)));
  const metrics: ReplayData['metrics'] = [
    {
      id: 'verdict',
      label: 'verdict',
      value: journal.verdict ?? 'unfinished',
      ok: journal.verdict === 'held',
    },
    {
      id: 'exit-code',
      label: 'exit code',
      value: journal.exitCode === null ? '—' : String(journal.exitCode),
      ok: null,
    },
    { id: 'experiment', label: 'FIS experiment', value: journal.experimentId ?? '—', ok: null },
    { id: 'injected', label: 'injected', value: rel(t.injectedAt), ok: null },
    {
      id: 'first-breach',
      label: first ? `first breach (${first.sli})` : 'first breach',
      value: rel(first?.at),
      ok: first === undefined,
    },
    { id: 'stop-requested', label: 'stop requested', value: rel(t.stopRequestedAt), ok: null },
    { id: 'stopped', label: 'stopped', value: rel(t.stoppedAt), ok: null },
    { id: 'recovered', label: 'recovered', value: rel(t.recoveredAt), ok: null },
    {
      id: 'measurements',
      label: 'measurements',
      value: String(journal.summary?.measurements ?? journal.measurements.length),
      ok: null,
    },
  ];
  const resolution = resolutionText(journal);
  if (resolution) metrics.push({ id: 'resolution', label: 'charts show', value: resolution, ok: null });
  // The judgement's own cells (src/report/common.ts `sliRows`), never a recount of the points above.
  for (const r of sliRows(journal)) {
    const id = slug(r.name);
    const held = r.sli.held;
    const row = (key: string, label: string, value: string, ok: boolean | null): void => {
      if (value !== '—') metrics.push({ id: `${id}-${key}`, label: `${r.label} ${label}`, value, ok });
    };
    row('outside', `outside ${r.bound}`, r.outside, held === null ? null : held && r.counts?.outside === 0);
    row('tolerated', 'tolerated', r.tolerated, held);
    row('first', 'first outside', r.first, null);
    row('worst', 'worst', r.worst, null);
    row('no-data', 'no data', r.noData, r.noData === '0');
    row('settling', 'settling (not judged)', r.settling, null);
    row('recovery', 'recovery (steady bound)', r.recovery, null);
  }
  for (const [label, value] of latencyRows(journal)) {
    metrics.push({ id: `latency-${slug(label)}`, label, value, ok: null });
  }
  if (journal.budget?.debit !== undefined) {
    metrics.push({
      id: 'budget-debit',
      label: 'budget debit (bad events)',
      value: String(journal.budget.debit),
      ok: null,
    });
  }

  return {
    kind: 'run',
    markers,
    title: `${journal.title} — ${journal.planId}`,
    subtitle: `${journal.service} · ${journal.environment} · run ${journal.runId} · started ${new Date(journal.startedAt).toISOString()} · times in seconds from ${origin.label}${journal.complete ? '' : ' · INCOMPLETE journal (crash prefix)'}`,
    start,
    end,
    events: journal.events
      .map((e) => ({ t: sec(e.at), type: e.type, message: e.message }))
      .sort((a, b) => a.t - b.t),
    panels,
    readouts,
    verdict: {
      label: journal.verdict ?? 'unfinished',
      ok: journal.verdict === null ? null : journal.verdict === 'held',
      reason: journal.reason ?? '',
    },
    metrics,
  };
}

function slug(name: string): string {
  return (
    name
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-|-$/g, '') || 'sli'
  );
}
