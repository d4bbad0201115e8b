/**
 * The FIS stand-in: templates, experiments, tags, the safety lever and the experiment state machine of
 * SEMANTICS §3, over restJson1 as `@aws-sdk/client-fis@3.523.0` sends it. Time comes from `now()` and
 * moves only through `tick(now)`, so the same code runs on a wall clock in the sandbox process and on a
 * hand-driven clock in unit tests.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { SandboxResource } from '../targets.js';
import { KNOWN_RESOURCE_TYPES } from '../targets.js';
import { ACTION_CATALOG, parameterProblem, parseIsoDuration, type CatalogAction } from './catalog.js';
import { customResourceDurationMs } from './kubernetes.js';
import { FisError, notFound, validation } from './errors.js';
import { idempotencyMembers, matchRoute, queryBindings, validateInput } from './model.js';

/** Alarm states as CloudWatch reports them. */
export type AlarmStateValue = 'OK' | 'ALARM' | 'INSUFFICIENT_DATA';

/** The part of the CloudWatch stand-in that stop conditions read. */
export interface AlarmReader {
  alarmState(arnOrName: string): AlarmStateValue | undefined;
  onAlarmChange?(cb: (alarm: { name: string; arn: string; state: string }) => void): void;
}

/** One action's run on its resolved targets: what the canary switches a fault on and off by. */
export interface ActionRun {
  experimentId: string;
  actionName: string;
  actionId: string;
  parameters: Record<string, string>;
  targets: SandboxResource[];
  startTime: number;
  endTime?: number | undefined;
  /** The action status it ended with (`completed`, `stopped`, `failed`). */
  endedAs?: string | undefined;
}

/** Receives action starts and ends (the fault router and the admin record). */
export interface ActionSink {
  started(run: ActionRun): void;
  ended(run: ActionRun): void;
}

/** Timings of the state machine; every one is configurable from the sandbox config and the admin API. */
export interface FisTimings {
  /** Time spent `pending` before `initiating` (0: StartExperiment already answers `initiating`). */
  pendingMs: number;
  /** Time spent `initiating` (targets resolved) before `running`. */
  initiatingMs: number;
  /** Time spent `stopping` before `stopped`. */
  stoppingMs: number;
  /** Multiplier on action durations (`PT1M` × 0.01 = 600 ms) so tests need not wait minutes. */
  durationScale: number;
  /** How often stop-condition alarms are polled (FIS's own interval is undocumented). */
  stopConditionPollMs: number;
  /** Time the safety lever spends `engaging` before `engaged`. */
  leverEngagingMs: number;
}

/** Default timings: quick enough for a demo, slow enough to watch each state. */
export const DEFAULT_FIS_TIMINGS: FisTimings = {
  pendingMs: 0,
  initiatingMs: 1000,
  stoppingMs: 500,
  durationScale: 1,
  stopConditionPollMs: 1000,
  leverEngagingMs: 500,
};

/** Active experiments per account and Region (SQ-FIS L-F5FCA485). */
export const MAX_ACTIVE_EXPERIMENTS = 5;
/** Experiment templates per account and Region (SQ-FIS L-2FF3254A). */
export const MAX_TEMPLATES = 500;
/** Actions per template (SQ-FIS L-0BFE6B67). */
export const MAX_ACTIONS_PER_TEMPLATE = 20;
/** Stop conditions per template (SQ-FIS L-872EC72B). */
export const MAX_STOP_CONDITIONS = 5;
/** Actions running in parallel in one experiment (SQ-FIS L-EB051440). */
export const MAX_PARALLEL_ACTIONS = 10;
/** Target account configurations per experiment template (FIS quotas page: 10). */
export const MAX_TARGET_ACCOUNTS = 10;
/** Page size when the caller sends no maxResults (the model's upper bound). */
const DEFAULT_PAGE_SIZE = 100;

const LIVE = new Set(['pending', 'initiating', 'running', 'stopping']);

type Json = Record<string, unknown>;

interface TemplateTarget {
  resourceType: string;
  resourceArns?: string[];
  resourceTags?: Record<string, string>;
  filters?: { path: string; values: string[] }[];
  selectionMode: string;
  parameters?: Record<string, string>;
}
interface TemplateAction {
  actionId: string;
  description?: string;
  parameters?: Record<string, string>;
  targets?: Record<string, string>;
  startAfter?: string[];
}
interface Template {
  id: string;
  arn: string;
  description: string;
  roleArn: string;
  targets: Record<string, TemplateTarget>;
  actions: Record<string, TemplateAction>;
  stopConditions: { source: string; value?: string }[];
  logConfiguration?: Json;
  experimentOptions: { accountTargeting: string; emptyTargetResolutionMode: string };
  experimentReportConfiguration?: Json;
  creationTime: number;
  lastUpdateTime: number;
}

/** One account a multi-account template reaches (M-FIS `TargetAccountConfiguration`). */
interface TargetAccountConfiguration {
  accountId: string;
  roleArn: string;
  description?: string;
}

interface ActionState {
  def: TemplateAction;
  status: string;
  reason: string;
  startTime?: number;
  endTime?: number;
  endsAt?: number;
  run?: ActionRun;
}

interface Experiment {
  id: string;
  arn: string;
  templateId: string;
  snapshot: Template;
  actionsMode: 'run-all' | 'skip-all';
  status: string;
  reason: string;
  error?: { accountId?: string; code: string; location?: string };
  creationTime: number;
  startTime?: number;
  endTime?: number;
  phaseEndsAt: number;
  actions: Record<string, ActionState>;
  resolved: Map<string, SandboxResource[]>;
  resolutionError?: { code: string; location: string; reason: string; accountId: string };
  cancelOnStart: boolean;
  /** The target accounts of a multi-account experiment, as they were at the start. */
  accounts: TargetAccountConfiguration[];
}

/** What the stand-in answered: the router writes it to the socket. */
export interface FisResponse {
  status: number;
  body: Json;
  headers?: Record<string, string>;
}

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
}

const ID_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
function newId(prefix: string): string {
  const bytes = randomBytes(14);
  return prefix + Array.from(bytes, (b) => ID_ALPHABET[b % ID_ALPHABET.length]).join('');
}

function seconds(ms: number): number {
  return Math.round(ms) / 1000;
}

function digest(value: unknown): string {
  return createHash('sha256').update(JSON.stringify(value)).digest('hex');
}

function clone<T>(v: T): T {
  return v === undefined ? v : (JSON.parse(JSON.stringify(v)) as T);
}

/** The FIS stand-in. */
export class FisStandIn {
  private readonly templates = new Map<string, Template>();
  private readonly experiments = new Map<string, Experiment>();
  private readonly tags = new Map<string, Record<string, string>>();
  private readonly tokens = new Map<string, { digest: string; id: string }>();
  /** Template id → account id → target account configuration. */
  private readonly targetAccounts = new Map<string, Map<string, TargetAccountConfiguration>>();
  private lever: { status: 'disengaged' | 'engaging' | 'engaged'; reason: string; engagedAt?: number } = {
    status: 'disengaged',
    reason: 'Safety lever is disengaged.',
  };
  private pendingFailure: { code: string; reason: string } | undefined;
  private lastPoll = -Infinity;
  private current: FisTimings;
  private readonly random: () => number;

  constructor(private readonly opts: FisStandInOptions) {
    this.current = { ...DEFAULT_FIS_TIMINGS, ...opts.timings };
    this.random = opts.random ?? Math.random;
    opts.alarms?.onAlarmChange?.((alarm) => {
      if (alarm.state === 'ALARM') this.checkStopConditions(this.opts.now(), alarm.arn, alarm.name);
    });
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

  /** The operation a request names, or undefined for a path FIS does not have. */
  operationOf(method: string, pathname: string): string | undefined {
    return matchRoute(method, pathname)?.operation;
  }

  /** Handles one FIS request end to end; never throws. */
  handle(method: string, url: URL, body: Buffer): FisResponse {
    try {
      const match = matchRoute(method, url.pathname);
      if (!match)
        throw new FisError('ValidationException', `No FIS operation for ${method} ${url.pathname}`, 404);
      const input = this.assembleInput(match.operation, match.labels, url.searchParams, body);
      const errors = validateInput(match.operation, input);
      if (errors.length > 0)
        throw validation(
          `${errors.length} validation error${errors.length > 1 ? 's' : ''} detected: ${errors.join('; ')}`,
        );
      return { status: 200, body: this.dispatch(match.operation, input) };
    } catch (error) {
      if (error instanceof FisError)
        return {
          status: error.status,
          headers: { 'x-amzn-ErrorType': error.code },
          body: { message: error.message },
        };
      return {
        status: 500,
        headers: { 'x-amzn-ErrorType': 'InternalServerException' },
        body: { message: error instanceof Error ? error.message : String(error) },
      };
    }
  }

  private assembleInput(
    operation: string,
    labels: Record<string, string>,
    query: URLSearchParams,
    body: Buffer,
  ): Json {
    let input: Json = {};
    if (body.length > 0) {
      let parsed: unknown;
      try {
        parsed = JSON.parse(body.toString('utf8'));
      } catch {
        throw validation('Request body is not valid JSON');
      }
      if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
        throw validation('Request body must be a JSON object');
      input = parsed as Json;
    }
    for (const [wire, binding] of queryBindings(operation)) {
      const values = query.getAll(wire);
      if (values.length === 0) continue;
      if (binding.list) input[binding.member] = values;
      else if (binding.numeric) {
        const n = Number(values[0]);
        if (!Number.isInteger(n))
          throw validation(
            `Value '${values[0]}' at '${binding.member}' failed to satisfy constraint: Member must be an integer`,
          );
        input[binding.member] = n;
      } else input[binding.member] = values[0];
    }
    for (const [k, v] of Object.entries(labels)) input[k] = v;
    // The SDK fills idempotency tokens; other callers (curl, old CLIs) may not, and the server fills them.
    for (const m of idempotencyMembers(operation)) if (input[m] === undefined) input[m] = newId('tok-');
    return input;
  }

  private dispatch(operation: string, input: Json): Json {
    switch (operation) {
      case 'CreateExperimentTemplate':
        return this.createTemplate(input);
      case 'GetExperimentTemplate':
        return { experimentTemplate: this.templateView(this.template(String(input.id))) };
      case 'UpdateExperimentTemplate':
        return this.updateTemplate(input);
      case 'DeleteExperimentTemplate': {
        const t = this.template(String(input.id));
        const view = this.templateView(t);
        this.templates.delete(t.id);
        this.targetAccounts.delete(t.id);
        this.tags.delete(t.arn);
        return { experimentTemplate: view };
      }
      case 'ListExperimentTemplates': {
        const all = [...this.templates.values()].map((t) => ({
          id: t.id,
          arn: t.arn,
          description: t.description,
          creationTime: seconds(t.creationTime),
          lastUpdateTime: seconds(t.lastUpdateTime),
          tags: { ...this.tags.get(t.arn) },
        }));
        const page = paginate(all, input);
        return { experimentTemplates: page.items, ...(page.nextToken ? { nextToken: page.nextToken } : {}) };
      }
      case 'StartExperiment':
        return { experiment: this.experimentView(this.start(input)) };
      case 'GetExperiment':
        return { experiment: this.experimentView(this.experiment(String(input.id))) };
      case 'StopExperiment': {
        const e = this.experiment(String(input.id));
        if (!LIVE.has(e.status))
          throw validation(`Experiment ${e.id} is already ${e.status} and cannot be stopped.`);
        if (e.status !== 'stopping') this.beginStop(e, this.opts.now(), 'Stopping Experiment.');
        return { experiment: this.experimentView(e) };
      }
      case 'ListExperiments': {
        const filter = input.experimentTemplateId as string | undefined;
        const all = [...this.experiments.values()]
          .filter((e) => filter === undefined || e.templateId === filter)
          .sort((a, b) => b.creationTime - a.creationTime)
          .map((e) => ({
            id: e.id,
            arn: e.arn,
            experimentTemplateId: e.templateId,
            state: this.stateView(e),
            creationTime: seconds(e.creationTime),
            tags: { ...this.tags.get(e.arn) },
            experimentOptions: this.optionsView(e),
          }));
        const page = paginate(all, input);
        return { experiments: page.items, ...(page.nextToken ? { nextToken: page.nextToken } : {}) };
      }
      case 'ListExperimentResolvedTargets': {
        const e = this.experiment(String(input.experimentId));
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
        const page = paginate(all, input);
        return { resolvedTargets: page.items, ...(page.nextToken ? { nextToken: page.nextToken } : {}) };
      }
      case 'TagResource': {
        const arn = this.taggable(String(input.resourceArn));
        this.tags.set(arn, { ...this.tags.get(arn), ...(input.tags as Record<string, string>) });
        return {};
      }
      case 'UntagResource': {
        const arn = this.taggable(String(input.resourceArn));
        const current = { ...this.tags.get(arn) };
        for (const k of (input.tagKeys as string[] | undefined) ?? []) delete current[k];
        this.tags.set(arn, current);
        return {};
      }
      case 'ListTagsForResource':
        return { tags: { ...this.tags.get(this.taggable(String(input.resourceArn))) } };
      case 'GetSafetyLever':
        return { safetyLever: this.leverView(String(input.id)) };
      case 'UpdateSafetyLeverState':
        return this.updateLever(input);
      case 'GetAction': {
        const a = ACTION_CATALOG.get(String(input.id));
        if (!a) throw notFound(`Action ${String(input.id)} not found.`);
        return { action: this.actionView(a, true) };
      }
      case 'ListActions': {
        const page = paginate(
          [...ACTION_CATALOG.values()].map((a) => this.actionView(a, false)),
          input,
        );
        return { actions: page.items, ...(page.nextToken ? { nextToken: page.nextToken } : {}) };
      }
      case 'CreateTargetAccountConfiguration':
        return this.createTargetAccount(input);
      case 'GetTargetAccountConfiguration':
        return { targetAccountConfiguration: { ...this.targetAccount(input) } };
      case 'UpdateTargetAccountConfiguration': {
        const c = this.targetAccount(input);
        if (input.roleArn !== undefined) c.roleArn = checkTargetRole(String(input.roleArn), c.accountId);
        if (input.description !== undefined) c.description = String(input.description);
        return { targetAccountConfiguration: { ...c } };
      }
      case 'DeleteTargetAccountConfiguration': {
        const c = this.targetAccount(input);
        this.targetAccounts.get(String(input.experimentTemplateId))?.delete(c.accountId);
        return { targetAccountConfiguration: { ...c } };
      }
      case 'ListTargetAccountConfigurations': {
        const t = this.template(String(input.experimentTemplateId));
        const page = paginate(
          [...(this.targetAccounts.get(t.id)?.values() ?? [])].map((c) => ({ ...c })),
          input,
        );
        return {
          targetAccountConfigurations: page.items,
          ...(page.nextToken ? { nextToken: page.nextToken } : {}),
        };
      }
      case 'GetExperimentTargetAccountConfiguration': {
        const e = this.experiment(String(input.experimentId));
        const c = e.accounts.find((a) => a.accountId === String(input.accountId));
        if (!c)
          throw notFound(
            `Target account configuration ${String(input.accountId)} not found in experiment ${e.id}.`,
          );
        return { targetAccountConfiguration: { ...c } };
      }
      case 'ListExperimentTargetAccountConfigurations': {
        const e = this.experiment(String(input.experimentId));
        const page = paginate(
          e.accounts.map((c) => ({ ...c })),
          input,
        );
        return {
          targetAccountConfigurations: page.items,
          ...(page.nextToken ? { nextToken: page.nextToken } : {}),
        };
      }
      case 'ListTargetResourceTypes': {
        const page = paginate(
          [...KNOWN_RESOURCE_TYPES].sort().map((resourceType) => ({
            resourceType,
            description: `FIS target resource type ${resourceType}.`,
          })),
          input,
        );
        return { targetResourceTypes: page.items, ...(page.nextToken ? { nextToken: page.nextToken } : {}) };
      }
      case 'GetTargetResourceType': {
        const type = String(input.resourceType);
        if (!KNOWN_RESOURCE_TYPES.has(type)) throw notFound(`Target resource type ${type} not found.`);
        return {
          targetResourceType: {
            resourceType: type,
            description: `FIS target resource type ${type}.`,
            parameters: {},
          },
        };
      }
      default:
        throw new FisError('ValidationException', `The sandbox does not implement ${operation}.`, 501);
    }
  }

  // ---- templates -------------------------------------------------------------------------------

  private createTemplate(input: Json): Json {
    const token = String(input.clientToken);
    const fields = {
      description: input.description,
      roleArn: input.roleArn,
      targets: input.targets ?? {},
      actions: input.actions,
      stopConditions: input.stopConditions,
      tags: input.tags ?? {},
      logConfiguration: input.logConfiguration,
      experimentOptions: input.experimentOptions,
      experimentReportConfiguration: input.experimentReportConfiguration,
    };
    const prior = this.idempotent('CreateExperimentTemplate', token, fields);
    if (prior) return { experimentTemplate: this.templateView(this.template(prior)) };
    if (this.templates.size >= MAX_TEMPLATES)
      throw new FisError(
        'ServiceQuotaExceededException',
        `The quota of ${MAX_TEMPLATES} experiment templates is reached.`,
      );
    const now = this.opts.now();
    const id = newId('EXT');
    const options = (input.experimentOptions as Json | undefined) ?? {};
    const t: Template = {
      id,
      arn: `arn:aws:fis:${this.opts.region}:${this.opts.accountId}:experiment-template/${id}`,
      description: String(input.description),
      roleArn: String(input.roleArn),
      targets: clone(fields.targets) as Record<string, TemplateTarget>,
      actions: clone(input.actions) as Record<string, TemplateAction>,
      stopConditions: clone(input.stopConditions) as Template['stopConditions'],
      experimentOptions: {
        accountTargeting: (options.accountTargeting as string | undefined) ?? 'single-account',
        emptyTargetResolutionMode: (options.emptyTargetResolutionMode as string | undefined) ?? 'fail',
      },
      creationTime: now,
      lastUpdateTime: now,
      ...(input.logConfiguration ? { logConfiguration: clone(input.logConfiguration) as Json } : {}),
      ...(input.experimentReportConfiguration
        ? { experimentReportConfiguration: clone(input.experimentReportConfiguration) as Json }
        : {}),
    };
    checkTemplate(t);
    this.templates.set(id, t);
    this.tags.set(t.arn, { ...(input.tags as Record<string, string> | undefined) });
    this.tokens.set(`CreateExperimentTemplate/${token}`, { digest: digest(fields), id });
    return { experimentTemplate: this.templateView(t) };
  }

  private updateTemplate(input: Json): Json {
    const t = this.template(String(input.id));
    const next: Template = clone(t);
    // A field that is present replaces the stored one; an absent field stays (SEMANTICS §2.2, inferred).
    if (input.description !== undefined) next.description = String(input.description);
    if (input.roleArn !== undefined) next.roleArn = String(input.roleArn);
    if (input.targets !== undefined) next.targets = clone(input.targets) as Template['targets'];
    if (input.actions !== undefined) next.actions = clone(input.actions) as Template['actions'];
    if (input.stopConditions !== undefined)
      next.stopConditions = clone(input.stopConditions) as Template['stopConditions'];
    if (input.logConfiguration !== undefined) next.logConfiguration = clone(input.logConfiguration) as Json;
    if (input.experimentReportConfiguration !== undefined)
      next.experimentReportConfiguration = clone(input.experimentReportConfiguration) as Json;
    const mode = (input.experimentOptions as Json | undefined)?.emptyTargetResolutionMode;
    if (typeof mode === 'string') next.experimentOptions.emptyTargetResolutionMode = mode;
    checkTemplate(next);
    next.lastUpdateTime = this.opts.now();
    this.templates.set(t.id, next);
    return { experimentTemplate: this.templateView(next) };
  }

  private template(id: string): Template {
    const t = this.templates.get(id);
    if (!t) throw notFound(`Experiment template ${id} not found.`);
    return t;
  }

  private templateView(t: Template): Json {
    return {
      id: t.id,
      arn: t.arn,
      description: t.description,
      targets: clone(t.targets),
      actions: clone(t.actions),
      stopConditions: clone(t.stopConditions),
      creationTime: seconds(t.creationTime),
      lastUpdateTime: seconds(t.lastUpdateTime),
      roleArn: t.roleArn,
      tags: { ...this.tags.get(t.arn) },
      ...(t.logConfiguration ? { logConfiguration: clone(t.logConfiguration) } : {}),
      experimentOptions: { ...t.experimentOptions },
      targetAccountConfigurationsCount: this.targetAccounts.get(t.id)?.size ?? 0,
      ...(t.experimentReportConfiguration
        ? { experimentReportConfiguration: clone(t.experimentReportConfiguration) }
        : {}),
    };
  }

  private taggable(arn: string): string {
    if (!this.tags.has(arn)) throw notFound(`Resource ${arn} not found.`);
    return arn;
  }

  /** Same token + same payload → the earlier resource id; same token + other payload → Conflict. */
  private idempotent(operation: string, token: string, fields: unknown): string | undefined {
    const prior = this.tokens.get(`${operation}/${token}`);
    if (!prior) return undefined;
    if (prior.digest !== digest(fields))
      throw new FisError(
        'ConflictException',
        `The client token ${token} was already used with different parameters.`,
      );
    return prior.id;
  }

  // ---- target accounts -------------------------------------------------------------------------

  private createTargetAccount(input: Json): Json {
    const t = this.template(String(input.experimentTemplateId));
    if (t.experimentOptions.accountTargeting !== 'multi-account')
      throw validation(
        `Experiment template ${t.id} targets a single account; target account configurations need experimentOptions.accountTargeting multi-account.`,
      );
    const accountId = String(input.accountId);
    if (!/^\d{12}$/.test(accountId))
      throw validation(`Account id ${accountId} is not a 12-digit AWS account id.`);
    const config: TargetAccountConfiguration = {
      accountId,
      roleArn: checkTargetRole(String(input.roleArn), accountId),
      ...(input.description !== undefined ? { description: String(input.description) } : {}),
    };
    const token = String(input.clientToken);
    const prior = this.idempotent('CreateTargetAccountConfiguration', token, { templateId: t.id, ...config });
    const configs = this.targetAccounts.get(t.id) ?? new Map<string, TargetAccountConfiguration>();
    if (prior) return { targetAccountConfiguration: { ...(configs.get(accountId) ?? config) } };
    if (configs.has(accountId))
      throw new FisError(
        'ConflictException',
        `Experiment template ${t.id} already has a target account configuration for ${accountId}.`,
      );
    if (configs.size >= MAX_TARGET_ACCOUNTS)
      throw new FisError(
        'ServiceQuotaExceededException',
        `The quota of ${MAX_TARGET_ACCOUNTS} target account configurations per experiment template is reached.`,
      );
    configs.set(accountId, config);
    this.targetAccounts.set(t.id, configs);
    this.tokens.set(`CreateTargetAccountConfiguration/${token}`, {
      digest: digest({ templateId: t.id, ...config }),
      id: accountId,
    });
    return { targetAccountConfiguration: { ...config } };
  }

  private targetAccount(input: Json): TargetAccountConfiguration {
    const t = this.template(String(input.experimentTemplateId));
    const c = this.targetAccounts.get(t.id)?.get(String(input.accountId));
    if (!c)
      throw notFound(
        `Target account configuration ${String(input.accountId)} not found for experiment template ${t.id}.`,
      );
    return c;
  }

  // ---- experiments -----------------------------------------------------------------------------

  private start(input: Json): Experiment {
    const token = String(input.clientToken);
    const options = (input.experimentOptions as Json | undefined) ?? {};
    const actionsMode = ((options.actionsMode as string | undefined) ??
      'run-all') as Experiment['actionsMode'];
    const fields = { experimentTemplateId: input.experimentTemplateId, tags: input.tags ?? {}, actionsMode };
    const prior = this.idempotent('StartExperiment', token, fields);
    if (prior) return this.experiment(prior);
    const template = this.template(String(input.experimentTemplateId));
    const active = [...this.experiments.values()].filter((e) => LIVE.has(e.status)).length;
    if (active >= MAX_ACTIVE_EXPERIMENTS)
      throw new FisError(
        'ServiceQuotaExceededException',
        `The quota of ${MAX_ACTIVE_EXPERIMENTS} active experiments is reached.`,
      );
    const multi = template.experimentOptions.accountTargeting === 'multi-account';
    const accounts = multi
      ? [...(this.targetAccounts.get(template.id)?.values() ?? [])].map((c) => ({ ...c }))
      : [];
    if (multi && accounts.length === 0)
      throw validation(
        `Experiment template ${template.id} targets multiple accounts but has no target account configurations; add one with CreateTargetAccountConfiguration.`,
      );
    const now = this.opts.now();
    const id = newId('EXP');
    const pending = this.current.pendingMs > 0;
    const e: Experiment = {
      id,
      arn: `arn:aws:fis:${this.opts.region}:${this.opts.accountId}:experiment/${id}`,
      templateId: template.id,
      snapshot: clone(template),
      actionsMode,
      status: pending ? 'pending' : 'initiating',
      reason: pending ? 'Experiment is pending.' : 'Experiment is initiating.',
      creationTime: now,
      phaseEndsAt: now + (pending ? this.current.pendingMs : this.current.initiatingMs),
      actions: Object.fromEntries(
        Object.entries(template.actions).map(([name, def]) => [
          name,
          { def: clone(def), status: 'pending', reason: 'Initial state' },
        ]),
      ),
      resolved: new Map(),
      cancelOnStart: this.lever.status !== 'disengaged',
      accounts,
    };
    if (!pending) this.resolveTargets(e);
    this.experiments.set(id, e);
    this.tags.set(e.arn, { ...(input.tags as Record<string, string> | undefined) });
    this.tokens.set(`StartExperiment/${token}`, { digest: digest(fields), id });
    return e;
  }

  private experiment(id: string): Experiment {
    const e = this.experiments.get(id);
    if (!e) throw notFound(`Experiment ${id} not found.`);
    return e;
  }

  /**
   * Resolves every target once, at the start (UG-targets), applying selection mode and empty-target mode.
   * A multi-account experiment resolves each target in every target account, and applies the selection
   * mode per account: "An AWS FIS experiment will resolve resources with consistent tags in each target
   * account. An action must resolve at least one target resource in any target account or will fail"
   * (UG "Work with multi-account experiments").
   */
  private resolveTargets(e: Experiment): void {
    const accounts = e.accounts.length ? e.accounts.map((a) => a.accountId) : [this.opts.accountId];
    for (const [name, target] of Object.entries(e.snapshot.targets)) {
      const usedByArns = (target.resourceArns?.length ?? 0) > 0;
      const resolved: SandboxResource[] = [];
      for (const account of accounts) {
        const matches = this.opts.inventory.filter(
          (r) => accountOf(r.arn) === account && matchesTarget(r, target),
        );
        // ARNs name their own account: only the accounts they are in resolve anything from them.
        if (usedByArns && !target.resourceArns!.some((arn) => accountOf(arn) === account)) continue;
        const chosen = select(matches, target.selectionMode, this.random);
        resolved.push(...chosen);
        const missingArn =
          usedByArns &&
          target.resourceArns!.some(
            (arn) => accountOf(arn) === account && !matches.some((r) => r.arn === arn),
          );
        if (
          missingArn ||
          (chosen.length === 0 &&
            (usedByArns || e.snapshot.experimentOptions.emptyTargetResolutionMode === 'fail'))
        ) {
          e.resolutionError ??= {
            code: 'InvalidTarget',
            location: name,
            accountId: account,
            reason:
              KNOWN_RESOURCE_TYPES.has(target.resourceType) &&
              !this.opts.inventory.some((r) => r.resourceType === target.resourceType)
                ? `Target ${name}: the sandbox has no resources of type ${target.resourceType}.`
                : `Target ${name}: no resources were resolved${accounts.length > 1 ? ` in account ${account}` : ''}.`,
          };
        }
      }
      if (usedByArns && !target.resourceArns!.some((arn) => accounts.includes(accountOf(arn))))
        e.resolutionError ??= {
          code: 'InvalidTarget',
          location: name,
          accountId: accounts[0] ?? this.opts.accountId,
          reason: `Target ${name}: its resources are in none of the experiment's accounts (${accounts.join(', ')}).`,
        };
      e.resolved.set(name, resolved);
    }
  }

  /** Advances every live experiment and the safety lever to `now`. */
  tick(now: number): void {
    if (this.lever.status === 'engaging' && now >= (this.lever.engagedAt ?? now))
      this.lever.status = 'engaged';
    if (now - this.lastPoll >= this.current.stopConditionPollMs) {
      this.lastPoll = now;
      this.checkStopConditions(now);
    }
    for (const e of this.experiments.values()) {
      // Several phases can pass in one tick when the process was busy; loop until nothing moves.
      for (let guard = 0; guard < 64 && LIVE.has(e.status) && this.step(e, now); guard++);
    }
  }

  private step(e: Experiment, now: number): boolean {
    switch (e.status) {
      case 'pending':
        if (now < e.phaseEndsAt) return false;
        e.status = 'initiating';
        e.reason = 'Experiment is initiating.';
        e.phaseEndsAt = now + this.current.initiatingMs;
        this.resolveTargets(e);
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
          this.fail(
            e,
            now,
            e.resolutionError.code,
            e.resolutionError.reason,
            e.resolutionError.location,
            e.resolutionError.accountId,
          );
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
      const durationMs = actionDurationMs(a.def) * this.current.durationScale;
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
      this.opts.sink?.started(a.run);
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
    this.opts.sink?.ended(a.run);
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
    accountId: string = this.opts.accountId,
  ): void {
    e.error = { accountId, code, ...(location ? { location } : {}) };
    this.finish(e, now, 'failed', reason, 'failed');
  }

  /** Starts stopping: faults come off now; the record reads `stopped` after `stoppingMs`. */
  private beginStop(
    e: Experiment,
    now: number,
    reason: string,
    error?: { code: string; location?: string },
  ): void {
    for (const a of Object.values(e.actions)) {
      if (a.status === 'pending')
        Object.assign(a, { status: 'cancelled', reason: 'Experiment stopped before the action started.' });
      else if (a.status === 'running') {
        Object.assign(a, { status: 'stopping', reason: 'Action is stopping.', endTime: now });
        this.endRun(a, now, 'stopped');
      }
    }
    e.status = 'stopping';
    e.reason = reason;
    if (error) e.error = { accountId: this.opts.accountId, ...error };
    e.phaseEndsAt = now + this.current.stoppingMs;
    if (this.current.stoppingMs <= 0) this.step(e, now);
  }

  private checkStopConditions(now: number, arn?: string, name?: string): void {
    const alarms = this.opts.alarms;
    if (!alarms) return;
    for (const e of this.experiments.values()) {
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

  // ---- safety lever ----------------------------------------------------------------------------

  private leverView(id: string): Json {
    if (id !== 'default') throw notFound(`Safety lever ${id} not found.`);
    return {
      id: 'default',
      arn: `arn:aws:fis:${this.opts.region}:${this.opts.accountId}:safety-lever/default`,
      state: { status: this.lever.status, reason: this.lever.reason },
    };
  }

  private updateLever(input: Json): Json {
    const id = String(input.id);
    this.leverView(id);
    const state = input.state as { status: 'engaged' | 'disengaged'; reason: string };
    if (this.lever.status === 'engaging')
      throw new FisError(
        'ConflictException',
        'The safety lever is engaging and cannot be changed until it is engaged.',
      );
    if (this.lever.status === state.status)
      throw new FisError('ConflictException', `The safety lever is already ${state.status}.`);
    const now = this.opts.now();
    if (state.status === 'engaged') {
      this.lever = {
        status: 'engaging',
        reason: state.reason,
        engagedAt: now + this.current.leverEngagingMs,
      };
      for (const e of this.experiments.values())
        if (e.status === 'pending' || e.status === 'initiating' || e.status === 'running')
          this.beginStop(e, now, `Experiment stopped by the safety lever: ${state.reason}`);
      if (this.current.leverEngagingMs <= 0) this.lever.status = 'engaged';
    } else {
      this.lever = { status: 'disengaged', reason: state.reason };
    }
    return { safetyLever: this.leverView(id) };
  }

  // ---- views -----------------------------------------------------------------------------------

  private stateView(e: Experiment): Json {
    return { status: e.status, reason: e.reason, ...(e.error ? { error: { ...e.error } } : {}) };
  }

  private optionsView(e: Experiment): Json {
    return { ...e.snapshot.experimentOptions, actionsMode: e.actionsMode };
  }

  private experimentView(e: Experiment): Json {
    const s = e.snapshot;
    return {
      id: e.id,
      arn: e.arn,
      experimentTemplateId: e.templateId,
      roleArn: s.roleArn,
      state: this.stateView(e),
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
      tags: { ...this.tags.get(e.arn) },
      ...(s.logConfiguration ? { logConfiguration: clone(s.logConfiguration) } : {}),
      experimentOptions: this.optionsView(e),
      targetAccountConfigurationsCount: e.accounts.length,
      ...(s.experimentReportConfiguration
        ? { experimentReportConfiguration: clone(s.experimentReportConfiguration) }
        : {}),
    };
  }

  private actionView(a: CatalogAction, full: boolean): Json {
    return {
      id: a.id,
      arn: `arn:aws:fis:${this.opts.region}:${this.opts.accountId}:action/${a.id}`,
      description: a.description,
      ...(full
        ? {
            parameters: Object.fromEntries(
              Object.entries(a.parameters).map(([k, p]) => [
                k,
                { description: p.description, required: p.required },
              ]),
            ),
          }
        : {}),
      targets: a.target ? { [a.target.key]: { resourceType: a.target.resourceType } } : {},
      tags: {},
    };
  }

  // ---- admin hooks -----------------------------------------------------------------------------

  /**
   * Forces a failure: the given live experiment fails now, or (without an id) the next action that
   * would start fails its experiment. Returns false when the experiment is not live.
   */
  forceFailure(f: { experimentId?: string | undefined; code: string; reason: string }): boolean {
    if (f.experimentId === undefined) {
      this.pendingFailure = { code: f.code, reason: f.reason };
      return true;
    }
    const e = this.experiments.get(f.experimentId);
    if (!e || !LIVE.has(e.status)) return false;
    const running = Object.entries(e.actions).find(([, a]) => a.status === 'running');
    if (running) Object.assign(running[1], { status: 'failed', reason: f.reason, endTime: this.opts.now() });
    if (running) this.endRun(running[1], this.opts.now(), 'failed');
    this.fail(e, this.opts.now(), f.code, f.reason, running?.[0]);
    return true;
  }

  /** Every experiment not yet in a terminal state, as GetExperiment would show it. */
  liveExperiments(): Json[] {
    return [...this.experiments.values()]
      .filter((e) => LIVE.has(e.status))
      .map((e) => this.experimentView(e));
  }

  /** The safety lever's status. */
  leverStatus(): string {
    return this.lever.status;
  }

  /** Stops every live experiment at once (sandbox shutdown): faults come off. */
  stopAll(reason: string): void {
    const now = this.opts.now();
    for (const e of this.experiments.values())
      if (LIVE.has(e.status)) this.finish(e, now, 'stopped', reason, 'stopped');
  }
}

/** The account of an ARN (`arn:aws:ec2:us-east-1:123456789012:…` → `123456789012`). */
function accountOf(arn: string): string {
  return arn.split(':')[4] ?? '';
}

/** A target account's role must be an IAM role in that account: FIS assumes it there. */
function checkTargetRole(roleArn: string, accountId: string): string {
  if (!/^arn:aws[a-z-]*:iam::\d{12}:role\/\S+$/.test(roleArn))
    throw validation(`Role ARN ${roleArn} is not an IAM role ARN.`);
  if (accountOf(roleArn) !== accountId)
    throw validation(`Role ARN ${roleArn} is not in the target account ${accountId}.`);
  return roleArn;
}

/** Checks a template beyond the model's shape constraints, the way FIS rejects a bad template. */
function checkTemplate(t: Template): void {
  const actions = Object.entries(t.actions);
  if (actions.length === 0) throw validation('An experiment template must have at least one action.');
  if (actions.length > MAX_ACTIONS_PER_TEMPLATE)
    throw validation(
      `An experiment template can have at most ${MAX_ACTIONS_PER_TEMPLATE} actions; it has ${actions.length}.`,
    );
  if (t.stopConditions.length > MAX_STOP_CONDITIONS)
    throw validation(
      `An experiment template can have at most ${MAX_STOP_CONDITIONS} stop conditions; it has ${t.stopConditions.length}.`,
    );
  for (const sc of t.stopConditions) {
    if (sc.source === 'none') continue;
    if (sc.source !== 'aws:cloudwatch:alarm')
      throw validation(
        `Stop condition source ${sc.source} is not supported: use aws:cloudwatch:alarm or none.`,
      );
    if (!sc.value || !/^arn:aws[a-z-]*:cloudwatch:[a-z0-9-]+:\d{12}:alarm:.+$/.test(sc.value))
      throw validation(`Stop condition value ${sc.value ?? '(missing)'} must be a CloudWatch alarm ARN.`);
  }
  for (const [name, target] of Object.entries(t.targets)) {
    if (!KNOWN_RESOURCE_TYPES.has(target.resourceType))
      throw validation(
        `Target ${name}: resource type ${target.resourceType} is not a FIS target resource type.`,
      );
    const byArn = (target.resourceArns?.length ?? 0) > 0;
    const byTag = Object.keys(target.resourceTags ?? {}).length > 0;
    if (byArn && byTag) throw validation(`Target ${name}: specify resourceArns or resourceTags, not both.`);
    if (byArn && (target.filters?.length ?? 0) > 0)
      throw validation(`Target ${name}: resource filters cannot be combined with resourceArns.`);
    if (!byArn && !byTag && target.resourceType !== 'aws:eks:pod')
      throw validation(`Target ${name}: specify resourceArns or resourceTags.`);
    if (!/^(ALL|COUNT\([1-9]\d*\)|PERCENT\(([1-9]\d?|100)\))$/.test(target.selectionMode))
      throw validation(
        `Target ${name}: selectionMode ${target.selectionMode} must be ALL, COUNT(n) or PERCENT(n) with 1 ≤ n ≤ 100.`,
      );
  }
  for (const [name, action] of actions) {
    const cat = ACTION_CATALOG.get(action.actionId);
    if (!cat)
      throw validation(
        `Action ${name}: ${action.actionId} is not an action the sandbox supports (see ListActions).`,
      );
    for (const [p, spec] of Object.entries(cat.parameters))
      if (spec.required && action.parameters?.[p] === undefined)
        throw validation(`Action ${name}: parameter ${p} is required for ${cat.id}.`);
    for (const [p, value] of Object.entries(action.parameters ?? {})) {
      const spec = cat.parameters[p];
      if (!spec) throw validation(`Action ${name}: ${cat.id} has no parameter ${p}.`);
      // The documented limits of each parameter (UG-ref), e.g. a disrupt-connectivity duration of PT1M–PT12H.
      const problem = parameterProblem(spec.rule, value);
      if (problem) throw validation(`Action ${name}: the value ${value} of parameter ${p} ${problem}.`);
    }
    for (const [key, targetName] of Object.entries(action.targets ?? {})) {
      if (!cat.target || key !== cat.target.key)
        throw validation(
          `Action ${name}: ${cat.id} takes no target ${key}${cat.target ? ` (it takes ${cat.target.key})` : ''}.`,
        );
      const target = t.targets[targetName];
      if (!target) throw validation(`Action ${name}: target ${targetName} is not defined in targets.`);
      if (target.resourceType !== cat.target.resourceType)
        throw validation(
          `Action ${name}: target ${targetName} has resource type ${target.resourceType}; ${cat.id} needs ${cat.target.resourceType}.`,
        );
    }
    if (cat.target && !action.targets?.[cat.target.key])
      throw validation(`Action ${name}: ${cat.id} needs a ${cat.target.key} target.`);
    for (const after of action.startAfter ?? [])
      if (!(after in t.actions) || after === name)
        throw validation(`Action ${name}: startAfter names unknown action ${after}.`);
  }
  // startAfter must not loop: FIS would never start such actions.
  const visiting = new Set<string>();
  const done = new Set<string>();
  const visit = (n: string): void => {
    if (done.has(n)) return;
    if (visiting.has(n)) throw validation(`Actions form a startAfter cycle through ${n}.`);
    visiting.add(n);
    for (const a of t.actions[n]?.startAfter ?? []) visit(a);
    visiting.delete(n);
    done.add(n);
  };
  for (const [n] of actions) visit(n);
}

function actionDurationMs(def: TemplateAction): number {
  const cat = ACTION_CATALOG.get(def.actionId);
  const text = cat?.durationParameter ? def.parameters?.[cat.durationParameter] : undefined;
  const ms = text ? (parseIsoDuration(text) ?? 0) : 0;
  // A custom resource runs for its own spec's duration, cut off at maxDuration.
  if (cat?.effect === 'custom-resource')
    return Math.min(ms, customResourceDurationMs(def.parameters ?? {}) ?? ms);
  return ms;
}

/** Tags AND together, an empty value matches only empty (UG-targets); filters AND, their values OR. */
function matchesTarget(r: SandboxResource, t: TemplateTarget): boolean {
  if (r.resourceType !== t.resourceType) return false;
  if ((t.resourceArns?.length ?? 0) > 0 && !t.resourceArns!.includes(r.arn)) return false;
  for (const [k, v] of Object.entries(t.resourceTags ?? {})) if (r.tags[k] !== v) return false;
  for (const f of t.filters ?? []) if (!f.values.includes(r.attributes[f.path] ?? '')) return false;
  if (r.resourceType === 'aws:ecs:task' && t.parameters) {
    if (
      t.parameters.cluster !== undefined &&
      !t.parameters.cluster.endsWith(r.attributes.cluster ?? '\u0000')
    )
      return false;
    if (t.parameters.service !== undefined && t.parameters.service !== r.attributes.service) return false;
  }
  if (r.resourceType === 'aws:eks:pod' && t.parameters) {
    const p = t.parameters;
    const pod = r.pod;
    if (!pod) return false;
    if (p.clusterIdentifier !== undefined && !p.clusterIdentifier.endsWith(pod.clusterIdentifier))
      return false;
    if (p.namespace !== undefined && p.namespace !== pod.namespace) return false;
    if (p.selectorType === 'labelSelector' && p.selectorValue) {
      const wanted = p.selectorValue.split(',').map((kv) => kv.split('='));
      if (!wanted.every(([k, v]) => k !== undefined && pod.labels[k] === v)) return false;
    }
    if (p.selectorType === 'deploymentName' && p.selectorValue !== pod.deploymentName) return false;
    if (p.selectorType === 'podName' && p.selectorValue !== pod.podName) return false;
  }
  return true;
}

/** ALL, COUNT(n) (n at random, at most all) or PERCENT(n) (floor(N·n/100) at random, SEMANTICS §3.4). */
export function select<T>(items: T[], mode: string, random: () => number): T[] {
  const count = /^COUNT\((\d+)\)$/.exec(mode);
  const percent = /^PERCENT\((\d+)\)$/.exec(mode);
  let n = items.length;
  if (count) n = Math.min(items.length, Number(count[1]));
  else if (percent) n = Math.floor((items.length * Number(percent[1])) / 100);
  const pool = [...items];
  for (let i = pool.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [pool[i], pool[j]] = [pool[j]!, pool[i]!];
  }
  return n === items.length ? items : pool.slice(0, n);
}

function paginate<T>(all: T[], input: Json): { items: T[]; nextToken?: string } {
  const size = (input.maxResults as number | undefined) ?? DEFAULT_PAGE_SIZE;
  let offset = 0;
  if (typeof input.nextToken === 'string') {
    offset = Number(Buffer.from(input.nextToken, 'base64url').toString('utf8'));
    if (!Number.isInteger(offset) || offset < 0) throw validation(`Invalid nextToken ${input.nextToken}.`);
  }
  const items = all.slice(offset, offset + size);
  const next =
    offset + size < all.length ? Buffer.from(String(offset + size)).toString('base64url') : undefined;
  return next ? { items, nextToken: next } : { items };
}
