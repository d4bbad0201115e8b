/**
 * The documented parameter limits of the FIS actions chaos-gate knows (FIS User Guide, "AWS FIS Actions
 * reference"; SEMANTICS §4), checked when a plan is read so that a template FIS would reject — a
 * `PT15S` partition, a pod-delete without its service account — is refused before anything is touched.
 * Actions not listed here are passed to FIS unchecked: FIS has more actions than chaos-gate knows.
 *
 * The sandbox keeps its own copy of these limits (`src/sandbox/fis/catalog.ts`): it stands in for AWS and
 * shares no code with the engine; `test/plan/fis-actions.test.ts` checks the two agree.
 */
import { parseIsoDuration } from './duration.js';

/** Shortest duration FIS accepts for a duration parameter: one minute (UG-ref, "from one minute to 12 hours"). */
export const FIS_MIN_ACTION_DURATION_MS = 60_000;
/** Longest action FIS runs: 12 hours (SQ-FIS L-A7622DAA). */
export const FIS_MAX_ACTION_DURATION_MS = 12 * 3_600_000;

/** How one parameter's value is constrained. */
export type ParameterRule =
  | { kind: 'duration'; min: number; max: number }
  | { kind: 'integer'; min: number; max?: number }
  | { kind: 'enum'; values: readonly string[]; list?: boolean }
  | { kind: 'json' }
  | { kind: 'boolean' }
  | { kind: 'text' };

/** One action: its target key and resource type, and its parameters. */
export interface ActionLimits {
  target?: { key: string; resourceType: string };
  parameters: Record<string, { required: boolean; rule: ParameterRule }>;
}

const DURATION: ParameterRule = {
  kind: 'duration',
  min: FIS_MIN_ACTION_DURATION_MS,
  max: FIS_MAX_ACTION_DURATION_MS,
};
const PERCENT: ParameterRule = { kind: 'integer', min: 0, max: 100 };
const TEXT: ParameterRule = { kind: 'text' };

/** The parameters every `aws:eks:pod-*` action shares (UG-ref, "aws:eks:pod actions"). */
const EKS_POD_COMMON = {
  kubernetesServiceAccount: { required: true, rule: TEXT },
  fisPodContainerImage: { required: false, rule: TEXT },
  maxErrorsPercent: { required: false, rule: PERCENT },
  fisPodLabels: { required: false, rule: TEXT },
  fisPodAnnotations: { required: false, rule: TEXT },
  fisPodSecurityPolicy: {
    required: false,
    rule: { kind: 'enum', values: ['privileged', 'baseline', 'restricted'] } as ParameterRule,
  },
};
const PODS = { key: 'Pods', resourceType: 'aws:eks:pod' };

/** The actions chaos-gate knows, by action id. */
export const FIS_ACTION_LIMITS: Readonly<Record<string, ActionLimits>> = {
  'aws:fis:wait': { parameters: { duration: { required: true, rule: DURATION } } },
  'aws:network:disrupt-connectivity': {
    target: { key: 'Subnets', resourceType: 'aws:ec2:subnet' },
    parameters: {
      duration: { required: true, rule: DURATION },
      scope: {
        required: false,
        rule: {
          kind: 'enum',
          values: ['all', 'availability-zone', 'dynamodb', 'prefix-list', 's3', 's3express', 'vpc'],
        },
      },
      prefixListIdentifier: { required: false, rule: TEXT },
    },
  },
  'aws:ec2:stop-instances': {
    target: { key: 'Instances', resourceType: 'aws:ec2:instance' },
    parameters: {
      startInstancesAfterDuration: { required: false, rule: DURATION },
      completeIfInstancesTerminated: { required: false, rule: { kind: 'boolean' } },
    },
  },
  'aws:ecs:stop-task': { target: { key: 'Tasks', resourceType: 'aws:ecs:task' }, parameters: {} },
  'aws:ssm:send-command': {
    target: { key: 'Instances', resourceType: 'aws:ec2:instance' },
    parameters: {
      documentArn: { required: true, rule: TEXT },
      documentVersion: { required: false, rule: TEXT },
      documentParameters: { required: false, rule: { kind: 'json' } },
      duration: { required: true, rule: DURATION },
    },
  },
  'aws:eks:pod-delete': {
    target: PODS,
    parameters: {
      ...EKS_POD_COMMON,
      gracePeriodSeconds: { required: false, rule: { kind: 'integer', min: 0 } },
    },
  },
  'aws:eks:pod-cpu-stress': {
    target: PODS,
    parameters: {
      ...EKS_POD_COMMON,
      duration: { required: true, rule: DURATION },
      percent: { required: false, rule: PERCENT },
      workers: { required: false, rule: { kind: 'integer', min: 0 } },
    },
  },
  'aws:eks:pod-network-latency': {
    target: PODS,
    parameters: {
      ...EKS_POD_COMMON,
      duration: { required: true, rule: DURATION },
      delayMilliseconds: { required: false, rule: { kind: 'integer', min: 0 } },
      jitterMilliseconds: { required: false, rule: { kind: 'integer', min: 0 } },
      sources: { required: false, rule: TEXT },
      interface: { required: false, rule: TEXT },
    },
  },
  'aws:eks:inject-kubernetes-custom-resource': {
    target: { key: 'Cluster', resourceType: 'aws:eks:cluster' },
    parameters: {
      kubernetesApiVersion: { required: true, rule: TEXT },
      kubernetesKind: { required: true, rule: TEXT },
      kubernetesNamespace: { required: true, rule: TEXT },
      kubernetesSpec: { required: true, rule: { kind: 'json' } },
      maxDuration: { required: true, rule: DURATION },
    },
  },
  'aws:cloudwatch:assert-alarm-state': {
    parameters: {
      alarmArns: { required: true, rule: TEXT },
      alarmStates: {
        required: true,
        rule: { kind: 'enum', values: ['OK', 'ALARM', 'INSUFFICIENT_DATA'], list: true },
      },
    },
  },
};

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
      if (ms < rule.min || ms > rule.max) return 'an ISO-8601 duration from PT1M to PT12H';
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
    case 'enum': {
      const items = rule.list ? value.split(',') : [value];
      if (items.every((v) => rule.values.includes(v))) return undefined;
      return rule.list
        ? `a comma-separated list of ${rule.values.join(', ')}`
        : `one of ${rule.values.join(', ')}`;
    }
    case 'boolean':
      return value === 'true' || value === 'false' ? undefined : 'true or false';
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
