/**
 * The run's state machine: gates → provision (the lease starts beating) → dry run → steady state (kept
 * up until the start may be sent) → start → observe → stop and verify → recovery → assess. Every
 * decision is journaled as it happens; the verdict is `assess()` of the journal. Once a start was
 * attempted, stop-and-verify runs on every way out (try/finally).
 *
 * The seams live beside it: `phases.ts` (the steady state before the start, the recovery after the fault),
 * `header.ts` (the journal header), `measure.ts` (one tick's window and readings), `observe.ts` (the fault
 * loop: ticks on the clock, the state poll beside them, abort rules in time), `lease.ts` (heartbeats
 * only while the loop makes progress), `stop.ts` (stop, verify, escalate to the lease), `deadline.ts`.
 */
import type { Clock } from '../clock/clock.js';
import type { Gate, GateContext, MidRunCheck } from './gates.js';
import type { Plan } from '../plan/schema.js';
import {
  TERMINAL_STATUSES,
  quotaOf,
  type ExperimentState,
  type Injector,
  type Lease,
  type ResolvedTarget,
  type RunContext,
} from '../injector/injector.js';
import type { ApiMeter, RunClaim } from '../injector/ports.js';
import type { RunCost } from '../journal/types.js';
import { actionMinutes, estimateCost } from './cost.js';
import type { MetricSource, SourceKind } from '../metrics/source.js';
import {
  EXIT_CODES,
  type BudgetFigures,
  type EventType,
  type Journal,
  type JournalEvent,
  type Measurement,
  type Timings,
  type Verdict,
} from '../journal/types.js';
import type { JournalWriter } from '../journal/writer.js';
import { formatOffset, formatSeconds, formatValue } from '../journal/format.js';
import { allMeasurements } from '../journal/columns.js';
import { judgeRun } from './assess.js';
import { CALL_DEADLINES, within } from './deadline.js';
import { errorMessage, refusalOf, step } from './errors.js';
import { journalHeader } from './header.js';
import { LeaseKeeper } from './lease.js';
import { RunQueue, underQuota, type QuotaWaitHost } from './queue.js';
import { Measurer, gapText } from './measure.js';
import { observe, type FaultEnd } from './observe.js';
import { measureRecovery, measureSteadyState } from './phases.js';
import { DEFAULT_STOP_VERIFY_TIMEOUT_MS, stopAndVerify } from './stop.js';

export { CALL_DEADLINES } from './deadline.js';
export { journalHeader } from './header.js';
export { READINESS_WAIT_MS, sleepOn } from './phases.js';
export { DEFAULT_STOP_VERIFY_TIMEOUT_MS } from './stop.js';
export { REQUESTS_QUERY } from './measure.js';

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
  onTick?: ((m: Measurement) => void) | undefined;
  onEvent?: ((e: JournalEvent) => void) | undefined;
  /** Called the moment the experiment id is known, so the front door can save it for the post step. */
  onExperimentId?: ((id: string) => void | Promise<void>) | undefined;
  stopVerifyTimeoutMs?: number | undefined;
  /**
   * The stop's budget once `signal` aborted (a cancel), also cutting a stop already under way: the front
   * door's grace before it is killed. Absent: a cancel keeps `stopVerifyTimeoutMs`.
   */
  cancelStopVerifyTimeoutMs?: number | undefined;
  /**
   * Called once the verdict is known, before the journal is final: records the run's measured damage in
   * the chaos ledger and returns the budget figures with the debit. Errors are journaled, not fatal.
   */
  settle?: ((journal: Journal, verdict: Verdict) => Promise<BudgetFigures | undefined>) | undefined;
  /**
   * The run's claim on its targets and budget, taken right before the start and released at the end
   * (src/injector/ports.ts). Absent: no coordination with other runners (tests, simulations).
   */
  claim?: RunClaim | undefined;
  /** AWS Region, recorded for the console link. */
  region?: string | undefined;
  /**
   * The run's queue (engine/queue.ts): the `queue-timeout` shared by the concurrency gate and the waits
   * for FIS's active-experiment quota. Absent: a full quota ends the run `not-run` at once.
   */
  queue?: RunQueue | undefined;
  /** Counts the run's AWS API calls for its cost estimate (src/injector/aws/meter.ts). */
  meter?: ApiMeter | undefined;
  ctx: RunContext;
}

export interface RunResult {
  verdict: Verdict;
  reason: string;
  exitCode: number;
  journal: Journal;
  experimentId?: string | undefined;
}

/** How long a mid-run check may take to read its baseline right before the start. */
const ARM_DEADLINE_MS = 5_000;

/** Runs one gate from preflight to verdict. Never throws: failures become the `failed` verdict. */
export async function runGate(deps: RunDeps): Promise<RunResult> {
  return new GateRun(deps).run();
}

/** What the run loop's parts share: the clock, the journal, timings. */
export interface RunShared {
  readonly plan: Plan;
  readonly clock: Clock;
  readonly deps: RunDeps;
  readonly timings: Timings;
  event(type: EventType, message: string, data?: Record<string, unknown>): void;
  timing(patch: Timings): void;
  offset(at?: number): string;
  record(m: Measurement): void;
  cancelled(): boolean;
  cancelReason(): string;
}

class GateRun implements RunShared {
  readonly plan: Plan;
  readonly clock: Clock;
  private readonly intervalMs: number;
  readonly timings: Timings = {};
  private experimentId: string | undefined;
  private startAttempted = false;
  private stopAttempted = false;
  private stopVerified = false;
  private injected = false;
  private lastState: string | undefined;
  private lease: LeaseKeeper | undefined;
  private readonly measurer: Measurer;

  constructor(readonly deps: RunDeps) {
    this.plan = deps.plan;
    this.clock = deps.clock;
    this.intervalMs = deps.plan.hypothesis.interval;
    this.measurer = new Measurer({
      plan: deps.plan,
      clock: deps.clock,
      sources: deps.sources,
      signal: deps.signal,
      gap: (from, to, phase) =>
        this.event(
          'gap',
          `no measurement covers ${gapText(from, to)} of the ${phase === 'steady' ? 'steady state' : phase}: the loop was held up${this.offset(to)}`,
          { from, to, phase },
        ),
    });
  }

  private now(): number {
    return this.clock.now();
  }

  event(type: EventType, message: string, data?: Record<string, unknown>): void {
    const e: JournalEvent = { at: this.now(), type, message };
    if (data) e.data = data;
    this.deps.journal.event(e);
    this.deps.onEvent?.(e);
  }

  timing(patch: Timings): void {
    Object.assign(this.timings, patch);
    this.deps.journal.update({ timings: patch });
  }

  record(m: Measurement): void {
    this.deps.journal.measurement(m);
    this.deps.onTick?.(m);
    this.lease?.progress();
  }

  /** `(+12.0 s)` relative to the injection, or empty before it. */
  offset(at = this.now()): string {
    const injectedAt = this.timings.injectedAt;
    return injectedAt === undefined ? '' : ` (${formatOffset((at - injectedAt) / 1000)})`;
  }

  cancelled(): boolean {
    return this.deps.signal?.aborted === true;
  }

  cancelReason(): string {
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
        // `not-run` when the reason is the moment's (FIS did not finish the dry run), else `refused`.
        this.event(refusal.verdict, refusal.message, refusal.field ? { field: refusal.field } : undefined);
      } else {
        this.event('error', `${errorMessage(error)}${this.offset()}`, { fatal: true });
      }
    } finally {
      if (this.startAttempted && this.experimentId !== undefined && !this.stopAttempted) {
        await this.stop('the run ended early').catch((error: unknown) => {
          this.event('error', `stopping after an error: ${errorMessage(error)}`, { fatal: true });
        });
      }
      await this.lease?.end();
      await this.releaseClaim();
    }
    this.noteJournalFailure();
    const { verdict, reason, exitCode, final } = await this.conclude();
    if (this.noteJournalFailure()) {
      // The final write itself failed: the verdict on record must say so. Decided again with that event,
      // and the journal (still whole in memory) is tried once more.
      const again = await this.conclude(false);
      return {
        verdict: again.verdict,
        reason: again.reason,
        exitCode: again.exitCode,
        journal: again.final,
        experimentId: this.experimentId,
      };
    }
    return { verdict, reason, exitCode, journal: final, experimentId: this.experimentId };
  }

  /** The verdict of the journal as it stands, the ledger settled (once), and the final record written. */
  private async conclude(
    settle = true,
  ): Promise<{ verdict: Verdict; reason: string; exitCode: number; final: Journal }> {
    const journal = this.deps.journal.snapshot();
    // One judgement: the verdict and every number a report shows, from the header's hypothesis as applied.
    const judgement = judgeRun({
      slis: journal.slis,
      expectations: journal.expectations ?? [],
      // Every measurement: a long run's journal object holds a sample, its columns hold them all.
      measurements: allMeasurements(journal),
      events: journal.events,
      timings: this.timings,
      startedAt: journal.startedAt,
    });
    const { verdict, reason } = judgement;
    const exitCode = EXIT_CODES[verdict];
    if (settle) await this.settle(verdict);
    this.event('verdict', `${verdict}: ${reason}`, { verdict, exitCode });
    this.timing({ finishedAt: this.now() });
    this.deps.journal.update({ cost: this.cost() });
    const final = await this.deps.journal.finish({ verdict, reason, exitCode, judgement });
    return { verdict, reason, exitCode, final };
  }

  /** The run's AWS calls, FIS action-minutes and their estimated cost, as counted up to now. */
  private cost(): RunCost {
    const now = this.now();
    return estimateCost({
      calls: this.deps.meter?.calls() ?? {},
      metricsRequested: this.deps.meter?.metricsRequested() ?? 0,
      fisActionMinutes: actionMinutes(this.lastActionStates, now),
      leaseMs: this.leaseStartedAt === undefined ? 0 : now - this.leaseStartedAt,
    });
  }

  private journalFailureNoted = false;

  /**
   * A journal that cannot be written is a run that cannot be trusted: once, a fatal error saying where and
   * why (the run ends `failed`). True when this call noted it.
   */
  private noteJournalFailure(): boolean {
    const failure = this.deps.journal.failure?.();
    if (failure === undefined || this.journalFailureNoted) return false;
    this.journalFailureNoted = true;
    this.event('error', `${failure}; the run cannot keep its record, so it fails${this.offset()}`, {
      fatal: true,
      cause: 'journal',
    });
    return true;
  }

  /**
   * Asked on every tick while the fault is on: a journal write that failed stops the fault at once (the
   * run no longer records what it sees), before anything else.
   */
  private journalCheck(): MidRunCheck {
    return {
      name: 'journal',
      cadence: 'tick',
      check: async () => {
        const failure = this.deps.journal.failure?.();
        return failure === undefined ? null : `${failure}: stopping the fault`;
      },
    };
  }

  /**
   * Starts the experiment. A start whose answer was lost (timeout, dropped connection) may still have
   * started it: ask once more with the same run context — the injector's start is idempotent (FIS
   * clientToken) — so the id is known and the fault can be watched. When that answer is lost too, the
   * experiment is looked up by this run's tags before giving up: one that exists is returned as `found`,
   * for the caller to stop (when its fault began is unknown, so the run cannot judge it). A refusal of
   * the first ask is not retried: nothing was sent.
   */
  private async start(templateId: string): Promise<{ experimentId: string; found?: ExperimentState }> {
    const once = (): Promise<{ experimentId: string }> =>
      within(this.clock, CALL_DEADLINES.startMs, 'FIS StartExperiment', (s) =>
        this.deps.injector.start(this.plan, templateId, this.deps.ctx, s),
      );
    try {
      return await once();
    } catch (error) {
      // A refusal, or FIS's quota answer: nothing was started, so there is nothing to ask again about.
      if (refusalOf(error) || quotaOf(error)) throw error;
      this.event(
        'error',
        `starting the experiment failed (${errorMessage(error)}); asking again with the same idempotency key`,
      );
    }
    let lost: unknown;
    try {
      return await once();
    } catch (error) {
      lost = error;
    }
    return this.findStarted(templateId, lost);
  }

  /** After two lost start answers: this run's experiment by its tags, or the error saying none is known. */
  private async findStarted(
    templateId: string,
    lost: unknown,
  ): Promise<{ experimentId: string; found: ExperimentState }> {
    const injector = this.deps.injector;
    const why = errorMessage(lost);
    const run = `run ${this.deps.runId} attempt ${this.deps.attempt}`;
    if (!injector.find) {
      throw new Error(
        `starting the experiment failed twice (${why}); an experiment of ${run} may have started, and this injector cannot look it up`,
        { cause: lost },
      );
    }
    let found: Awaited<ReturnType<NonNullable<Injector['find']>>>;
    try {
      found = await within(this.clock, CALL_DEADLINES.findMs, 'looking up the experiment', (s) =>
        injector.find!(this.plan, templateId, this.deps.ctx, s),
      );
    } catch (error) {
      throw new Error(
        `starting the experiment failed twice (${why}), and looking the experiment up by the tags of ${run} failed too ` +
          `(${errorMessage(error)}): one may be running; the lease alarm stops it once the heartbeats end`,
        { cause: lost },
      );
    }
    if (!found) {
      throw new Error(
        `starting the experiment failed twice (${why}); FIS lists no experiment tagged with ${run}, so none is known to have started`,
        { cause: lost },
      );
    }
    return { experimentId: found.experimentId, found: found.state };
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
    // The lease beats from here on, through provisioning, the dry run and the steady state: CloudWatch
    // evaluates a 10 s alarm every 10 s, so the alarm turns OK 10–20 s after the first beat, and that time
    // is best spent while the run does its other work. (Not earlier: a run the gates refuse touches nothing.)
    await this.startLease();
    const provisioned = await step('provisioning the FIS template', () =>
      within(this.clock, CALL_DEADLINES.provisionMs, 'provisioning', () =>
        this.deps.injector.provision(this.plan, this.deps.ctx),
      ),
    );
    this.deps.journal.update({ templateId: provisioned.templateId });
    this.event('provision', `template ${provisioned.templateId} ${provisioned.action}`, { ...provisioned });
    const dryRun = await underQuota(this.quotaHost(), this.queue, 'the dry run', () =>
      step('resolving targets (dry run)', () =>
        within(this.clock, CALL_DEADLINES.dryRunMs, 'the dry run', (s) =>
          this.deps.injector.resolveTargets(this.plan, provisioned.templateId, this.deps.ctx, s),
        ),
      ),
    );
    if (!dryRun.ok) {
      this.event('not-run', dryRun.reason, { gate: 'quota' });
      return;
    }
    const resolution = dryRun.value;
    const targets = resolution.targets;
    this.deps.journal.update({ resolvedTargets: targets });
    const resolvedData: Record<string, unknown> = { count: targets.length, complete: resolution.complete };
    if (resolution.dryRunId !== undefined) resolvedData.dryRunId = resolution.dryRunId;
    this.event(
      'targets-resolved',
      targets.length === 0
        ? `0 targets: ${resolution.complete ? 'the completed dry run resolved none' : 'the dry run did not give its whole answer'}`
        : `${targets.length} target(s): ${targets.map((t) => t.arn).join(', ')}${resolution.complete ? '' : ' (the dry run did not give its whole answer)'}`,
      resolvedData,
    );
    if (!(await this.runGates(['after-targets'], targets, resolution.complete))) return;
    let lastSteadyAt = await measureSteadyState(this, this.measurer);
    if (lastSteadyAt === undefined) return;
    const claimed = await this.takeClaim(targets);
    if (claimed === undefined) return;
    // Queued behind another run: the steady state it measured may have been that run's fault.
    if (claimed > 0) lastSteadyAt = await measureSteadyState(this, this.measurer);
    if (lastSteadyAt === undefined) return;
    if (this.cancelled()) {
      this.event('not-run', `cancelled by ${this.cancelReason()} before injection`);
      return;
    }
    // A journal that can no longer be written refuses the start: nothing would record the fault.
    if (this.noteJournalFailure()) return;
    let sentAt = this.now();
    let queuedForQuota = false;
    let steadyLost = false;
    let unarmed = false;
    const startOutcome = await underQuota(
      {
        ...this.quotaHost(),
        // FIS refused the start: nothing is live, so the lease beats regardless of progress again.
        onWait: () => {
          queuedForQuota = true;
          this.startAttempted = false;
          this.lease?.unguard();
        },
      },
      this.queue,
      'the start',
      async () => {
        // Queued for the quota: other runs' faults may have been on meanwhile, so the steady state the
        // run measured is stale; it is measured again right before the start.
        if (queuedForQuota) {
          const again = await measureSteadyState(this, this.measurer);
          if (again === undefined) {
            steadyLost = true;
            return undefined;
          }
          lastSteadyAt = again;
        }
        // The mid-run checks take their baselines right before the start (after any quota wait).
        if (!(await this.armChecks())) {
          unarmed = true;
          return undefined;
        }
        // From here on a heartbeat means "the run loop is advancing", not "the process exists".
        this.lease?.guard();
        this.startAttempted = true;
        sentAt = this.now();
        return step('starting the experiment', () => this.start(provisioned.templateId));
      },
    );
    if (steadyLost || unarmed) return;
    if (!startOutcome.ok) {
      this.event('not-run', startOutcome.reason, { gate: 'quota' });
      return;
    }
    const started = startOutcome.value!;
    const experimentId = started.experimentId;
    this.experimentId = experimentId;
    if (started.found) {
      await this.stopFound(experimentId, started.found);
      return;
    }
    const startedAt = this.now();
    // Saved for the post step before anything else can fail: a journal write, a crash, a SIGKILL.
    const saveError = await this.saveExperimentId(experimentId);
    this.timing({ experimentStartedAt: startedAt, injectedAt: startedAt });
    this.deps.journal.update({ experimentId });
    this.event(
      'inject',
      `experiment ${experimentId} started ${formatSeconds(sentAt - lastSteadyAt)} after the last steady-state measurement`,
      { experimentId, sentAt, lastSteadyAt },
    );
    this.startSentAt = sentAt;
    // A front door that could not save the id has lost its clean-up path: fatal, and the fault is
    // stopped on the way out (the journal already names the experiment).
    if (saveError !== undefined) throw saveError;
    await step("checking the experiment carries this run's lease", async () =>
      this.deps.claim?.started?.(experimentId, this.deps.signal),
    );

    const end: FaultEnd = await observe(this, {
      experimentId,
      measurer: this.measurer,
      readState: (signal) =>
        within(
          this.clock,
          CALL_DEADLINES.stateMs,
          'FIS GetExperiment',
          (s) => this.deps.injector.state(experimentId, s),
          signal,
        ),
      noteState: (s) => this.noteState(s),
      midRun: [this.journalCheck(), ...(this.deps.midRun ?? [])],
    });
    if (end.kind === 'stop') {
      await this.stop(end.reason);
    } else {
      // FIS ended the experiment itself (completed, or stopped, failed, cancelled by FIS): there is
      // nothing to stop, and the journal says how FIS ended it (the `experiment-state` and `fault-ended`
      // events carry FIS's status and reason).
      this.stopAttempted = true;
      this.stopVerified = true;
    }
    await this.lease?.end();
    if (this.stopVerified && !this.cancelled()) await measureRecovery(this, this.measurer);
  }

  /**
   * The experiment a lost start answer left behind, found by its tags. When its fault began is unknown,
   * so nothing the run measures can be judged against it: its id is saved and journaled, and it is
   * stopped and verified like any other. The `fatal` error makes the verdict `failed`, never `held`.
   */
  private async stopFound(experimentId: string, state: ExperimentState): Promise<void> {
    this.deps.journal.update({ experimentId });
    await this.deps.onExperimentId?.(experimentId);
    const live = !TERMINAL_STATUSES.has(state.status);
    this.event(
      'error',
      `StartExperiment's answer was lost twice, but FIS lists experiment ${experimentId} of this run (${state.status}` +
        `${state.reason ? `: ${state.reason}` : ''}); ${live ? 'stopping it: ' : ''}when its fault began is unknown, so the run cannot judge it`,
      { fatal: true, experimentId, found: true, status: state.status },
    );
    this.noteState(state);
    if (live) await this.stop('the StartExperiment answer was lost: the run cannot time the fault');
    else {
      this.stopAttempted = true;
      this.stopVerified = true;
    }
  }

  private startSentAt: number | undefined;

  private queueOf?: RunQueue;
  /** The run's queue: the front door's, or one that does not wait. */
  private get queue(): RunQueue {
    this.queueOf ??= this.deps.queue ?? new RunQueue({ clock: this.clock, timeoutMs: 0 });
    return this.queueOf;
  }

  private quotaHost(): QuotaWaitHost {
    return {
      clock: this.clock,
      signal: this.deps.signal,
      event: (type, message, data) => this.event(type, message, data),
    };
  }

  /**
   * Lets every mid-run check take its baseline right before the start (the alerts already firing). One
   * that cannot refuses the start: it could not tell what the fault caused from what was there before.
   */
  private async armChecks(): Promise<boolean> {
    for (const check of this.deps.midRun ?? []) {
      if (!check.arm) continue;
      try {
        const at = this.now();
        await within(this.clock, ARM_DEADLINE_MS, `${check.name} at injection`, (s) =>
          (check.arm as NonNullable<MidRunCheck['arm']>)(at, s),
        );
      } catch (error) {
        this.event(
          'not-run',
          `${check.name}: cannot take the baseline at injection (${errorMessage(error)}); refusing to start blind`,
          { gate: check.name },
        );
        return false;
      }
    }
    return true;
  }

  /**
   * Takes the run's claim (targets, budget, lease) right before the start. Returns how long it queued,
   * or undefined when the run may not start (journaled with the verdict the claim gave).
   */
  private async takeClaim(targets: ResolvedTarget[]): Promise<number | undefined> {
    const claim = this.deps.claim;
    if (!claim) return 0;
    const outcome = await step('claiming the targets', () => claim.acquire(targets, this.deps.signal));
    if (!outcome.ok) {
      this.event(outcome.verdict, outcome.reason, {
        gate: 'claim',
        ...(outcome.field !== undefined ? { field: outcome.field } : {}),
      });
      return undefined;
    }
    this.event('preflight', `claim: ${outcome.note}`, { gate: 'claim', waitedMs: outcome.waitedMs });
    return outcome.waitedMs;
  }

  /** Releases the claim; kept (to expire) while a fault that was sent a start is not known to have ended. */
  private async releaseClaim(): Promise<void> {
    const claim = this.deps.claim;
    if (!claim) return;
    const ended = !this.startAttempted || this.stopVerified || this.timings.stoppedAt !== undefined;
    try {
      const note = await claim.release(ended);
      if (note) this.event('preflight', `claim: ${note}`, { gate: 'claim' });
    } catch (error) {
      this.event('error', `releasing the run's claims: ${errorMessage(error)} (they expire by themselves)`);
    }
  }

  /** Hands the id to the front door; returns what it threw, for the caller to raise once journaled. */
  private async saveExperimentId(id: string): Promise<unknown> {
    try {
      await this.deps.onExperimentId?.(id);
      return undefined;
    } catch (error) {
      return error ?? new Error('onExperimentId failed');
    }
  }

  private async stop(reason: string, ended?: ExperimentState): Promise<void> {
    const id = this.experimentId;
    if (id === undefined || this.stopAttempted) return;
    this.stopAttempted = true;
    this.timing({ stopRequestedAt: this.now() });
    const outcome = await stopAndVerify(
      {
        clock: this.clock,
        injector: this.deps.injector,
        lease: this.lease,
        event: (type, message, data) => this.event(type, message, data),
        noteState: (s) => this.noteState(s),
        offset: (at) => this.offset(at),
        region: this.deps.region,
      },
      id,
      reason,
      this.deps.stopVerifyTimeoutMs ?? DEFAULT_STOP_VERIFY_TIMEOUT_MS,
      ended,
      this.deps.cancelStopVerifyTimeoutMs === undefined
        ? undefined
        : { signal: this.deps.signal, budgetMs: this.deps.cancelStopVerifyTimeoutMs },
    );
    this.stopVerified = outcome.verified;
  }

  private async runGates(
    stages: Gate['stage'][],
    targets?: ResolvedTarget[],
    targetsComplete?: boolean,
  ): Promise<boolean> {
    for (const gate of (this.deps.gates ?? []).filter((g) => stages.includes(g.stage))) {
      const ctx: GateContext = {
        plan: this.plan,
        now: this.now(),
        record: (e) => this.event(e.type, e.message, e.data),
      };
      if (targets) ctx.targets = targets;
      if (targets && targetsComplete !== undefined) ctx.targetsComplete = targetsComplete;
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

  private async startLease(): Promise<void> {
    const lease = this.deps.lease;
    if (!lease) return;
    this.leaseStartedAt = this.now();
    const keeper = new LeaseKeeper({
      lease,
      clock: this.clock,
      // Two missed ticks (or one lease interval, if longer) without progress withholds the next beat.
      staleAfterMs: Math.max(2 * this.intervalMs, lease.intervalMs) + 1_000,
      note: (type, message, data) => this.event(type, `${message}${this.offset()}`, data),
    });
    // The first beat must land before the start: without it the lease alarm would stop the fault at once.
    await step('publishing the first lease heartbeat', () => keeper.start(this.deps.signal));
    this.lease = keeper;
  }

  /**
   * Journals a state read; returns whether it is terminal. An `experiment-state` event is written when
   * the experiment's status changes, when FIS first shows an action running, and when any action's
   * status changes, so every per-action status FIS reported (`failed`, `cancelled`, `skipped`…) is in the
   * journal with FIS's reason.
   */
  private noteState(s: ExperimentState): boolean {
    if (s.actionStates) this.lastActionStates = s.actionStates;
    const actions = s.actions ?? {};
    const injectedNow =
      s.injected === true ||
      Object.values(actions).some((a) => ['running', 'completed', 'stopping', 'stopped'].includes(a));
    const becameInjected = injectedNow && !this.injected;
    if (injectedNow) this.injected = true;
    if (becameInjected && s.actionStartedAt !== undefined) this.refineInjectedAt(s.actionStartedAt);
    const terminal = TERMINAL_STATUSES.has(s.status);
    const actionsKey = JSON.stringify(Object.entries(actions).sort(([a], [b]) => a.localeCompare(b)));
    const actionsChanged = actionsKey !== this.lastActions;
    this.lastActions = actionsKey;
    if (s.status !== this.lastState || becameInjected || actionsChanged) {
      this.lastState = s.status;
      const data: Record<string, unknown> = { status: s.status, injected: this.injected, actions };
      if (s.actionStates) data.actionStates = s.actionStates;
      // Tells live printers that the time origin moved (reports read `timings` from the journal).
      if (becameInjected && this.timings.injectedAt !== undefined) data.injectedAt = this.timings.injectedAt;
      if (s.reason !== undefined) data.reason = s.reason;
      if (s.errorCode !== undefined) data.errorCode = s.errorCode;
      if (s.errorLocation !== undefined) data.errorLocation = s.errorLocation;
      this.event('experiment-state', this.stateMessage(s), data);
    }
    if (terminal && this.timings.stoppedAt === undefined) {
      this.timing({ stoppedAt: this.now() });
      this.event(
        'fault-ended',
        `fault ended: experiment ${s.status}${s.reason ? ` (FIS: ${s.reason})` : ''}${this.offset()}`,
        { status: s.status, ...(s.reason !== undefined ? { reason: s.reason } : {}) },
      );
    }
    return terminal;
  }

  private lastActions: string | undefined;
  /** The experiment's actions as FIS last reported them (their times give the action-minutes). */
  private lastActionStates: ExperimentState['actionStates'];
  private leaseStartedAt: number | undefined;

  /** One line for a state read: the experiment's status and FIS's reason, then any action that did not run as planned. */
  private stateMessage(s: ExperimentState): string {
    const head =
      s.status === 'failed'
        ? `FIS experiment failed: ${s.errorCode ?? 'no error code'}${s.errorLocation ? ` at ${s.errorLocation}` : ''}${s.reason ? ` — ${s.reason}` : ''}`
        : `experiment ${this.experimentId ?? ''} ${s.status}${s.reason ? `: ${s.reason}` : ''}`;
    const odd = Object.entries(s.actionStates ?? {})
      .filter(([, a]) => a.status === 'failed' || a.status === 'cancelled' || a.status === 'skipped')
      .map(([name, a]) => `action ${name} ${a.status}${a.reason ? ` (${a.reason})` : ''}`);
    return `${head}${odd.length ? `; ${odd.join('; ')}` : ''}${this.offset()}`;
  }

  /**
   * FIS's own action start time is the truest injection time. Its clock is not ours, so it is clamped to
   * what we saw: no earlier than our StartExperiment was sent, no later than now.
   */
  private refineInjectedAt(actionStartedAt: number): void {
    const lo = this.startSentAt ?? this.timings.injectedAt ?? actionStartedAt;
    const at = Math.min(Math.max(actionStartedAt, lo), this.now());
    if (at !== this.timings.injectedAt) this.timing({ injectedAt: at });
  }
}
