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
  type ExperimentState,
  type Injector,
  type ResolvedTarget,
  type RunContext,
} from '../injector.js';
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
  ensureKillSwitchAlarm,
  ensureLeaseAlarm,
  KILL_SWITCH_ALARM,
  LEASE_ALARM_PREFIX,
} from './alarms.js';
import { ALARM_SOURCE } from '../../plan/fis.js';

export { InjectorRefusal };

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

const DRY_RUN_DONE = new Set(['completed', 'stopped', 'failed', 'cancelled', 'running']);

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

/** Maps FIS's experiment to the engine's view, including whether any action really ran. */
export function experimentState(e: Experiment | undefined): ExperimentState {
  const state = (e?.state ?? {}) as { status?: string; reason?: string; error?: { code?: string } };
  const actions: Record<string, string> = {};
  let injected = false;
  let firstStart: number | undefined;
  for (const [name, a] of Object.entries(e?.actions ?? {})) {
    const status = a.state?.status ?? 'unknown';
    actions[name] = status;
    if (
      status === 'running' ||
      status === 'completed' ||
      (a.startTime && status !== 'skipped' && status !== 'pending')
    ) {
      injected = true;
      const t = a.startTime?.getTime();
      if (t !== undefined && !Number.isNaN(t) && (firstStart === undefined || t < firstStart)) firstStart = t;
    }
  }
  const out: ExperimentState = { status: state.status ?? 'unknown', actions, injected };
  if (firstStart !== undefined) out.actionStartedAt = firstStart;
  if (state.reason) out.reason = state.reason;
  if (state.error?.code) out.errorCode = state.error.code;
  return out;
}

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
    const lease = await ensureLeaseAlarm(this.cw, plan.id, undefined, this.opts.leaseKey);
    const kill = await ensureKillSwitchAlarm(this.cw);
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

  async resolveTargets(plan: Plan, templateId: string, ctx: RunContext): Promise<ResolvedTarget[]> {
    const input: StartExperimentCommandInput & FisInputExtensions = {
      clientToken: clientToken('dry-run', ctx.runId, String(ctx.attempt), plan.id),
      experimentTemplateId: templateId,
      tags: { ...tagsOf(plan, ctx), 'chaos-gate:dry-run': 'true' },
      experimentOptions: { actionsMode: 'skip-all' },
    };
    const started = await this.fis.send(new StartExperimentCommand(input));
    const experiment = started.experiment;
    const id = experiment?.id;
    if (!id) throw new Error('FIS StartExperiment (dry run) returned no experiment id');
    const mode = (experiment?.experimentOptions as { actionsMode?: string } | undefined)?.actionsMode;
    if (mode !== 'skip-all') {
      // The endpoint ignored the dry-run option: this experiment may be injecting for real. Stop it now.
      await this.stop(id, 'dry run was not honoured').catch(() => undefined);
      throw new InjectorRefusal(
        `FIS answered the dry run of ${templateId} with actionsMode ${mode ?? '(absent)'} instead of skip-all; ` +
          `experiment ${id} was stopped at once and nothing else will start. Check that the FIS endpoint supports ` +
          `experimentOptions.actionsMode (aws fis get-experiment --id ${id})`,
        'fis',
      );
    }
    const deadline = this.opts.clock.now() + (this.opts.dryRunTimeoutMs ?? 60_000);
    let status = experiment.state?.status as string | undefined;
    while (!DRY_RUN_DONE.has(status ?? '') && this.opts.clock.now() < deadline) {
      await this.opts.clock.sleep(this.opts.pollMs ?? 500);
      const got = await this.fis.send(new GetExperimentCommand({ id }));
      status = got.experiment?.state?.status as string | undefined;
      if (status === 'failed') {
        const err = (got.experiment?.state as { error?: { code?: string } } | undefined)?.error?.code;
        throw new InjectorRefusal(
          `FIS could not resolve the targets of ${templateId}: dry run ${id} failed (${err ?? 'no error code'}: ${got.experiment?.state?.reason ?? ''})`,
          'fis.targets',
        );
      }
    }
    const targets: ResolvedTarget[] = [];
    let nextToken: string | undefined;
    do {
      const page = await this.fis.send(
        new ListExperimentResolvedTargetsCommand({
          experimentId: id,
          maxResults: 100,
          ...(nextToken ? { nextToken } : {}),
        }),
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
    return this.opts.tagging
      ? tagResolvedTargets(plan, targets, {
          own: this.opts.tagging,
          ownAccount: this.account || undefined,
          forAccount: this.opts.taggingFor,
        })
      : targets;
  }

  async start(
    plan: Plan,
    templateId: string,
    ctx: RunContext,
    signal?: AbortSignal,
  ): Promise<{ experimentId: string }> {
    await this.requireAlarmsOk();
    const out = await this.fis.send(
      new StartExperimentCommand({
        clientToken: clientToken('run', ctx.runId, String(ctx.attempt), plan.id),
        experimentTemplateId: templateId,
        tags: tagsOf(plan, ctx),
      }),
      signal ? { abortSignal: signal } : {},
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

  /** SPEC §6.1: every stop-condition alarm must be OK before StartExperiment. */
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
    const out = await this.fis.send(
      new GetExperimentCommand({ id: experimentId }),
      signal ? { abortSignal: signal } : {},
    );
    return experimentState(out.experiment);
  }

  async stop(experimentId: string, _reason: string, signal?: AbortSignal): Promise<void> {
    try {
      await this.fis.send(
        new StopExperimentCommand({ id: experimentId }),
        signal ? { abortSignal: signal } : {},
      );
    } catch (error) {
      // Stopping an experiment that already ended is not a failure: the engine verifies the state next.
      const name = (error as { name?: string }).name;
      if (name === 'ValidationException' || name === 'ConflictException') {
        const state = await this.state(experimentId, signal);
        if (['completed', 'stopped', 'failed', 'cancelled'].includes(state.status)) return;
      }
      throw error;
    }
  }
}
