/**
 * The documented parameter limits of every FIS action (the FIS actions reference, kept as data in
 * `src/fis-reference/actions.ts`), checked when a plan is read so that a template FIS would reject — a
 * `PT15S` partition, a pod-delete without its service account — is refused before anything is touched.
 * An action id the reference does not list is passed to FIS unchecked (FIS adds actions; it answers for
 * an id it does not know itself).
 *
 * The sandbox enforces the same table on CreateExperimentTemplate: one table, two readers.
 */
import {
  FIS_MAX_ACTION_MS,
  FIS_MIN_ACTION_MS,
  FIS_REFERENCE_BY_ID,
  isoOf,
  type ParameterRule,
} from '../fis-reference/actions.js';
import { parseIsoDuration } from './duration.js';

export type { ParameterRule };

/** Shortest duration FIS accepts for most duration parameters: one minute. */
export const FIS_MIN_ACTION_DURATION_MS = FIS_MIN_ACTION_MS;
/** Longest action FIS runs: 12 hours (Service Quotas L-A7622DAA). */
export const FIS_MAX_ACTION_DURATION_MS = FIS_MAX_ACTION_MS;

/** One action: its target key and resource type, and its parameters. */
export interface ActionLimits {
  target?: { key: string; resourceType: string };
  parameters: Record<string, { required: boolean; rule: ParameterRule }>;
}

/** The actions chaos-gate knows, by action id: the reference itself. */
export const FIS_ACTION_LIMITS: Readonly<Record<string, ActionLimits>> =
  Object.fromEntries(FIS_REFERENCE_BY_ID);

/** One way an action breaks its documented limits: the path below the action and what FIS expects. */
export interface ActionLimitProblem {
  path: (string | number)[];
  expected: string;
}

/**
 * The problems of one action against its documented limits; empty for an action chaos-gate does not
 * know. A duration that is not ISO-8601 at all is left to the static refusal `action-duration-format`,
 * which says how to write one.
 */
export function actionLimitProblems(action: {
  actionId: string;
  parameters?: Record<string, string> | undefined;
  targets?: Record<string, string> | undefined;
}): ActionLimitProblem[] {
  const limits = FIS_ACTION_LIMITS[action.actionId];
  if (!limits) return [];
  const out: ActionLimitProblem[] = [];
  const params = action.parameters ?? {};
  const known = Object.keys(limits.parameters);
  for (const [name, spec] of Object.entries(limits.parameters)) {
    if (spec.required && params[name] === undefined)
      out.push({
        path: ['parameters', name],
        expected: `parameter ${name}, which ${action.actionId} requires`,
      });
  }
  for (const [name, value] of Object.entries(params)) {
    const spec = limits.parameters[name];
    if (!spec) {
      out.push({
        path: ['parameters', name],
        expected: known.length
          ? `a parameter of ${action.actionId}: ${known.join(', ')}`
          : `no parameters (${action.actionId} takes none)`,
      });
      continue;
    }
    const problem = ruleProblem(spec.rule, value);
    if (problem)
      out.push({ path: ['parameters', name], expected: `${problem} (FIS limit of ${action.actionId})` });
  }
  const keys = Object.keys(action.targets ?? {});
  if (limits.target && !keys.includes(limits.target.key))
    out.push({
      path: ['targets'],
      expected: `a ${limits.target.key} target (${limits.target.resourceType}), which ${action.actionId} requires`,
    });
  for (const key of keys) {
    if (limits.target?.key === key) continue;
    out.push({
      path: ['targets', key],
      expected: limits.target
        ? `the target key ${limits.target.key} (${action.actionId} takes no ${key})`
        : `no targets (${action.actionId} takes none)`,
    });
  }
  return out;
}

function ruleProblem(rule: ParameterRule, value: string): string | undefined {
  switch (rule.kind) {
    case 'duration': {
      const ms = parseIsoDuration(value);
      if (ms === undefined) return undefined; // refused as action-duration-format, with the fix
      if (ms < rule.minMs || ms > rule.maxMs)
        return `an ISO-8601 duration from ${isoOf(rule.minMs)} to ${isoOf(rule.maxMs)}`;
      return undefined;
    }
    case 'integer': {
      const n = Number(value);
      if (!/^\d+$/.test(value) || n < rule.min || (rule.max !== undefined && n > rule.max))
        return rule.max === undefined
          ? `a whole number ≥ ${rule.min}`
          : `a whole number from ${rule.min} to ${rule.max}`;
      return undefined;
    }
    case 'number': {
      const n = Number(value);
      if (!/^\d+(?:\.\d+)?$/.test(value) || n < rule.min || n > rule.max)
        return `a number from ${rule.min} to ${rule.max}`;
      return undefined;
    }
    case 'enum': {
      const items = rule.list ? value.split(',') : [value];
      if (items.every((v) => rule.values.includes(v))) return undefined;
      return rule.list
        ? `a comma-separated list of ${rule.values.join(', ')}`
        : `one of ${rule.values.join(', ')}`;
    }
    case 'boolean': {
      const v = rule.ignoreCase ? value.toLowerCase() : value;
      return v === 'true' || v === 'false' ? undefined : 'true or false';
    }
    case 'json':
      try {
        JSON.parse(value);
        return undefined;
      } catch {
        return 'minified JSON';
      }
    case 'text':
      return undefined;
  }
}
