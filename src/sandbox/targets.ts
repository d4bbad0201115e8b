import { REFERENCE_RESOURCE_TYPES } from '../fis-reference/actions.js';

/**
 * The sandbox's pretend AWS account: the resources FIS can target, with ARNs and tags. Each resource
 * says what hitting it does to the canary service (`role`), so an FIS action on a tagged target turns
 * into a fault the canary's metrics show.
 */

/** What a resource is to the canary: its own compute, the dependency it calls, or unrelated. */
export type ResourceRole = 'app' | 'dependency' | 'none';

/** One targetable resource in the sandbox account. */
export interface SandboxResource {
  arn: string;
  /** FIS target resource type, e.g. `aws:ec2:instance`. */
  resourceType: string;
  tags: Record<string, string>;
  /** Attributes FIS target `filters` match on (`path` → value), e.g. `State.Name`. */
  attributes: Record<string, string>;
  /** For EKS pods: what the FIS target `parameters` select on. */
  pod?: {
    clusterIdentifier: string;
    namespace: string;
    labels: Record<string, string>;
    deploymentName: string;
    podName: string;
  };
  role: ResourceRole;
  /** The owning account when the ARN does not name one (S3 buckets: `arn:aws:s3:::name`). */
  accountId?: string;
  /** Resources of one service; a fault's share of capacity is counted within the group. */
  group: string;
}

/** Account and Region of the sandbox unless the config says otherwise. */
export const DEFAULT_ACCOUNT_ID = '123456789012';
export const DEFAULT_REGION = 'us-east-1';

/** The resource types FIS documents (UG-targets); a template may name them even where the sandbox owns none. */
export const KNOWN_RESOURCE_TYPES: ReadonlySet<string> = new Set([
  'aws:ec2:instance',
  'aws:ec2:subnet',
  'aws:ecs:task',
  'aws:ecs:cluster',
  'aws:eks:pod',
  'aws:eks:cluster',
  'aws:eks:nodegroup',
  'aws:ec2:spot-instance',
  'aws:ec2:autoscaling-group',
  'aws:ec2:ebs-volume',
  'aws:ec2:transit-gateway',
  'aws:rds:cluster',
  'aws:rds:db',
  'aws:elasticache:replicationgroup',
  'aws:elasticache:redis-replicationgroup',
  'aws:dynamodb:global-table',
  'aws:kinesis:stream',
  'aws:lambda:function',
  'aws:s3:bucket',
  'aws:iam:role',
  'aws:network-firewall:firewall',
  // Every resource type an action of the FIS actions reference targets.
  ...REFERENCE_RESOURCE_TYPES,
]);

/** Builds the sandbox inventory for an account and Region. */
export function sandboxInventory(accountId = DEFAULT_ACCOUNT_ID, region = DEFAULT_REGION): SandboxResource[] {
  const ec2 = (id: string) => `arn:aws:ec2:${region}:${accountId}:instance/${id}`;
  const subnet = (id: string) => `arn:aws:ec2:${region}:${accountId}:subnet/${id}`;
  const task = (cluster: string, id: string) => `arn:aws:ecs:${region}:${accountId}:task/${cluster}/${id}`;
  const pod = (cluster: string, ns: string, name: string) =>
    `arn:aws:eks:${region}:${accountId}:pod/${cluster}/${ns}/${name}`;
  const staging = { Environment: 'staging-chaos', Service: 'canary' };
  const running = { 'State.Name': 'running' };
  const az = (zone: string) => ({ 'Placement.AvailabilityZone': `${region}${zone}` });

  return [
    // The canary's own compute: three instances behind the service.
    ...['a', 'b', 'c'].map((zone, i) => ({
      arn: ec2(`i-0ca0a${i}00000000001`),
      resourceType: 'aws:ec2:instance',
      tags: { ...staging, Name: `canary-app-0${i + 1}`, Role: 'app' },
      attributes: { ...running, ...az(zone) },
      role: 'app' as const,
      group: 'canary',
    })),
    // The search API of fixtures/plans/ec2-cpu-stress-ssm.yaml; the canary answers for it too.
    ...['a', 'b', 'c', 'a'].map((zone, i) => ({
      arn: ec2(`i-05ea4c${i}0000000001`),
      resourceType: 'aws:ec2:instance',
      tags: {
        Environment: 'staging-chaos',
        Service: 'search-api',
        Role: 'search-api',
        Name: `search-api-0${i + 1}`,
      },
      attributes: { 'State.Name': i === 3 ? 'stopped' : 'running', ...az(zone) } as Record<string, string>,
      role: 'app' as const,
      group: 'search-api',
    })),
    // The dependency the canary calls (the Redis node of the seed plan).
    {
      arn: ec2('i-0ed15a0000000000a'),
      resourceType: 'aws:ec2:instance',
      tags: {
        Environment: 'staging-chaos',
        Service: 'redis',
        Name: 'redis-pay-primary-01',
        Role: 'redis-primary',
        'chaos-target': 'redis-pay-primary-01',
      },
      attributes: { ...running, ...az('a') },
      role: 'dependency',
      group: 'redis',
    },
    // Production look-alikes: tagged so that a refusal test has something forbidden to resolve.
    {
      arn: ec2('i-0bad0000000000001'),
      resourceType: 'aws:ec2:instance',
      tags: {
        Environment: 'production',
        Service: 'redis',
        Name: 'redis-pay-primary-prod',
        Role: 'redis-primary',
      },
      attributes: { ...running, ...az('a') },
      role: 'none',
      group: 'production',
    },
    {
      arn: subnet('subnet-0app0000000000001'),
      resourceType: 'aws:ec2:subnet',
      tags: { ...staging, Name: 'canary-app-a', Tier: 'app' },
      attributes: { ...az('a'), VpcId: 'vpc-0stage0resilience1' },
      role: 'app',
      group: 'canary',
    },
    {
      arn: subnet('subnet-0ed15000000000001'),
      resourceType: 'aws:ec2:subnet',
      tags: {
        Environment: 'staging-chaos',
        Service: 'redis',
        Name: 'redis-pay-primary-01',
        Tier: 'data',
        'chaos-target': 'redis-pay-primary-01',
      },
      attributes: { ...az('a'), VpcId: 'vpc-0stage0resilience1' },
      role: 'dependency',
      group: 'redis',
    },
    {
      arn: subnet('subnet-0bad0000000000001'),
      resourceType: 'aws:ec2:subnet',
      tags: { Environment: 'production', Service: 'redis', Name: 'redis-pay-primary-prod', Tier: 'data' },
      attributes: { ...az('a'), VpcId: 'vpc-0prod00000000001' },
      role: 'none',
      group: 'production',
    },
    ...[1, 2, 3, 4].map((n) => ({
      arn: task('canary-cluster', `0c0a0000000000000000000000000${n}`),
      resourceType: 'aws:ecs:task',
      tags: { ...staging, Name: `canary-task-${n}` },
      attributes: { ...running, cluster: 'canary-cluster', service: 'canary' },
      role: 'app' as const,
      group: 'canary',
    })),
    // The orders API of fixtures/plans/ecs-stop-task.yaml.
    ...[1, 2, 3, 4, 5, 6, 7, 8].map((n) => ({
      arn: task('orders-staging', `0rde7500000000000000000000000${n}`),
      resourceType: 'aws:ecs:task',
      tags: { Environment: 'staging-chaos', Service: 'orders-api' },
      attributes: { ...running, cluster: 'orders-staging', service: 'orders-api' },
      role: 'app' as const,
      group: 'orders-api',
    })),
    ...[1, 2, 3, 4, 5].map((n) => ({
      arn: pod('canary-eks', 'canary', `canary-7d9f8b6c5-${'abcde'[n - 1]}x${n}`),
      resourceType: 'aws:eks:pod',
      tags: { ...staging },
      attributes: { namespace: 'canary' },
      pod: {
        clusterIdentifier: 'canary-eks',
        namespace: 'canary',
        labels: { app: 'canary', tier: 'web' },
        deploymentName: 'canary',
        podName: `canary-7d9f8b6c5-${'abcde'[n - 1]}x${n}`,
      },
      role: 'app' as const,
      group: 'canary',
    })),
    // The EKS clusters the pods run in: the target of aws:eks:inject-kubernetes-custom-resource, which
    // hands a Chaos Mesh or Litmus resource to the chaos tool in the cluster.
    ...(['canary-eks', 'staging'] as const).map((name) => ({
      arn: `arn:aws:eks:${region}:${accountId}:cluster/${name}`,
      resourceType: 'aws:eks:cluster',
      tags: { Environment: 'staging-chaos', Name: name },
      attributes: {},
      role: 'none' as const,
      group: `eks-${name}`,
    })),
    // The checkout API of fixtures/plans/eks-pod-delete.yaml (cluster `staging`, namespace `checkout`).
    ...[1, 2, 3].map((n) => ({
      arn: pod('staging', 'checkout', `checkout-api-5c8d7f9b4-q${n}`),
      resourceType: 'aws:eks:pod',
      tags: { Environment: 'staging-chaos', Service: 'checkout-api' },
      attributes: { namespace: 'checkout' },
      pod: {
        clusterIdentifier: 'staging',
        namespace: 'checkout',
        labels: { app: 'checkout-api' },
        deploymentName: 'checkout-api',
        podName: `checkout-api-5c8d7f9b4-q${n}`,
      },
      role: 'app' as const,
      group: 'checkout-api',
    })),
    // One of each resource type the other FIS actions target, so every action of the reference resolves
    // and runs here. The canary's own (role `app`) feel it; its database and cache are its dependency.
    ...canaryExtras(region, accountId),
  ];
}

/** The canary's resources of the resource types beyond instances, subnets, tasks and pods. */
function canaryExtras(region: string, accountId: string): SandboxResource[] {
  // No Service tag: a plan that targets the canary by tag keeps resolving what it resolved before.
  const staging = { Environment: 'staging-chaos', Rehearsal: 'fis-actions' };
  const at = (service: string, resource: string, global = false) =>
    `arn:aws:${service}:${global ? '' : region}:${accountId}:${resource}`;
  const one = (
    resourceType: string,
    arn: string,
    role: SandboxResource['role'],
    name: string,
    group = role === 'dependency' ? 'redis' : 'canary',
  ): SandboxResource => ({
    arn,
    resourceType,
    tags: { ...staging, Name: name },
    attributes: { 'Placement.AvailabilityZone': `${region}a` },
    role,
    group,
  });
  return [
    one('aws:iam:role', at('iam', 'role/canary-app', true), 'app', 'canary-app'),
    one('aws:lambda:function', at('lambda', 'function:canary-handler'), 'app', 'canary-handler'),
    ...['a', 'b', 'c'].map((zone, i) =>
      one(
        'aws:ec2:ebs-volume',
        at('ec2', `volume/vol-0ca0a${i}0000000001`),
        'app',
        `canary-app-0${i + 1}-${zone}`,
      ),
    ),
    ...['a', 'b', 'c'].map((zone, i) =>
      one(
        'aws:ec2:spot-instance',
        at('ec2', `instance/i-05b0a${i}0000000001`),
        'app',
        `canary-spot-0${i + 1}-${zone}`,
      ),
    ),
    one(
      'aws:ec2:autoscaling-group',
      at('autoscaling', 'autoScalingGroup:0ca0a:autoScalingGroupName/canary'),
      'app',
      'canary',
    ),
    one('aws:ecs:cluster', at('ecs', 'cluster/canary-cluster'), 'app', 'canary-cluster'),
    one('aws:eks:nodegroup', at('eks', 'nodegroup/canary-eks/canary-nodes/0ca0a'), 'app', 'canary-nodes'),
    one(
      'aws:arc:zonal-shift-managed-resource',
      at('elasticloadbalancing', 'loadbalancer/app/canary/0ca0a'),
      'app',
      'canary-alb',
    ),
    // The canary's dependency: the Redis replication group (both resource type names) and its database.
    one(
      'aws:elasticache:replicationgroup',
      at('elasticache', 'replicationgroup:redis-pay'),
      'dependency',
      'redis-pay',
    ),
    one(
      'aws:elasticache:redis-replicationgroup',
      at('elasticache', 'replicationgroup:redis-pay-legacy'),
      'dependency',
      'redis-pay-legacy',
    ),
    one('aws:rds:cluster', at('rds', 'cluster:canary-db'), 'dependency', 'canary-db'),
    one('aws:rds:db', at('rds', 'db:canary-db-1'), 'dependency', 'canary-db-1'),
    // Beside the canary's request path: replication, streams, regional networking.
    one(
      'aws:dynamodb:global-table',
      at('dynamodb', 'table/canary-sessions'),
      'none',
      'canary-sessions',
      'data',
    ),
    {
      ...one('aws:s3:bucket', `arn:aws:s3:::canary-assets-${accountId}`, 'none', 'canary-assets', 'data'),
      accountId,
    },
    one('aws:kinesis:stream', at('kinesis', 'stream/canary-events'), 'none', 'canary-events', 'data'),
    one('aws:dsql:cluster', at('dsql', 'cluster/canary0ledger0dsql'), 'none', 'canary-ledger', 'data'),
    one(
      'aws:memorydb:multi-region-cluster',
      at('memorydb', 'multiregioncluster/canary-mr', true),
      'none',
      'canary-mr',
      'data',
    ),
    one(
      'aws:ec2:transit-gateway',
      at('ec2', 'transit-gateway/tgw-0ca0a00000000001'),
      'none',
      'canary-tgw',
      'network',
    ),
    one(
      'aws:ec2:vpc-endpoint',
      at('ec2', 'vpc-endpoint/vpce-0ca0a00000000001'),
      'none',
      'canary-vpce',
      'network',
    ),
    one(
      'aws:directconnect:virtual-interface',
      at('directconnect', 'dxvif/dxvif-0ca0a001'),
      'none',
      'canary-vif',
      'network',
    ),
  ];
}
