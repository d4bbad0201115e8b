/**
 * The real injector: AWS FIS. It provisions the plan's template (reuse / update / repair-or-refuse drift),
 * resolves targets with a dry run that can never inject, starts the experiment idempotently, reads its
 * state and requests stops. Decisions (when to stop, how long to verify) belong to the engine.
 */
import {
  CreateExperimentTemplateCommand,
  CreateTargetAccountConfigurationCommand,
  DeleteExperimentTemplateCommand,
  DeleteTargetAccountConfigurationCommand,
  GetExperimentCommand,
  GetExperimentTemplateCommand,
  ListExperimentResolvedTargetsCommand,
  ListExperimentTemplatesCommand,
  ListExperimentsCommand,
  StartExperimentCommand,
  StopExperimentCommand,
  TagResourceCommand,
  UntagResourceCommand,
  UpdateExperimentTemplateCommand,
  UpdateTargetAccountConfigurationCommand,
  type CreateExperimentTemplateCommandInput,
  type Experiment,
  type ExperimentTemplateSummary,
  type FisClient,
  type StartExperimentCommandInput,
  type UpdateExperimentTemplateCommandInput,
} from '@aws-sdk/client-fis';
import type { CloudWatchClient } from '@aws-sdk/client-cloudwatch';
import type { Plan } from '../../plan/schema.js';
import type { Clock } from '../../clock/clock.js';
import {
  InjectorRefusal,
  QuotaExceeded,
  TERMINAL_STATUSES,
  type ActionState,
  type ExperimentState,
  type FoundExperiment,
  type Injector,
  type ResolvedTarget,
  type RunContext,
  type TargetResolution,
} from '../injector.js';
import { DEADLINES, sendWithin } from '../../net/deadline.js';
import { errorMessage } from '../../errors/message.js';
import type { FisInputExtensions } from './patches.js';
import type { TaggingSender } from '../aws/tagging.js';
import { tagResolvedTargets } from './resolved-tags.js';
import { TAG_ATTEMPT, TAG_DIGEST, TAG_PLAN, TAG_REPO, TAG_RUN, TAG_SERVICE, TAG_SHA } from './tags.js';
import {
  TemplateError,
  clientToken,
  contentDigest,
  contentOfTemplate,
  needsReplacement,
  templateContent,
  type TargetAccount,
  type TemplateContent,
  type TemplateView,
} from './template.js';
import { listTargetAccounts } from './target-accounts.js';
import {
  alarmNameFromArn,
  alarmStates,
  deleteLeaseAlarm,
  ensureRunAlarms,
  KILL_SWITCH_ALARM,
  LEASE_ALARM_PREFIX,
} from './alarms.js';
import { ALARM_SOURCE } from '../../plan/fis.js';

export { InjectorRefusal };

/**
 * A start FIS answered with `ServiceQuotaExceededException` (the Smithy model's error for StartExperiment
 * over a quota, HTTP 402) becomes {@link QuotaExceeded}: the engine queues on it.
 */
async function quotaAnswer<T>(call: Promise<T>, label: string): Promise<T> {
  try {
    return await call;
  } catch (error) {
    if ((error as { name?: unknown }).name === 'ServiceQuotaExceededException')
      throw new QuotaExceeded(`${label}: ${errorMessage(error)}`, { cause: error });
    throw error;
  }
}

export interface FisInjectorOptions {
  fis: FisClient;
  cloudwatch: CloudWatchClient;
  region: string;
  clock: Clock;
  /** What to do with a template edited by hand since chaos-gate wrote it. */
  drift?: 'repair' | 'refuse';
  /** How long `start` waits for the lease alarm to turn OK after the first heartbeats. */
  leaseWarmupMs?: number;
  /**
   * This run's key (unique per run): the lease alarm is then the run's own, `chaos-gate-lease-<plan>-<key>`,
   * bound into the template right before the start ({@link FisInjector.bindLease}). Without it the lease
   * is the plan's (tests of the injector alone).
   */
  leaseKey?: string | undefined;
  /** How long the dry run waits for FIS to resolve targets. */
  dryRunTimeoutMs?: number;
  pollMs?: number;
  log?: (line: string) => void;
  /**
   * The Resource Groups Tagging API. FIS's resolved targets carry only ARNs, so without it the
   * blast-radius gate cannot show a target free of forbidden tags and refuses (fail closed).
   */
  tagging?: TaggingSender | undefined;
  /**
   * The Tagging API of a target account of a multi-account experiment (its own account's resources are
   * invisible to the runner's); without it those targets' tags stay unknown and guarded tags refuse them.
   */
  taggingFor?: ((accountId: string) => TaggingSender | undefined) | undefined;
}

/** The tag that marks a dry run, so no lookup mistakes it for the run's real experiment. */
const TAG_DRY_RUN = 'chaos-gate:dry-run';
/** How long the dry run may take to reach `completed` unless told otherwise. */
export const DEFAULT_DRY_RUN_TIMEOUT_MS = 60_000;

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}

function timeOf(d: Date | undefined): number | undefined {
  const t = d?.getTime();
  return t === undefined || Number.isNaN(t) ? undefined : t;
}

function tagsOf(plan: Plan, ctx: RunContext): Record<string, string> {
  const tags: Record<string, string> = {
    [TAG_PLAN]: plan.id,
    [TAG_RUN]: ctx.runId,
    [TAG_ATTEMPT]: String(ctx.attempt),
    [TAG_SERVICE]: plan.service,
  };
  if (ctx.repo) tags[TAG_REPO] = ctx.repo;
  if (ctx.sha) tags[TAG_SHA] = ctx.sha;
  return tags;
}

/**
 * Maps FIS's experiment to the engine's view: its state with FIS's own reason, error code and location,
 * each action's status with its reason and times, and whether any action really ran. An action counts as
 * run once FIS shows it running or past running (`completed`, `stopping`, `stopped`); a `failed`,
 * `cancelled` or `skipped` action alone is no evidence that its fault was ever on.
 */
export function experimentState(e: Experiment | undefined): ExperimentState {
  const state = (e?.state ?? {}) as {
    status?: string;
    reason?: string;
    error?: { code?: string; location?: string };
  };
  const actions: Record<string, string> = {};
  const actionStates: Record<string, ActionState> = {};
  let injected = false;
  let firstStart: number | undefined;
  for (const [name, a] of Object.entries(e?.actions ?? {})) {
    const status = a.state?.status ?? 'unknown';
    actions[name] = status;
    const detail: ActionState = { status };
    if (a.state?.reason) detail.reason = a.state.reason;
    const started = timeOf(a.startTime);
    const ended = timeOf(a.endTime);
    if (started !== undefined) detail.startTime = started;
    if (ended !== undefined) detail.endTime = ended;
    actionStates[name] = detail;
    if (['running', 'completed', 'stopping', 'stopped'].includes(status)) {
      injected = true;
      if (started !== undefined && (firstStart === undefined || started < firstStart)) firstStart = started;
    }
  }
  const out: ExperimentState = { status: state.status ?? 'unknown', actions, actionStates, injected };
  if (firstStart !== undefined) out.actionStartedAt = firstStart;
  if (state.reason) out.reason = state.reason;
  if (state.error?.code) out.errorCode = state.error.code;
  if (state.error?.location) out.errorLocation = state.error.location;
  return out;
}

/** A dry run that ended stopped or cancelled before it completed: its targets are unknown. */
class DryRunEndedEarly extends InjectorRefusal {}

export class FisInjector implements Injector {
  private readonly fis: FisClient;
  private readonly cw: CloudWatchClient;
  private readonly log: (line: string) => void;
  /** Alarm ARNs of the current plan's stop conditions, known after provision. */
  private stopAlarmNames: string[] = [];
  private leaseAlarm = '';
  private leaseArn = '';
  private planId = '';
  /** The stop conditions of the plan with this run's lease, as provisioned. */
  private stopConditions: { source: string; value?: string }[] = [];
  /** The runner's account (from its own alarm's ARN), known after provision. */
  private account = '';

  constructor(private readonly opts: FisInjectorOptions) {
    this.fis = opts.fis;
    this.cw = opts.cloudwatch;
    this.log = opts.log ?? (() => undefined);
  }

  async provision(
    plan: Plan,
    ctx: RunContext,
  ): Promise<{ templateId: string; action: 'created' | 'reused' | 'updated' | 'repaired' }> {
    const { lease, kill } = await ensureRunAlarms(this.cw, plan.id, this.opts.leaseKey);
    let content: TemplateContent;
    try {
      content = templateContent(plan, { lease: lease.AlarmArn ?? '', killSwitch: kill.AlarmArn ?? '' });
    } catch (error) {
      if (error instanceof TemplateError) throw new InjectorRefusal(error.message, 'fis.stopConditions');
      throw error;
    }
    this.stopAlarmNames = content.stopConditions.map((s) => alarmNameFromArn(s.value ?? ''));
    this.leaseAlarm = lease.AlarmName ?? '';
    this.leaseArn = lease.AlarmArn ?? '';
    this.planId = plan.id;
    this.stopConditions = content.stopConditions.map((c) => ({ ...c }));
    const digest = contentDigest(content);
    // The pinned client's summaries lack `arn`; build it from the account in our own alarm's ARN.
    const account = (lease.AlarmArn ?? '').split(':')[4] ?? '';
    this.account = account;
    const partition = (lease.AlarmArn ?? '').split(':')[1] ?? 'aws';
    const arnOf = (id: string) =>
      `arn:${partition}:fis:${this.opts.region}:${account}:experiment-template/${id}`;
    const existing = await this.findTemplate(plan.id);
    if (!existing?.id) {
      const id = await this.createTemplate(plan, ctx, content, digest);
      this.log(`created FIS template ${id} for plan ${plan.id}`);
      return { templateId: id, action: 'created' };
    }
    const id = existing.id;
    const actual = await this.readContent(id);
    const actualDigest = contentDigest(actual);
    const taggedDigest = existing.tags?.[TAG_DIGEST];
    if (actualDigest === digest && taggedDigest === digest) return { templateId: id, action: 'reused' };
    const drifted = taggedDigest !== actualDigest;
    if (drifted && (this.opts.drift ?? 'repair') === 'refuse') {
      throw new InjectorRefusal(
        `FIS template ${id} for plan ${plan.id} was edited outside chaos-gate (content digest ${actualDigest} ≠ tagged ${taggedDigest ?? 'none'}); ` +
          `refusing to run with drift=refuse — inspect it with 'aws fis get-experiment-template --id ${id}'`,
        'fis',
      );
    }
    const action = drifted ? 'repaired' : 'updated';
    const replace = needsReplacement(actual, content);
    if (replace) {
      // UpdateExperimentTemplate cannot express this change: a new template replaces the old one.
      const created = await this.createTemplate(plan, ctx, content, digest);
      await this.fis.send(new DeleteExperimentTemplateCommand({ id }));
      this.log(`replaced FIS template ${id} by ${created} for plan ${plan.id}: ${replace}`);
      return { templateId: created, action };
    }
    const update = {
      id,
      description: content.description,
      roleArn: content.roleArn,
      targets: content.targets as UpdateExperimentTemplateCommandInput['targets'],
      actions: content.actions as UpdateExperimentTemplateCommandInput['actions'],
      stopConditions: content.stopConditions as UpdateExperimentTemplateCommandInput['stopConditions'],
      experimentOptions: {
        emptyTargetResolutionMode: (content.emptyTargetResolutionMode ?? 'fail') as 'fail' | 'skip',
      },
      ...(content.logConfiguration ? { logConfiguration: content.logConfiguration } : {}),
      ...(content.experimentReportConfiguration
        ? { experimentReportConfiguration: content.experimentReportConfiguration }
        : {}),
    };
    await this.fis.send(
      new UpdateExperimentTemplateCommand(
        update as unknown as UpdateExperimentTemplateCommandInput & FisInputExtensions,
      ),
    );
    await this.syncTags(arnOf(id), actual.tags, content.tags, digest);
    await this.syncTargetAccounts(
      id,
      actual.targetAccountConfigurations,
      content.targetAccountConfigurations,
    );
    // The gate verifies its own scope: read the template back and compare before anything starts.
    const after = contentDigest(await this.readContent(id));
    if (after !== digest) {
      throw new InjectorRefusal(
        `FIS template ${id} still differs from plan ${plan.id} after the update (digest ${after} ≠ ${digest}); refusing to start`,
        'fis',
      );
    }
    this.log(`${action} FIS template ${id} for plan ${plan.id}`);
    return { templateId: id, action };
  }

  /** Creates the template (idempotently) with its tags and target accounts; returns its id. */
  private async createTemplate(
    plan: Plan,
    ctx: RunContext,
    content: TemplateContent,
    digest: string,
  ): Promise<string> {
    const options: Record<string, string> = {};
    if (content.accountTargeting) options.accountTargeting = content.accountTargeting;
    if (content.emptyTargetResolutionMode)
      options.emptyTargetResolutionMode = content.emptyTargetResolutionMode;
    const input = {
      clientToken: clientToken('template', plan.id, digest, ctx.runId),
      description: content.description,
      roleArn: content.roleArn,
      targets: content.targets as CreateExperimentTemplateCommandInput['targets'],
      actions: content.actions as CreateExperimentTemplateCommandInput['actions'],
      stopConditions: content.stopConditions as CreateExperimentTemplateCommandInput['stopConditions'],
      tags: { ...content.tags, [TAG_PLAN]: plan.id, [TAG_DIGEST]: digest, [TAG_SERVICE]: plan.service },
      ...(Object.keys(options).length
        ? { experimentOptions: options as CreateExperimentTemplateCommandInput['experimentOptions'] }
        : {}),
      ...(content.logConfiguration ? { logConfiguration: content.logConfiguration } : {}),
      ...(content.experimentReportConfiguration
        ? { experimentReportConfiguration: content.experimentReportConfiguration }
        : {}),
    };
    const out = await this.fis.send(
      new CreateExperimentTemplateCommand(
        input as unknown as CreateExperimentTemplateCommandInput & FisInputExtensions,
      ),
    );
    const id = out.experimentTemplate?.id;
    if (!id) throw new Error('FIS CreateExperimentTemplate returned no template id');
    await this.syncTargetAccounts(id, undefined, content.targetAccountConfigurations);
    return id;
  }

  /** The template's content as FIS holds it, target accounts included. */
  private async readContent(id: string): Promise<TemplateContent> {
    const got = await this.fis.send(new GetExperimentTemplateCommand({ id }));
    const template = (got.experimentTemplate ?? {}) as TemplateView & {
      targetAccountConfigurationsCount?: number;
    };
    const accounts =
      (template.targetAccountConfigurationsCount ?? 0) > 0 ||
      template.experimentOptions?.accountTargeting === 'multi-account'
        ? await listTargetAccounts(this.fis, id)
        : [];
    return contentOfTemplate(template, accounts);
  }

  /** Sets the plan's tags and the new digest; removes plan tags the plan no longer has. */
  private async syncTags(
    arn: string,
    actual: Record<string, string> | undefined,
    wanted: Record<string, string> | undefined,
    digest: string,
  ): Promise<void> {
    await this.fis.send(
      new TagResourceCommand({ resourceArn: arn, tags: { ...wanted, [TAG_DIGEST]: digest } }),
    );
    const stale = Object.keys(actual ?? {}).filter((k) => !(k in (wanted ?? {})));
    if (stale.length) await this.fis.send(new UntagResourceCommand({ resourceArn: arn, tagKeys: stale }));
  }

  /** Makes the template's target account configurations those of the plan. */
  private async syncTargetAccounts(
    id: string,
    actual: readonly TargetAccount[] | undefined,
    wanted: readonly TargetAccount[] | undefined,
  ): Promise<void> {
    const have = new Map((actual ?? []).map((a) => [a.accountId, a]));
    const want = new Map((wanted ?? []).map((a) => [a.accountId, a]));
    for (const [accountId, a] of want) {
      const current = have.get(accountId);
      if (!current) {
        await this.fis.send(
          new CreateTargetAccountConfigurationCommand({
            experimentTemplateId: id,
            accountId,
            roleArn: a.roleArn,
            ...(a.description ? { description: a.description } : {}),
            clientToken: clientToken('target-account', id, accountId, a.roleArn),
          }),
        );
      } else if (current.roleArn !== a.roleArn || (current.description ?? '') !== (a.description ?? '')) {
        await this.fis.send(
          new UpdateTargetAccountConfigurationCommand({
            experimentTemplateId: id,
            accountId,
            roleArn: a.roleArn,
            description: a.description ?? '',
          }),
        );
      }
    }
    for (const accountId of have.keys())
      if (!want.has(accountId))
        await this.fis.send(
          new DeleteTargetAccountConfigurationCommand({ experimentTemplateId: id, accountId }),
        );
  }

  private async findTemplate(planId: string): Promise<ExperimentTemplateSummary | undefined> {
    let nextToken: string | undefined;
    const found: ExperimentTemplateSummary[] = [];
    do {
      const page = await this.fis.send(
        new ListExperimentTemplatesCommand({ maxResults: 100, ...(nextToken ? { nextToken } : {}) }),
      );
      for (const t of page.experimentTemplates ?? []) if (t.tags?.[TAG_PLAN] === planId) found.push(t);
      nextToken = page.nextToken;
    } while (nextToken);
    // Several templates for one plan means someone copied tags by hand; use the newest, deterministically.
    found.sort((a, b) => (b.lastUpdateTime?.getTime() ?? 0) - (a.lastUpdateTime?.getTime() ?? 0));
    return found[0];
  }

  /** One FIS call under its deadline and the caller's signal. */
  private call<C extends object>(command: C, ms: number, label: string, signal?: AbortSignal) {
    return sendWithin(this.fis as never, command, ms, label, signal);
  }

  async resolveTargets(
    plan: Plan,
    templateId: string,
    ctx: RunContext,
    signal?: AbortSignal,
  ): Promise<TargetResolution> {
    // A dry run a stop condition stopped (the lease alarm still in ALARM from before the heartbeats
    // began, or turning ALARM before their first datapoint counts) is asked once more, once no stop
    // condition is in ALARM; a second stop ends the run not-run.
    let id = '';
    for (let round = 1; ; round++) {
      await this.awaitNoStopConditionInAlarm(signal);
      id = await this.startDryRun(plan, templateId, ctx, round, signal);
      try {
        await this.awaitDryRun(id, templateId, signal);
        break;
      } catch (error) {
        if (!(error instanceof DryRunEndedEarly) || round >= 2) throw error;
        this.log(`${error.message}; asking for a dry run once more`);
      }
    }
    const targets = await this.listResolved(id, signal);
    const tagged = this.opts.tagging
      ? await tagResolvedTargets(plan, targets, {
          own: this.opts.tagging,
          ownAccount: this.account || undefined,
          forAccount: this.opts.taggingFor,
        })
      : targets;
    return { targets: tagged, complete: true, dryRunId: id };
  }

  /** Starts dry run number `round` (its own client token after the first); returns its id. */
  private async startDryRun(
    plan: Plan,
    templateId: string,
    ctx: RunContext,
    round: number,
    signal: AbortSignal | undefined,
  ): Promise<string> {
    const input: StartExperimentCommandInput & FisInputExtensions = {
      clientToken:
        round === 1
          ? clientToken('dry-run', ctx.runId, String(ctx.attempt), plan.id)
          : clientToken('dry-run', ctx.runId, String(ctx.attempt), plan.id, String(round)),
      experimentTemplateId: templateId,
      tags: { ...tagsOf(plan, ctx), [TAG_DRY_RUN]: 'true' },
      experimentOptions: { actionsMode: 'skip-all' },
    };
    const started = await quotaAnswer(
      this.call(
        new StartExperimentCommand(input),
        DEADLINES.fisStartExperiment,
        'FIS StartExperiment (dry run)',
        signal,
      ),
      'FIS StartExperiment (dry run)',
    );
    const experiment = started.experiment;
    const id = experiment?.id;
    if (!id) throw new Error('FIS StartExperiment (dry run) returned no experiment id');
    const mode = (experiment?.experimentOptions as { actionsMode?: string } | undefined)?.actionsMode;
    if (mode !== 'skip-all') {
      // The endpoint ignored the dry-run option: this experiment may be injecting for real. Stop it now.
      await this.stopQuietly(id);
      throw new InjectorRefusal(
        `FIS answered the dry run of ${templateId} with actionsMode ${mode ?? '(absent)'} instead of skip-all; ` +
          `experiment ${id} was stopped at once and nothing else will start. Check that the FIS endpoint supports ` +
          `experimentOptions.actionsMode (aws fis get-experiment --id ${id})`,
        'fis',
      );
    }
    return id;
  }

  /**
   * FIS watches a dry run's stop conditions like a real experiment's, so one started while a stop
   * condition is in ALARM is stopped before it resolves anything. The lease alarm is in ALARM when the
   * runner's heartbeats have just begun after a quiet period (its previous run ended): wait for it to
   * leave ALARM, as long as the lease warm-up allows. The kill switch, or another stop condition, in
   * ALARM is a refusal now: waiting does not fix it.
   */
  private async awaitNoStopConditionInAlarm(signal: AbortSignal | undefined): Promise<void> {
    if (this.stopAlarmNames.length === 0) return;
    const clock = this.opts.clock;
    const t0 = clock.now();
    const deadline = t0 + (this.opts.leaseWarmupMs ?? 30_000);
    for (;;) {
      const states = await alarmStates(this.cw, this.stopAlarmNames, signal);
      const inAlarm = this.stopAlarmNames.filter((name) => states.get(name)?.StateValue === 'ALARM');
      if (inAlarm.length === 0) return;
      if (inAlarm.includes(KILL_SWITCH_ALARM)) {
        throw new InjectorRefusal(
          `the chaos-gate kill switch is engaged (alarm ${KILL_SWITCH_ALARM} is ALARM); release it with 'chaos-gate kill --release'`,
        );
      }
      const others = inAlarm.filter((name) => name !== this.leaseAlarm);
      if (others.length > 0) {
        throw new InjectorRefusal(
          `stop-condition alarms must not be in ALARM when the dry run starts (FIS would stop it at once): ${others.join(', ')}`,
          'fis.stopConditions',
        );
      }
      if (signal?.aborted || clock.now() >= deadline) {
        throw new InjectorRefusal(
          `the lease alarm ${this.leaseAlarm} was still in ALARM ${seconds(clock.now() - t0)} after the heartbeats began, ` +
            `so FIS would stop the dry run at once; nothing was started`,
          'fis.stopConditions',
          'not-run',
        );
      }
      // CloudWatch evaluates the 10 s lease alarm every 10 s: a look every 2–3 s (jittered, so runs
      // started together do not read together) costs at most 3 s and keeps DescribeAlarms, an account
      // quota of 9 TPS, off a per-second cadence per run.
      await clock.sleep(Math.min(2000 + Math.random() * 1000, deadline - clock.now()), signal);
    }
  }

  /**
   * Waits for the dry run to reach `completed`: only then are its resolved targets FIS's whole answer.
   * A dry run that failed is refused (FIS could not resolve the targets); one that was stopped or
   * cancelled, that is still pending or initiating at the deadline, or whose state could not be read,
   * is stopped and ends the run `not-run` — its targets are unknown, never "none".
   */
  private async awaitDryRun(id: string, templateId: string, signal: AbortSignal | undefined): Promise<void> {
    const clock = this.opts.clock;
    const waitMs = this.opts.dryRunTimeoutMs ?? DEFAULT_DRY_RUN_TIMEOUT_MS;
    const t0 = clock.now();
    const deadline = t0 + waitMs;
    let state: ExperimentState = { status: 'pending' };
    let readError: string | undefined;
    let read = false;
    for (;;) {
      if (state.status === 'completed') return;
      if (state.status === 'failed') {
        throw new InjectorRefusal(
          `FIS could not resolve the targets of ${templateId}: dry run ${id} failed (${state.errorCode ?? 'no error code'}: ${state.reason ?? ''})`,
          'fis.targets',
        );
      }
      if (TERMINAL_STATUSES.has(state.status)) {
        throw new DryRunEndedEarly(
          `dry run ${id} of ${templateId} ended ${state.status} before it completed (FIS: ${state.reason ?? 'no reason given'}); ` +
            `its targets are unknown, so nothing was started`,
          'fis.targets',
          'not-run',
        );
      }
      const now = clock.now();
      if (signal?.aborted || (now >= deadline && read)) break;
      if (read) await clock.sleep(Math.min(this.opts.pollMs ?? 500, deadline - now), signal);
      if (signal?.aborted) break;
      read = true;
      try {
        const got = await this.call(
          new GetExperimentCommand({ id }),
          Math.min(DEADLINES.fisGetExperiment, Math.max(1_000, deadline - clock.now())),
          'FIS GetExperiment (dry run)',
          signal,
        );
        state = experimentState(got.experiment);
        readError = undefined;
      } catch (error) {
        readError = errorMessage(error);
      }
    }
    const stopped = await this.stopQuietly(id);
    const waited = seconds(clock.now() - t0);
    const what = signal?.aborted
      ? `the run was cancelled after ${waited} while dry run ${id} of ${templateId} was still ${state.status}`
      : `FIS did not finish dry run ${id} of ${templateId} within ${waited}: it was still ${state.status}` +
        (readError ? ` (the last state read failed: ${readError})` : '');
    throw new InjectorRefusal(
      `${what}; the pending dry run was stopped (${stopped}) and no experiment was started, because its targets ` +
        `are unknown (not "none"). Check it with 'aws fis get-experiment --id ${id}' and run again`,
      'fis.targets',
      'not-run',
    );
  }

  /** Every page of the dry run's resolved targets, each page under its deadline. */
  private async listResolved(id: string, signal: AbortSignal | undefined): Promise<ResolvedTarget[]> {
    const targets: ResolvedTarget[] = [];
    let nextToken: string | undefined;
    do {
      const page = await this.call(
        new ListExperimentResolvedTargetsCommand({
          experimentId: id,
          maxResults: 100,
          ...(nextToken ? { nextToken } : {}),
        }),
        DEADLINES.fisOther,
        'FIS ListExperimentResolvedTargets',
        signal,
      );
      for (const r of page.resolvedTargets ?? []) {
        const info = r.targetInformation ?? {};
        const arn = info.arn ?? info.resourceArn ?? Object.values(info)[0] ?? '';
        const target: ResolvedTarget = { target: r.targetName ?? '', arn };
        if (info.tags) {
          try {
            target.tags = JSON.parse(info.tags) as Record<string, string>;
          } catch {
            // Opaque target information (the keys are undocumented); tags are then unknown.
          }
        }
        targets.push(target);
      }
      nextToken = page.nextToken;
    } while (nextToken);
    return targets;
  }

  /** StopExperiment under its own deadline (never the caller's signal, which may be what ended the wait). */
  private async stopQuietly(id: string): Promise<string> {
    try {
      await this.stop(id, 'chaos-gate stopped its own experiment');
      return 'StopExperiment accepted';
    } catch (error) {
      return `StopExperiment not accepted: ${errorMessage(error)}`;
    }
  }

  /**
   * This run's experiment by its tags: ListExperiments for the template (every page), keeping those
   * tagged with this plan, run id and attempt and not tagged as a dry run, newest first; then its full
   * state. FIS does not show an experiment's clientToken, so the tags `start` sets are the key.
   */
  async find(
    plan: Plan,
    templateId: string,
    ctx: RunContext,
    signal?: AbortSignal,
  ): Promise<FoundExperiment | undefined> {
    const wanted = tagsOf(plan, ctx);
    const mine: { id: string; created: number }[] = [];
    let nextToken: string | undefined;
    do {
      const page = await this.call(
        new ListExperimentsCommand({
          maxResults: 100,
          experimentTemplateId: templateId,
          ...(nextToken ? { nextToken } : {}),
        } as ConstructorParameters<typeof ListExperimentsCommand>[0] & FisInputExtensions),
        DEADLINES.fisOther,
        'FIS ListExperiments',
        signal,
      );
      for (const e of page.experiments ?? []) {
        const tags = e.tags ?? {};
        if (!e.id || tags[TAG_DRY_RUN] === 'true') continue;
        if (e.experimentTemplateId !== undefined && e.experimentTemplateId !== templateId) continue;
        if (tags[TAG_PLAN] !== wanted[TAG_PLAN] || tags[TAG_RUN] !== wanted[TAG_RUN]) continue;
        if (tags[TAG_ATTEMPT] !== wanted[TAG_ATTEMPT]) continue;
        mine.push({ id: e.id, created: timeOf(e.creationTime) ?? 0 });
      }
      nextToken = page.nextToken;
    } while (nextToken);
    const newest = mine.sort((a, b) => b.created - a.created)[0];
    if (!newest) return undefined;
    return { experimentId: newest.id, state: await this.state(newest.id, signal) };
  }

  async start(
    plan: Plan,
    templateId: string,
    ctx: RunContext,
    signal?: AbortSignal,
  ): Promise<{ experimentId: string }> {
    await this.requireAlarmsOk();
    const out = await quotaAnswer(
      this.call(
        new StartExperimentCommand({
          clientToken: clientToken('run', ctx.runId, String(ctx.attempt), plan.id),
          experimentTemplateId: templateId,
          tags: tagsOf(plan, ctx),
        }),
        DEADLINES.fisStartExperiment,
        'FIS StartExperiment',
        signal,
      ),
      'FIS StartExperiment',
    );
    const id = out.experiment?.id;
    if (!id) throw new Error('FIS StartExperiment returned no experiment id');
    return { experimentId: id };
  }

  /**
   * Makes the template's lease stop condition this run's own alarm. The template is the plan's, shared by
   * its runs, and an experiment copies the template's stop conditions when it starts; so right before its
   * start — once its claims are won, so no other run of the plan is between bind and start on the same
   * targets — a run writes its own lease into it. {@link verifyLease} then checks the started experiment.
   */
  async bindLease(templateId: string, signal?: AbortSignal): Promise<void> {
    if (!this.opts.leaseKey || !this.leaseArn) return;
    const opts = signal ? { abortSignal: signal } : {};
    const got = await this.fis.send(new GetExperimentTemplateCommand({ id: templateId }), opts);
    const current = (got.experimentTemplate?.stopConditions ?? []).map((c) => c.value ?? '').sort();
    const wanted = this.stopConditions.map((c) => c.value ?? '').sort();
    if (JSON.stringify(current) === JSON.stringify(wanted)) return;
    await this.fis.send(
      new UpdateExperimentTemplateCommand({
        id: templateId,
        stopConditions: this.stopConditions as NonNullable<
          UpdateExperimentTemplateCommandInput['stopConditions']
        >,
      }),
      opts,
    );
    this.log(`bound the lease alarm ${this.leaseAlarm} into FIS template ${templateId}`);
  }

  /**
   * Throws unless the started experiment's stop conditions (copied from the template at its start) name
   * this run's lease alarm and no other run's: another run of the plan may have bound its own in between,
   * and then this run's dead-man's switch would not be this experiment's. The engine stops it and fails.
   */
  async verifyLease(experimentId: string, signal?: AbortSignal): Promise<void> {
    if (!this.opts.leaseKey || !this.leaseArn) return;
    const out = await this.fis.send(
      new GetExperimentCommand({ id: experimentId }),
      signal ? { abortSignal: signal } : {},
    );
    const alarms = (out.experiment?.stopConditions ?? [])
      .filter((c) => c.source === ALARM_SOURCE)
      .map((c) => c.value ?? '');
    const leases = alarms.filter((a) => alarmNameFromArn(a).startsWith(LEASE_ALARM_PREFIX));
    if (leases.length === 1 && leases[0] === this.leaseArn) return;
    throw new Error(
      `experiment ${experimentId} started without this run's lease as its stop condition (it has ${leases.map(alarmNameFromArn).join(', ') || 'none'}, expected ${this.leaseAlarm}); stopping it`,
    );
  }

  /** Deletes this run's own lease alarm, once its fault is known to have ended. */
  async endLease(signal?: AbortSignal): Promise<void> {
    if (!this.opts.leaseKey || !this.planId) return;
    await deleteLeaseAlarm(this.cw, this.planId, this.opts.leaseKey, signal);
  }

  /**
   * Null when every stop-condition alarm is OK; the lease alarm not OK yet is something to wait for
   * (it turns OK once heartbeats arrive); the kill switch or any other alarm not OK is a refusal.
   */
  async readiness(signal?: AbortSignal): Promise<string | null> {
    const states = await alarmStates(this.cw, this.stopAlarmNames, signal);
    const bad = this.stopAlarmNames
      .map((name) => ({ name, state: states.get(name)?.StateValue ?? 'missing' }))
      .filter((a) => a.state !== 'OK');
    if (bad.length === 0) return null;
    if (bad.some((a) => a.name === KILL_SWITCH_ALARM && a.state === 'ALARM')) {
      throw new InjectorRefusal(
        `the chaos-gate kill switch is engaged (alarm ${KILL_SWITCH_ALARM} is ALARM); release it with 'chaos-gate kill --release'`,
      );
    }
    if (bad.every((a) => a.name === this.leaseAlarm)) return `the lease alarm ${this.leaseAlarm} to turn OK`;
    throw new InjectorRefusal(
      `stop-condition alarms must be OK before the experiment starts: ${bad.map((a) => `${a.name}=${a.state}`).join(', ')}`,
      'fis.stopConditions',
    );
  }

  /** docs/design/run.md#provisioning: every stop-condition alarm must be OK before StartExperiment. */
  private async requireAlarmsOk(): Promise<void> {
    const deadline = this.opts.clock.now() + (this.opts.leaseWarmupMs ?? 30_000);
    while (true) {
      const states = await alarmStates(this.cw, this.stopAlarmNames);
      const bad = this.stopAlarmNames
        .map((name) => ({ name, state: states.get(name)?.StateValue ?? 'missing' }))
        .filter((a) => a.state !== 'OK');
      if (bad.length === 0) return;
      const onlyLease = bad.every((a) => a.name === this.leaseAlarm);
      if (bad.some((a) => a.name === KILL_SWITCH_ALARM && a.state === 'ALARM')) {
        throw new InjectorRefusal(
          `the chaos-gate kill switch is engaged (alarm ${KILL_SWITCH_ALARM} is ALARM); release it with 'chaos-gate kill --release'`,
        );
      }
      // The lease alarm turns OK once heartbeats arrive; wait for it, but nothing else.
      if (!onlyLease || this.opts.clock.now() >= deadline) {
        throw new InjectorRefusal(
          `stop-condition alarms must be OK before the experiment starts: ${bad.map((a) => `${a.name}=${a.state}`).join(', ')}`,
          'fis.stopConditions',
        );
      }
      await this.opts.clock.sleep(1000);
    }
  }

  async state(experimentId: string, signal?: AbortSignal): Promise<ExperimentState> {
    const out = await this.call(
      new GetExperimentCommand({ id: experimentId }),
      DEADLINES.fisGetExperiment,
      'FIS GetExperiment',
      signal,
    );
    return experimentState(out.experiment);
  }

  async stop(experimentId: string, _reason: string, signal?: AbortSignal): Promise<void> {
    try {
      await this.call(
        new StopExperimentCommand({ id: experimentId }),
        DEADLINES.fisStopExperiment,
        'FIS StopExperiment',
        signal,
      );
    } catch (error) {
      // Stopping an experiment that already ended is not a failure: the engine verifies the state next.
      const name = (error as { name?: string }).name;
      if (name === 'ValidationException' || name === 'ConflictException') {
        const state = await this.state(experimentId, signal);
        if (TERMINAL_STATUSES.has(state.status)) return;
      }
      throw error;
    }
  }
}
