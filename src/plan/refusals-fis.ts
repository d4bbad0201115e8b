/**
 * FIS template refusals (docs/design/gates.md#static-refusals): targets that select within the blast radius (required and forbidden
 * tags, COUNT/PERCENT/ALL against maxTargets and maxPercent), actions that name targets and predecessors
 * that exist without waiting in a cycle, and FIS's own per-template limits on actions and stop conditions.
 */
import { FIS_REFERENCE_BY_ID } from '../fis-reference/actions.js';
import type { Add } from './refusal-rule.js';
import type { Plan } from './schema.js';

/** Stop conditions FIS accepts per experiment template (quota L-872EC72B, docs/design/fis.md#stop-conditions and docs/design/fis.md#limits). */
export const FIS_MAX_STOP_CONDITIONS = 5;

/** Stop conditions chaos-gate adds itself: the lease alarm and the kill-switch alarm (docs/design/run.md#provisioning). */
export const GATE_STOP_CONDITIONS = 2;

/** Actions FIS accepts per experiment template (docs/design/fis.md#limits). */
export const FIS_MAX_ACTIONS = 20;

/** Each target against the blast radius: required and forbidden tags, and how many resources it may select. */
export function checkTargets(plan: Plan, add: Add): void {
  const radius = plan.blastRadius;
  for (const [name, target] of Object.entries(plan.fis.targets)) {
    const base = ['fis', 'targets', name];
    const tags = target.resourceTags;
    // A target listed by ARN carries no tags in the plan (some actions take nothing else, e.g.
    // inject-kubernetes-custom-resource): its resources' tags are checked once resolved, as the policy's are.
    const byArn = target.resourceArns !== undefined && tags === undefined;
    for (const [key, want] of Object.entries(byArn ? {} : radius.requireTags)) {
      const have = tags?.[key];
      if (have === want) continue;
      const shown = have === undefined ? `no ${key} tag` : `${key}=${have}`;
      const path =
        have === undefined ? [...base, ...(tags ? ['resourceTags'] : [])] : [...base, 'resourceTags', key];
      add(
        'require-tags',
        path,
        have ?? '(absent)',
        `${key}=${want}`,
        `target '${name}' must select by the tag ${key}=${want} (blastRadius.requireTags); its resourceTags have ${shown}`,
      );
    }
    for (const [key, forbidden] of Object.entries(radius.forbidTags)) {
      const have = tags?.[key];
      if (have !== undefined && forbidden.includes(have)) {
        add(
          'forbid-tags',
          [...base, 'resourceTags', key],
          have,
          `${key} not in ${forbidden.join('|')}`,
          `target '${name}' selects ${key}=${have}, a forbidden value (blastRadius.forbidTags ${key}: ${forbidden.join(', ')})`,
        );
      }
    }

    const mode = target.selectionMode;
    const count = /^COUNT\((\d+)\)$/.exec(mode);
    const percent = /^PERCENT\((\d+)\)$/.exec(mode);
    if (count && Number(count[1]) < 1) {
      add(
        'selection-out-of-range',
        [...base, 'selectionMode'],
        mode,
        'COUNT(n) with n ≥ 1',
        `${mode} selects no resource, so the experiment would inject nothing; expected COUNT(n) with n ≥ 1`,
      );
    }
    if (percent && !(Number(percent[1]) >= 1 && Number(percent[1]) <= 100)) {
      add(
        'selection-out-of-range',
        [...base, 'selectionMode'],
        mode,
        'PERCENT(n) with n from 1 to 100',
        `${mode} is not a share of the matching resources FIS accepts; expected PERCENT(n) with n from 1 to 100`,
      );
    }
    if (mode === 'ALL' && radius.maxPercent < 100) {
      add(
        'select-all',
        [...base, 'selectionMode'],
        mode,
        `PERCENT(${Math.floor(radius.maxPercent)}) or COUNT(n)`,
        `selectionMode ALL selects 100 % of the matching resources, over blastRadius.maxPercent ${radius.maxPercent} %`,
      );
    }
    if (count && Number(count[1]) > radius.maxTargets) {
      add(
        'count-over-max-targets',
        [...base, 'selectionMode'],
        mode,
        radius.maxTargets,
        `${mode} selects ${count[1]} resources, over blastRadius.maxTargets ${radius.maxTargets}`,
      );
    }
    if (percent && Number(percent[1]) > radius.maxPercent) {
      add(
        'percent-over-max-percent',
        [...base, 'selectionMode'],
        mode,
        radius.maxPercent,
        `${mode} selects ${percent[1]} % of the matching resources, over blastRadius.maxPercent ${radius.maxPercent} %`,
      );
    }
    const arns = target.resourceArns?.length ?? 0;
    if (mode === 'ALL' && arns > radius.maxTargets) {
      add(
        'arns-over-max-targets',
        [...base, 'resourceArns'],
        arns,
        radius.maxTargets,
        `selectionMode ALL over ${arns} listed ARNs selects ${arns} resources, over blastRadius.maxTargets ${radius.maxTargets}`,
      );
    }
  }
}

/** Actions within FIS's count, naming targets and `startAfter` actions that exist, with no waiting cycle. */
export function checkActions(plan: Plan, add: Add): void {
  const actions = plan.fis.actions;
  const names = Object.keys(actions);
  if (names.length > FIS_MAX_ACTIONS) {
    add(
      'too-many-actions',
      ['fis', 'actions'],
      names.length,
      FIS_MAX_ACTIONS,
      `${names.length} actions exceed FIS's limit of ${FIS_MAX_ACTIONS} per template`,
    );
  }
  const targets = Object.keys(plan.fis.targets);
  for (const [name, action] of Object.entries(actions)) {
    for (const [resourceKey, targetName] of Object.entries(action.targets ?? {})) {
      if (!targets.includes(targetName)) {
        add(
          'unknown-target',
          ['fis', 'actions', name, 'targets', resourceKey],
          targetName,
          targets.join(', ') || '(no targets defined)',
          `action '${name}' uses target '${targetName}', which fis.targets does not define${targets.length ? `; defined: ${targets.join(', ')}` : ''}`,
        );
      }
    }
    checkTargeting(plan, name, action, add);
    (action.startAfter ?? []).forEach((after, i) => {
      if (!names.includes(after)) {
        add(
          'unknown-start-after',
          ['fis', 'actions', name, 'startAfter', i],
          after,
          names.join(', '),
          `action '${name}' starts after '${after}', which fis.actions does not define; defined: ${names.join(', ')}`,
        );
      }
    });
  }
  const cycle = findCycle(plan);
  if (cycle) {
    add(
      'start-after-cycle',
      ['fis', 'actions', cycle[0] ?? '', 'startAfter'],
      cycle.join(' → '),
      'no cycles',
      `actions wait for each other in a cycle (${cycle.join(' → ')}), so none of them can start`,
    );
  }
}

/**
 * The FIS actions reference restricts how some actions' targets are defined: S3 replication "only
 * supports targeting by tags"; inject-kubernetes-custom-resource and api-insufficient-instance-capacity-error
 * do not support "resource tags, filters, or parameters". FIS refuses the template otherwise.
 */
function checkTargeting(plan: Plan, name: string, action: Plan['fis']['actions'][string], add: Add): void {
  const ref = FIS_REFERENCE_BY_ID.get(action.actionId);
  if (!ref?.target || !ref.targeting) return;
  const targetName = action.targets?.[ref.target.key];
  const target = targetName === undefined ? undefined : plan.fis.targets[targetName];
  if (!target) return;
  const path = ['fis', 'targets', targetName!];
  const byArns = (target.resourceArns?.length ?? 0) > 0;
  if (ref.targeting === 'tags' && byArns)
    add(
      'action-targeting',
      [...path, 'resourceArns'],
      'resourceArns',
      'resourceTags',
      `target '${targetName}' lists ARNs, but ${action.actionId} (action '${name}') only takes targets defined by resource tags`,
    );
  if (ref.targeting === 'arns') {
    const extra = [
      ...(target.resourceTags ? ['resourceTags'] : []),
      ...((target.filters?.length ?? 0) > 0 ? ['filters'] : []),
      ...(Object.keys(target.parameters ?? {}).length > 0 ? ['parameters'] : []),
    ];
    if (!byArns || extra.length > 0)
      add(
        'action-targeting',
        extra.length ? [...path, extra[0]!] : path,
        extra.join(', ') || '(no resourceArns)',
        'resourceArns only',
        `target '${targetName}' is defined by ${extra.join(', ') || 'no ARNs'}, but ${action.actionId} (action '${name}') only takes targets listed by ARN (no tags, filters or parameters)`,
      );
  }
}

function findCycle(plan: Plan): string[] | undefined {
  const actions = plan.fis.actions;
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const visit = (name: string): string[] | undefined => {
    const s = state.get(name);
    if (s === 'done') return undefined;
    if (s === 'open') return [...stack.slice(stack.indexOf(name)), name];
    const action = actions[name];
    if (!action) return undefined;
    state.set(name, 'open');
    stack.push(name);
    for (const after of action.startAfter ?? []) {
      const found = visit(after);
      if (found) return found;
    }
    stack.pop();
    state.set(name, 'done');
    return undefined;
  };
  for (const name of Object.keys(actions)) {
    const found = visit(name);
    if (found) return found;
  }
  return undefined;
}

/** The plan's stop conditions plus the gate's own two must fit FIS's limit per template. */
export function checkStopConditions(plan: Plan, add: Add): void {
  const stopConditions = plan.fis.stopConditions.length;
  const extra = abortAlarmStopConditions(plan).length;
  const allowed = FIS_MAX_STOP_CONDITIONS - GATE_STOP_CONDITIONS;
  if (extra > 0 && stopConditions + extra > allowed) {
    add(
      'too-many-stop-conditions',
      ['abort', 'alarms', 'stopConditions'],
      stopConditions + extra,
      allowed,
      `fis.stopConditions lists ${stopConditions} and abort.alarms (stopConditions: true) adds ${extra}: ${stopConditions + extra} stop conditions plus the gate's lease and kill-switch alarms make ${stopConditions + extra + GATE_STOP_CONDITIONS}, over FIS's limit of ${FIS_MAX_STOP_CONDITIONS} per template; attach at most ${allowed} in all (set abort.alarms.stopConditions: false to watch the alarms without attaching them)`,
    );
  } else if (stopConditions > allowed) {
    add(
      'too-many-stop-conditions',
      ['fis', 'stopConditions'],
      stopConditions,
      allowed,
      `${stopConditions} stop conditions plus the gate's lease and kill-switch alarms exceed FIS's limit of ${FIS_MAX_STOP_CONDITIONS} per template; list at most ${allowed}`,
    );
  }
}

/**
 * The `abort.alarms` names the template gains as stop conditions (with `stopConditions: true`): those
 * not already among `fis.stopConditions`, by name or ARN.
 */
export function abortAlarmStopConditions(plan: Pick<Plan, 'abort' | 'fis'>): string[] {
  const a = plan.abort.alarms;
  if (!a?.stopConditions) return [];
  const listed = new Set(
    plan.fis.stopConditions.flatMap((s) => {
      const v = s.value ?? '';
      const i = v.indexOf(':alarm:');
      return [v, i >= 0 ? v.slice(i + ':alarm:'.length) : v];
    }),
  );
  return [...new Set(a.names)].filter((n) => !listed.has(n) && !listed.has(alarmName(n)));
}

function alarmName(nameOrArn: string): string {
  const i = nameOrArn.indexOf(':alarm:');
  return i >= 0 ? nameOrArn.slice(i + ':alarm:'.length) : nameOrArn;
}
