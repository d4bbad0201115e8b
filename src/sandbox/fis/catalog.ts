/**
 * The FIS actions the sandbox runs: every action of the FIS actions reference (the data in
 * `src/fis-reference/actions.ts`, the same table the plan checks against), with the target key each one
 * takes, the parameter that sets its duration and the documented limits of every parameter, enforced on
 * CreateExperimentTemplate and UpdateExperimentTemplate as FIS enforces them (a `PT15S` partition is a
 * ValidationException). An action id outside the reference is a validation error, as with FIS.
 *
 * What the sandbox adds is the effect: what running the action does to the canary (src/sandbox/faults.ts).
 */
import {
  isoDurationMs,
  FIS_MAX_ACTION_MS,
  FIS_MIN_ACTION_MS,
  FIS_REFERENCE,
  isoOf,
  type ParameterRule,
  type ReferenceAction,
  type ReferenceParameter,
} from '../../fis-reference/actions.js';

export type { ParameterRule };

/**
 * What running an action does to the sandbox, independent of the targets:
 * - `partition`: traffic to the targets is cut (the dependency unreachable, or the canary's own share down);
 * - `stop-compute`: compute stopped, rebooted or replaced: an error burst while replacements come up;
 * - `failover`: a database or cache fails over: an error burst on the dependency's callers;
 * - `cpu-stress`: the targets answer slower;
 * - `latency`: added network, start-up or I/O latency (the action's own parameter says how much);
 * - `packet-loss`: lost packets are retransmitted: added latency on the lost share;
 * - `errors`: a share of calls fail outright (the action's own percentage);
 * - `io-pause`: I/O on the targets hangs: requests that touch them fail after the timeout;
 * - `custom-resource`: a Chaos Mesh or Litmus resource does what its kind says;
 * - `control-plane`: the action changes what the control plane or replication does, which the canary's
 *   request path does not see (capacity errors on launches, paused replication, a zonal shift);
 * - `wait`, `assert-alarm`: no fault at all.
 */
export type ActionEffect =
  | 'partition'
  | 'stop-compute'
  | 'failover'
  | 'cpu-stress'
  | 'latency'
  | 'packet-loss'
  | 'errors'
  | 'io-pause'
  | 'custom-resource'
  | 'control-plane'
  | 'wait'
  | 'assert-alarm';

/** One parameter of an action. */
export type CatalogParameter = ReferenceParameter;

/** One action of the catalog: the reference's facts and the sandbox's effect. */
export interface CatalogAction extends ReferenceAction {
  effect: ActionEffect;
}

/** Shortest duration most parameters take: one minute ("from one minute to 12 hours"). */
export const MIN_ACTION_DURATION_MS = FIS_MIN_ACTION_MS;
/** Longest action FIS allows (Service Quotas L-A7622DAA): 12 hours. */
export const MAX_ACTION_DURATION_MS = FIS_MAX_ACTION_MS;

/** What each action of the reference does to the canary. */
export const ACTION_EFFECTS: Readonly<Record<string, ActionEffect>> = {
  'aws:fis:inject-api-internal-error': 'errors',
  'aws:fis:inject-api-throttle-error': 'errors',
  'aws:fis:inject-api-unavailable-error': 'errors',
  'aws:arc:start-zonal-autoshift': 'control-plane',
  'aws:fis:wait': 'wait',
  'aws:cloudwatch:assert-alarm-state': 'assert-alarm',
  'aws:dynamodb:global-table-pause-replication': 'control-plane',
  'aws:dsql:cluster-connection-failure': 'errors',
  'aws:ebs:pause-volume-io': 'io-pause',
  'aws:ebs:volume-io-latency': 'latency',
  'aws:ec2:api-insufficient-instance-capacity-error': 'control-plane',
  'aws:ec2:asg-insufficient-instance-capacity-error': 'control-plane',
  'aws:ec2:reboot-instances': 'stop-compute',
  'aws:ec2:send-spot-instance-interruptions': 'stop-compute',
  'aws:ec2:stop-instances': 'stop-compute',
  'aws:ec2:terminate-instances': 'stop-compute',
  'aws:ecs:drain-container-instances': 'stop-compute',
  'aws:ecs:stop-task': 'stop-compute',
  'aws:ecs:task-cpu-stress': 'cpu-stress',
  'aws:ecs:task-io-stress': 'cpu-stress',
  'aws:ecs:task-kill-process': 'stop-compute',
  'aws:ecs:task-network-blackhole-port': 'partition',
  'aws:ecs:task-network-latency': 'latency',
  'aws:ecs:task-network-packet-loss': 'packet-loss',
  'aws:eks:inject-kubernetes-custom-resource': 'custom-resource',
  'aws:eks:pod-cpu-stress': 'cpu-stress',
  'aws:eks:pod-delete': 'stop-compute',
  'aws:eks:pod-io-stress': 'cpu-stress',
  'aws:eks:pod-memory-stress': 'cpu-stress',
  'aws:eks:pod-network-blackhole-port': 'partition',
  'aws:eks:pod-network-latency': 'latency',
  'aws:eks:pod-network-packet-loss': 'packet-loss',
  'aws:eks:terminate-nodegroup-instances': 'stop-compute',
  'aws:elasticache:replicationgroup-interrupt-az-power': 'failover',
  'aws:elasticache:interrupt-cluster-az-power': 'failover',
  'aws:kinesis:stream-provisioned-throughput-exception': 'errors',
  'aws:kinesis:stream-expired-iterator-exception': 'errors',
  'aws:lambda:invocation-add-delay': 'latency',
  'aws:lambda:invocation-error': 'errors',
  'aws:lambda:invocation-http-integration-response': 'errors',
  'aws:memorydb:multi-region-cluster-pause-replication': 'control-plane',
  'aws:network:disrupt-connectivity': 'partition',
  'aws:network:route-table-disrupt-cross-region-connectivity': 'partition',
  'aws:network:transit-gateway-disrupt-cross-region-connectivity': 'partition',
  'aws:network:disrupt-vpc-endpoint': 'partition',
  'aws:rds:failover-db-cluster': 'failover',
  'aws:rds:reboot-db-instances': 'failover',
  'aws:s3:bucket-pause-replication': 'control-plane',
  'aws:ssm:send-command': 'cpu-stress',
  'aws:ssm:start-automation-execution': 'control-plane',
  'aws:directconnect:virtual-interface-disconnect': 'partition',
};

/** The supported actions, keyed by action id: every action of the reference, with its effect. */
export const ACTION_CATALOG: ReadonlyMap<string, CatalogAction> = new Map(
  FIS_REFERENCE.map((a) => {
    const effect = ACTION_EFFECTS[a.id];
    if (!effect) throw new Error(`sandbox: no effect for the FIS action ${a.id}`);
    return [a.id, { ...a, effect }];
  }),
);

/** FIS's ISO-8601 durations, read as the plan checks read them: the reference's one parser. */
export const parseIsoDuration: (text: string) => number | undefined = isoDurationMs;

/**
 * Why a parameter value breaks its rule, in FIS's words ("must be …"); undefined when it is fine.
 */
export function parameterProblem(rule: ParameterRule, value: string): string | undefined {
  switch (rule.kind) {
    case 'duration': {
      const ms = parseIsoDuration(value);
      if (ms === undefined || ms < rule.minMs || ms > rule.maxMs)
        return `must be an ISO 8601 duration between ${isoOf(rule.minMs)} and ${isoOf(rule.maxMs)}`;
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
    case 'number': {
      const n = Number(value);
      if (!/^\d+(?:\.\d+)?$/.test(value) || n < rule.min || n > rule.max)
        return `must be a number between ${rule.min} and ${rule.max}`;
      return undefined;
    }
    case 'enum': {
      const items = rule.list ? value.split(',') : [value];
      if (items.every((v) => rule.values.includes(v))) return undefined;
      return `must be ${rule.list ? 'a comma-separated list of' : 'one of'} ${rule.values.join(', ')}`;
    }
    case 'boolean': {
      const v = rule.ignoreCase ? value.toLowerCase() : value;
      return v === 'true' || v === 'false' ? undefined : 'must be true or false';
    }
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
