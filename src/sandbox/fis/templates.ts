/**
 * FIS experiment templates: Create, Get, Update, Delete and ListExperimentTemplates, and the checks FIS
 * makes on a template beyond the model's shapes (quotas, stop conditions, targets, actions, startAfter).
 */
import { KNOWN_RESOURCE_TYPES } from '../targets.js';
import { ACTION_CATALOG, parameterProblem } from './catalog.js';
import { FisError, validation } from './errors.js';
import {
  clone,
  newId,
  seconds,
  type FisStore,
  type Json,
  type Template,
  type TemplateAction,
  type TemplateTarget,
} from './store.js';
import { listAnswer } from './wire.js';

/** Experiment templates per account and Region (SQ-FIS L-2FF3254A). */
export const MAX_TEMPLATES = 500;
/** Actions per template (SQ-FIS L-0BFE6B67). */
export const MAX_ACTIONS_PER_TEMPLATE = 20;
/** Stop conditions per template (SQ-FIS L-872EC72B). */
export const MAX_STOP_CONDITIONS = 5;

/** CreateExperimentTemplate, idempotent on its client token. */
export function createTemplate(store: FisStore, input: Json): Json {
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
  const prior = store.idempotent('CreateExperimentTemplate', token, fields);
  if (prior) return { experimentTemplate: templateView(store, store.template(prior)) };
  if (store.templates.size >= MAX_TEMPLATES)
    throw new FisError(
      'ServiceQuotaExceededException',
      `The quota of ${MAX_TEMPLATES} experiment templates is reached.`,
    );
  const now = store.now();
  const id = newId('EXT');
  const options = (input.experimentOptions as Json | undefined) ?? {};
  const t: Template = {
    id,
    arn: store.arn(`experiment-template/${id}`),
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
  store.templates.set(id, t);
  store.tags.set(t.arn, { ...(input.tags as Record<string, string> | undefined) });
  store.remember('CreateExperimentTemplate', token, fields, id);
  return { experimentTemplate: templateView(store, t) };
}

/** GetExperimentTemplate. */
export function getTemplate(store: FisStore, input: Json): Json {
  return { experimentTemplate: templateView(store, store.template(String(input.id))) };
}

/** UpdateExperimentTemplate: a field that is present replaces the stored one; an absent field stays. */
export function updateTemplate(store: FisStore, input: Json): Json {
  const t = store.template(String(input.id));
  const next: Template = clone(t);
  // docs/design/fis.md#operations, inferred.
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
  next.lastUpdateTime = store.now();
  store.templates.set(t.id, next);
  return { experimentTemplate: templateView(store, next) };
}

/** DeleteExperimentTemplate: the template goes, with its target accounts and its tags. */
export function deleteTemplate(store: FisStore, input: Json): Json {
  const t = store.template(String(input.id));
  const view = templateView(store, t);
  store.templates.delete(t.id);
  store.targetAccounts.delete(t.id);
  store.tags.delete(t.arn);
  return { experimentTemplate: view };
}

/** ListExperimentTemplates, in creation order. */
export function listTemplates(store: FisStore, input: Json): Json {
  const all = [...store.templates.values()].map((t) => ({
    id: t.id,
    arn: t.arn,
    description: t.description,
    creationTime: seconds(t.creationTime),
    lastUpdateTime: seconds(t.lastUpdateTime),
    tags: store.tagsOf(t.arn),
  }));
  return listAnswer('experimentTemplates', all, input);
}

/** A template as GetExperimentTemplate answers it. */
export function templateView(store: FisStore, t: Template): Json {
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
    tags: store.tagsOf(t.arn),
    ...(t.logConfiguration ? { logConfiguration: clone(t.logConfiguration) } : {}),
    experimentOptions: { ...t.experimentOptions },
    targetAccountConfigurationsCount: store.targetAccounts.get(t.id)?.size ?? 0,
    ...(t.experimentReportConfiguration
      ? { experimentReportConfiguration: clone(t.experimentReportConfiguration) }
      : {}),
  };
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
  for (const [name, target] of Object.entries(t.targets)) checkTarget(name, target);
  for (const [name, action] of actions) checkAction(t, name, action);
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

function checkTarget(name: string, target: TemplateTarget): void {
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

function checkAction(t: Template, name: string, action: TemplateAction): void {
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
    const byArns = (target.resourceArns?.length ?? 0) > 0;
    if (cat.targeting === 'tags' && byArns)
      throw validation(`Action ${name}: ${cat.id} only supports targets defined by resource tags.`);
    if (
      cat.targeting === 'arns' &&
      (!byArns || (target.filters?.length ?? 0) > 0 || Object.keys(target.parameters ?? {}).length > 0)
    )
      throw validation(
        `Action ${name}: ${cat.id} only supports targets defined by ARNs (no tags, filters or parameters).`,
      );
  }
  if (cat.target && !action.targets?.[cat.target.key])
    throw validation(`Action ${name}: ${cat.id} needs a ${cat.target.key} target.`);
  for (const after of action.startAfter ?? [])
    if (!(after in t.actions) || after === name)
      throw validation(`Action ${name}: startAfter names unknown action ${after}.`);
}
