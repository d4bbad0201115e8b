/**
 * The FIS experiment template derived from a plan. The template carries a digest of its own content as a
 * tag, so chaos-gate can tell an unchanged plan (reuse), a changed plan (update) and a template edited by
 * hand (drift: repair or refuse) apart before it starts anything.
 */
import { createHash } from 'node:crypto';
import type { Plan } from '../../plan/schema.js';

/** FIS allows at most 5 stop conditions per template (FIS quotas, SEMANTICS §6). */
export const FIS_MAX_STOP_CONDITIONS = 5;
/** FIS template descriptions are at most 512 characters (M-FIS ExperimentTemplateDescription). */
export const FIS_MAX_DESCRIPTION = 512;

export const TAG_PLAN = 'chaos-gate:plan';
export const TAG_DIGEST = 'chaos-gate:digest';
export const TAG_PLAN_DIGEST = 'chaos-gate:plan-digest';
export const TAG_SERVICE = 'chaos-gate:service';
export const TAG_RUN = 'chaos-gate:run';
export const TAG_ATTEMPT = 'chaos-gate:attempt';
export const TAG_REPO = 'chaos-gate:repo';
export const TAG_SHA = 'chaos-gate:sha';

export interface StopCondition {
  source: string;
  value?: string;
}

/** What chaos-gate controls in a template; exactly what the digest covers. */
export interface TemplateContent {
  description: string;
  roleArn: string;
  targets: Record<string, unknown>;
  actions: Record<string, unknown>;
  stopConditions: StopCondition[];
  emptyTargetResolutionMode?: string;
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

export function contentDigest(content: TemplateContent): string {
  const normal = canonical({
    ...content,
    stopConditions: [...content.stopConditions].sort((a, b) =>
      `${a.source}|${a.value ?? ''}`.localeCompare(`${b.source}|${b.value ?? ''}`),
    ),
  });
  return createHash('sha256').update(JSON.stringify(normal)).digest('hex').slice(0, 32);
}

export class TemplateError extends Error {
  override name = 'TemplateError';
}

/** The template content for a plan, with chaos-gate's own lease and kill-switch alarms as stop conditions. */
export function templateContent(plan: Plan, alarms: { lease: string; killSwitch: string }): TemplateContent {
  const arns = [...plan.fis.stopConditions, alarms.lease, alarms.killSwitch];
  if (arns.length > FIS_MAX_STOP_CONDITIONS) {
    throw new TemplateError(
      `fis.stopConditions: ${plan.fis.stopConditions.length} alarms plus chaos-gate's lease and kill-switch alarms make ` +
        `${arns.length} stop conditions; FIS allows at most ${FIS_MAX_STOP_CONDITIONS}, so list at most ` +
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
    stopConditions: arns.map((value) => ({ source: 'aws:cloudwatch:alarm', value })),
  };
  const mode = plan.fis.emptyTargetResolutionMode;
  if (mode && mode !== 'fail') content.emptyTargetResolutionMode = mode;
  return content;
}

/** Reads the same content back from a GetExperimentTemplate response, for drift detection. */
export function contentOfTemplate(t: {
  description?: string | undefined;
  roleArn?: string | undefined;
  targets?: Record<string, unknown> | undefined;
  actions?: Record<string, unknown> | undefined;
  stopConditions?: { source?: string | undefined; value?: string | undefined }[] | undefined;
  experimentOptions?: { emptyTargetResolutionMode?: string | undefined } | undefined;
}): TemplateContent {
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
  const mode = t.experimentOptions?.emptyTargetResolutionMode;
  // FIS reports the default mode explicitly; the plan leaves it out. Treat 'fail' (the default) as absent.
  if (mode && mode !== 'fail') content.emptyTargetResolutionMode = mode;
  return content;
}

/** Deterministic, whitespace-free idempotency token (≤ 64 chars, per the FIS model's ClientToken). */
export function clientToken(...parts: string[]): string {
  return `cg-${createHash('sha256').update(parts.join('\u0000')).digest('hex').slice(0, 48)}`;
}
