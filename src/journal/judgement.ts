/**
 * The one judgement of a run: the verdict, its reason and every number behind them, computed once from
 * what the journal recorded. The engine writes it into the journal when the run finishes; every report
 * renders it and never recounts. A journal written before judgements existed (or a crashed prefix) gets
 * one computed here on read, by the same function, so an old journal reads the same way a new one does.
 *
 * The hypothesis, per SLI that is judged during the fault:
 * - readings taken less than `settle` after the injection are *settling*: journaled and shown, not held
 *   to the fault bound (abort rules still apply to them — that is the engine's observe loop);
 * - from `settle` on (a reading taken exactly `settle` after the injection is judged), each reading is
 *   within or outside the fault bound; the SLI holds when the outside readings are no more than its
 *   tolerance allows (`outside` readings, or `share` of the judged readings, whichever is smaller) and
 *   no run of consecutive outside readings is longer than `consecutive`. Strict (the default) is settle
 *   0 and tolerance 0: one reading outside deviates.
 * - a reading with no data is never within and never tolerated: it counts toward inconclusive.
 *
 * Recovery readings are held to the steady bound (the system is back when it is back to its steady
 * state); they are counted per SLI under `recovery`, never mixed with the fault's counts.
 */
import type {
  ActionJudgement,
  ExpectationJudgement,
  ExpectationStatus,
  Journal,
  JournalEvent,
  JudgedSli,
  JudgeInput,
  Judgement,
  LatencyFigures,
  Measurement,
  PhaseCounts,
  ReadingPoint,
  SliJudgement,
  SliValue,
  Timings,
  Tolerance,
  Verdict,
} from './types.js';
import { formatOffset, formatSeconds, formatValue, timeOrigin } from './format.js';
import { allMeasurements } from './columns.js';

// The judgement's shape is part of the journal's (types.ts); re-exported for the modules that judge.
export type {
  Tolerance,
  JudgedSli,
  JudgeInput,
  ReadingPoint,
  PhaseCounts,
  SliJudgement,
  ExpectationStatus,
  ExpectationJudgement,
  LatencyFigures,
  ActionJudgement,
  Judgement,
} from './types.js';

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

/** How many fault readings outside the bound a hypothesis forgives (the plan's `tolerance`). */
/** A judge input whose measurements are any sequence. */
export type StreamInput = JudgeInput<Iterable<Measurement>>;
/** Labels of the latency figures, the same in every report. */
export const LATENCY_LABELS: Record<keyof LatencyFigures, string> = {
  tripToStopRequestMs: 'abort rule tripped → stop requested',
  breachToStopRequestMs: 'first breach → stop requested',
  stopRequestToStoppedMs: 'stop requested → FIS ended',
  breachToStoppedMs: 'first breach → FIS ended',
};

interface Candidate {
  verdict: Verdict;
  reason: string;
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

/** The direction a bound string points: `<= x` wants low values, `>= x` high ones. */
function direction(bound: string): 'max' | 'min' | 'range' {
  if (bound.startsWith('<=')) return 'max';
  if (bound.startsWith('>=')) return 'min';
  return 'range';
}

/** How far a value lies on the wrong side of a bound (larger is worse). */
function badness(bound: string, value: number): number {
  const dir = direction(bound);
  if (dir === 'max') return value;
  if (dir === 'min') return -value;
  const m = /^in \[(.+), (.+)\]$/.exec(bound);
  const lo = Number(m?.[1]);
  const hi = Number(m?.[2]);
  if (!Number.isFinite(lo) || !Number.isFinite(hi)) return Math.abs(value);
  return Math.max(lo - value, value - hi);
}

/** Outside readings the tolerance allows among `judged` readings: the smaller of its limits, 0 if none. */
export function allowedOutside(tolerance: Tolerance, judged: number): number {
  const limits: number[] = [];
  if (tolerance.outside !== undefined) limits.push(tolerance.outside);
  if (tolerance.share !== undefined) limits.push(Math.floor(tolerance.share * judged + 1e-9));
  return limits.length === 0 ? 0 : Math.min(...limits);
}

/** `at most 2, at most 5 %, at most 1 in a row`, or `strict`: the declared tolerance in words. */
export function toleranceText(t: Tolerance): string {
  // `outside: 0` (or a share of 0) says in so many words what the default is.
  if ((t.outside ?? 0) === 0 && (t.share ?? 0) === 0 && t.consecutive === undefined) return 'strict';
  const parts: string[] = [];
  if (t.outside !== undefined) parts.push(`at most ${t.outside}`);
  if (t.share !== undefined) parts.push(`at most ${formatValue(t.share * 100)} %`);
  if (t.consecutive !== undefined) parts.push(`at most ${t.consecutive} in a row`);
  return parts.length === 0 ? 'strict' : parts.join(', ');
}

function blindValue(v: SliValue | undefined): boolean {
  return !v || v.status === 'no-data' || v.status === 'error' || v.value === null;
}

/**
 * Counts one SLI's readings in one phase against the status the engine recorded, a measurement at a
 * time. The engine records each reading's status against the bound of its phase (the fault bound during
 * the fault, the steady bound before and after), so no bound is re-evaluated here.
 */
class PhaseCounter {
  readonly c: PhaseCounts;
  private run = 0;
  private worstBad = -Infinity;
  private extremeBad = -Infinity;

  /** `boundOf`: the phase's bound, for readings that do not record their own. */
  constructor(
    private readonly boundOf: () => string,
    private readonly offsetOf: (at: number) => number,
  ) {
    this.c = emptyCounts('');
  }

  add(m: Measurement, v: SliValue | undefined): void {
    const c = this.c;
    c.measured++;
    if (!blindValue(v) && v && v.value !== null && Number.isFinite(v.value)) {
      const bad = badness(v.bound ?? this.boundOf(), v.value);
      if (bad > this.extremeBad) {
        this.extremeBad = bad;
        c.extreme = { at: m.at, offsetMs: this.offsetOf(m.at), value: v.value };
      }
    }
    if (blindValue(v)) {
      c.noData++;
      // A measurement without the SLI at all counts, but only a reading says why it had none.
      if (v)
        c.firstNoData ??= {
          at: m.at,
          offsetMs: this.offsetOf(m.at),
          value: null,
          error: v.error ?? v.status,
        };
      return;
    }
    if (v?.status === 'breach') {
      c.outside++;
      this.run++;
      c.longestRun = Math.max(c.longestRun, this.run);
      const point = { at: m.at, offsetMs: this.offsetOf(m.at), value: v.value };
      c.first ??= point;
      const bad = badness(v.bound ?? this.boundOf(), v.value ?? 0);
      if (bad > this.worstBad) {
        this.worstBad = bad;
        c.worst = point;
      }
    } else {
      c.within++;
      this.run = 0;
    }
  }
}

/** Per SLI, the counters of each phase (the fault split into settling and judged readings). */
interface SliCounters {
  steady?: PhaseCounter;
  settling?: PhaseCounter;
  fault?: PhaseCounter;
  recovery?: PhaseCounter;
  /** The bound the first fault reading recorded, for SLIs whose header gives none. */
  firstFaultBound?: string;
}

function emptyCounts(bound: string): PhaseCounts {
  return { bound, measured: 0, within: 0, outside: 0, noData: 0, longestRun: 0 };
}

/**
 * The per-SLI judgement over every phase, in one pass over the measurements (a long run's columns are
 * read once, not once per SLI). `injectedAt` undefined: nothing was injected.
 */
function judgeSlis(
  input: StreamInput,
  injectedAt: number | undefined,
  offsetOf: (at: number) => number,
): { slis: SliJudgement[]; faultCount: number } {
  const counters = input.slis.map((): SliCounters => ({}));
  let faultCount = 0;
  const steadyBoundOf = input.slis.map((s) => () => s.steadyBound ?? s.bound ?? '');
  const faultBoundOf = input.slis.map((s, i) => () => s.bound ?? counters[i]?.firstFaultBound ?? '');
  for (const m of input.measurements) {
    if (m.phase === 'fault') faultCount++;
    for (let i = 0; i < input.slis.length; i++) {
      const s = input.slis[i] as JudgedSli;
      const k = counters[i] as SliCounters;
      const v = m.slis[s.name];
      if (m.phase === 'steady')
        (k.steady ??= new PhaseCounter(steadyBoundOf[i] as () => string, offsetOf)).add(m, v);
      else if (m.phase === 'recovery')
        (k.recovery ??= new PhaseCounter(steadyBoundOf[i] as () => string, offsetOf)).add(m, v);
      else if (m.phase === 'fault') {
        if (v && k.firstFaultBound === undefined) k.firstFaultBound = v.bound ?? '';
        if (!s.during || injectedAt === undefined) continue;
        if (m.at - injectedAt < (s.settleMs ?? 0))
          (k.settling ??= new PhaseCounter(faultBoundOf[i] as () => string, offsetOf)).add(m, v);
        else (k.fault ??= new PhaseCounter(faultBoundOf[i] as () => string, offsetOf)).add(m, v);
      }
    }
  }
  const slis = input.slis.map((s, i): SliJudgement => {
    const k = counters[i] as SliCounters;
    const settleMs = s.settleMs ?? 0;
    const tolerance = s.tolerance ?? {};
    const faultBound = s.bound ?? k.firstFaultBound ?? '';
    const steadyBound = s.steadyBound ?? s.bound ?? '';
    const j: SliJudgement = {
      name: s.name,
      during: s.during,
      settleMs,
      tolerance,
      allowed: 0,
      tolerated: 0,
      held: null,
    };
    if (k.steady) j.steady = { ...k.steady.c, bound: steadyBound };
    if (k.recovery) j.recovery = { ...k.recovery.c, bound: steadyBound };
    if (!s.during || injectedAt === undefined) return j;
    if (k.settling) j.settling = { ...k.settling.c, bound: faultBound };
    const f: PhaseCounts = { ...(k.fault?.c ?? emptyCounts(faultBound)), bound: faultBound };
    if (f.first === undefined) delete f.first;
    j.fault = f;
    j.allowed = allowedOutside(tolerance, f.measured);
    const tooMany = f.outside > j.allowed;
    const tooLong = f.outside > 0 && f.longestRun > (tolerance.consecutive ?? Infinity);
    j.held = !tooMany && !tooLong;
    if (tooMany) j.exceeded = 'count';
    else if (tooLong) j.exceeded = 'consecutive';
    j.tolerated = j.held ? f.outside : 0;
    return j;
  });
  return { slis, faultCount };
}

function point(at: number, offsetOf: (at: number) => number, value: number | null): ReadingPoint {
  return { at, offsetMs: offsetOf(at), value };
}

function judgeExpectations(
  input: StreamInput,
  injectedAt: number,
  offsetOf: (at: number) => number,
): ExpectationJudgement[] {
  const acc = input.expectations.map(() => ({
    measured: 0,
    bound: undefined as string | undefined,
    seen: undefined as { at: number; value: number | null } | undefined,
    blindInWindow: false,
    min: Infinity,
    max: -Infinity,
  }));
  let faultCount = 0;
  for (const m of input.measurements) {
    if (m.phase !== 'fault') continue;
    faultCount++;
    for (let i = 0; i < input.expectations.length; i++) {
      const e = input.expectations[i] as JudgeInput['expectations'][number];
      const a = acc[i] as (typeof acc)[number];
      const v = m.expect?.[e.name];
      if (v !== undefined) {
        a.measured++;
        if (a.measured === 1) a.bound = v.bound;
        if (typeof v.value === 'number' && Number.isFinite(v.value)) {
          a.min = Math.min(a.min, v.value);
          a.max = Math.max(a.max, v.value);
        }
        if (v.status === 'ok') a.seen ??= { at: m.at, value: v.value ?? null };
      }
      // Not seen while its readings were blind is not evidence that it did not happen.
      if (m.at - injectedAt <= e.withinMs && (!v || v.status === 'no-data' || v.status === 'error'))
        a.blindInWindow = true;
    }
  }
  return input.expectations.map((e, i) => {
    const a = acc[i] as (typeof acc)[number];
    const bound = e.bound ?? a.bound;
    const base = { name: e.name, withinMs: e.withinMs, measured: a.measured, ...(bound ? { bound } : {}) };
    if (a.seen) {
      const seen = point(a.seen.at, offsetOf, a.seen.value);
      const status: ExpectationStatus = a.seen.at - injectedAt > e.withinMs ? 'late' : 'met';
      return { ...base, status, seen };
    }
    if (a.blindInWindow || faultCount === 0) return { ...base, status: 'blind' };
    // Nor is it when the gate itself stopped the fault before `within` was over.
    const cutShort = input.events.find((x) => x.type === 'abort' && x.at - injectedAt < e.withinMs);
    if (cutShort) return { ...base, status: 'cut-short', stoppedAt: point(cutShort.at, offsetOf, null) };
    const range: [number, number] | undefined = a.min <= a.max ? [a.min, a.max] : undefined;
    return { ...base, status: 'unmet', ...(range ? { range } : {}) };
  });
}

/** FIS actions by their last reported state, and whether each was ever seen running. */
function judgeActions(events: readonly JournalEvent[]): ActionJudgement[] {
  const out = new Map<string, ActionJudgement>();
  for (const e of events) {
    if (e.type !== 'experiment-state') continue;
    const actions = e.data?.actions;
    if (typeof actions !== 'object' || actions === null) continue;
    for (const [name, status] of Object.entries(actions as Record<string, unknown>)) {
      if (typeof status !== 'string') continue;
      const prev = out.get(name);
      // An action that FIS stopped had been running: a pending one is cancelled instead.
      const ran = (prev?.ran ?? false) || ['running', 'completed', 'stopping', 'stopped'].includes(status);
      out.set(name, { name, status, ran });
    }
  }
  return [...out.values()];
}

function judgeLatency(input: StreamInput, firstBreachAt: number | undefined): LatencyFigures {
  const t = input.timings;
  const out: LatencyFigures = {};
  const stopAt = t.stopRequestedAt;
  const stoppedAt = t.stoppedAt;
  const trip = input.events.find((e) => e.type === 'abort' && e.data?.cause === 'rule');
  if (stopAt !== undefined && trip) {
    let completing: number | undefined;
    for (const m of input.measurements) if (m.at <= trip.at) completing = m.at;
    if (completing !== undefined) out.tripToStopRequestMs = Math.max(0, stopAt - completing);
  }
  if (firstBreachAt !== undefined && stopAt !== undefined && stopAt >= firstBreachAt)
    out.breachToStopRequestMs = stopAt - firstBreachAt;
  if (stopAt !== undefined && stoppedAt !== undefined && stoppedAt >= stopAt)
    out.stopRequestToStoppedMs = stoppedAt - stopAt;
  if (
    firstBreachAt !== undefined &&
    stopAt !== undefined &&
    stoppedAt !== undefined &&
    stoppedAt >= firstBreachAt
  )
    out.breachToStoppedMs = stoppedAt - firstBreachAt;
  return out;
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

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

/** `1 of 58 measurements during the fault outside the bound, within the tolerance of 2` and friends. */
export function outsideText(s: SliJudgement): string {
  const f = s.fault;
  if (!f) return 'not judged during the fault';
  const base = `${f.outside} of ${f.measured} measurements during the fault outside the bound`;
  const strict = s.allowed === 0 && s.tolerance.consecutive === undefined;
  let tol: string;
  if (strict) tol = f.outside === 0 ? '' : ', none tolerated';
  else if (s.held) tol = f.outside === 0 ? '' : `, ${f.outside} tolerated (${toleranceText(s.tolerance)})`;
  else if (s.exceeded === 'consecutive')
    tol = `, ${f.longestRun} in a row, more than the ${s.tolerance.consecutive ?? 0} tolerated`;
  else tol = `, more than the ${s.allowed} tolerated (${toleranceText(s.tolerance)})`;
  return base + tol;
}

/** `3 settling readings before +3.0 s not judged (1 outside the fault bound)`, or '' without settle. */
export function settleText(s: SliJudgement): string {
  const st = s.settling;
  if (!st || s.settleMs <= 0) return '';
  const outside = st.outside > 0 ? `, ${st.outside} outside the fault bound` : '';
  return `${plural(st.measured, 'settling reading')} in the first ${formatSeconds(s.settleMs)} not judged${outside}`;
}

function fromSlis(slis: readonly SliJudgement[], faultCount: number, injectedAt: number): Candidate[] {
  const out: Candidate[] = [];
  if (faultCount === 0) {
    out.push({
      verdict: 'inconclusive',
      reason: 'no measurement was taken while the fault was on',
      at: injectedAt,
    });
    return out;
  }
  for (const s of slis) {
    const f = s.fault;
    if (!f) continue;
    if (f.measured === 0) {
      out.push({
        verdict: 'inconclusive',
        reason: `${s.name}: no measurement after its ${formatSeconds(s.settleMs)} settle, while the fault was on`,
        at: injectedAt + s.settleMs,
      });
      continue;
    }
    if (s.held === false && f.first) {
      const settle = settleText(s);
      out.push({
        verdict: 'deviated',
        reason:
          `${s.name} ${violationText(f.first.value, f.bound)} (${formatOffset(f.first.offsetMs / 1000)}); ` +
          outsideText(s) +
          (settle ? `; ${settle}` : ''),
        at: f.first.at,
      });
    }
    if (f.noData > 0) {
      out.push({
        verdict: 'inconclusive',
        reason:
          `${s.name} had no data in ${f.noData} of ${f.measured} measurements during the fault` +
          (f.firstNoData
            ? `, first (${formatOffset(f.firstNoData.offsetMs / 1000)}): ${f.firstNoData.error}`
            : ''),
        at: f.firstNoData?.at ?? injectedAt,
      });
    }
  }
  return out;
}

function fromExpectations(
  expectations: readonly ExpectationJudgement[],
  faultCount: number,
  injectedAt: number,
) {
  const out: Candidate[] = [];
  for (const e of expectations) {
    const within = formatSeconds(e.withinMs);
    const at = injectedAt + e.withinMs;
    if (e.status === 'blind')
      out.push({
        verdict: 'inconclusive',
        reason: `expectation ${e.name} not observed, and it had no data during its first ${within} after injection`,
        at,
      });
    else if (e.status === 'cut-short')
      out.push({
        verdict: 'inconclusive',
        reason: `expectation ${e.name} not observed before the fault was stopped${e.stoppedAt ? ` (${formatOffset(e.stoppedAt.offsetMs / 1000)})` : ''}, within its first ${within}`,
        at,
      });
    else if (e.status === 'late')
      out.push({
        verdict: 'deviated',
        reason: `expectation ${e.name} observed only at ${formatOffset((e.seen?.offsetMs ?? 0) / 1000)}; expected within ${within} of injection`,
        at,
      });
    else if (e.status === 'unmet')
      out.push({
        verdict: 'deviated',
        reason:
          `expectation ${e.name} not observed (${e.bound ?? 'condition'} never met in ${faultCount} measurements` +
          (e.range ? `, values ${formatValue(e.range[0])}..${formatValue(e.range[1])})` : ', no data)') +
          `; expected within ${within} of injection`,
        at,
      });
  }
  return out;
}

function fromActions(input: StreamInput, actions: readonly ActionJudgement[], ran: boolean): Candidate[] {
  const out: Candidate[] = [];
  const stopped = input.events.some((e) => e.type === 'abort' || e.type === 'stop-requested');
  for (const a of actions) {
    if (a.status === 'failed')
      out.push({
        verdict: 'failed',
        reason: `FIS action ${a.name} failed: the fault did not run as planned`,
        at: input.timings.stoppedAt ?? input.timings.injectedAt ?? 0,
        explicit: true,
      });
    else if (a.status === 'cancelled' && !stopped)
      out.push({
        verdict: 'inconclusive',
        reason: `FIS cancelled action ${a.name} without a stop: the fault did not run as planned`,
        at: input.timings.stoppedAt ?? input.timings.injectedAt ?? 0,
        explicit: true,
      });
  }
  if (!ran) {
    out.push({
      verdict: 'inconclusive',
      reason: 'FIS never reported an action running: no evidence that the fault was injected',
      at: input.timings.injectedAt ?? 0,
    });
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

function heldReason(j: Omit<Judgement, 'verdict' | 'reason'>, faultCount: number, t: Timings): string {
  const judged = j.slis.filter((s) => s.fault);
  const parts: string[] = [];
  const counts = new Set(judged.map((s) => s.fault?.measured ?? 0));
  const settled = judged.some((s) => s.settleMs > 0);
  if (counts.size <= 1 && !settled) {
    parts.push(`every SLI within its bound in ${[...counts][0] ?? faultCount} measurements during the fault`);
  } else {
    parts.push(`every SLI within its bound during the fault`);
  }
  for (const s of judged) {
    const settle = settleText(s);
    if (s.tolerated > 0 || settle || (settled && s.fault)) {
      parts.push(`${s.name}: ${outsideText(s)}${settle ? `; ${settle}` : ''}`);
    }
  }
  for (const e of j.expectations)
    parts.push(e.seen ? `${e.name} observed at ${formatOffset(e.seen.offsetMs / 1000)}` : e.name);
  parts.push(
    t.recoveredAt !== undefined && t.stoppedAt !== undefined
      ? `recovered ${formatSeconds(t.recoveredAt - t.stoppedAt)} after the fault ended`
      : 'recovered',
  );
  return parts.join('; ');
}

/** A fault that never ran is never `aborted`: the stop decision stands, the verdict says nothing was tested. */
function neverRan(c: Candidate): Candidate {
  if (c.verdict !== 'aborted') return c;
  return {
    ...c,
    verdict: 'inconclusive',
    reason: `${c.reason}; no FIS action had run, so the fault never ran`,
  };
}

/** Judges a run: the verdict with its reason and every number behind them. Pure. */
export function judge(input: StreamInput): Judgement {
  // One pass for what the clock needs (the first measurement, the last steady-state one) and the first breach.
  let firstAt: number | undefined;
  let lastSteady: Measurement | undefined;
  let firstBreachM: { m: Measurement; sli: string } | undefined;
  for (const m of input.measurements) {
    firstAt ??= m.at;
    if (m.phase === 'steady') lastSteady = m;
    if (m.phase === 'fault' && !firstBreachM) {
      const hit = input.slis.find((s) => s.during && m.slis[s.name]?.status === 'breach');
      if (hit) firstBreachM = { m, sli: hit.name };
    }
  }
  const origin = timeOrigin({
    timings: input.timings,
    measurements: lastSteady ? [lastSteady] : [],
    startedAt: input.startedAt ?? firstAt ?? input.events[0]?.at ?? 0,
  });
  const offsetOf = (at: number): number => at - origin.at;
  const injectedAt = input.timings.injectedAt;
  const { slis, faultCount } = judgeSlis(input, injectedAt, offsetOf);
  const actions = judgeActions(input.events);
  const reportedInjected = input.events.some(
    (e) => e.type === 'experiment-state' && e.data?.injected === true,
  );
  // Per-action states decide when FIS gave them; older journals carry only the engine's `injected`.
  const ran = actions.length > 0 ? actions.some((a) => a.ran) : reportedInjected;
  const firstBreach: Judgement['firstBreach'] = firstBreachM
    ? {
        sli: firstBreachM.sli,
        ...point(firstBreachM.m.at, offsetOf, firstBreachM.m.slis[firstBreachM.sli]?.value ?? null),
      }
    : undefined;
  const recoveryEvent = input.events.find((e) => e.type === 'recovery');
  const t = input.timings;
  const recovery: Judgement['recovery'] = {
    measured: recoveryEvent !== undefined,
    recovered: recoveryEvent ? recoveryEvent.data?.recovered !== false : null,
  };
  if (t.recoveredAt !== undefined && t.stoppedAt !== undefined)
    recovery.recoveryMs = t.recoveredAt - t.stoppedAt;
  const expectations = injectedAt === undefined ? [] : judgeExpectations(input, injectedAt, offsetOf);
  const base: Omit<Judgement, 'verdict' | 'reason'> = {
    version: 1,
    origin: { at: origin.at, kind: origin.kind },
    slis,
    expectations,
    recovery,
    latency: judgeLatency(input, firstBreach?.at),
    actions,
    faultRan: injectedAt === undefined ? null : ran,
    ...(firstBreach ? { firstBreach } : {}),
  };

  let candidates = fromEvents(input.events);
  if (injectedAt === undefined) {
    const worst = pick(candidates);
    return worst
      ? { ...base, verdict: worst.verdict, reason: worst.reason }
      : { ...base, verdict: 'failed', reason: 'the run ended before injection without a decision' };
  }
  if (!ran) candidates = candidates.map(neverRan);
  candidates.push(...fromSlis(slis, faultCount, injectedAt));
  candidates.push(...fromExpectations(expectations, faultCount, injectedAt));
  candidates.push(...fromActions(input, actions, ran));
  if (!recoveryEvent)
    candidates.push({ verdict: 'inconclusive', reason: 'recovery was not measured', at: injectedAt });
  const worst = pick(candidates);
  if (worst) return { ...base, verdict: worst.verdict, reason: worst.reason };
  return { ...base, verdict: 'held', reason: heldReason(base, faultCount, t) };
}

/** What a journal holds for `judge`: its header's hypothesis and everything it recorded. */
export function judgeInputOf(journal: Journal): StreamInput {
  return {
    slis: journal.slis,
    expectations: journal.expectations ?? [],
    measurements: allMeasurements(journal),
    events: journal.events,
    timings: journal.timings,
    startedAt: journal.startedAt,
  };
}

const computed = new WeakMap<Journal, { at: number; judgement: Judgement }>();

/**
 * The journal's judgement: the one the engine wrote, or — for a journal written before judgements
 * existed, or a prefix a crash left — one computed by `judge`, the engine's own function. A finished
 * journal's verdict and reason stand as written (they are what the run decided and exited with); the
 * numbers are computed. Cached per journal object and its length, so every renderer reads one result.
 */
export function judgementOf(journal: Journal): Judgement {
  if (journal.judgement) return journal.judgement;
  const size = allMeasurements(journal).length * 100_003 + journal.events.length;
  const hit = computed.get(journal);
  if (hit && hit.at === size) return hit.judgement;
  const judgement = judge(judgeInputOf(journal));
  if (journal.verdict !== null && journal.reason !== null) {
    judgement.verdict = journal.verdict;
    judgement.reason = journal.reason;
  }
  computed.set(journal, { at: size, judgement });
  return judgement;
}
