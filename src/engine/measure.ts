/**
 * One tick's measurement: every SLI (and, during the fault, every expectation) of the phase, plus the
 * request count, read from each source once, over a window that ends now and never straddles phases.
 *
 * - The window starts where the caller says (the previous measurement, or the injection for the first
 *   fault window). A window is at most 1.5 intervals long: a longer span means the loop was held up, and
 *   that time is journaled as a gap instead of being folded into the next reading.
 * - Every read has a deadline (the end of the tick). A source not back by then gives `error` readings;
 *   the tick is never late because of one slow call.
 * - Only a finite number is a value. Every source already turns NaN and ±Inf into `no-data`; a reading
 *   that still carries one (a source that breaks that rule) is `no-data` here too, so a value that
 *   compares as within every bound (`-Inf <= 0.5`) can never count as health.
 */
import type { Clock } from '../clock/clock.js';
import type { Bound, Plan, Sli } from '../plan/schema.js';
import {
  finiteOnly,
  sourceKindOf,
  type MetricSource,
  type Query,
  type Reading,
  type SourceKind,
} from '../metrics/source.js';
import type { Measurement, Phase, SliValue } from '../journal/types.js';
import { formatSeconds, formatValue } from '../journal/format.js';
import { boundText, expectationBound, sliBound, specOf, withinBound } from './bounds.js';
import { DeadlineError, within } from './deadline.js';
import { errorMessage } from './errors.js';

/** Name of the request-count query within a tick (cannot clash: SLI names are identifiers). */
export const REQUESTS_QUERY = '__requests';
/** The longest window a reading may cover, in intervals; anything longer is a gap. */
export const MAX_WINDOW_INTERVALS = 1.5;
/** A read always gets at least this long, however close the tick's end (a very short interval). */
const MIN_READ_MS = 200;
/** Scrapes tried before the steady state until one opens every window (see `Measurer.prime`). */
export const PRIME_ATTEMPTS = 3;

export interface MeasurerDeps {
  plan: Plan;
  clock: Clock;
  sources: Partial<Record<SourceKind, MetricSource>>;
  signal?: AbortSignal | undefined;
  /** Journals a gap (the loop was held up longer than a window may be). */
  gap(from: number, to: number, phase: Phase): void;
}

export class Measurer {
  private readonly intervalMs: number;
  constructor(private readonly d: MeasurerDeps) {
    this.intervalMs = d.plan.hypothesis.interval;
  }

  /** SLIs measured in a phase: all in the steady state; during the fault those with `during` or an abort rule. */
  slisFor(phase: Phase): Sli[] {
    const slis = this.d.plan.hypothesis.slis;
    if (phase === 'steady') return slis;
    if (phase === 'recovery') return slis.filter((s) => s.during);
    const ruled = new Set(this.d.plan.abort.rules.map((r) => r.sli));
    return slis.filter((s) => s.during || ruled.has(s.name));
  }

  /**
   * A scrape SLI is the difference between two scrapes, so the first scrape of a URL only opens a window.
   * Scrape every URL the run reads once before the steady state (readings discarded), so the first
   * measurement already covers a full interval instead of reporting no-data. A scrape that fails or is
   * late (a target or runner too busy to answer within the interval) opens no window, and the first
   * steady-state reading would then be no-data — a `not-run` for the tool's own warm-up, not for the
   * system's state. So a failed priming is tried again, up to {@link PRIME_ATTEMPTS} times; past that
   * the steady state reads what there is and judges it.
   */
  async prime(deadlineMs: number): Promise<void> {
    const source = this.d.sources.scrape;
    if (!source) return;
    const h = this.d.plan.hypothesis;
    const queries: Query[] = [...h.slis, ...h.expect, ...(h.requests ? [h.requests] : [])]
      .map((s, i) => ({ name: `__prime${i}`, spec: specOf(s) }))
      .filter((q) => sourceKindOf(q.spec) === 'scrape');
    if (queries.length === 0) return;
    for (let attempt = 1; attempt <= PRIME_ATTEMPTS && !this.d.signal?.aborted; attempt++) {
      const at = this.d.clock.now();
      const readings = await within(
        this.d.clock,
        deadlineMs,
        'priming the scrape source',
        (signal) => source.read(queries, at, this.intervalMs, signal),
        this.d.signal,
      ).catch(() => undefined);
      if (readings?.every((r) => r.status !== 'error')) return;
    }
  }

  /**
   * Measures the window from `from` to now; every read must be back by `deadlineAt`. A source that fails
   * or is late gives `error` readings; one that throws (its contract is to resolve) propagates.
   */
  async measure(phase: Phase, from: number, deadlineAt: number): Promise<Measurement> {
    const { clock, plan } = this.d;
    const at = clock.now();
    const maxWindow = Math.round(this.intervalMs * MAX_WINDOW_INTERVALS);
    let windowStart = from;
    if (at - from > maxWindow) {
      windowStart = at - this.intervalMs;
      this.d.gap(from, windowStart, phase);
    }
    // Up to 1.5 intervals the window is read as one interval: ticks jitter (by milliseconds on a runner,
    // by far more on a sped-up simulated clock, and a tick after a late one comes early), and a PromQL
    // `[$window]` that changes every tick (2506ms, 2543ms…) reads no better and caches worse. Longer is a
    // gap, journaled above.
    const span = Math.max(1, at - windowStart);
    const windowMs = span <= maxWindow ? this.intervalMs : span;
    const h = plan.hypothesis;
    const slis = this.slisFor(phase);
    const expectations = phase === 'fault' ? h.expect : [];
    const queries: Query[] = [
      ...slis.map((s) => ({ name: s.name, spec: specOf(s) })),
      ...expectations.map((e) => ({ name: e.name, spec: specOf(e) })),
    ];
    if (h.requests) queries.push({ name: REQUESTS_QUERY, spec: specOf(h.requests) });
    const readings = await this.readAll(queries, at, windowMs, Math.max(MIN_READ_MS, deadlineAt - at));
    const reading = (name: string): Reading => {
      const r = readings.get(name);
      if (r === undefined)
        return { name, value: null, status: 'error', query: '', error: 'the source returned no reading' };
      return finiteOnly(r);
    };

    let requests: number | null = null;
    let lowTraffic: string | undefined;
    if (h.requests) {
      const r = reading(REQUESTS_QUERY);
      requests = r.status === 'ok' ? r.value : null;
      if (h.minRequests > 0 && (requests === null || requests < h.minRequests)) {
        lowTraffic =
          requests === null
            ? `request count unavailable (${r.error ?? r.status}), minRequests ${h.minRequests}`
            : `${formatValue(requests)} requests < minRequests ${h.minRequests}`;
      }
    }

    const value = (name: string, bound: Bound, masked: boolean): SliValue => {
      const r = reading(name);
      const v: SliValue = { value: r.value, status: 'ok', bound: boundText(bound), query: r.query };
      if (masked && lowTraffic !== undefined) {
        v.status = 'no-data';
        v.error = lowTraffic;
      } else if (r.status !== 'ok' || r.value === null) {
        v.status = r.status === 'error' ? 'error' : 'no-data';
        if (r.error !== undefined) v.error = r.error;
      } else if (!withinBound(bound, r.value)) {
        v.status = 'breach';
      }
      return v;
    };

    const m: Measurement = { at, windowMs, phase, requests, slis: {} };
    // Recovery means back to the steady state, so it is held to the (tighter) steady-state bound.
    for (const s of slis) {
      m.slis[s.name] = value(s.name, phase === 'fault' ? sliBound(s) : (s.steady ?? sliBound(s)), true);
    }
    if (expectations.length > 0) {
      // An expectation's status says whether its condition was met: ok = seen, breach = not (yet).
      m.expect = {};
      for (const e of expectations) m.expect[e.name] = value(e.name, expectationBound(e), false);
    }
    return m;
  }

  /** One `read` per source kind with every query of that kind, all under one deadline. */
  private async readAll(
    queries: Query[],
    at: number,
    windowMs: number,
    deadlineMs: number,
  ): Promise<Map<string, Reading>> {
    const byKind = new Map<SourceKind, Query[]>();
    for (const q of queries) {
      const kind = sourceKindOf(q.spec);
      byKind.set(kind, [...(byKind.get(kind) ?? []), q]);
    }
    const readings = new Map<string, Reading>();
    const failed = (qs: Query[], error: string): Reading[] =>
      qs.map((q) => ({ name: q.name, value: null, status: 'error', query: '', error }));
    await Promise.all(
      [...byKind].map(async ([kind, qs]) => {
        const source = this.d.sources[kind];
        let got: Reading[];
        if (!source) got = failed(qs, `no ${kind} source configured`);
        else {
          got = await within(
            this.d.clock,
            deadlineMs,
            `the ${kind} source`,
            (signal) => source.read(qs, at, windowMs, signal),
            this.d.signal,
          ).catch((error: unknown) => {
            // Late is an error reading (blindness counts it); a source that throws breaks its contract
            // (errors are readings), and that is a failure of the run, not blindness.
            if (error instanceof DeadlineError)
              return failed(qs, `${errorMessage(error)} (a reading must be back by the end of its tick)`);
            if (this.d.signal?.aborted) return failed(qs, 'cancelled');
            throw new Error(`${kind} source: ${errorMessage(error)}`, { cause: error });
          });
        }
        for (const r of got) readings.set(r.name, r);
      }),
    );
    return readings;
  }
}

/** `1.5 s` style text for a gap message. */
export function gapText(from: number, to: number): string {
  return formatSeconds(to - from);
}
