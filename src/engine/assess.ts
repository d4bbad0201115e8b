/**
 * The verdict, as a pure function of what the journal recorded. The engine records its decisions as
 * events (abort, stop-failed, FIS state, recovery); the measurements say whether bounds held and
 * expectations were seen. The worst verdict wins, and blindness never passes.
 */
import type { JournalEvent, Measurement, SliValue, Timings, Verdict } from '../journal/types.js';
import { formatOffset, formatSeconds, formatValue } from '../journal/format.js';

/** Worst first. `refused`/`not-run` happen before injection, so they rank after only `failed`. */
export const VERDICT_ORDER: readonly Verdict[] = [
  'failed',
  'refused',
  'not-run',
  'aborted',
  'deviated',
  'inconclusive',
  'held',
];

export interface AssessInput {
  slis: readonly { name: string; during: boolean }[];
  expectations: readonly { name: string; withinMs: number }[];
  measurements: readonly Measurement[];
  events: readonly JournalEvent[];
  timings: Timings;
}

export interface Assessment {
  verdict: Verdict;
  reason: string;
}

interface Candidate extends Assessment {
  at: number;
  /** Decided by the engine and journaled as an event: preferred over what measurements imply. */
  explicit?: boolean;
}

/** `<= 0.18` → `0.25 > 0.18`; `>= 0.998` → `0.99 < 0.998`; `in [a, b]` → `35 outside [a, b]`. */
export function violationText(value: number | null, bound: string | undefined): string {
  const v = formatValue(value);
  if (!bound) return v;
  if (bound.startsWith('<= ')) return `${v} > ${bound.slice(3)}`;
  if (bound.startsWith('>= ')) return `${v} < ${bound.slice(3)}`;
  if (bound.startsWith('in ')) return `${v} outside ${bound.slice(3)}`;
  return `${v} (bound ${bound})`;
}

function offset(at: number, injectedAt: number | undefined): string {
  return injectedAt === undefined ? '' : ` (${formatOffset((at - injectedAt) / 1000)})`;
}

function fromEvents(events: readonly JournalEvent[]): Candidate[] {
  const out: Candidate[] = [];
  for (const e of events) {
    const d = e.data ?? {};
    if (e.type === 'refused') out.push({ verdict: 'refused', reason: e.message, at: e.at });
    else if (e.type === 'not-run') out.push({ verdict: 'not-run', reason: e.message, at: e.at });
    else if (e.type === 'stop-failed') out.push({ verdict: 'failed', reason: e.message, at: e.at });
    else if (e.type === 'error' && d.fatal === true)
      out.push({ verdict: 'failed', reason: e.message, at: e.at });
    else if (e.type === 'experiment-state' && d.status === 'failed')
      out.push({ verdict: 'failed', reason: e.message, at: e.at });
    else if (e.type === 'abort')
      out.push({
        verdict: d.verdict === 'inconclusive' ? 'inconclusive' : 'aborted',
        reason: e.message,
        at: e.at,
      });
    else if (e.type === 'recovery' && d.recovered === false)
      out.push({ verdict: d.blind === true ? 'inconclusive' : 'deviated', reason: e.message, at: e.at });
  }
  return out.map((c) => ({ ...c, explicit: true }));
}

function fromMeasurements(input: AssessInput, injectedAt: number): Candidate[] {
  const out: Candidate[] = [];
  const fault = input.measurements.filter((m) => m.phase === 'fault');
  const during = input.slis.filter((s) => s.during).map((s) => s.name);
  if (fault.length === 0) {
    out.push({
      verdict: 'inconclusive',
      reason: 'no measurement was taken while the fault was on',
      at: injectedAt,
    });
    return out;
  }
  for (const name of during) {
    const values = fault
      .map((m) => [m, m.slis[name]] as const)
      .filter((p): p is [Measurement, SliValue] => !!p[1]);
    const breaches = values.filter(([, v]) => v.status === 'breach');
    const first = breaches[0];
    if (first) {
      const [m, v] = first;
      out.push({
        verdict: 'deviated',
        reason:
          `${name} ${violationText(v.value, v.bound)}${offset(m.at, injectedAt)}; ` +
          `${breaches.length} of ${fault.length} measurements during the fault outside the bound`,
        at: m.at,
      });
    }
    const blind = values.filter(([, v]) => v.status === 'no-data' || v.status === 'error');
    const firstBlind = blind[0];
    const missing = fault.length - values.length;
    if (firstBlind || missing > 0) {
      const count = blind.length + missing;
      const detail = firstBlind
        ? `, first${offset(firstBlind[0].at, injectedAt)}: ${firstBlind[1].error ?? firstBlind[1].status}`
        : '';
      out.push({
        verdict: 'inconclusive',
        reason: `${name} had no data in ${count} of ${fault.length} measurements during the fault${detail}`,
        at: firstBlind ? firstBlind[0].at : injectedAt,
      });
    }
  }
  for (const e of input.expectations) {
    const seen = fault.find((m) => m.expect?.[e.name]?.status === 'ok');
    const seenAfter = seen ? seen.at - injectedAt : undefined;
    // Not seen while its readings were blind is not evidence that it did not happen: inconclusive.
    const blindInWindow = fault.some((m) => {
      const v = m.expect?.[e.name];
      return m.at - injectedAt <= e.withinMs && (!v || v.status === 'no-data' || v.status === 'error');
    });
    // Nor is it when the gate itself stopped the fault before `within` was over.
    const cutShort = input.events.find((x) => x.type === 'abort' && x.at - injectedAt < e.withinMs);
    if (seenAfter === undefined && blindInWindow) {
      out.push({
        verdict: 'inconclusive',
        reason: `expectation ${e.name} not observed, and it had no data during its first ${formatSeconds(e.withinMs)} after injection`,
        at: injectedAt + e.withinMs,
      });
    } else if (seenAfter === undefined && cutShort) {
      out.push({
        verdict: 'inconclusive',
        reason: `expectation ${e.name} not observed before the fault was stopped${offset(cutShort.at, injectedAt)}, within its first ${formatSeconds(e.withinMs)}`,
        at: injectedAt + e.withinMs,
      });
    } else if (seenAfter === undefined || seenAfter > e.withinMs) {
      const best = fault
        .map((m) => m.expect?.[e.name]?.value)
        .filter((v): v is number => typeof v === 'number');
      const bound = fault.find((m) => m.expect?.[e.name])?.expect?.[e.name]?.bound;
      const what =
        seenAfter === undefined
          ? `not observed (${bound ?? 'condition'} never met in ${fault.length} measurements` +
            (best.length > 0
              ? `, values ${formatValue(Math.min(...best))}..${formatValue(Math.max(...best))})`
              : ', no data)')
          : `observed only at ${formatOffset(seenAfter / 1000)}`;
      out.push({
        verdict: 'deviated',
        reason: `expectation ${e.name} ${what}; expected within ${formatSeconds(e.withinMs)} of injection`,
        at: injectedAt + e.withinMs,
      });
    }
  }
  return out;
}

function pick(candidates: Candidate[]): Candidate | undefined {
  const rank = (v: Verdict): number => VERDICT_ORDER.indexOf(v);
  const explicit = (c: Candidate): number => (c.explicit ? 0 : 1);
  return [...candidates].sort(
    (a, b) => rank(a.verdict) - rank(b.verdict) || explicit(a) - explicit(b) || a.at - b.at,
  )[0];
}

/** Assesses a run into one of the seven verdicts with a reason that quotes the numbers. */
export function assess(input: AssessInput): Assessment {
  const candidates = fromEvents(input.events);
  const injectedAt = input.timings.injectedAt;
  if (injectedAt === undefined) {
    const worst = pick(candidates);
    if (worst) return { verdict: worst.verdict, reason: worst.reason };
    return { verdict: 'failed', reason: 'the run ended before injection without a decision' };
  }
  candidates.push(...fromMeasurements(input, injectedAt));
  const injected = input.events.some((e) => e.type === 'experiment-state' && e.data?.injected === true);
  if (!injected) {
    candidates.push({
      verdict: 'inconclusive',
      reason: 'FIS never reported an action running: no evidence that the fault was injected',
      at: injectedAt,
    });
  }
  const recovery = input.events.find((e) => e.type === 'recovery');
  if (!recovery) {
    candidates.push({ verdict: 'inconclusive', reason: 'recovery was not measured', at: injectedAt });
  }
  const worst = pick(candidates);
  if (worst) return { verdict: worst.verdict, reason: worst.reason };

  const fault = input.measurements.filter((m) => m.phase === 'fault');
  const seen = input.expectations.map((e) => {
    const m = fault.find((x) => x.expect?.[e.name]?.status === 'ok');
    return m ? `${e.name} observed at ${formatOffset((m.at - injectedAt) / 1000)}` : e.name;
  });
  const recoveredIn =
    input.timings.recoveredAt !== undefined && input.timings.stoppedAt !== undefined
      ? `recovered ${formatSeconds(input.timings.recoveredAt - input.timings.stoppedAt)} after the fault ended`
      : 'recovered';
  return {
    verdict: 'held',
    reason: [
      `every SLI within its bound in ${fault.length} measurements during the fault`,
      ...seen,
      recoveredIn,
    ].join('; '),
  };
}
