/**
 * The FIS experiment template derived from a plan. The template carries a digest of its own content as a
 * tag, so chaos-gate can tell an unchanged plan (reuse), a changed plan (update) and a template edited by
 * hand (drift: repair or refuse) apart before it starts anything. The digest covers every field the plan
 * controls: description, role, targets, actions, stop conditions, the plan's own tags, the log and report
 * configurations, the experiment options and the target accounts of a multi-account experiment.
 */
import { createHash } from 'node:crypto';
import type { Plan } from '../../plan/schema.js';
import { ALARM_SOURCE, emptyTargetMode } from '../../plan/fis.js';
import { abortAlarmStopConditions } from '../../plan/refusals-fis.js';
import { CHAOS_GATE_TAG_PREFIX } from './tags.js';

/** FIS allows at most 5 stop conditions per template (FIS quotas, docs/design/fis.md#limits). */
export const FIS_MAX_STOP_CONDITIONS = 5;
/** FIS template descriptions are at most 512 characters (M-FIS ExperimentTemplateDescription). */
export const FIS_MAX_DESCRIPTION = 512;
/**
 * The report window FIS applies when a report configuration names none (third-party IaC documentation
 * of the default, docs/design/fis.md#experiment-reports); treated as equal to an absent value so a filled-in default is no drift.
 */
export const FIS_DEFAULT_REPORT_WINDOW = 'PT20M';

export interface StopCondition {
  source: string;
  value?: string;
}

/** One target account of a multi-account template (FIS keeps it beside the template). */
export interface TargetAccount {
  accountId: string;
  roleArn: string;
  description?: string | undefined;
}

/** What chaos-gate controls in a template; exactly what the digest covers. */
export interface TemplateContent {
  description: string;
  roleArn: string;
  targets: Record<string, unknown>;
  actions: Record<string, unknown>;
  stopConditions: StopCondition[];
  /** The plan's own tags; `chaos-gate:*` tags are bookkeeping and stay out. */
  tags?: Record<string, string>;
  logConfiguration?: Record<string, unknown>;
  /** Only when not FIS's default (single-account), which FIS reports explicitly. */
  accountTargeting?: string;
  /** Only when not FIS's default (fail), which FIS reports explicitly. */
  emptyTargetResolutionMode?: string;
  experimentReportConfiguration?: Record<string, unknown>;
  /** Sorted by account id. */
  targetAccountConfigurations?: TargetAccount[];
}

/** Removes undefined values, empty arrays and empty objects, and sorts keys: equal content, equal JSON. */
export function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value).sort()) {
      const v = canonical((value as Record<string, unknown>)[key]);
      if (v === undefined || v === null) continue;
      if (Array.isArray(v) && v.length === 0) continue;
      if (typeof v === 'object' && !Array.isArray(v) && Object.keys(v as object).length === 0) continue;
      out[key] = v;
    }
    return out;
  }
  return value;
}

/**
 * A lease alarm's ARN with the run left out: the template is the plan's, but its lease stop condition
 * names the alarm of whichever run bound it last (each run binds its own right before its start), so
 * which run's it is must not count as a change of the template.
 */
function leaseAgnostic(s: StopCondition): StopCondition {
  const value = s.value?.replace(/:alarm:chaos-gate-lease-.*$/, ':alarm:chaos-gate-lease');
  return value === undefined ? s : { ...s, value };
}

export function contentDigest(content: TemplateContent): string {
  const normal = canonical({
    ...content,
    stopConditions: content.stopConditions
      .map(leaseAgnostic)
      .sort((a, b) => `${a.source}|${a.value ?? ''}`.localeCompare(`${b.source}|${b.value ?? ''}`)),
  });
  return createHash('sha256').update(JSON.stringify(normal)).digest('hex').slice(0, 32);
}

export class TemplateError extends Error {
  override name = 'TemplateError';
}

/** The plan's own tags, without chaos-gate's bookkeeping tags. */
export function userTags(tags: Record<string, string> | undefined): Record<string, string> | undefined {
  if (!tags) return undefined;
  const out = Object.fromEntries(Object.entries(tags).filter(([k]) => !k.startsWith(CHAOS_GATE_TAG_PREFIX)));
  return Object.keys(out).length ? out : undefined;
}

function reportConfiguration(r: Record<string, unknown> | undefined): Record<string, unknown> | undefined {
  if (!r) return undefined;
  const out = { ...r };
  for (const k of ['preExperimentDuration', 'postExperimentDuration'])
    if (out[k] === FIS_DEFAULT_REPORT_WINDOW) delete out[k];
  return out;
}

function sortedAccounts(accounts: readonly TargetAccount[] | undefined): TargetAccount[] | undefined {
  if (!accounts?.length) return undefined;
  return [...accounts]
    .map((a) => ({
      accountId: a.accountId,
      roleArn: a.roleArn,
      ...(a.description ? { description: a.description } : {}),
    }))
    .sort((a, b) => a.accountId.localeCompare(b.accountId));
}

/** The template content for a plan, with chaos-gate's own lease and kill-switch alarms as stop conditions. */
export function templateContent(plan: Plan, alarms: { lease: string; killSwitch: string }): TemplateContent {
  // `{source: none}` means "no stop condition"; chaos-gate always adds two, so it drops out.
  const own = plan.fis.stopConditions.filter((s) => s.source !== 'none');
  // abort.alarms with stopConditions: true — named alarms live in the runner's account and Region, the
  // lease alarm's; an ARN is taken as written.
  const alarmPrefix = alarms.lease.replace(/:alarm:.*$/, ':alarm:');
  const attached = abortAlarmStopConditions(plan).map((n) =>
    n.startsWith('arn:') ? n : `${alarmPrefix}${n}`,
  );
  const stopConditions: StopCondition[] = [
    ...own.map((s) => ({ source: s.source, ...(s.value !== undefined ? { value: s.value } : {}) })),
    ...attached.map((value) => ({ source: ALARM_SOURCE, value })),
    { source: ALARM_SOURCE, value: alarms.lease },
    { source: ALARM_SOURCE, value: alarms.killSwitch },
  ];
  if (stopConditions.length > FIS_MAX_STOP_CONDITIONS) {
    throw new TemplateError(
      `fis.stopConditions: ${own.length + attached.length} alarms plus chaos-gate's lease and kill-switch alarms make ` +
        `${stopConditions.length} stop conditions; FIS allows at most ${FIS_MAX_STOP_CONDITIONS}, so list at most ` +
        `${FIS_MAX_STOP_CONDITIONS - 2} in the plan`,
    );
  }
  const description = (plan.fis.description ?? `chaos-gate ${plan.id}: ${plan.title}`).slice(
    0,
    FIS_MAX_DESCRIPTION,
  );
  const content: TemplateContent = {
    description,
    roleArn: plan.fis.roleArn,
    targets: plan.fis.targets,
    actions: plan.fis.actions,
    stopConditions,
  };
  const tags = userTags(plan.fis.tags);
  if (tags) content.tags = tags;
  if (plan.fis.logConfiguration) content.logConfiguration = plan.fis.logConfiguration;
  const targeting = plan.fis.experimentOptions?.accountTargeting;
  if (targeting && targeting !== 'single-account') content.accountTargeting = targeting;
  const mode = emptyTargetMode(plan.fis);
  if (mode && mode !== 'fail') content.emptyTargetResolutionMode = mode;
  const report = reportConfiguration(plan.fis.experimentReportConfiguration);
  if (report) content.experimentReportConfiguration = report;
  const accounts = sortedAccounts(plan.fis.targetAccountConfigurations);
  if (accounts) content.targetAccountConfigurations = accounts;
  return content;
}

/** A template as GetExperimentTemplate returns it (the pinned client's types, loosened). */
export interface TemplateView {
  description?: string | undefined;
  roleArn?: string | undefined;
  targets?: Record<string, unknown> | undefined;
  actions?: Record<string, unknown> | undefined;
  stopConditions?: { source?: string | undefined; value?: string | undefined }[] | undefined;
  tags?: Record<string, string> | undefined;
  logConfiguration?: unknown;
  experimentOptions?:
    { accountTargeting?: string | undefined; emptyTargetResolutionMode?: string | undefined } | undefined;
  experimentReportConfiguration?: unknown;
}

/**
 * Reads the same content back from a GetExperimentTemplate response and the template's target account
 * configurations (ListTargetAccountConfigurations), for drift detection.
 */
export function contentOfTemplate(t: TemplateView, accounts?: readonly TargetAccount[]): TemplateContent {
  const content: TemplateContent = {
    description: t.description ?? '',
    roleArn: t.roleArn ?? '',
    targets: t.targets ?? {},
    actions: t.actions ?? {},
    stopConditions: (t.stopConditions ?? []).map((s) => ({
      source: s.source ?? '',
      ...(s.value !== undefined ? { value: s.value } : {}),
    })),
  };
  const tags = userTags(t.tags);
  if (tags) content.tags = tags;
  if (t.logConfiguration && typeof t.logConfiguration === 'object')
    content.logConfiguration = t.logConfiguration as Record<string, unknown>;
  // FIS reports the default options explicitly; the plan leaves them out. Treat defaults as absent.
  const targeting = t.experimentOptions?.accountTargeting;
  if (targeting && targeting !== 'single-account') content.accountTargeting = targeting;
  const mode = t.experimentOptions?.emptyTargetResolutionMode;
  if (mode && mode !== 'fail') content.emptyTargetResolutionMode = mode;
  const report = reportConfiguration(
    t.experimentReportConfiguration && typeof t.experimentReportConfiguration === 'object'
      ? (t.experimentReportConfiguration as Record<string, unknown>)
      : undefined,
  );
  if (report) content.experimentReportConfiguration = report;
  const sorted = sortedAccounts(accounts);
  if (sorted) content.targetAccountConfigurations = sorted;
  return content;
}

/**
 * Whether the stored template cannot be brought to `wanted` by UpdateExperimentTemplate: its account
 * targeting cannot be changed (the update's options carry only the empty-target mode), and an absent field
 * in an update leaves the stored one as it is, so a log or report configuration the plan dropped stays.
 */
export function needsReplacement(actual: TemplateContent, wanted: TemplateContent): string | undefined {
  if ((actual.accountTargeting ?? 'single-account') !== (wanted.accountTargeting ?? 'single-account'))
    return `account targeting changes from ${actual.accountTargeting ?? 'single-account'} to ${wanted.accountTargeting ?? 'single-account'}`;
  if (actual.logConfiguration && !wanted.logConfiguration) return 'the plan no longer configures a log';
  if (actual.experimentReportConfiguration && !wanted.experimentReportConfiguration)
    return 'the plan no longer configures a report';
  return undefined;
}

/** Deterministic, whitespace-free idempotency token (≤ 64 chars, per the FIS model's ClientToken). */
export function clientToken(...parts: string[]): string {
  return `cg-${createHash('sha256').update(parts.join('\u0000')).digest('hex').slice(0, 48)}`;
}
