/**
 * The experiment state machine of docs/design/fis.md#experiment-states: StartExperiment, the phases pending → initiating →
 * running → completed | stopping → stopped | failed | cancelled, actions in startAfter order, stop
 * conditions, StopExperiment, and the experiment as Get/ListExperiments show it.
 */
import type { SandboxResource } from '../targets.js';
import { ACTION_CATALOG, parseIsoDuration } from './catalog.js';
import { FisError, validation } from './errors.js';
import { customResourceDurationMs } from './kubernetes.js';
import { resolveTargets } from './resolve.js';
import {
  clone,
  newId,
  seconds,
  type ActionSink,
  type ActionState,
  type AlarmReader,
  type Experiment,
  type FisStore,
  type FisTimings,
  type Json,
  type TemplateAction,
} from './store.js';
import { listAnswer } from './wire.js';

/**
 * Active experiments per account and Region: FIS's quota L-F5FCA485 is 5 (docs/sandbox.md). A dry run
 * (`actionsMode: skip-all`) is an experiment FIS starts, so it counts while it is live. The sandbox
 * config (`fisQuotas.activeExperiments`) lowers it for tests.
 */
export const MAX_ACTIVE_EXPERIMENTS = 5;
/** Actions running in parallel in one experiment (SQ-FIS L-EB051440). */
export const MAX_PARALLEL_ACTIONS = 10;

const LIVE = new Set(['pending', 'initiating', 'running', 'stopping']);

/** What the state machine needs from the rest of the stand-in. */
export interface ExperimentDeps {
  store: FisStore;
  inventory: SandboxResource[];
  alarms?: AlarmReader | undefined;
  sink?: ActionSink | undefined;
  /** The timings now in force (they can change between ticks). */
  timings: () => FisTimings;
  /** Source of randomness for COUNT/PERCENT selection. */
  random: () => number;
  /** True while the safety lever is engaging or engaged: a new experiment is cancelled before it runs. */
  leverHeld: () => boolean;
  /** The active-experiments quota now in force (default {@link MAX_ACTIVE_EXPERIMENTS}). */
  activeQuota?: (() => number) | undefined;
}

/** The experiments of one account and Region, moved on by {@link tick}. */
export class ExperimentMachine {
  private readonly store: FisStore;
  private pendingFailure: { code: string; reason: string } | undefined;
  private lastPoll = -Infinity;
  /** The most experiments ever live at once (the sandbox's own record for quota tests). */
  peakLive = 0;
  /** StartExperiment calls answered ServiceQuotaExceededException. */
  quotaAnswers = 0;

  constructor(private readonly deps: ExperimentDeps) {
    this.store = deps.store;
    deps.alarms?.onAlarmChange?.((alarm) => {
      if (alarm.state === 'ALARM') this.checkStopConditions(this.store.now(), alarm.arn, alarm.name);
    });
  }

  /** StartExperiment, idempotent on its client token. */
  start(input: Json): Experiment {
    const store = this.store;
    const timings = this.deps.timings();
    const token = String(input.clientToken);
    const options = (input.experimentOptions as Json | undefined) ?? {};
    const actionsMode = ((options.actionsMode as string | undefined) ??
      'run-all') as Experiment['actionsMode'];
    const fields = { experimentTemplateId: input.experimentTemplateId, tags: input.tags ?? {}, actionsMode };
    const prior = store.idempotent('StartExperiment', token, fields);
    if (prior) return store.experiment(prior);
    const template = store.template(String(input.experimentTemplateId));
    const active = this.liveCount();
    const quota = this.deps.activeQuota?.() ?? MAX_ACTIVE_EXPERIMENTS;
    if (active >= quota) {
      this.quotaAnswers++;
      throw new FisError(
        'ServiceQuotaExceededException',
        `The quota of ${quota} active experiments is reached.`,
      );
    }
    const multi = template.experimentOptions.accountTargeting === 'multi-account';
    const accounts = multi
      ? [...(store.targetAccounts.get(template.id)?.values() ?? [])].map((c) => ({ ...c }))
      : [];
    if (multi && accounts.length === 0)
      throw validation(
        `Experiment template ${template.id} targets multiple accounts but has no target account configurations; add one with CreateTargetAccountConfiguration.`,
      );
    const now = store.now();
    const id = newId('EXP');
    const pending = timings.pendingMs > 0;
    const e: Experiment = {
      id,
      arn: store.arn(`experiment/${id}`),
      templateId: template.id,
      snapshot: clone(template),
      actionsMode,
      status: pending ? 'pending' : 'initiating',
      reason: pending ? 'Experiment is pending.' : 'Experiment is initiating.',
      creationTime: now,
      phaseEndsAt: now + (pending ? timings.pendingMs : timings.initiatingMs),
      actions: Object.fromEntries(
        Object.entries(template.actions).map(([name, def]) => [
          name,
          { def: clone(def), status: 'pending', reason: 'Initial state' },
        ]),
      ),
      resolved: new Map(),
      cancelOnStart: this.deps.leverHeld(),
      accounts,
    };
    if (!pending) this.resolve(e);
    store.experiments.set(id, e);
    this.peakLive = Math.max(this.peakLive, this.liveCount());
    store.tags.set(e.arn, { ...(input.tags as Record<string, string> | undefined) });
    store.remember('StartExperiment', token, fields, id);
    return e;
  }

  /** StopExperiment: a live experiment starts stopping; one already stopping is left as it is. */
  stop(input: Json): Json {
    const e = this.store.experiment(String(input.id));
    if (!LIVE.has(e.status))
      throw validation(`Experiment ${e.id} is already ${e.status} and cannot be stopped.`);
    // StopExperiment answers "Stopping Experiment." (the AWS CLI's example); once stopped the record
    // says so (the wording of the final reason is not documented: inferred).
    if (e.status !== 'stopping')
      this.beginStop(e, this.store.now(), 'Stopping Experiment.', undefined, 'Experiment stopped.');
    return { experiment: this.view(e) };
  }

  /** ListExperiments, newest first, optionally for one template. */
  list(input: Json): Json {
    const filter = input.experimentTemplateId as string | undefined;
    const all = [...this.store.experiments.values()]
      .filter((e) => filter === undefined || e.templateId === filter)
      .sort((a, b) => b.creationTime - a.creationTime)
      .map((e) => ({
        id: e.id,
        arn: e.arn,
        experimentTemplateId: e.templateId,
        state: stateView(e),
        creationTime: seconds(e.creationTime),
        tags: this.store.tagsOf(e.arn),
        experimentOptions: optionsView(e),
      }));
    return listAnswer('experiments', all, input);
  }

  /** ListExperimentResolvedTargets: what each target resolved to at the start. */
  listResolvedTargets(input: Json): Json {
    const e = this.store.experiment(String(input.experimentId));
    const name = input.targetName as string | undefined;
    if (name !== undefined && !(name in e.snapshot.targets))
      throw validation(`Target ${name} is not in experiment ${e.id}.`);
    const all = [...e.resolved.entries()]
      .filter(([t]) => name === undefined || t === name)
      .flatMap(([targetName, resources]) =>
        resources.map((r) => ({
          resourceType: e.snapshot.targets[targetName]!.resourceType,
          targetName,
          targetInformation: { arn: r.arn },
        })),
      );
    return listAnswer('resolvedTargets', all, input);
  }

  /** Advances every live experiment to `now`, polling the stop-condition alarms when their interval is up. */
  tick(now: number): void {
    if (now - this.lastPoll >= this.deps.timings().stopConditionPollMs) {
      this.lastPoll = now;
      this.checkStopConditions(now);
    }
    for (const e of this.store.experiments.values()) {
      // Several phases can pass in one tick when the process was busy; loop until nothing moves.
      for (let guard = 0; guard < 64 && LIVE.has(e.status) && this.step(e, now); guard++);
    }
  }

  /** Starts stopping every experiment that has not reached `stopping` or an end (the safety lever). */
  stopUnstopped(now: number, reason: string): void {
    for (const e of this.store.experiments.values())
      if (e.status === 'pending' || e.status === 'initiating' || e.status === 'running')
        this.beginStop(e, now, reason);
  }

  /**
   * Forces a failure: the given live experiment fails now, or (without an id) the next action that
   * would start fails its experiment. Returns false when the experiment is not live.
   */
  forceFailure(f: { experimentId?: string | undefined; code: string; reason: string }): boolean {
    if (f.experimentId === undefined) {
      this.pendingFailure = { code: f.code, reason: f.reason };
      return true;
    }
    const e = this.store.experiments.get(f.experimentId);
    if (!e || !LIVE.has(e.status)) return false;
    const now = this.store.now;
    const running = Object.entries(e.actions).find(([, a]) => a.status === 'running');
    if (running) Object.assign(running[1], { status: 'failed', reason: f.reason, endTime: now() });
    if (running) this.endRun(running[1], now(), 'failed');
    this.fail(e, now(), f.code, f.reason, running?.[0]);
    return true;
  }

  /** Every experiment not yet in a terminal state, as GetExperiment would show it. */
  /** How many experiments are live (pending, initiating, running or stopping) now. */
  liveCount(): number {
    let n = 0;
    for (const e of this.store.experiments.values()) if (LIVE.has(e.status)) n++;
    return n;
  }

  live(): Json[] {
    return [...this.store.experiments.values()].filter((e) => LIVE.has(e.status)).map((e) => this.view(e));
  }

  /** Ends every live experiment at once (sandbox shutdown): faults come off. */
  stopAll(reason: string): void {
    const now = this.store.now();
    for (const e of this.store.experiments.values())
      if (LIVE.has(e.status)) this.finish(e, now, 'stopped', reason, 'stopped');
  }

  /** An experiment as GetExperiment answers it. */
  view(e: Experiment): Json {
    const s = e.snapshot;
    return {
      id: e.id,
      arn: e.arn,
      experimentTemplateId: e.templateId,
      roleArn: s.roleArn,
      state: stateView(e),
      targets: clone(s.targets),
      actions: Object.fromEntries(
        Object.entries(e.actions).map(([name, a]) => [
          name,
          {
            ...clone(a.def),
            state: { status: a.status, reason: a.reason },
            ...(a.startTime !== undefined ? { startTime: seconds(a.startTime) } : {}),
            ...(a.endTime !== undefined ? { endTime: seconds(a.endTime) } : {}),
          },
        ]),
      ),
      stopConditions: clone(s.stopConditions),
      creationTime: seconds(e.creationTime),
      ...(e.startTime !== undefined ? { startTime: seconds(e.startTime) } : {}),
      ...(e.endTime !== undefined ? { endTime: seconds(e.endTime) } : {}),
      tags: this.store.tagsOf(e.arn),
      ...(s.logConfiguration ? { logConfiguration: clone(s.logConfiguration) } : {}),
      experimentOptions: optionsView(e),
      targetAccountConfigurationsCount: e.accounts.length,
      ...(s.experimentReportConfiguration
        ? { experimentReportConfiguration: clone(s.experimentReportConfiguration) }
        : {}),
    };
  }

  private resolve(e: Experiment): void {
    resolveTargets(e, this.deps.inventory, this.store.accountId, this.deps.random);
  }

  private step(e: Experiment, now: number): boolean {
    switch (e.status) {
      case 'pending':
        if (now < e.phaseEndsAt) return false;
        e.status = 'initiating';
        e.reason = 'Experiment is initiating.';
        e.phaseEndsAt = now + this.deps.timings().initiatingMs;
        this.resolve(e);
        return true;
      case 'initiating':
        if (e.cancelOnStart) {
          this.finish(
            e,
            now,
            'cancelled',
            'Experiment was cancelled because the safety lever is engaged.',
            'cancelled',
          );
          return true;
        }
        if (now < e.phaseEndsAt) return false;
        if (e.resolutionError) {
          const r = e.resolutionError;
          this.fail(e, now, r.code, r.reason, r.location, r.accountId);
          return true;
        }
        e.status = 'running';
        e.reason = 'Experiment is running.';
        e.startTime = now;
        return true;
      case 'running':
        return this.advanceActions(e, now);
      case 'stopping':
        if (now < e.phaseEndsAt) return false;
        for (const a of Object.values(e.actions))
          if (a.status === 'stopping')
            Object.assign(a, { status: 'stopped', reason: 'Action was stopped.', endTime: a.endTime ?? now });
        e.status = 'stopped';
        e.reason = e.stoppedReason ?? e.reason;
        e.endTime = now;
        return true;
      default:
        return false;
    }
  }

  private advanceActions(e: Experiment, now: number): boolean {
    let moved = false;
    for (const a of Object.values(e.actions)) {
      if (a.status === 'running' && a.endsAt !== undefined && now >= a.endsAt) {
        a.status = 'completed';
        a.reason = 'Action completed.';
        a.endTime = now;
        this.endRun(a, now, 'completed');
        moved = true;
      }
    }
    let running = Object.values(e.actions).filter((a) => a.status === 'running').length;
    for (const [name, a] of Object.entries(e.actions)) {
      if (a.status !== 'pending') continue;
      const after = a.def.startAfter ?? [];
      if (!after.every((n) => ['completed', 'skipped'].includes(e.actions[n]?.status ?? ''))) continue;
      const targets = Object.values(a.def.targets ?? {}).flatMap((t) => e.resolved.get(t) ?? []);
      const hasTargetKey = Object.keys(a.def.targets ?? {}).length > 0;
      if (e.actionsMode === 'skip-all') {
        Object.assign(a, {
          status: 'skipped',
          reason: 'Action was skipped (actionsMode skip-all).',
          startTime: now,
          endTime: now,
        });
        moved = true;
        continue;
      }
      if (hasTargetKey && targets.length === 0) {
        Object.assign(a, {
          status: 'skipped',
          reason: 'Action was skipped because no targets were resolved.',
          startTime: now,
          endTime: now,
        });
        moved = true;
        continue;
      }
      if (running >= MAX_PARALLEL_ACTIONS) continue;
      if (this.pendingFailure) {
        const f = this.pendingFailure;
        this.pendingFailure = undefined;
        Object.assign(a, { status: 'failed', reason: f.reason, startTime: now, endTime: now });
        this.fail(e, now, f.code, f.reason, name);
        return true;
      }
      const durationMs = actionDurationMs(a.def) * this.deps.timings().durationScale;
      a.status = 'running';
      a.reason = 'Action is running.';
      a.startTime = now;
      a.endsAt = now + durationMs;
      a.run = {
        experimentId: e.id,
        actionName: name,
        actionId: a.def.actionId,
        parameters: { ...a.def.parameters },
        targets,
        startTime: now,
      };
      this.deps.sink?.started(a.run);
      running++;
      moved = true;
      if (durationMs <= 0) {
        a.status = 'completed';
        a.reason = 'Action completed.';
        a.endTime = now;
        this.endRun(a, now, 'completed');
        running--;
      }
    }
    if (Object.values(e.actions).every((a) => ['completed', 'skipped'].includes(a.status))) {
      this.finish(e, now, 'completed', 'Experiment completed.', 'completed');
      return true;
    }
    return moved;
  }

  private endRun(a: ActionState, now: number, endedAs: string): void {
    if (!a.run || a.run.endTime !== undefined) return;
    a.run.endTime = now;
    a.run.endedAs = endedAs;
    this.deps.sink?.ended(a.run);
  }

  /** Ends an experiment in a terminal state; every action still live is ended with it. */
  private finish(e: Experiment, now: number, status: string, reason: string, actionEnd: string): void {
    for (const a of Object.values(e.actions)) {
      if (a.status === 'pending')
        Object.assign(a, { status: 'cancelled', reason: 'Experiment ended before the action started.' });
      else if (a.status === 'running' || a.status === 'stopping') {
        Object.assign(a, {
          status: actionEnd === 'completed' ? 'completed' : 'stopped',
          endTime: now,
          reason: 'Action was stopped.',
        });
      }
      this.endRun(a, now, a.status);
    }
    e.status = status;
    e.reason = reason;
    e.endTime = now;
  }

  private fail(
    e: Experiment,
    now: number,
    code: string,
    reason: string,
    location?: string,
    accountId: string = this.store.accountId,
  ): void {
    e.error = { accountId, code, ...(location ? { location } : {}) };
    this.finish(e, now, 'failed', reason, 'failed');
  }

  /**
   * Starts stopping: faults come off now; the record reads `stopped` after `stoppingMs`, with
   * `stoppedReason` as its reason from then on (the stopping reason when none is given).
   */
  private beginStop(
    e: Experiment,
    now: number,
    reason: string,
    error?: { code: string; location?: string },
    stoppedReason: string = reason,
  ): void {
    for (const a of Object.values(e.actions)) {
      if (a.status === 'pending')
        Object.assign(a, { status: 'cancelled', reason: 'Experiment stopped before the action started.' });
      else if (a.status === 'running') {
        Object.assign(a, { status: 'stopping', reason: 'Action is stopping.', endTime: now });
        this.endRun(a, now, 'stopped');
      }
    }
    const stoppingMs = this.deps.timings().stoppingMs;
    e.status = 'stopping';
    e.reason = reason;
    e.stoppedReason = stoppedReason;
    if (error) e.error = { accountId: this.store.accountId, ...error };
    e.phaseEndsAt = now + stoppingMs;
    if (stoppingMs <= 0) this.step(e, now);
  }

  /** Stops every initiating or running experiment whose stop-condition alarm (all, or the one named) is in ALARM. */
  private checkStopConditions(now: number, arn?: string, name?: string): void {
    const alarms = this.deps.alarms;
    if (!alarms) return;
    for (const e of this.store.experiments.values()) {
      if (e.status !== 'initiating' && e.status !== 'running') continue;
      for (const sc of e.snapshot.stopConditions) {
        if (sc.source !== 'aws:cloudwatch:alarm' || !sc.value) continue;
        if (arn !== undefined && sc.value !== arn && sc.value !== name) continue;
        if (alarms.alarmState(sc.value) !== 'ALARM') continue;
        this.beginStop(e, now, `Experiment stopped by stop condition ${sc.value}.`, {
          code: 'StopConditionTriggered',
          location: sc.value,
        });
        break;
      }
    }
  }
}

function stateView(e: Experiment): Json {
  return { status: e.status, reason: e.reason, ...(e.error ? { error: { ...e.error } } : {}) };
}

function optionsView(e: Experiment): Json {
  return { ...e.snapshot.experimentOptions, actionsMode: e.actionsMode };
}

/** How long an action runs: its duration parameter, or a custom resource's own duration within it. */
function actionDurationMs(def: TemplateAction): number {
  const cat = ACTION_CATALOG.get(def.actionId);
  const text = cat?.durationParameter ? def.parameters?.[cat.durationParameter] : undefined;
  const ms = text ? (parseIsoDuration(text) ?? 0) : 0;
  // A custom resource runs for its own spec's duration, cut off at maxDuration.
  if (cat?.effect === 'custom-resource')
    return Math.min(ms, customResourceDurationMs(def.parameters ?? {}) ?? ms);
  return ms;
}
