/**
 * The FIS actions the sandbox can run (UG-ref), with the target key each one takes, the parameter that
 * sets its duration and the documented limits of every parameter, enforced on CreateExperimentTemplate
 * and UpdateExperimentTemplate as FIS enforces them (a `PT15S` partition is a ValidationException).
 * Anything else in a template is a validation error, as with FIS.
 *
 * The plan keeps its own copy of these limits (`src/plan/fis-actions.ts`): the sandbox stands in for AWS
 * and shares no code with the engine; `test/plan/fis-actions.test.ts` checks that the two agree.
 */

/** What running an action does to the sandbox, independent of the targets. */
export type ActionEffect =
  'partition' | 'stop-compute' | 'cpu-stress' | 'latency' | 'custom-resource' | 'wait' | 'assert-alarm';

/** How one parameter's value is constrained (UG-ref). */
export type ParameterRule =
  | { kind: 'duration'; minMs: number; maxMs: number }
  | { kind: 'integer'; min: number; max?: number }
  | { kind: 'enum'; values: readonly string[]; list?: boolean }
  | { kind: 'json' }
  | { kind: 'boolean' }
  | { kind: 'text' };

/** One parameter of an action. */
export interface CatalogParameter {
  description: string;
  required: boolean;
  rule: ParameterRule;
}

/** One action of the catalog. */
export interface CatalogAction {
  id: string;
  description: string;
  /** The key under the action's `targets` (e.g. `Instances`) and the resource type it must point at. */
  target?: { key: string; resourceType: string };
  /** Parameter that holds an ISO-8601 duration; absent → the action is near-instantaneous. */
  durationParameter?: string;
  parameters: Record<string, CatalogParameter>;
  effect: ActionEffect;
}

/** Shortest duration parameter FIS accepts: one minute (UG-ref: "from one minute to 12 hours"). */
export const MIN_ACTION_DURATION_MS = 60_000;
/** Longest action FIS allows (SQ-FIS L-A7622DAA): 12 hours. */
export const MAX_ACTION_DURATION_MS = 12 * 3600 * 1000;

const DURATION: ParameterRule = {
  kind: 'duration',
  minMs: MIN_ACTION_DURATION_MS,
  maxMs: MAX_ACTION_DURATION_MS,
};
const TEXT: ParameterRule = { kind: 'text' };
const PERCENT: ParameterRule = { kind: 'integer', min: 0, max: 100 };

const duration = (description: string, required = true): CatalogParameter => ({
  description,
  required,
  rule: DURATION,
});
const text = (description: string, required = false): CatalogParameter => ({
  description,
  required,
  rule: TEXT,
});

/** The parameters every `aws:eks:pod-*` action takes (UG-ref, "aws:eks:pod actions"). */
const EKS_POD_COMMON: Record<string, CatalogParameter> = {
  kubernetesServiceAccount: text('The Kubernetes service account the FIS pod runs as.', true),
  fisPodContainerImage: text('The FIS pod container image.'),
  maxErrorsPercent: { description: 'Failure tolerance, 0–100 (default 0).', required: false, rule: PERCENT },
  fisPodLabels: text('Labels of the FIS pod.'),
  fisPodAnnotations: text('Annotations of the FIS pod.'),
  fisPodSecurityPolicy: {
    description: 'privileged | baseline | restricted',
    required: false,
    rule: { kind: 'enum', values: ['privileged', 'baseline', 'restricted'] },
  },
};
const PODS = { key: 'Pods', resourceType: 'aws:eks:pod' };

/** The supported actions, keyed by action id. */
export const ACTION_CATALOG: ReadonlyMap<string, CatalogAction> = new Map(
  (
    [
      {
        id: 'aws:fis:wait',
        description: 'Waits for the specified duration.',
        durationParameter: 'duration',
        parameters: { duration: duration('The duration, from one minute to 12 hours.') },
        effect: 'wait',
      },
      {
        id: 'aws:network:disrupt-connectivity',
        description: 'Denies traffic to or from the target subnets.',
        target: { key: 'Subnets', resourceType: 'aws:ec2:subnet' },
        durationParameter: 'duration',
        parameters: {
          duration: duration('The duration, from one minute to 12 hours.'),
          scope: {
            description: 'all | availability-zone | dynamodb | prefix-list | s3 | s3express | vpc',
            required: false,
            rule: {
              kind: 'enum',
              values: ['all', 'availability-zone', 'dynamodb', 'prefix-list', 's3', 's3express', 'vpc'],
            },
          },
          prefixListIdentifier: text('The prefix list, when scope is prefix-list.'),
        },
        effect: 'partition',
      },
      {
        id: 'aws:ec2:stop-instances',
        description: 'Stops the target instances and starts them again after the duration.',
        target: { key: 'Instances', resourceType: 'aws:ec2:instance' },
        durationParameter: 'startInstancesAfterDuration',
        parameters: {
          startInstancesAfterDuration: duration(
            'Time to wait before restarting, one minute to 12 hours.',
            false,
          ),
          completeIfInstancesTerminated: {
            description: 'Complete if the instances were terminated (true | false).',
            required: false,
            rule: { kind: 'boolean' },
          },
        },
        effect: 'stop-compute',
      },
      {
        id: 'aws:ecs:stop-task',
        description: 'Stops the target ECS tasks.',
        target: { key: 'Tasks', resourceType: 'aws:ecs:task' },
        parameters: {},
        effect: 'stop-compute',
      },
      {
        id: 'aws:eks:pod-delete',
        description: 'Deletes the target pods.',
        target: PODS,
        parameters: {
          ...EKS_POD_COMMON,
          gracePeriodSeconds: {
            description: 'Seconds to wait for the pod to terminate (0: at once).',
            required: false,
            rule: { kind: 'integer', min: 0 },
          },
        },
        effect: 'stop-compute',
      },
      {
        id: 'aws:eks:pod-cpu-stress',
        description: 'Runs CPU stress on the target pods.',
        target: PODS,
        durationParameter: 'duration',
        parameters: {
          ...EKS_POD_COMMON,
          duration: duration('The duration, from one minute to 12 hours.'),
          percent: { description: 'Target CPU load, 0–100 (default 100).', required: false, rule: PERCENT },
          workers: {
            description: 'Stressors (default 0: one per CPU).',
            required: false,
            rule: { kind: 'integer', min: 0 },
          },
        },
        effect: 'cpu-stress',
      },
      {
        id: 'aws:eks:pod-network-latency',
        description: 'Adds latency and jitter to the network interface of the target pods.',
        target: PODS,
        durationParameter: 'duration',
        parameters: {
          ...EKS_POD_COMMON,
          duration: duration('The duration, from one minute to 12 hours.'),
          delayMilliseconds: {
            description: 'Added latency in ms (default 200).',
            required: false,
            rule: { kind: 'integer', min: 0 },
          },
          jitterMilliseconds: {
            description: 'Latency variation in ms (default 10).',
            required: false,
            rule: { kind: 'integer', min: 0 },
          },
          sources: text('Sources to delay (default all).'),
          interface: text('The interface (default eth0).'),
        },
        effect: 'latency',
      },
      {
        id: 'aws:eks:inject-kubernetes-custom-resource',
        description: 'Applies a Kubernetes custom resource (Chaos Mesh, Litmus) to the target cluster.',
        target: { key: 'Cluster', resourceType: 'aws:eks:cluster' },
        durationParameter: 'maxDuration',
        parameters: {
          kubernetesApiVersion: text('The custom resource apiVersion, e.g. chaos-mesh.org/v1alpha1.', true),
          kubernetesKind: text('The custom resource kind, e.g. PodChaos.', true),
          kubernetesNamespace: text('The namespace the custom resource is created in.', true),
          kubernetesSpec: {
            description: 'The custom resource spec, as minified JSON.',
            required: true,
            rule: { kind: 'json' },
          },
          maxDuration: duration('How long the custom resource may run, one minute to 12 hours.'),
        },
        effect: 'custom-resource',
      },
      {
        id: 'aws:ssm:send-command',
        description: 'Runs an SSM document (e.g. AWSFIS-Run-CPU-Stress) on the target instances.',
        target: { key: 'Instances', resourceType: 'aws:ec2:instance' },
        durationParameter: 'duration',
        parameters: {
          documentArn: text('The SSM document ARN.', true),
          documentVersion: text('The document version.'),
          documentParameters: {
            description: 'Minified JSON parameters of the document.',
            required: false,
            rule: { kind: 'json' },
          },
          duration: duration('The duration, from one minute to 12 hours.'),
        },
        effect: 'cpu-stress',
      },
      {
        id: 'aws:cloudwatch:assert-alarm-state',
        description: 'Verifies that the alarms are in one of the given states.',
        parameters: {
          alarmArns: text('Comma-separated alarm ARNs (at most 5).', true),
          alarmStates: {
            description: 'Comma-separated states: OK, ALARM, INSUFFICIENT_DATA.',
            required: true,
            rule: { kind: 'enum', values: ['OK', 'ALARM', 'INSUFFICIENT_DATA'], list: true },
          },
        },
        effect: 'assert-alarm',
      },
    ] satisfies CatalogAction[]
  ).map((a) => [a.id, a]),
);

/**
 * Parses an ISO-8601 duration as FIS takes them (`PT1M`, `PT90S`, `PT1H30M`, `P1D`) to milliseconds;
 * undefined when it is not one.
 */
export function parseIsoDuration(text: string): number | undefined {
  const m =
    /^P(?:(\d+(?:\.\d+)?)D)?(?:T(?:(\d+(?:\.\d+)?)H)?(?:(\d+(?:\.\d+)?)M)?(?:(\d+(?:\.\d+)?)S)?)?$/.exec(
      text,
    );
  if (!m || text === 'P' || text.endsWith('T')) return undefined;
  const [, d, h, min, s] = m;
  return ((Number(d ?? 0) * 24 + Number(h ?? 0)) * 60 + Number(min ?? 0)) * 60_000 + Number(s ?? 0) * 1000;
}

/**
 * Why a parameter value breaks its rule, in FIS's words ("must be …"); undefined when it is fine.
 */
export function parameterProblem(rule: ParameterRule, value: string): string | undefined {
  switch (rule.kind) {
    case 'duration': {
      const ms = parseIsoDuration(value);
      if (ms === undefined || ms < rule.minMs || ms > rule.maxMs)
        return 'must be an ISO 8601 duration between PT1M and PT12H';
      return undefined;
    }
    case 'integer': {
      const n = Number(value);
      if (!/^\d+$/.test(value) || n < rule.min || (rule.max !== undefined && n > rule.max))
        return rule.max === undefined
          ? `must be a whole number of at least ${rule.min}`
          : `must be a whole number between ${rule.min} and ${rule.max}`;
      return undefined;
    }
    case 'enum': {
      const items = rule.list ? value.split(',') : [value];
      if (items.every((v) => rule.values.includes(v))) return undefined;
      return `must be ${rule.list ? 'a comma-separated list of' : 'one of'} ${rule.values.join(', ')}`;
    }
    case 'boolean':
      return value === 'true' || value === 'false' ? undefined : 'must be true or false';
    case 'json':
      try {
        JSON.parse(value);
        return undefined;
      } catch {
        return 'must be valid JSON';
      }
    case 'text':
      return undefined;
  }
}
