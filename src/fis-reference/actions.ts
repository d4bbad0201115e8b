/**
 * The AWS FIS actions reference as data: every action AWS documents, with the resource type and target
 * key it takes, each parameter's name, type, whether it is required, its documented range and default,
 * and the page each fact was read from. The one table both sides read: the plan checks a template
 * against it before anything is touched (`src/plan/fis-actions.ts`), and the sandbox enforces it on
 * CreateExperimentTemplate as FIS does (`src/sandbox/fis/catalog.ts`). docs/fis-actions.md is generated
 * from it (`npm run -s fis-actions-doc`).
 *
 * Where the reference is silent a choice is written down here rather than guessed twice:
 * - A duration with no documented range may run up to FIS's 12-hour action limit (Service Quotas
 *   L-A7622DAA) and must be at least one second.
 * - A parameter the reference marks "Optional" or gives a default is optional; "Conditional" (an SSM
 *   document's parameters) is optional; every other parameter is required.
 * - Target keys are not on the reference page: they are the keys `aws fis get-action` returns, as the
 *   Service Quotas names of the per-action target quotas spell them ("Target Tasks for
 *   aws:ecs:stop-task").
 *
 * This folder imports nothing: it is facts, not code of either side.
 */

/** How one parameter's value is constrained. */
export type ParameterRule =
  | { kind: 'duration'; minMs: number; maxMs: number }
  | { kind: 'integer'; min: number; max?: number }
  /** A decimal number (EBS I/O percentages go down to 0.1). */
  | { kind: 'number'; min: number; max: number }
  | { kind: 'enum'; values: readonly string[]; list?: boolean }
  /** `true` or `false`; `ignoreCase` where the reference writes `True` (the SSM documents' own spelling). */
  | { kind: 'boolean'; ignoreCase?: boolean }
  | { kind: 'json' }
  | { kind: 'text' };

/** One documented parameter. */
export interface ReferenceParameter {
  description: string;
  required: boolean;
  rule: ParameterRule;
  /** The documented default, as FIS takes it. */
  default?: string;
}

/** One action of the reference. */
export interface ReferenceAction {
  id: string;
  /** The page (with its anchor) the facts come from. */
  doc: string;
  description: string;
  /** The key under the action's `targets` and the resource type it must point at; absent → no target. */
  target?: { key: string; resourceType: string };
  /**
   * How its target may be defined when the reference restricts it: `tags` only by resource tags
   * ("only supports targeting by tags"), `arns` only by ARNs ("doesn't support defining targets using
   * resource tags, filters, or parameters").
   */
  targeting?: 'tags' | 'arns';
  /** The parameter that says how long the action lasts; absent → it is near-instantaneous. */
  durationParameter?: string;
  parameters: Record<string, ReferenceParameter>;
}

const REF = 'https://docs.aws.amazon.com/fis/latest/userguide/fis-actions-reference.html';
const LIST_ACTIONS = 'https://docs.aws.amazon.com/fis/latest/userguide/fis-list-actions.html';

const SECOND = 1000;
const MINUTE = 60 * SECOND;
/** FIS's longest action: 12 hours (Service Quotas L-A7622DAA, "Maximum action duration"). */
export const FIS_MAX_ACTION_MS = 12 * 60 * MINUTE;
/** The usual documented floor: "from one minute to 12 hours". */
export const FIS_MIN_ACTION_MS = MINUTE;

const span = (minMs: number, maxMs = FIS_MAX_ACTION_MS): ParameterRule => ({
  kind: 'duration',
  minMs,
  maxMs,
});
const ONE_MINUTE_TO_12H = span(MINUTE);
/** A duration the reference gives no range for. */
const UNRANGED = span(SECOND);
const TEXT: ParameterRule = { kind: 'text' };
const BOOLEAN: ParameterRule = { kind: 'boolean' };
const JSON_RULE: ParameterRule = { kind: 'json' };
const int = (min: number, max?: number): ParameterRule =>
  max === undefined ? { kind: 'integer', min } : { kind: 'integer', min, max };

const req = (description: string, rule: ParameterRule = TEXT): ReferenceParameter => ({
  description,
  required: true,
  rule,
});
const opt = (description: string, rule: ParameterRule = TEXT, byDefault?: string): ReferenceParameter => ({
  description,
  required: false,
  rule,
  ...(byDefault === undefined ? {} : { default: byDefault }),
});

const duration = (rule = ONE_MINUTE_TO_12H, what = 'How long the action lasts') =>
  req(`${what} (ISO 8601, e.g. PT1M).`, rule);

/** `service`, `percentage`, `operations` and `duration` of the three aws:fis:inject-api-* actions. */
const INJECT_API = {
  duration: duration(),
  service: req('The target AWS API namespace: ec2 or kinesis.', { kind: 'enum', values: ['ec2', 'kinesis'] }),
  percentage: req('The percentage of calls to inject the fault into (1–100).', int(1, 100)),
  operations: req('The operations to inject the fault into, separated by commas.'),
};

/** The parameters every aws:eks:pod-* action shares (see "Use the AWS FIS aws:eks:pod actions"). */
const POD_COMMON = {
  kubernetesServiceAccount: req('The Kubernetes service account the FIS pod runs as.'),
  fisPodContainerImage: opt(
    'The container image of the fault injector pod (default: the images AWS FIS provides).',
  ),
  maxErrorsPercent: opt(
    'The percentage of targets that can fail before the fault injection fails.',
    int(0, 100),
    '0',
  ),
  fisPodLabels: opt('Kubernetes labels of the fault orchestration pod.'),
  fisPodAnnotations: opt('Kubernetes annotations of the fault orchestration pod.'),
};
const POD_SECURITY_ALL = opt('The Pod Security Standards policy of the FIS pod.', {
  kind: 'enum',
  values: ['privileged', 'baseline', 'restricted'],
});
const POD_SOURCES = opt(
  'Sources, comma-separated without spaces: IPv4 addresses or CIDRs, domain names, AZ names or IDs, ALL, DYNAMODB, S3.',
  TEXT,
  'ALL',
);
const POD_INTERFACE = opt(
  'Network interfaces, comma-separated; ALL and DEFAULT are supported.',
  TEXT,
  'DEFAULT',
);
const FLOWS = opt('The percentage of network flows affected.', int(0, 100), '100');
const PODS = { key: 'Pods', resourceType: 'aws:eks:pod' };
const TASKS = { key: 'Tasks', resourceType: 'aws:ecs:task' };
const INSTALL = opt(
  'Whether Systems Manager installs the dependencies on the SSM agent sidecar.',
  { kind: 'boolean', ignoreCase: true },
  'True',
);
const USE_ECS_ENDPOINTS = opt('Use the Amazon ECS fault injection endpoints.', BOOLEAN, 'false');
const STRESS_DURATION = duration(UNRANGED, 'How long the stress test lasts');
const TEST_DURATION = duration(UNRANGED, 'How long the test lasts');
const TRAFFIC = req('The traffic direction: ingress or egress.', {
  kind: 'enum',
  values: ['ingress', 'egress'],
});
const PORT = req('The port number.', int(0, 65535));
const LAMBDA = { key: 'Functions', resourceType: 'aws:lambda:function' };
const INVOCATIONS = opt(
  'The percentage of invocations to inject the fault into (1–100).',
  int(1, 100),
  '100',
);
const LAMBDA_DURATION = duration(UNRANGED);
const PREVENT_EXECUTION = req('Whether to return without running the function code.', BOOLEAN);
const AZ_LIST = req('Availability Zones (names or IDs), comma-separated.');
const REGION = req('The code of the Region, e.g. eu-west-1.');

const ref = (anchor: string) => `${REF}#${anchor}`;

/** Every action of the reference, in the reference's order. */
export const FIS_REFERENCE: readonly ReferenceAction[] = [
  {
    id: 'aws:fis:inject-api-internal-error',
    doc: ref('inject-api-internal-error'),
    description: 'Injects internal errors into requests made by the target IAM role.',
    target: { key: 'Roles', resourceType: 'aws:iam:role' },
    durationParameter: 'duration',
    parameters: INJECT_API,
  },
  {
    id: 'aws:fis:inject-api-throttle-error',
    doc: ref('inject-api-throttle-error'),
    description: 'Injects throttling errors into requests made by the target IAM role.',
    target: { key: 'Roles', resourceType: 'aws:iam:role' },
    durationParameter: 'duration',
    parameters: INJECT_API,
  },
  {
    id: 'aws:fis:inject-api-unavailable-error',
    doc: ref('inject-api-unavailable-error'),
    description: 'Injects unavailable errors into requests made by the target IAM role.',
    target: { key: 'Roles', resourceType: 'aws:iam:role' },
    durationParameter: 'duration',
    parameters: INJECT_API,
  },
  {
    id: 'aws:arc:start-zonal-autoshift',
    doc: ref('recovery'),
    description: 'Shifts traffic of zonal-shift managed resources away from an Availability Zone (ARC).',
    target: { key: 'ManagedResources', resourceType: 'aws:arc:zonal-shift-managed-resource' },
    durationParameter: 'duration',
    parameters: {
      duration: duration(UNRANGED, 'How long traffic is shifted'),
      availabilityZoneIdentifier: req('The Availability Zone traffic moves away from (name or ID).'),
      managedResourceTypes: req('Resource types to shift, comma-separated: ASG, ALB, NLB, EKS.', {
        kind: 'enum',
        values: ['ASG', 'ALB', 'NLB', 'EKS'],
        list: true,
      }),
      zonalAutoshiftStatus: opt(
        'The zonal autoshift status of the resources to target.',
        { kind: 'enum', values: ['ENABLED', 'DISABLED', 'ANY'] },
        'ENABLED',
      ),
    },
  },
  {
    id: 'aws:fis:wait',
    doc: ref('wait'),
    description: 'Waits for the duration.',
    durationParameter: 'duration',
    parameters: { duration: duration() },
  },
  {
    id: 'aws:cloudwatch:assert-alarm-state',
    doc: ref('assert-alarm-state'),
    description: 'Verifies that the alarms are in one of the given states.',
    parameters: {
      alarmArns: req('The alarm ARNs, comma-separated (at most five).'),
      alarmStates: req('The alarm states, comma-separated.', {
        kind: 'enum',
        values: ['OK', 'ALARM', 'INSUFFICIENT_DATA'],
        list: true,
      }),
    },
  },
  {
    id: 'aws:dynamodb:global-table-pause-replication',
    doc: ref('global-table-pause-replication'),
    description: 'Pauses replication of a DynamoDB global table to its replicas.',
    target: { key: 'Tables', resourceType: 'aws:dynamodb:global-table' },
    durationParameter: 'duration',
    parameters: { duration: duration(UNRANGED) },
  },
  {
    id: 'aws:dsql:cluster-connection-failure',
    doc: ref('cluster-connection-failure'),
    description: 'Makes a share of connections to an Aurora DSQL cluster fail.',
    target: { key: 'Clusters', resourceType: 'aws:dsql:cluster' },
    durationParameter: 'duration',
    parameters: {
      duration: duration(),
      percentage: req('The percentage of calls to inject the fault into (1–100).', int(1, 100)),
    },
  },
  {
    id: 'aws:ebs:pause-volume-io',
    doc: ref('pause-volume-io'),
    description: 'Pauses I/O on the target EBS volumes.',
    target: { key: 'Volumes', resourceType: 'aws:ec2:ebs-volume' },
    durationParameter: 'duration',
    parameters: { duration: duration(span(SECOND), 'How long I/O is paused, one second to 12 hours') },
  },
  {
    id: 'aws:ebs:volume-io-latency',
    doc: ref('volume-latency-injection'),
    description: 'Adds latency to I/O on the target EBS volumes.',
    target: { key: 'Volumes', resourceType: 'aws:ec2:ebs-volume' },
    durationParameter: 'duration',
    parameters: {
      readIOPercentage: opt(
        'Share of read I/O delayed, 0.1–100.',
        { kind: 'number', min: 0.1, max: 100 },
        '100',
      ),
      readIOLatencyMilliseconds: opt(
        'Latency added to read I/O in ms, 1 (io2) or 10 (other types) to 60000.',
        int(1, 60_000),
        '100',
      ),
      writeIOPercentage: opt(
        'Share of write I/O delayed, 0.1–100.',
        { kind: 'number', min: 0.1, max: 100 },
        '100',
      ),
      writeIOLatencyMilliseconds: opt(
        'Latency added to write I/O in ms, 1 (io2) or 10 (other types) to 60000.',
        int(1, 60_000),
        '100',
      ),
      duration: duration(span(SECOND), 'How long latency is injected, one second to 12 hours'),
    },
  },
  {
    id: 'aws:ec2:api-insufficient-instance-capacity-error',
    doc: ref('api-ice'),
    description: 'Answers InsufficientInstanceCapacity to launch requests made by the target IAM roles.',
    target: { key: 'Roles', resourceType: 'aws:iam:role' },
    targeting: 'arns',
    durationParameter: 'duration',
    parameters: {
      duration: duration(UNRANGED),
      availabilityZoneIdentifiers: AZ_LIST,
      percentage: req('The percentage of calls to inject the fault into (1–100).', int(1, 100)),
    },
  },
  {
    id: 'aws:ec2:asg-insufficient-instance-capacity-error',
    doc: ref('asg-ice'),
    description: 'Answers InsufficientInstanceCapacity to launches of the target Auto Scaling groups.',
    target: { key: 'AutoScalingGroups', resourceType: 'aws:ec2:autoscaling-group' },
    durationParameter: 'duration',
    parameters: {
      duration: duration(UNRANGED),
      availabilityZoneIdentifiers: AZ_LIST,
      percentage: opt("The percentage of the groups' launch requests to fail (1–100).", int(1, 100), '100'),
    },
  },
  {
    id: 'aws:ec2:reboot-instances',
    doc: ref('reboot-instances'),
    description: 'Reboots the target EC2 instances (RebootInstances).',
    target: { key: 'Instances', resourceType: 'aws:ec2:instance' },
    parameters: {},
  },
  {
    id: 'aws:ec2:send-spot-instance-interruptions',
    doc: ref('send-spot-instance-interruptions'),
    description: 'Sends the target Spot Instances an interruption notice, then interrupts them.',
    target: { key: 'SpotInstances', resourceType: 'aws:ec2:spot-instance' },
    durationParameter: 'durationBeforeInterruption',
    parameters: {
      durationBeforeInterruption: opt(
        'Time before the interruption, two to 15 minutes.',
        span(2 * MINUTE, 15 * MINUTE),
      ),
    },
  },
  {
    id: 'aws:ec2:stop-instances',
    doc: ref('stop-instances'),
    description: 'Stops the target EC2 instances and starts them again after the duration.',
    target: { key: 'Instances', resourceType: 'aws:ec2:instance' },
    durationParameter: 'startInstancesAfterDuration',
    parameters: {
      startInstancesAfterDuration: opt(
        'Time before the instances start again, one minute to 12 hours.',
        ONE_MINUTE_TO_12H,
      ),
      completeIfInstancesTerminated: opt(
        'Complete even when the instances were terminated meanwhile.',
        BOOLEAN,
        'false',
      ),
    },
  },
  {
    id: 'aws:ec2:terminate-instances',
    doc: ref('terminate-instances'),
    description: 'Terminates the target EC2 instances (TerminateInstances).',
    target: { key: 'Instances', resourceType: 'aws:ec2:instance' },
    parameters: {},
  },
  {
    id: 'aws:ecs:drain-container-instances',
    doc: ref('drain-container-instances'),
    description: 'Drains a share of the container instances of the target ECS clusters.',
    target: { key: 'Clusters', resourceType: 'aws:ecs:cluster' },
    durationParameter: 'duration',
    parameters: {
      drainagePercentage: req('The percentage of instances to drain (1–100).', int(1, 100)),
      duration: duration(),
    },
  },
  {
    id: 'aws:ecs:stop-task',
    doc: ref('stop-task'),
    description: 'Stops the target ECS tasks (StopTask).',
    target: TASKS,
    parameters: {},
  },
  {
    id: 'aws:ecs:task-cpu-stress',
    doc: ref('task-cpu-stress'),
    description: 'Runs CPU stress on the target ECS tasks (AWSFIS-Run-CPU-Stress).',
    target: TASKS,
    durationParameter: 'duration',
    parameters: {
      duration: STRESS_DURATION,
      percent: opt('The target load, 0 (none) to 100 (full).', int(0, 100), '100'),
      workers: opt('The number of stressors (0: all).', int(0), '0'),
      installDependencies: INSTALL,
    },
  },
  {
    id: 'aws:ecs:task-io-stress',
    doc: ref('task-io-stress'),
    description: 'Runs I/O stress on the target ECS tasks (AWSFIS-Run-IO-Stress).',
    target: TASKS,
    durationParameter: 'duration',
    parameters: {
      duration: STRESS_DURATION,
      percent: opt('The share of free file-system space to use.', int(0, 100), '80'),
      workers: opt('The number of workers.', int(0), '1'),
      installDependencies: INSTALL,
    },
  },
  {
    id: 'aws:ecs:task-kill-process',
    doc: ref('task-kill-process'),
    description: 'Kills a process in the target ECS tasks with killall (AWSFIS-Run-Kill-Process).',
    target: TASKS,
    parameters: {
      processName: req('The name of the process to stop.'),
      signal: opt('The signal to send.', { kind: 'enum', values: ['SIGTERM', 'SIGKILL'] }, 'SIGTERM'),
      installDependencies: INSTALL,
    },
  },
  {
    id: 'aws:ecs:task-network-blackhole-port',
    doc: ref('task-network-blackhole-port'),
    description: 'Drops inbound or outbound traffic on a protocol and port of the target ECS tasks.',
    target: TASKS,
    durationParameter: 'duration',
    parameters: {
      duration: TEST_DURATION,
      port: PORT,
      trafficType: TRAFFIC,
      protocol: opt('The protocol.', { kind: 'enum', values: ['tcp', 'udp'] }, 'tcp'),
      installDependencies: INSTALL,
      useEcsFaultInjectionEndpoints: USE_ECS_ENDPOINTS,
    },
  },
  {
    id: 'aws:ecs:task-network-latency',
    doc: ref('task-network-latency'),
    description: 'Adds latency and jitter to egress traffic of the target ECS tasks.',
    target: TASKS,
    durationParameter: 'duration',
    parameters: {
      duration: TEST_DURATION,
      delayMilliseconds: opt('The delay in ms.', int(0), '200'),
      jitterMilliseconds: opt('The jitter in ms.', int(0), '10'),
      flowsPercent: FLOWS,
      sources: POD_SOURCES,
      installDependencies: INSTALL,
      useEcsFaultInjectionEndpoints: USE_ECS_ENDPOINTS,
    },
  },
  {
    id: 'aws:ecs:task-network-packet-loss',
    doc: ref('task-network-packet-loss'),
    description: 'Drops a share of the egress packets of the target ECS tasks.',
    target: TASKS,
    durationParameter: 'duration',
    parameters: {
      duration: TEST_DURATION,
      lossPercent: opt('The percentage of packets lost.', int(0, 100), '7'),
      flowsPercent: FLOWS,
      sources: POD_SOURCES,
      installDependencies: INSTALL,
      useEcsFaultInjectionEndpoints: USE_ECS_ENDPOINTS,
    },
  },
  {
    id: 'aws:eks:inject-kubernetes-custom-resource',
    doc: ref('inject-kubernetes-custom-resource'),
    description: 'Applies a Chaos Mesh or Litmus custom resource to one target EKS cluster.',
    target: { key: 'Cluster', resourceType: 'aws:eks:cluster' },
    targeting: 'arns',
    durationParameter: 'maxDuration',
    parameters: {
      kubernetesApiVersion: req('The custom resource apiVersion.', {
        kind: 'enum',
        values: ['chaos-mesh.org/v1alpha1', 'litmuschaos.io/v1alpha1'],
      }),
      kubernetesKind: req('The custom resource kind (e.g. PodChaos, NetworkChaos, ChaosEngine).'),
      kubernetesNamespace: req('The namespace the custom resource is created in.'),
      kubernetesSpec: req('The spec of the custom resource, as minified JSON.', JSON_RULE),
      maxDuration: duration(ONE_MINUTE_TO_12H, 'The longest the custom resource may run'),
    },
  },
  {
    id: 'aws:eks:pod-cpu-stress',
    doc: ref('pod-cpu-stress'),
    description: 'Runs CPU stress on the target pods.',
    target: PODS,
    durationParameter: 'duration',
    parameters: {
      duration: STRESS_DURATION,
      percent: opt('The target load, 0 (none) to 100 (full).', int(0, 100), '100'),
      workers: opt('The number of stressors (0: all).', int(0), '0'),
      ...POD_COMMON,
      fisPodSecurityPolicy: POD_SECURITY_ALL,
    },
  },
  {
    id: 'aws:eks:pod-delete',
    doc: ref('pod-delete'),
    description: 'Deletes the target pods.',
    target: PODS,
    parameters: {
      gracePeriodSeconds: opt(
        'Seconds to wait for a graceful end (0: at once; unset: the pod default).',
        int(0),
      ),
      ...POD_COMMON,
      fisPodSecurityPolicy: POD_SECURITY_ALL,
    },
  },
  {
    id: 'aws:eks:pod-io-stress',
    doc: ref('pod-io-stress'),
    description: 'Runs I/O stress on the target pods.',
    target: PODS,
    durationParameter: 'duration',
    parameters: {
      duration: STRESS_DURATION,
      workers: opt('The number of workers.', int(0), '1'),
      percent: opt('The share of free file-system space to use.', int(0, 100), '80'),
      ...POD_COMMON,
      fisPodSecurityPolicy: opt('The Pod Security Standards policy of the FIS pod.', {
        kind: 'enum',
        values: ['privileged', 'baseline'],
      }),
    },
  },
  {
    id: 'aws:eks:pod-memory-stress',
    doc: ref('pod-memory-stress'),
    description: 'Runs memory stress on the target pods.',
    target: PODS,
    durationParameter: 'duration',
    parameters: {
      duration: STRESS_DURATION,
      workers: opt('The number of stressors.', int(0), '1'),
      percent: opt('The share of virtual memory to use.', int(0, 100), '80'),
      ...POD_COMMON,
      fisPodSecurityPolicy: POD_SECURITY_ALL,
    },
  },
  {
    id: 'aws:eks:pod-network-blackhole-port',
    doc: ref('pod-network-blackhole-port'),
    description: 'Drops inbound or outbound traffic on a protocol and port of the target pods.',
    target: PODS,
    durationParameter: 'duration',
    parameters: {
      duration: TEST_DURATION,
      protocol: req('The protocol: tcp or udp.', { kind: 'enum', values: ['tcp', 'udp'] }),
      trafficType: TRAFFIC,
      port: PORT,
      ...POD_COMMON,
    },
  },
  {
    id: 'aws:eks:pod-network-latency',
    doc: ref('pod-network-latency'),
    description: 'Adds latency and jitter to the network interface of the target pods (tc).',
    target: PODS,
    durationParameter: 'duration',
    parameters: {
      duration: TEST_DURATION,
      interface: POD_INTERFACE,
      delayMilliseconds: opt('The delay in ms.', int(0), '200'),
      jitterMilliseconds: opt('The jitter in ms.', int(0), '10'),
      flowsPercent: FLOWS,
      sources: POD_SOURCES,
      ...POD_COMMON,
    },
  },
  {
    id: 'aws:eks:pod-network-packet-loss',
    doc: ref('pod-network-packet-loss'),
    description: 'Drops a share of the packets of the target pods (tc).',
    target: PODS,
    durationParameter: 'duration',
    parameters: {
      duration: TEST_DURATION,
      interface: POD_INTERFACE,
      lossPercent: opt('The percentage of packets lost.', int(0, 100), '7'),
      flowsPercent: FLOWS,
      sources: POD_SOURCES,
      ...POD_COMMON,
    },
  },
  {
    id: 'aws:eks:terminate-nodegroup-instances',
    doc: ref('terminate-nodegroup-instance'),
    description: 'Terminates a share of the instances of the target EKS managed node groups.',
    target: { key: 'Nodegroups', resourceType: 'aws:eks:nodegroup' },
    parameters: {
      instanceTerminationPercentage: req('The percentage of instances to terminate (1–100).', int(1, 100)),
    },
  },
  {
    id: 'aws:elasticache:replicationgroup-interrupt-az-power',
    doc: ref('replicationgroup-interrupt-az-power'),
    description: 'Interrupts power to the nodes of the target Multi-AZ replication groups in one AZ.',
    target: { key: 'ReplicationGroups', resourceType: 'aws:elasticache:replicationgroup' },
    durationParameter: 'duration',
    parameters: { duration: duration() },
  },
  {
    id: 'aws:elasticache:interrupt-cluster-az-power',
    doc: LIST_ACTIONS,
    description:
      'The earlier id of replicationgroup-interrupt-az-power, still listed by list-actions and Service Quotas (L-B0012750).',
    target: { key: 'ReplicationGroups', resourceType: 'aws:elasticache:redis-replicationgroup' },
    durationParameter: 'duration',
    parameters: { duration: duration() },
  },
  {
    id: 'aws:kinesis:stream-provisioned-throughput-exception',
    doc: ref('throughput-exception'),
    description: 'Answers ProvisionedThroughputExceededException to calls on the target streams.',
    target: { key: 'KinesisStreams', resourceType: 'aws:kinesis:stream' },
    durationParameter: 'duration',
    parameters: {
      duration: duration(),
      percentage: req('The percentage of calls to inject the fault into (1–100).', int(1, 100)),
    },
  },
  {
    id: 'aws:kinesis:stream-expired-iterator-exception',
    doc: ref('iterator-exception'),
    description: 'Answers ExpiredIteratorException to GetRecords calls on the target streams.',
    target: { key: 'KinesisStreams', resourceType: 'aws:kinesis:stream' },
    durationParameter: 'duration',
    parameters: {
      duration: duration(),
      percentage: req('The percentage of calls to inject the fault into (1–100).', int(1, 100)),
    },
  },
  {
    id: 'aws:lambda:invocation-add-delay',
    doc: ref('invocation-add-delay'),
    description: 'Delays the start of the target functions’ invocations.',
    target: LAMBDA,
    durationParameter: 'duration',
    parameters: {
      duration: LAMBDA_DURATION,
      invocationPercentage: INVOCATIONS,
      startupDelayMilliseconds: opt(
        'The delay before the function code runs, 0–900000 ms.',
        int(0, 900_000),
        '1000',
      ),
    },
  },
  {
    id: 'aws:lambda:invocation-error',
    doc: ref('invocation-error'),
    description: 'Marks invocations of the target functions as failed.',
    target: LAMBDA,
    durationParameter: 'duration',
    parameters: {
      duration: LAMBDA_DURATION,
      invocationPercentage: INVOCATIONS,
      preventExecution: PREVENT_EXECUTION,
    },
  },
  {
    id: 'aws:lambda:invocation-http-integration-response',
    doc: ref('invocation-http-integration-response'),
    description: 'Answers invocations of the target functions with a chosen HTTP status and content type.',
    target: LAMBDA,
    durationParameter: 'duration',
    parameters: {
      contentTypeHeader: req('The HTTP content type header to return.'),
      duration: LAMBDA_DURATION,
      invocationPercentage: INVOCATIONS,
      preventExecution: PREVENT_EXECUTION,
      statusCode: req('The HTTP status code to return (000–999).', int(0, 999)),
    },
  },
  {
    id: 'aws:memorydb:multi-region-cluster-pause-replication',
    doc: ref('multi-region-cluster-pause-replication'),
    description:
      'Pauses replication between the regional cluster and the rest of a MemoryDB multi-Region cluster.',
    target: { key: 'MultiRegionClusters', resourceType: 'aws:memorydb:multi-region-cluster' },
    durationParameter: 'duration',
    parameters: { duration: duration() },
  },
  {
    id: 'aws:network:disrupt-connectivity',
    doc: ref('disrupt-connectivity'),
    description: 'Denies traffic to or from the target subnets (a cloned network ACL).',
    target: { key: 'Subnets', resourceType: 'aws:ec2:subnet' },
    durationParameter: 'duration',
    parameters: {
      scope: opt(
        'The traffic to deny.',
        {
          kind: 'enum',
          values: ['all', 'availability-zone', 'dynamodb', 'prefix-list', 's3', 's3express', 'vpc'],
        },
        'all',
      ),
      duration: duration(),
      prefixListIdentifier: opt(
        'The customer managed prefix list (name, ID or ARN) when scope is prefix-list.',
      ),
    },
  },
  {
    id: 'aws:network:route-table-disrupt-cross-region-connectivity',
    doc: ref('route-table-disrupt-cross-region-connectivity'),
    description: 'Blocks traffic from the target subnets to a Region (route tables).',
    target: { key: 'Subnets', resourceType: 'aws:ec2:subnet' },
    durationParameter: 'duration',
    parameters: { region: REGION, duration: duration(UNRANGED) },
  },
  {
    id: 'aws:network:transit-gateway-disrupt-cross-region-connectivity',
    doc: ref('transit-gateway-disrupt-cross-region-connectivity'),
    description: 'Blocks traffic from the target transit gateway peering attachments to a Region.',
    target: { key: 'TransitGateways', resourceType: 'aws:ec2:transit-gateway' },
    durationParameter: 'duration',
    parameters: { region: REGION, duration: duration(UNRANGED) },
  },
  {
    id: 'aws:network:disrupt-vpc-endpoint',
    doc: ref('disrupt-vpc-endpoint'),
    description: 'Blocks traffic of the target interface VPC endpoints (an empty security group).',
    target: { key: 'VPCEndpoints', resourceType: 'aws:ec2:vpc-endpoint' },
    durationParameter: 'duration',
    parameters: { duration: duration(UNRANGED) },
  },
  {
    id: 'aws:rds:failover-db-cluster',
    doc: ref('failover-db-cluster'),
    description: 'Fails the target Aurora (or DocumentDB) clusters over (FailoverDBCluster).',
    target: { key: 'Clusters', resourceType: 'aws:rds:cluster' },
    parameters: {},
  },
  {
    id: 'aws:rds:reboot-db-instances',
    doc: ref('reboot-db-instances'),
    description: 'Reboots the target DB instances (RebootDBInstance).',
    target: { key: 'DBInstances', resourceType: 'aws:rds:db' },
    parameters: {
      forceFailover: opt('Fail Multi-AZ instances over to another Availability Zone.', BOOLEAN, 'false'),
    },
  },
  {
    id: 'aws:s3:bucket-pause-replication',
    doc: ref('bucket-pause-replication'),
    description: 'Pauses replication from the target source buckets.',
    target: { key: 'Buckets', resourceType: 'aws:s3:bucket' },
    targeting: 'tags',
    durationParameter: 'duration',
    parameters: {
      duration: duration(),
      region: req('The Region of the destination buckets.'),
      destinationBuckets: opt('Destination buckets, comma-separated.'),
      prefixes: opt('Object key prefixes of the replication rules to pause, comma-separated.'),
    },
  },
  {
    id: 'aws:ssm:send-command',
    doc: ref('ssm-send-command'),
    description: 'Runs an SSM document on the target EC2 instances (SendCommand).',
    target: { key: 'Instances', resourceType: 'aws:ec2:instance' },
    durationParameter: 'duration',
    parameters: {
      documentArn: req('The ARN of the SSM document.'),
      documentVersion: opt('The document version (default: the default version).'),
      documentParameters: opt('The parameters of the document, as a minified JSON object.', JSON_RULE),
      duration: duration(),
    },
  },
  {
    id: 'aws:ssm:start-automation-execution',
    doc: ref('ssm-start-automation-execution'),
    description: 'Starts an SSM Automation runbook (StartAutomationExecution).',
    durationParameter: 'maxDuration',
    parameters: {
      documentArn: req('The ARN of the automation document.'),
      documentVersion: opt('The document version (default: the default version).'),
      documentParameters: opt('The parameters of the document, as a minified JSON object.', JSON_RULE),
      maxDuration: duration(ONE_MINUTE_TO_12H, 'The longest the automation may run'),
    },
  },
  {
    id: 'aws:directconnect:virtual-interface-disconnect',
    doc: ref('directconnect-virtual-interface-disconnect'),
    description: 'Takes the BGP sessions of the target Direct Connect virtual interfaces down.',
    target: { key: 'VirtualInterfaces', resourceType: 'aws:directconnect:virtual-interface' },
    durationParameter: 'duration',
    parameters: { duration: duration(span(10 * MINUTE), 'How long, ten minutes to 12 hours') },
  },
];

/** The reference by action id. */
export const FIS_REFERENCE_BY_ID: ReadonlyMap<string, ReferenceAction> = new Map(
  FIS_REFERENCE.map((a) => [a.id, a]),
);

/** The resource types the reference's actions target. */
export const REFERENCE_RESOURCE_TYPES: readonly string[] = [
  ...new Set(FIS_REFERENCE.flatMap((a) => (a.target ? [a.target.resourceType] : []))),
].sort();

/** An ISO-8601 duration as FIS takes them (`PT1M`, `PT90S`, `PT1H30M`, `P1D`) in ms; undefined if not one. */
export function isoDurationMs(text: string): number | undefined {
  const m =
    /^P(?:(\d+(?:\.\d+)?)D)?(?:T(?:(\d+(?:\.\d+)?)H)?(?:(\d+(?:\.\d+)?)M)?(?:(\d+(?:\.\d+)?)S)?)?$/.exec(
      text,
    );
  if (!m || text === 'P' || text.endsWith('T')) return undefined;
  const [, d, h, min, s] = m;
  return Math.round(
    Number(d ?? 0) * 86_400_000 +
      Number(h ?? 0) * 3_600_000 +
      Number(min ?? 0) * 60_000 +
      Number(s ?? 0) * 1000,
  );
}

/** A span in ms written as FIS writes durations: PT1S, PT2M, PT12H. */
export function isoOf(ms: number): string {
  if (ms % 3_600_000 === 0) return `PT${ms / 3_600_000}H`;
  if (ms % 60_000 === 0) return `PT${ms / 60_000}M`;
  return `PT${ms / 1000}S`;
}
