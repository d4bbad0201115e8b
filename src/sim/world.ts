/**
 * The simulated world: metric sources and an FIS-like injector driven by a scenario and a clock.
 * Every call is recorded so tests can assert what the engine did (e.g. that the stop was requested).
 */
import { writeFileSync } from 'node:fs';
import type { Clock } from '../clock/clock.js';
import type { Plan, SourceSpec } from '../plan/schema.js';
import type {
  ExperimentState,
  FoundExperiment,
  TargetResolution,
  ExperimentStatus,
  Injector,
  ResolvedTarget,
  RunContext,
} from '../injector/injector.js';
import type { MetricSource, Query, Reading, SourceKind } from '../metrics/source.js';
import type { CandidateCounter, IncidentProbe, KillSwitchProbe, LedgerReader } from '../injector/ports.js';
import { hash32, noiseAt } from './random.js';
import type { Scenario, SeriesSpec } from './scenario.js';

/** The request-count query name the engine uses (kept literal: sim/ must not import engine/). */
const REQUESTS_QUERY = '__requests';

export interface SimCall {
  method: string;
  at: number;
  args: unknown[];
}

export interface SimWorldOptions {
  /** Where the abort file is written when the scenario says `abortFileAt`. */
  abortFile?: string | undefined;
}

/** The world's state shared by its sources and injector. */
export class SimWorld {
  readonly createdAt: number;
  /** Aborted by the scenario's `signal`: pass it to the engine as its cancellation signal. */
  readonly signal: AbortSignal;
  readonly injector: SimInjector;
  readonly sources: Record<SourceKind, SimSource>;
  private readonly signalCtl = new AbortController();
  /** Cancels the world's own timers (signal, abort file) so nothing outlives the run. */
  private readonly lifetime = new AbortController();

  constructor(
    readonly scenario: Scenario,
    readonly clock: Clock,
    readonly options: SimWorldOptions = {},
  ) {
    this.createdAt = clock.now();
    this.signal = this.signalCtl.signal;
    this.injector = new SimInjector(this);
    this.sources = {
      prometheus: new SimSource('prometheus', this),
      cloudwatch: new SimSource('cloudwatch', this),
      scrape: new SimSource('scrape', this),
    };
    if (scenario.signal?.relativeTo === 'start') this.schedule(scenario.signal.at, () => this.raise());
  }

  /**
   * What preflight asks the world before the fault, answered from the scenario's `preflight:` section:
   * the gates `run` passes run in `simulate` too, against these.
   */
  get probes(): {
    incidents: IncidentProbe;
    killSwitch: KillSwitchProbe;
    ledger: LedgerReader;
    candidates: CandidateCounter | undefined;
  } {
    const p = this.scenario.preflight;
    const counts = p.candidates;
    return {
      incidents: {
        open: async () => ({
          open: p.incidentOpen,
          detail: p.incidentOpen ? 'the scenario has an incident open' : 'no incident in the scenario',
        }),
      },
      killSwitch: {
        engaged: async () =>
          p.killSwitchEngaged
            ? { engaged: true, reason: 'the scenario engaged the kill switch' }
            : { engaged: false },
      },
      ledger: { spent: async () => p.ledgerSpent },
      candidates: counts && { candidates: async (name) => counts[name] },
    };
  }

  /** Every call to the injector and the sources, in order. */
  get calls(): SimCall[] {
    return [...this.injector.calls, ...Object.values(this.sources).flatMap((s) => s.calls)].sort(
      (a, b) => a.at - b.at,
    );
  }

  /** Stops the world's pending timers. */
  close(): void {
    this.lifetime.abort();
  }

  private schedule(afterMs: number, fn: () => void): void {
    const life = this.lifetime.signal;
    void this.clock.sleep(afterMs, life).then(() => {
      if (!life.aborted) fn();
    });
  }

  private raise(): void {
    this.signalCtl.abort(this.scenario.signal?.name ?? 'SIGINT');
  }

  /** Called by the injector when the experiment starts: timers relative to the injection begin. */
  onStart(): void {
    const s = this.scenario;
    if (s.signal && s.signal.relativeTo === 'injection') this.schedule(s.signal.at, () => this.raise());
    const file = this.options.abortFile;
    if (s.abortFileAt !== undefined && file !== undefined) {
      this.schedule(s.abortFileAt, () => writeFileSync(file, 'simulated abort\n'));
    }
  }

  /** When the fault is on: [start, end) in clock ms, or undefined when it never was. */
  faultWindow(): { start: number; end: number | undefined } | undefined {
    const inj = this.injector;
    if (inj.startedAt === undefined || !this.scenario.injector.injected) return undefined;
    const start = inj.startedAt + this.scenario.injector.initiating;
    const end = inj.terminalAt();
    if (end !== undefined && end <= start) return undefined;
    return { start, end };
  }

  /** The value of a series at a time (baseline, effect, noise, clamp). */
  valueOf(name: string, spec: SeriesSpec, at: number): number {
    let v = spec.baseline;
    const fault = this.faultWindow();
    const effect = spec.effect;
    if (effect && fault) {
      const from = fault.start + effect.delay;
      const until = fault.end === undefined ? Infinity : fault.end + effect.recoveryLag;
      if (at >= from && at < until) {
        const progress =
          effect.shape === 'ramp' && effect.rampOver > 0 ? Math.min(1, (at - from) / effect.rampOver) : 1;
        v = spec.baseline + (effect.to - spec.baseline) * progress;
      }
    }
    if (spec.noise > 0) v += spec.noise * (2 * noiseAt(this.scenario.seed, name, at) - 1);
    if (spec.min !== undefined) v = Math.max(spec.min, v);
    if (spec.max !== undefined) v = Math.min(spec.max, v);
    return v;
  }

  private gapAt(spec: SeriesSpec, at: number): SeriesSpec['gaps'][number] | undefined {
    const injectedAt = this.injector.startedAt;
    return spec.gaps.find((g) => {
      const origin = g.relativeTo === 'start' ? this.createdAt : injectedAt;
      if (origin === undefined) return false;
      return at >= origin + g.from && at < origin + g.to;
    });
  }

  /** The reading a source returns for one query at `at` over `windowMs`. */
  read(kind: SourceKind, q: Query, at: number, windowMs: number): Reading {
    const query = `sim:${kind} ${describe(q.spec)}`;
    const isRequests = q.name === REQUESTS_QUERY;
    const spec = isRequests ? this.scenario.requests : this.scenario.metrics[q.name];
    if (!spec) {
      return {
        name: q.name,
        value: null,
        status: 'no-data',
        query,
        error: `the scenario has no series '${q.name}'`,
      };
    }
    const gap = this.gapAt(spec, at);
    if (gap) {
      const reading: Reading = { name: q.name, value: null, status: gap.status, query };
      reading.error = gap.message ?? (gap.status === 'error' ? 'simulated query error' : 'empty result');
      return reading;
    }
    const v = this.valueOf(q.name, spec, at);
    const value = isRequests ? Math.max(0, Math.round((v * windowMs) / 1000)) : v;
    return { name: q.name, value, status: 'ok', query };
  }

  /** True when sources must throw at this time. */
  sourcesThrowAt(at: number): boolean {
    const t = this.scenario.sourceThrowsAt;
    const injectedAt = this.injector.startedAt;
    return t !== undefined && injectedAt !== undefined && at >= injectedAt + t;
  }
}

function describe(spec: SourceSpec): string {
  if (spec.prometheus !== undefined) return spec.prometheus;
  return JSON.stringify(spec.cloudwatch ?? spec.scrape ?? {});
}

/** A metric source of one kind backed by the world. */
export class SimSource implements MetricSource {
  readonly calls: SimCall[] = [];

  constructor(
    readonly kind: SourceKind,
    private readonly world: SimWorld,
  ) {}

  async read(queries: readonly Query[], at: number, windowMs: number): Promise<Reading[]> {
    this.calls.push({ method: `read:${this.kind}`, at, args: [queries.map((q) => q.name), windowMs] });
    if (this.world.sourcesThrowAt(at)) throw new Error(`simulated ${this.kind} source crash`);
    return queries.map((q) => this.world.read(this.kind, q, at, windowMs));
  }
}

/** An FIS-like injector whose experiment follows the scenario's timings on the world's clock. */
export class SimInjector implements Injector {
  readonly calls: SimCall[] = [];
  startedAt: number | undefined;
  stopRequestedAt: number | undefined;
  experimentId: string | undefined;
  private actionNames: string[] = [];

  constructor(private readonly world: SimWorld) {}

  private record(method: string, ...args: unknown[]): void {
    this.calls.push({ method, at: this.world.clock.now(), args });
  }

  /** Number of stop requests received. */
  get stopCount(): number {
    return this.calls.filter((c) => c.method === 'stop').length;
  }

  async provision(plan: Plan, ctx: RunContext): Promise<{ templateId: string; action: 'created' }> {
    this.record('provision', plan.id, ctx.runId);
    const b = this.world.scenario.injector;
    if (b.provisionFails !== undefined) throw new Error(b.provisionFails);
    return { templateId: `EXT${hash32(plan.id).toString(36).toUpperCase()}`, action: 'created' };
  }

  async resolveTargets(plan: Plan, templateId: string): Promise<TargetResolution> {
    this.record('resolveTargets', plan.id, templateId);
    const named = this.world.scenario.injector.targets;
    const targets = named
      ? named.map((t) => {
          const r: ResolvedTarget = { target: t.target, arn: t.arn };
          if (t.tags) r.tags = t.tags;
          return r;
        })
      : Object.entries(plan.fis.targets).map(([name, t]): ResolvedTarget => {
          const r: ResolvedTarget = { target: name, arn: simulatedArn(name, t.resourceType) };
          if (t.resourceTags) r.tags = { ...t.resourceTags };
          return r;
        });
    // The scenario's targets are the whole answer, as a completed FIS dry run's list is.
    return { targets, complete: true };
  }

  async start(plan: Plan, templateId: string, ctx: RunContext): Promise<{ experimentId: string }> {
    this.record('start', plan.id, templateId, ctx.runId, ctx.attempt);
    const b = this.world.scenario.injector;
    if (b.startFails !== undefined) throw new Error(b.startFails);
    if (this.experimentId === undefined) {
      this.actionNames = Object.keys(plan.fis.actions);
      this.startedAt = this.world.clock.now();
      this.experimentId = `EXP${hash32(`${ctx.runId}:${ctx.attempt}:${plan.id}`).toString(36).toUpperCase()}`;
      this.world.onStart();
    }
    // The experiment started (or was found by its token), but the answer did not come back.
    if (this.calls.filter((c) => c.method === 'start').length <= b.startAnswersLost)
      throw new Error('socket hang up');
    return { experimentId: this.experimentId };
  }

  /** The run's experiment, once started, as a lookup by its tags would find it. */
  async find(plan: Plan, templateId: string, ctx: RunContext): Promise<FoundExperiment | undefined> {
    this.record('find', plan.id, templateId, ctx.runId, ctx.attempt);
    if (this.experimentId === undefined) return undefined;
    return { experimentId: this.experimentId, state: await this.state(this.experimentId) };
  }

  async stop(experimentId: string, reason: string): Promise<void> {
    this.record('stop', experimentId, reason);
    const b = this.world.scenario.injector;
    if (this.stopRequestedAt === undefined) this.stopRequestedAt = this.world.clock.now();
    if (b.stopThrows !== undefined) throw new Error(b.stopThrows);
  }

  /** The terminal transition in clock ms, if one is scheduled: the earliest of every cause. */
  private terminal():
    { at: number; status: ExperimentStatus; reason: string; errorCode?: string } | undefined {
    const start = this.startedAt;
    if (start === undefined) return undefined;
    const b = this.world.scenario.injector;
    const options: { at: number; status: ExperimentStatus; reason: string; errorCode?: string }[] = [
      { at: start + b.initiating + b.actionDuration, status: 'completed', reason: 'Experiment completed.' },
    ];
    if (b.failsAt) {
      options.push({
        at: start + b.failsAt.at,
        status: 'failed',
        reason: b.failsAt.reason,
        errorCode: b.failsAt.errorCode,
      });
    }
    if (b.stopsAt)
      options.push({ at: start + b.stopsAt.at + b.stopLatency, status: 'stopped', reason: b.stopsAt.reason });
    if (b.cancelledAt !== undefined) {
      options.push({ at: start + b.cancelledAt, status: 'cancelled', reason: 'Safety lever engaged.' });
    }
    if (this.stopRequestedAt !== undefined && !b.stopNeverVerified) {
      options.push({
        at: this.stopRequestedAt + b.stopLatency,
        status: 'stopped',
        reason: 'Experiment stopped by user.',
      });
    }
    return options.sort((a, b2) => a.at - b2.at)[0];
  }

  /** When the experiment ends (or will end, as scheduled now). */
  terminalAt(): number | undefined {
    return this.terminal()?.at;
  }

  async state(experimentId: string): Promise<ExperimentState> {
    this.record('state', experimentId);
    const start = this.startedAt;
    if (start === undefined || experimentId !== this.experimentId)
      throw new Error(`ResourceNotFoundException: ${experimentId}`);
    const now = this.world.clock.now();
    const b = this.world.scenario.injector;
    const end = this.terminal();
    const actions = (status: string): Record<string, string> =>
      Object.fromEntries(this.actionNames.map((n) => [n, status]));
    const running = b.injected && now >= start + b.initiating;
    if (end && now >= end.at) {
      const ran = b.injected && end.at > start + b.initiating;
      const actionStatus = !ran ? 'cancelled' : end.status === 'cancelled' ? 'stopped' : end.status;
      const s: ExperimentState = { status: end.status, reason: end.reason, actions: actions(actionStatus) };
      if (end.errorCode !== undefined) s.errorCode = end.errorCode;
      s.injected = ran;
      // The actions' times as FIS reports them: from the end of initiating to the experiment's end.
      if (ran)
        s.actionStates = Object.fromEntries(
          this.actionNames.map((n) => [
            n,
            { status: actionStatus, startTime: start + b.initiating, endTime: end.at },
          ]),
        );
      return s;
    }
    const stopping =
      (this.stopRequestedAt !== undefined && !b.stopNeverVerified) ||
      (b.stopsAt !== undefined && now >= start + b.stopsAt.at);
    if (stopping)
      return {
        status: 'stopping',
        reason: 'Stopping Experiment.',
        actions: actions('stopping'),
        injected: running,
      };
    if (now < start + b.initiating)
      return { status: 'initiating', reason: 'Experiment is initiating.', actions: actions('pending') };
    return {
      status: 'running',
      reason: 'Experiment is running.',
      actions: actions(b.injected ? 'running' : 'pending'),
      injected: b.injected,
    };
  }
}

/** The ARN of a simulated target's one resource: its resource type's service, in the simulated account. */
function simulatedArn(target: string, resourceType: string): string {
  const service = /^aws:([a-z0-9-]+):/.exec(resourceType)?.[1] ?? 'sim';
  return `arn:aws:${service}:eu-west-1:111122223333:sim/${target}`;
}
