/**
 * What every part of the FIS stand-in shares: the stored records (templates, experiments, target
 * accounts, tags, idempotency tokens), the interfaces to the rest of the sandbox, the timings, and the
 * lookups that answer ResourceNotFound and Conflict the way FIS does.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { SandboxResource } from '../targets.js';
import { FisError, notFound } from './errors.js';

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
  /** The kind of canary fault the run switched on, if any (set by the fault router when it starts). */
  canaryFault?: string | undefined;
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

/** A restJson1 input or output object. */
export type Json = Record<string, unknown>;

/** One target of a template, as CreateExperimentTemplate takes it. */
export interface TemplateTarget {
  resourceType: string;
  resourceArns?: string[];
  resourceTags?: Record<string, string>;
  filters?: { path: string; values: string[] }[];
  selectionMode: string;
  parameters?: Record<string, string>;
}

/** One action of a template, as CreateExperimentTemplate takes it. */
export interface TemplateAction {
  actionId: string;
  description?: string;
  parameters?: Record<string, string>;
  targets?: Record<string, string>;
  startAfter?: string[];
}

/** A stored experiment template (times in epoch milliseconds). */
export interface Template {
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
export interface TargetAccountConfiguration {
  accountId: string;
  roleArn: string;
  description?: string;
}

/** One action of a started experiment. */
export interface ActionState {
  def: TemplateAction;
  status: string;
  reason: string;
  startTime?: number;
  endTime?: number;
  endsAt?: number;
  run?: ActionRun;
}

/** A started experiment: a snapshot of its template and where it is in the state machine. */
export interface Experiment {
  id: string;
  arn: string;
  templateId: string;
  snapshot: Template;
  actionsMode: 'run-all' | 'skip-all';
  status: string;
  reason: string;
  /** The reason the record shows once `stopping` has become `stopped`. */
  stoppedReason?: string;
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

const ID_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** A FIS-style resource id: the prefix, then 14 random letters and digits. */
export function newId(prefix: string): string {
  const bytes = randomBytes(14);
  return prefix + Array.from(bytes, (b) => ID_ALPHABET[b % ID_ALPHABET.length]).join('');
}

/** Epoch milliseconds as the epoch seconds restJson1 timestamps carry. */
export function seconds(ms: number): number {
  return Math.round(ms) / 1000;
}

function digest(value: unknown): string {
  return createHash('sha256').update(JSON.stringify(value)).digest('hex');
}

/** A deep copy of a JSON value, so a stored record never shares objects with a request or an answer. */
export function clone<T>(v: T): T {
  return v === undefined ? v : (JSON.parse(JSON.stringify(v)) as T);
}

/** The account of an ARN (`arn:aws:ec2:us-east-1:123456789012:…` → `123456789012`). */
export function accountOf(arn: string): string {
  return arn.split(':')[4] ?? '';
}

/** The records of one account and Region, and the lookups every operation makes on them. */
export class FisStore {
  readonly templates = new Map<string, Template>();
  readonly experiments = new Map<string, Experiment>();
  /** Resource ARN → tags; a taggable resource (template, experiment) always has an entry. */
  readonly tags = new Map<string, Record<string, string>>();
  /** Template id → account id → target account configuration. */
  readonly targetAccounts = new Map<string, Map<string, TargetAccountConfiguration>>();
  private readonly tokens = new Map<string, { digest: string; id: string }>();

  constructor(
    readonly now: () => number,
    readonly region: string,
    readonly accountId: string,
  ) {}

  /** The ARN of a FIS resource of this account and Region (`experiment-template/EXT…`). */
  arn(resource: string): string {
    return `arn:aws:fis:${this.region}:${this.accountId}:${resource}`;
  }

  /** The template with this id, or ResourceNotFound. */
  template(id: string): Template {
    const t = this.templates.get(id);
    if (!t) throw notFound(`Experiment template ${id} not found.`);
    return t;
  }

  /** The experiment with this id, or ResourceNotFound. */
  experiment(id: string): Experiment {
    const e = this.experiments.get(id);
    if (!e) throw notFound(`Experiment ${id} not found.`);
    return e;
  }

  /** The ARN itself when it names a taggable resource, or ResourceNotFound. */
  taggable(arn: string): string {
    if (!this.tags.has(arn)) throw notFound(`Resource ${arn} not found.`);
    return arn;
  }

  /** A copy of a resource's tags. */
  tagsOf(arn: string): Record<string, string> {
    return { ...this.tags.get(arn) };
  }

  /** Same token + same payload → the earlier resource id; same token + other payload → Conflict. */
  idempotent(operation: string, token: string, fields: unknown): string | undefined {
    const prior = this.tokens.get(`${operation}/${token}`);
    if (!prior) return undefined;
    if (prior.digest !== digest(fields))
      throw new FisError(
        'ConflictException',
        `The client token ${token} was already used with different parameters.`,
      );
    return prior.id;
  }

  /** Records that `token` created resource `id` from `fields`, for {@link idempotent} to find. */
  remember(operation: string, token: string, fields: unknown, id: string): void {
    this.tokens.set(`${operation}/${token}`, { digest: digest(fields), id });
  }
}
