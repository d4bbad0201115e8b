/**
 * The FIS stand-in's front: the one object the sandbox server mounts. It routes each operation to the
 * module that owns it (templates, target accounts, experiments, safety lever, tags, reference data) and
 * holds the timings. Time comes from `now()` and moves only through `tick(now)`, so the same code runs
 * on a wall clock in the sandbox process and on a hand-driven clock in unit tests.
 */
import type { SandboxResource } from '../targets.js';
import { FisError } from './errors.js';
import { ExperimentMachine, MAX_ACTIVE_EXPERIMENTS } from './experiments.js';
import { SafetyLever } from './lever.js';
import { getAction, getTargetResourceType, listActions, listTargetResourceTypes } from './reference.js';
import {
  DEFAULT_FIS_TIMINGS,
  FisStore,
  type ActionSink,
  type AlarmReader,
  type FisTimings,
  type Json,
} from './store.js';
import {
  createTargetAccount,
  deleteTargetAccount,
  getExperimentTargetAccount,
  getTargetAccount,
  listExperimentTargetAccounts,
  listTargetAccounts,
  updateTargetAccount,
} from './target-accounts.js';
import { createTemplate, deleteTemplate, getTemplate, listTemplates, updateTemplate } from './templates.js';
import { handleRequest, operationOf, type FisResponse } from './wire.js';

export type { ActionRun, ActionSink, AlarmReader, AlarmStateValue, FisTimings } from './store.js';
export type { FisResponse } from './wire.js';

/** Options of the FIS stand-in. */
export interface FisStandInOptions {
  now: () => number;
  region: string;
  accountId: string;
  inventory: SandboxResource[];
  alarms?: AlarmReader | undefined;
  sink?: ActionSink | undefined;
  timings?: Partial<FisTimings> | undefined;
  /** Source of randomness for COUNT/PERCENT selection (tests pass a seeded one). */
  random?: (() => number) | undefined;
  /** Quotas lowered for tests (default: FIS's own). */
  quotas?: Partial<FisQuotas> | undefined;
}

/** The FIS quotas the stand-in enforces that a test may lower. */
export interface FisQuotas {
  /** Active experiments per account and Region, dry runs included (FIS: 5). */
  activeExperiments: number;
}

/** The FIS stand-in. */
export class FisStandIn {
  private readonly store: FisStore;
  private readonly experiments: ExperimentMachine;
  private readonly lever: SafetyLever;
  private current: FisTimings;
  private quota: FisQuotas;

  constructor(opts: FisStandInOptions) {
    this.current = { ...DEFAULT_FIS_TIMINGS, ...opts.timings };
    this.quota = { activeExperiments: MAX_ACTIVE_EXPERIMENTS, ...opts.quotas };
    const timings = (): FisTimings => this.current;
    this.store = new FisStore(opts.now, opts.region, opts.accountId);
    this.experiments = new ExperimentMachine({
      store: this.store,
      inventory: opts.inventory,
      alarms: opts.alarms,
      sink: opts.sink,
      timings,
      random: opts.random ?? Math.random,
      leverHeld: () => this.lever.status !== 'disengaged',
      activeQuota: () => this.quota.activeExperiments,
    });
    this.lever = new SafetyLever(this.store, timings, (now, reason) =>
      this.experiments.stopUnstopped(now, reason),
    );
  }

  /** The current timings. */
  get timings(): FisTimings {
    return { ...this.current };
  }

  /** Changes timings; experiments already in a phase keep that phase's deadline. */
  setTimings(t: Partial<FisTimings>): FisTimings {
    this.current = { ...this.current, ...t };
    return this.timings;
  }

  /** The quotas in force, and the stand-in's record against them: live now, the most ever live at once. */
  get quotas(): FisQuotas & { live: number; peakLive: number; quotaAnswers: number } {
    return {
      ...this.quota,
      live: this.experiments.liveCount(),
      peakLive: this.experiments.peakLive,
      quotaAnswers: this.experiments.quotaAnswers,
    };
  }

  /** Changes quotas (experiments already live stay live). */
  setQuotas(q: Partial<FisQuotas>): FisQuotas {
    this.quota = { ...this.quota, ...q };
    return { ...this.quota };
  }

  /** The operation a request names, or undefined for a path FIS does not have. */
  operationOf(method: string, pathname: string): string | undefined {
    return operationOf(method, pathname);
  }

  /** Handles one FIS request end to end; never throws. */
  handle(method: string, url: URL, body: Buffer): FisResponse {
    return handleRequest(method, url, body, (operation, input) => this.dispatch(operation, input));
  }

  /** Advances the safety lever and every live experiment to `now`. */
  tick(now: number): void {
    this.lever.tick(now);
    this.experiments.tick(now);
  }

  /**
   * Forces a failure: the given live experiment fails now, or (without an id) the next action that
   * would start fails its experiment. Returns false when the experiment is not live.
   */
  forceFailure(f: { experimentId?: string | undefined; code: string; reason: string }): boolean {
    return this.experiments.forceFailure(f);
  }

  /** Every experiment not yet in a terminal state, as GetExperiment would show it. */
  liveExperiments(): Json[] {
    return this.experiments.live();
  }

  /** The safety lever's status. */
  leverStatus(): string {
    return this.lever.status;
  }

  /** Stops every live experiment at once (sandbox shutdown): faults come off. */
  stopAll(reason: string): void {
    this.experiments.stopAll(reason);
  }

  private dispatch(operation: string, input: Json): Json {
    const store = this.store;
    switch (operation) {
      case 'CreateExperimentTemplate':
        return createTemplate(store, input);
      case 'GetExperimentTemplate':
        return getTemplate(store, input);
      case 'UpdateExperimentTemplate':
        return updateTemplate(store, input);
      case 'DeleteExperimentTemplate':
        return deleteTemplate(store, input);
      case 'ListExperimentTemplates':
        return listTemplates(store, input);
      case 'StartExperiment':
        return { experiment: this.experiments.view(this.experiments.start(input)) };
      case 'GetExperiment':
        return { experiment: this.experiments.view(store.experiment(String(input.id))) };
      case 'StopExperiment':
        return this.experiments.stop(input);
      case 'ListExperiments':
        return this.experiments.list(input);
      case 'ListExperimentResolvedTargets':
        return this.experiments.listResolvedTargets(input);
      case 'TagResource': {
        const arn = store.taggable(String(input.resourceArn));
        store.tags.set(arn, { ...store.tags.get(arn), ...(input.tags as Record<string, string>) });
        return {};
      }
      case 'UntagResource': {
        const arn = store.taggable(String(input.resourceArn));
        const current = store.tagsOf(arn);
        for (const k of (input.tagKeys as string[] | undefined) ?? []) delete current[k];
        store.tags.set(arn, current);
        return {};
      }
      case 'ListTagsForResource':
        return { tags: store.tagsOf(store.taggable(String(input.resourceArn))) };
      case 'GetSafetyLever':
        return this.lever.get(input);
      case 'UpdateSafetyLeverState':
        return this.lever.update(input);
      case 'GetAction':
        return getAction(store, input);
      case 'ListActions':
        return listActions(store, input);
      case 'CreateTargetAccountConfiguration':
        return createTargetAccount(store, input);
      case 'GetTargetAccountConfiguration':
        return getTargetAccount(store, input);
      case 'UpdateTargetAccountConfiguration':
        return updateTargetAccount(store, input);
      case 'DeleteTargetAccountConfiguration':
        return deleteTargetAccount(store, input);
      case 'ListTargetAccountConfigurations':
        return listTargetAccounts(store, input);
      case 'GetExperimentTargetAccountConfiguration':
        return getExperimentTargetAccount(store, input);
      case 'ListExperimentTargetAccountConfigurations':
        return listExperimentTargetAccounts(store, input);
      case 'ListTargetResourceTypes':
        return listTargetResourceTypes(input);
      case 'GetTargetResourceType':
        return getTargetResourceType(input);
      default:
        throw new FisError('ValidationException', `The sandbox does not implement ${operation}.`, 501);
    }
  }
}
