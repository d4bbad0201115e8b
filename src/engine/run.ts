/**
 * The run loop: gates → provision → dry run → steady state → start → observe → stop → verify →
 * recovery → assess. Every decision is journaled as it happens; the verdict is `assess()` of the
 * journal. Once a start was attempted, the injector's stop runs on every way out (try/finally).
 */
import { existsSync } from 'node:fs';
import type { Clock } from '../clock/clock.js';
import type { Gate, GateContext, MidRunCheck } from './gates.js';
import type { Plan, Sli } from '../plan/schema.js';
import {
  InjectorRefusal,
  TERMINAL_STATUSES,
  type ExperimentState,
  type Injector,
  type Lease,
  type ResolvedTarget,
  type RunContext,
} from '../injector/injector.js';
import {
  sourceKindOf,
  type MetricSource,
  type Query,
  type Reading,
  type SourceKind,
} from '../metrics/source.js';
import {
  EXIT_CODES,
  type BudgetFigures,
  type EventType,
  type Journal,
  type JournalEvent,
  type JournalHeader,
  type Measurement,
  type Phase,
  type SliValue,
  type Timings,
  type Verdict,
} from '../journal/types.js';
import type { JournalWriter } from '../journal/writer.js';
import { formatOffset, formatSeconds, formatValue } from '../journal/format.js';
import { assess } from './assess.js';
import {
  boundText,
  breachText,
  expectationBound,
  ruleBreached,
  ruleCount,
  ruleText,
  sliBound,
  specOf,
  withinBound,
} from './bounds.js';
import type { Bound } from '../plan/schema.js';

/**
 * How long the engine polls for `stopped` after StopExperiment. FIS completes post actions before
 * `stopped` (SEMANTICS §3), which for network actions takes seconds; a minute leaves room for that
 * while keeping a stuck run short. Front doors with a tighter budget (GitHub's 7.5 s after SIGINT) pass less.
 */
export const DEFAULT_STOP_VERIFY_TIMEOUT_MS = 60_000;
/** First and longest pause between stop-verification polls (doubling in between). */
const STOP_POLL_INITIAL_MS = 500;
const STOP_POLL_MAX_MS = 5_000;
/** How soon a failed lease heartbeat is retried: well inside the lease alarm's 10 s period. */
const LEASE_RETRY_MS = 1_000;
/** Name of the request-count query within a tick (cannot clash: SLI names are identifiers). */
export const REQUESTS_QUERY = '__requests';

/** Everything a run needs, passed in: the engine knows only interfaces. */
export interface RunDeps {
  plan: Plan;
  planDigest: string;
  planPath?: string | undefined;
  runId: string;
  attempt: number;
  clock: Clock;
  sources: Partial<Record<SourceKind, MetricSource>>;
  injector: Injector;
  lease?: Lease | undefined;
  gates?: Gate[] | undefined;
  midRun?: MidRunCheck[] | undefined;
  journal: JournalWriter;
  /** Cancellation (SIGINT/SIGTERM from the front door); `signal.reason` names it. */
  signal?: AbortSignal | undefined;
  /** A file whose existence aborts the run (a human's stop button). */
  abortFile?: string | undefined;
  onTick?: ((m: Measurement) => void) | undefined;
  onEvent?: ((e: JournalEvent) => void) | undefined;
  /** Called the moment the experiment id is known, so the front door can save it for the post step. */
  onExperimentId?: ((id: string) => void | Promise<void>) | undefined;
  stopVerifyTimeoutMs?: number | undefined;
  /**
   * Called once the verdict is known, before the journal is final: records the run's measured damage in
   * the chaos ledger and returns the budget figures with the debit. Errors are journaled, not fatal.
   */
  settle?: ((journal: Journal, verdict: Verdict) => Promise<BudgetFigures | undefined>) | undefined;
  /** AWS Region, recorded for the console link. */
  region?: string | undefined;
  ctx: RunContext;
}

export interface RunResult {
  verdict: Verdict;
  reason: string;
  exitCode: number;
  journal: Journal;
  experimentId?: string | undefined;
}

/** Why the observe loop ended. */
type FaultEnd =
  { kind: 'completed' } | { kind: 'terminal'; status: string } | { kind: 'stop'; reason: string };

/** The InjectorRefusal behind an error, if any (step() wraps errors with context, keeping the cause). */
function refusalOf(error: unknown): InjectorRefusal | undefined {
  for (let e: unknown = error; e; e = (e as { cause?: unknown }).cause) {
    if (e instanceof InjectorRefusal) return e;
  }
  return undefined;
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Adds context to an error thrown by a dependency, keeping the original as the cause. */
async function step<T>(label: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (error) {
    throw new Error(`${label}: ${errorMessage(error)}`, { cause: error });
  }
}

/**
 * Sleeps on the clock, waking early when `signal` aborts. Each sleep gets its own short-lived signal so
 * a long run does not pile one abort listener per tick onto the caller's signal.
 */
async function sleepOn(clock: Clock, ms: number, signal?: AbortSignal): Promise<void> {
  if (ms <= 0 || signal?.aborted) return;
  if (!signal) return clock.sleep(ms);
  const ctl = new AbortController();
  const wake = (): void => ctl.abort();
  signal.addEventListener('abort', wake, { once: true });
  try {
    await clock.sleep(ms, ctl.signal);
  } finally {
    signal.removeEventListener('abort', wake);
  }
}

/** Builds the journal header from the plan as written. */
export function journalHeader(deps: RunDeps, startedAt: number): JournalHeader {
  const { plan } = deps;
  const h = plan.hypothesis;
  const header: JournalHeader = {
    kind: 'chaos-gate-journal',
    version: 1,
    runId: deps.runId,
    planId: plan.id,
    planDigest: deps.planDigest,
    title: plan.title,
    service: plan.service,
    environment: plan.environment,
    slis: h.slis.map((s) => ({
      name: s.name,
      bound: boundText(sliBound(s)),
      steadyBound: boundText(s.steady ?? sliBound(s)),
      during: s.during,
    })),
    abortRules: plan.abort.rules.map((r) => ({
      sli: r.sli,
      op: r.above !== undefined ? ('above' as const) : ('below' as const),
      threshold: r.above ?? r.below ?? 0,
      forMs: r.for,
      count: ruleCount(r.for, h.interval),
    })),
    intervalMs: h.interval,
    startedAt,
    attempt: deps.attempt,
    expectations: h.expect.map((e) => ({
      name: e.name,
      bound: boundText(expectationBound(e)),
      withinMs: e.within,
    })),
    minRequests: h.minRequests,
    blindAfter: plan.abort.blindAfter,
    steadyMs: h.steadyState.duration,
    recoveryMs: h.recovery.within,
  };
  if (deps.planPath !== undefined) header.planPath = deps.planPath;
  if (deps.region !== undefined) header.region = deps.region;
  return header;
}

/** Runs one gate from preflight to verdict. Never throws: failures become the `failed` verdict. */
export async function runGate(deps: RunDeps): Promise<RunResult> {
  return new GateRun(deps).run();
}

class GateRun {
  private readonly plan: Plan;
  private readonly clock: Clock;
  private readonly intervalMs: number;
  private readonly timings: Timings = {};
  private experimentId: string | undefined;
  private startAttempted = false;
  private stopAttempted = false;
  private stopVerified = false;
  private injected = false;
  private lastState: string | undefined;
  private firstBreachSeen = false;
  private readonly seenExpectations = new Set<string>();
  private leaseCtl: AbortController | undefined;
  private leaseLoop: Promise<void> | undefined;
  private plannedInjectAt = 0;

  constructor(private readonly deps: RunDeps) {
    this.plan = deps.plan;
    this.clock = deps.clock;
    this.intervalMs = deps.plan.hypothesis.interval;
  }

  private now(): number {
    return this.clock.now();
  }

  private event(type: EventType, message: string, data?: Record<string, unknown>): void {
    const e: JournalEvent = { at: this.now(), type, message };
    if (data) e.data = data;
    this.deps.journal.event(e);
    this.deps.onEvent?.(e);
  }

  private timing(patch: Timings): void {
    Object.assign(this.timings, patch);
    this.deps.journal.update({ timings: patch });
  }

  /** `(+12.0 s)` relative to the injection, or empty before it. */
  private offset(at = this.now()): string {
    const injectedAt = this.timings.injectedAt;
    return injectedAt === undefined ? '' : ` (${formatOffset((at - injectedAt) / 1000)})`;
  }

  private cancelled(): boolean {
    return this.deps.signal?.aborted === true;
  }

  private cancelReason(): string {
    const r: unknown = this.deps.signal?.reason;
    if (typeof r === 'string') return r;
    if (r instanceof Error) return r.message;
    return 'cancellation';
  }

  async run(): Promise<RunResult> {
    const startedAt = this.now();
    this.deps.journal.begin(journalHeader(this.deps, startedAt));
    this.timings.startedAt = startedAt;
    this.event('run-started', `run ${this.deps.runId} attempt ${this.deps.attempt} of plan ${this.plan.id}`, {
      planDigest: this.deps.planDigest,
    });
    try {
      await this.flow();
    } catch (error) {
      const refusal = refusalOf(error);
      if (refusal && this.experimentId === undefined) {
        // The injector would not proceed (kill switch, unhonoured dry run, drift): nothing was injected.
        this.event('refused', refusal.message, refusal.field ? { field: refusal.field } : undefined);
      } else {
        this.event('error', `${errorMessage(error)}${this.offset()}`, { fatal: true });
      }
    } finally {
      if (this.startAttempted && this.experimentId !== undefined && !this.stopAttempted) {
        await this.stopAndVerify('the run ended early').catch((error: unknown) => {
          this.event('error', `stopping after an error: ${errorMessage(error)}`, { fatal: true });
        });
      }
      await this.endLease();
    }
    const journal = this.deps.journal.snapshot();
    const { verdict, reason } = assess({
      slis: this.plan.hypothesis.slis.map((s) => ({ name: s.name, during: s.during })),
      expectations: this.plan.hypothesis.expect.map((e) => ({ name: e.name, withinMs: e.within })),
      measurements: journal.measurements,
      events: journal.events,
      timings: this.timings,
    });
    const exitCode = EXIT_CODES[verdict];
    await this.settle(verdict);
    this.event('verdict', `${verdict}: ${reason}`, { verdict, exitCode });
    this.timing({ finishedAt: this.now() });
    const final = await this.deps.journal.finish({ verdict, reason, exitCode });
    return { verdict, reason, exitCode, journal: final, experimentId: this.experimentId };
  }

  /**
   * Starts the experiment. A start whose answer was lost (timeout, dropped connection) may still have
   * started it: ask once more with the same run context — the injector's start is idempotent (FIS
   * clientToken) — so the id is known and the fault can be stopped. Refusals are not retried.
   */
  private async start(templateId: string): Promise<{ experimentId: string }> {
    try {
      return await this.deps.injector.start(this.plan, templateId, this.deps.ctx);
    } catch (error) {
      if (refusalOf(error)) throw error;
      this.event(
        'error',
        `starting the experiment failed (${errorMessage(error)}); asking again with the same idempotency key`,
      );
      const again = await this.deps.injector
        .start(this.plan, templateId, this.deps.ctx)
        .catch(() => undefined);
      if (!again) throw error;
      return again;
    }
  }

  /** Lets the front door debit the run's measured damage to the chaos ledger before the verdict is final. */
  private async settle(verdict: Verdict): Promise<void> {
    if (!this.deps.settle) return;
    try {
      const budget = await this.deps.settle(this.deps.journal.snapshot(), verdict);
      if (budget) {
        this.deps.journal.update({ budget });
        this.event('budget', `debited ${formatValue(budget.debit ?? 0)} bad events to the chaos ledger`, {
          ...budget,
        });
      }
    } catch (error) {
      this.event('error', `recording the run's damage in the chaos ledger: ${errorMessage(error)}`);
    }
  }

  private async flow(): Promise<void> {
    if (!(await this.runGates(['static', 'before-targets']))) return;
    const provisioned = await step('provisioning the FIS template', () =>
      this.deps.injector.provision(this.plan, this.deps.ctx),
    );
    this.deps.journal.update({ templateId: provisioned.templateId });
    this.event('provision', `template ${provisioned.templateId} ${provisioned.action}`, { ...provisioned });
    const targets = await step('resolving targets (dry run)', () =>
      this.deps.injector.resolveTargets(this.plan, provisioned.templateId, this.deps.ctx),
    );
    this.deps.journal.update({ resolvedTargets: targets });
    this.event('targets-resolved', `${targets.length} target(s): ${targets.map((t) => t.arn).join(', ')}`, {
      count: targets.length,
    });
    if (!(await this.runGates(['after-targets'], targets))) return;
    // The lease beats from here: by the end of the steady state its alarm has seen heartbeats and is OK,
    // which the injector requires of every stop condition before it starts.
    await this.startLease();
    if (!(await this.steadyState())) return;
    if (this.cancelled()) {
      this.event('not-run', `cancelled by ${this.cancelReason()} before injection`);
      return;
    }
    this.startAttempted = true;
    const { experimentId } = await step('starting the experiment', () => this.start(provisioned.templateId));
    this.experimentId = experimentId;
    this.timing({ injectedAt: this.now() });
    this.deps.journal.update({ experimentId });
    this.event('inject', `experiment ${experimentId} started`, { experimentId });
    await this.deps.onExperimentId?.(experimentId);

    const end = await this.observe();
    const reason =
      end.kind === 'stop'
        ? end.reason
        : `fault ended (${end.kind === 'completed' ? 'completed' : end.status})`;
    await this.stopAndVerify(reason);
    await this.endLease();
    if (this.stopVerified && !this.cancelled()) await this.recover();
  }

  private async runGates(stages: Gate['stage'][], targets?: ResolvedTarget[]): Promise<boolean> {
    for (const gate of (this.deps.gates ?? []).filter((g) => stages.includes(g.stage))) {
      const ctx: GateContext = {
        plan: this.plan,
        now: this.now(),
        record: (e) => this.event(e.type, e.message, e.data),
      };
      if (targets) ctx.targets = targets;
      if (this.deps.signal) ctx.signal = this.deps.signal;
      const outcome = await step(`gate ${gate.name}`, () => gate.check(ctx));
      if (!outcome.pass) {
        const data: Record<string, unknown> = { gate: gate.name, stage: gate.stage };
        if (outcome.field !== undefined) data.field = outcome.field;
        this.event(outcome.verdict, outcome.reason, data);
        return false;
      }
      if (outcome.budget) this.deps.journal.update({ budget: outcome.budget });
      this.event('preflight', `${gate.name}: passed${outcome.note ? ` (${outcome.note})` : ''}`, {
        gate: gate.name,
        stage: gate.stage,
      });
    }
    return true;
  }

  private async sleepUntil(at: number, signal?: AbortSignal): Promise<void> {
    await sleepOn(this.clock, at - this.now(), signal);
  }

  private async steadyState(): Promise<boolean> {
    const duration = this.plan.hypothesis.steadyState.duration;
    const ticks = Math.max(1, Math.ceil(duration / this.intervalMs));
    const start = this.now();
    this.plannedInjectAt = start + ticks * this.intervalMs;
    await this.primeScrapes(start);
    for (let k = 1; k <= ticks; k++) {
      await this.sleepUntil(start + k * this.intervalMs, this.deps.signal);
      if (this.cancelled()) {
        this.event(
          'not-run',
          `cancelled by ${this.cancelReason()} during the steady state, before injection`,
        );
        return false;
      }
      const m = await this.measure('steady');
      const bad = Object.entries(m.slis).find(([, v]) => v.status !== 'ok');
      if (bad) {
        const [name, v] = bad;
        const t = formatOffset(m.t ?? 0);
        const what =
          v.status === 'breach'
            ? `${name} ${breachText(this.steadyBound(name), v.value ?? NaN)} (steady-state bound)`
            : `${name} had no data (${v.error ?? v.status})`;
        this.event('not-run', `steady state broken before injection: ${what} at ${t}`, {
          sli: name,
          status: v.status,
        });
        return false;
      }
    }
    this.event(
      'steady-state',
      `steady state held for ${formatSeconds(this.now() - start)} (${ticks} measurements)`,
    );
    return true;
  }

  private sli(name: string): Sli | undefined {
    return this.plan.hypothesis.slis.find((s) => s.name === name);
  }

  private steadyBound(name: string): Bound {
    const s = this.sli(name);
    return s ? (s.steady ?? sliBound(s)) : {};
  }

  /** SLIs measured in a phase: all in the steady state; during the fault those with `during` or an abort rule. */
  private slisFor(phase: Phase): Sli[] {
    const slis = this.plan.hypothesis.slis;
    if (phase === 'steady') return slis;
    if (phase === 'recovery') return slis.filter((s) => s.during);
    const ruled = new Set(this.plan.abort.rules.map((r) => r.sli));
    return slis.filter((s) => s.during || ruled.has(s.name));
  }

  /**
   * A scrape SLI is the difference between two scrapes, so the first scrape of a URL only opens a window.
   * Scrape every URL the run reads once at the start of the steady state (readings discarded), so the
   * first steady-state measurement already covers a full interval instead of reporting no-data.
   */
  private async primeScrapes(at: number): Promise<void> {
    const source = this.deps.sources.scrape;
    if (!source) return;
    const h = this.plan.hypothesis;
    const queries: Query[] = [...h.slis, ...h.expect, ...(h.requests ? [h.requests] : [])]
      .map((s, i) => ({ name: `__prime${i}`, spec: specOf(s) }))
      .filter((q) => sourceKindOf(q.spec) === 'scrape');
    if (queries.length === 0) return;
    await step('scrape source', () => source.read(queries, at, this.intervalMs, this.deps.signal));
  }

  /** One tick: one `read` per source kind with every query of that kind. A source that throws propagates. */
  private async measure(phase: Phase): Promise<Measurement> {
    const at = this.now();
    const h = this.plan.hypothesis;
    const slis = this.slisFor(phase);
    const expectations = phase === 'fault' ? h.expect : [];
    const queries: Query[] = [
      ...slis.map((s) => ({ name: s.name, spec: specOf(s) })),
      ...expectations.map((e) => ({ name: e.name, spec: specOf(e) })),
    ];
    if (h.requests) queries.push({ name: REQUESTS_QUERY, spec: specOf(h.requests) });
    const byKind = new Map<SourceKind, Query[]>();
    for (const q of queries) {
      const kind = sourceKindOf(q.spec);
      byKind.set(kind, [...(byKind.get(kind) ?? []), q]);
    }
    const readings = new Map<string, Reading>();
    await Promise.all(
      [...byKind].map(async ([kind, qs]) => {
        const source = this.deps.sources[kind];
        const got: Reading[] = source
          ? await step(`${kind} source`, () => source.read(qs, at, this.intervalMs, this.deps.signal))
          : qs.map((q) => ({
              name: q.name,
              value: null,
              status: 'error',
              query: '',
              error: `no ${kind} source configured`,
            }));
        for (const r of got) readings.set(r.name, r);
      }),
    );
    const reading = (name: string): Reading =>
      readings.get(name) ?? {
        name,
        value: null,
        status: 'error',
        query: '',
        error: 'the source returned no reading',
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
      } else if (r.status !== 'ok' || r.value === null || Number.isNaN(r.value)) {
        v.status = r.status === 'error' ? 'error' : 'no-data';
        if (r.error !== undefined) v.error = r.error;
      } else if (!withinBound(bound, r.value)) {
        v.status = 'breach';
      }
      return v;
    };

    const m: Measurement = { at, phase, requests, slis: {} };
    m.t =
      phase === 'steady'
        ? (at - this.plannedInjectAt) / 1000
        : (at - (this.timings.injectedAt ?? this.plannedInjectAt)) / 1000;
    // Recovery means back to the steady state, so it is held to the (tighter) steady-state bound.
    for (const s of slis) {
      m.slis[s.name] = value(s.name, phase === 'fault' ? sliBound(s) : (s.steady ?? sliBound(s)), true);
    }
    if (expectations.length > 0) {
      // An expectation's status says whether its condition was met: ok = seen, breach = not (yet).
      m.expect = {};
      for (const e of expectations) m.expect[e.name] = value(e.name, expectationBound(e), false);
    }
    this.deps.journal.measurement(m);
    this.deps.onTick?.(m);
    return m;
  }

  private async startLease(): Promise<void> {
    const lease = this.deps.lease;
    if (!lease) return;
    // The first beat must land before the start: without it the lease alarm would stop the fault at once.
    const firstBeatAt = this.now();
    await step('publishing the first lease heartbeat', () => lease.beat());
    const ctl = new AbortController();
    this.leaseCtl = ctl;
    this.leaseLoop = (async () => {
      // A fixed cadence (not "interval after the last beat finished"): slow calls must not stretch the gaps,
      // since the lease alarm trips on one 10 s period without a beat. A failed beat is retried soon, not
      // at the next interval, for the same reason.
      let due = firstBeatAt + lease.intervalMs;
      while (!ctl.signal.aborted) {
        await sleepOn(this.clock, Math.max(0, due - this.now()), ctl.signal);
        if (ctl.signal.aborted) break;
        try {
          await lease.beat();
          due = Math.max(due + lease.intervalMs, this.now());
        } catch (error) {
          this.event(
            'error',
            `lease heartbeat failed (retrying in ${LEASE_RETRY_MS / 1000} s): ${errorMessage(error)}`,
          );
          due = this.now() + Math.min(LEASE_RETRY_MS, lease.intervalMs);
        }
      }
    })();
  }

  /** Stops beating: after a verified stop, or on the way out (an unbeaten lease lets FIS stop the fault). */
  private async endLease(): Promise<void> {
    this.leaseCtl?.abort();
    await this.leaseLoop;
    this.leaseCtl = undefined;
    this.leaseLoop = undefined;
  }

  /** Journals a state read; returns whether it is terminal. */
  private noteState(s: ExperimentState): boolean {
    const actions = s.actions ?? {};
    const injectedNow =
      s.injected === true ||
      Object.values(actions).some((a) => ['running', 'completed', 'stopping', 'stopped'].includes(a));
    const becameInjected = injectedNow && !this.injected;
    if (injectedNow) this.injected = true;
    const terminal = TERMINAL_STATUSES.has(s.status);
    if (s.status !== this.lastState || becameInjected) {
      this.lastState = s.status;
      const data: Record<string, unknown> = { status: s.status, injected: this.injected, actions };
      if (s.reason !== undefined) data.reason = s.reason;
      if (s.errorCode !== undefined) data.errorCode = s.errorCode;
      const message =
        s.status === 'failed'
          ? `FIS experiment failed: ${s.errorCode ?? 'no error code'}${s.reason ? ` — ${s.reason}` : ''}${this.offset()}`
          : `experiment ${this.experimentId ?? ''} ${s.status}${s.reason ? `: ${s.reason}` : ''}${this.offset()}`;
      this.event('experiment-state', message, data);
    }
    if (terminal && this.timings.stoppedAt === undefined) {
      this.timing({ stoppedAt: this.now() });
      this.event('fault-ended', `fault ended: experiment ${s.status}${this.offset()}`, { status: s.status });
    }
    return terminal;
  }

  private async readState(failures: { n: number }): Promise<ExperimentState | undefined> {
    const id = this.experimentId;
    if (id === undefined) return undefined;
    try {
      const s = await this.deps.injector.state(id);
      failures.n = 0;
      return s;
    } catch (error) {
      failures.n++;
      this.event('error', `reading the FIS experiment state failed: ${errorMessage(error)}${this.offset()}`);
      return undefined;
    }
  }

  private async observe(): Promise<FaultEnd> {
    const plan = this.plan;
    const injectedAt = this.timings.injectedAt ?? this.now();
    const rules = plan.abort.rules.map((rule) => ({
      rule,
      count: ruleCount(rule.for, this.intervalMs),
      streak: 0,
    }));
    const blindAfter = plan.abort.blindAfter;
    const maxRunMs = plan.blastRadius.maxRunDuration;
    const stateFailures = { n: 0 };
    let blindStreak = 0;
    let next = injectedAt + this.intervalMs;
    for (;;) {
      await this.sleepUntil(next, this.deps.signal);
      if (this.cancelled()) {
        const reason = `cancelled by ${this.cancelReason()}${this.offset()}`;
        this.event('signal', reason, { signal: this.cancelReason() });
        this.event('abort', reason, { cause: 'cancelled', verdict: 'aborted' });
        return { kind: 'stop', reason };
      }
      if (this.deps.abortFile !== undefined && existsSync(this.deps.abortFile)) {
        const reason = `abort file ${this.deps.abortFile} found${this.offset()}`;
        this.event('abort', reason, { cause: 'abort-file', verdict: 'aborted' });
        return { kind: 'stop', reason };
      }
      const [state, m] = await Promise.all([this.readState(stateFailures), this.measure('fault')]);

      const end = this.evaluate(m, rules, blindStreak);
      blindStreak = end.blindStreak;
      if (end.stop) return { kind: 'stop', reason: end.stop };

      if (state) {
        const terminal = this.noteState(state);
        if (terminal) {
          if (state.status === 'completed') return { kind: 'completed' };
          if (state.status === 'stopped' || state.status === 'cancelled') {
            const by =
              state.status === 'cancelled'
                ? 'FIS cancelled the experiment (safety lever)'
                : 'FIS stopped the experiment';
            const detail = [state.reason, state.errorCode].filter(Boolean).join(', ');
            this.event('abort', `${by}${detail ? `: ${detail}` : ''}${this.offset()}`, {
              cause: `fis-${state.status}`,
              verdict: 'aborted',
            });
          }
          return { kind: 'terminal', status: state.status };
        }
      } else if (stateFailures.n >= blindAfter) {
        const reason = `the FIS experiment state could not be read ${stateFailures.n} times in a row${this.offset()}`;
        this.event('error', reason, { fatal: true });
        return { kind: 'stop', reason };
      }

      for (const check of this.deps.midRun ?? []) {
        const result = await step(`mid-run check ${check.name}`, () =>
          check.check(this.now(), this.deps.signal),
        );
        if (result !== null) {
          const reason = `${check.name}: ${result}${this.offset()}`;
          this.event('abort', reason, { cause: 'mid-run', check: check.name, verdict: 'aborted' });
          return { kind: 'stop', reason };
        }
      }
      const startedAt = this.timings.startedAt ?? injectedAt;
      if (this.now() - startedAt >= maxRunMs) {
        const reason = `the run reached blastRadius.maxRunDuration ${formatSeconds(maxRunMs)}${this.offset()}`;
        this.event('abort', reason, { cause: 'max-run-duration', verdict: 'aborted' });
        return { kind: 'stop', reason };
      }
      next = Math.max(next + this.intervalMs, this.now());
    }
  }

  /** Applies one fault measurement to the abort rules, blindness, first breach and expectations. */
  private evaluate(
    m: Measurement,
    rules: { rule: Plan['abort']['rules'][number]; count: number; streak: number }[],
    blindStreak: number,
  ): { stop?: string; blindStreak: number } {
    const duringNames = new Set(this.plan.hypothesis.slis.filter((s) => s.during).map((s) => s.name));
    if (!this.firstBreachSeen) {
      const breach = Object.entries(m.slis).find(([n, v]) => duringNames.has(n) && v.status === 'breach');
      if (breach) {
        this.firstBreachSeen = true;
        this.timing({ firstBreachAt: m.at });
        this.event(
          'first-breach',
          `${breach[0]} ${breachText(sliBound(this.sli(breach[0]) ?? {}), breach[1].value ?? NaN)}${this.offset(m.at)}`,
          {
            sli: breach[0],
            value: breach[1].value,
          },
        );
      }
    }
    for (const [name, v] of Object.entries(m.expect ?? {})) {
      if (v.status === 'ok' && !this.seenExpectations.has(name)) {
        this.seenExpectations.add(name);
        this.event(
          'expectation-observed',
          `${name} ${formatValue(v.value)} ${v.bound ?? ''}${this.offset(m.at)}`,
          {
            expectation: name,
            value: v.value,
          },
        );
      }
    }
    // A gap (no-data/error) neither extends nor resets a streak: it is not evidence either way.
    for (const r of rules) {
      const v = m.slis[r.rule.sli];
      if (!v || v.value === null || (v.status !== 'ok' && v.status !== 'breach')) continue;
      r.streak = ruleBreached(r.rule, v.value) ? r.streak + 1 : 0;
      if (r.streak >= r.count) {
        const reason = `${r.rule.sli} ${formatValue(v.value)} ${ruleText(r.rule)} for ${r.count} measurement${r.count === 1 ? '' : 's'} in a row${this.offset(m.at)}`;
        this.event('abort', reason, {
          cause: 'rule',
          verdict: 'aborted',
          sli: r.rule.sli,
          value: v.value,
          count: r.count,
        });
        return { stop: reason, blindStreak };
      }
    }
    const blind = Object.entries(m.slis).filter(([, v]) => v.status === 'no-data' || v.status === 'error');
    const streak = blind.length > 0 ? blindStreak + 1 : 0;
    if (streak >= this.plan.abort.blindAfter) {
      const what = blind.map(([n, v]) => `${n}: ${v.error ?? v.status}`).join('; ');
      const reason = `blind: ${streak} measurements in a row without data (${what})${this.offset(m.at)}`;
      this.event('abort', reason, { cause: 'blind', verdict: 'inconclusive', count: streak });
      return { stop: reason, blindStreak: streak };
    }
    return { blindStreak: streak };
  }

  /** Requests the stop and polls until FIS reports a terminal state, with backoff, within the timeout. */
  private async stopAndVerify(reason: string): Promise<void> {
    const id = this.experimentId;
    if (id === undefined || this.stopAttempted) return;
    this.stopAttempted = true;
    const timeout = this.deps.stopVerifyTimeoutMs ?? DEFAULT_STOP_VERIFY_TIMEOUT_MS;
    this.timing({ stopRequestedAt: this.now() });
    const request = async (): Promise<string | undefined> => {
      try {
        await this.deps.injector.stop(id, reason);
        return undefined;
      } catch (error) {
        return errorMessage(error);
      }
    };
    const refused = await request();
    this.event(
      'stop-requested',
      refused === undefined
        ? `stop requested: ${reason}`
        : `stop request answered with an error (${refused}); verifying the state`,
      refused === undefined ? { experimentId: id } : { experimentId: id, error: refused },
    );
    const deadline = this.now() + timeout;
    let delay = STOP_POLL_INITIAL_MS;
    let last = 'unknown';
    for (;;) {
      try {
        const s = await this.deps.injector.state(id);
        last = s.status;
        if (this.noteState(s)) {
          this.stopVerified = true;
          this.event('stop-verified', `experiment ${id} ${s.status}${this.offset()}`, { status: s.status });
          return;
        }
        // FIS accepted nothing yet (still running): ask again, the first request may have been lost.
        if (s.status !== 'stopping') await request();
      } catch (error) {
        last = `unreadable (${errorMessage(error)})`;
      }
      const left = deadline - this.now();
      if (left <= 0) break;
      await this.clock.sleep(Math.min(delay, left));
      delay = Math.min(delay * 2, STOP_POLL_MAX_MS);
    }
    const commands = [`aws fis stop-experiment --id ${id}`, `aws fis get-experiment --id ${id}`];
    this.event(
      'stop-failed',
      `stop of FIS experiment ${id} not verified within ${formatSeconds(timeout)} (last state ${last}); ` +
        `stop it by hand: ${commands[0]}`,
      { experimentId: id, lastState: last, manualCommands: commands },
    );
  }

  /** Measures until every SLI is back within its bound, up to `recovery.within` after the fault ended. */
  private async recover(): Promise<void> {
    const within = this.plan.hypothesis.recovery.within;
    const faultEnd = this.timings.stoppedAt ?? this.now();
    const deadline = faultEnd + within;
    let next = this.now() + this.intervalMs;
    let problem = 'no measurement';
    let blind = false;
    for (;;) {
      await this.sleepUntil(next, this.deps.signal);
      if (this.cancelled()) {
        const reason = `cancelled by ${this.cancelReason()} during recovery${this.offset()}`;
        this.event('signal', reason, { signal: this.cancelReason() });
        this.event('abort', reason, { cause: 'cancelled', verdict: 'aborted' });
        return;
      }
      const m = await this.measure('recovery');
      const bad = Object.entries(m.slis).filter(([, v]) => v.status !== 'ok');
      if (bad.length === 0) {
        this.timing({ recoveredAt: m.at });
        this.event(
          'recovery',
          `recovered ${formatSeconds(m.at - faultEnd)} after the fault ended${this.offset(m.at)}`,
          {
            recovered: true,
            afterMs: m.at - faultEnd,
          },
        );
        return;
      }
      blind = bad.every(([, v]) => v.status !== 'breach');
      problem = bad
        .map(([n, v]) =>
          v.status === 'breach'
            ? `${n} ${breachText(this.steadyBound(n), v.value ?? NaN)} (steady-state bound)`
            : `${n} no data (${v.error ?? v.status})`,
        )
        .join(', ');
      problem += this.offset(m.at);
      if (this.now() >= deadline) break;
      next = Math.min(Math.max(next + this.intervalMs, this.now()), deadline);
    }
    this.event(
      'recovery',
      `not recovered within ${formatSeconds(within)} after the fault ended: ${problem}`,
      {
        recovered: false,
        blind,
      },
    );
  }
}
