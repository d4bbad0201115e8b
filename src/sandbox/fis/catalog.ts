/**
 * The FIS actions the sandbox can run (UG-ref), with the target key each one takes and the parameter
 * that sets its duration. Anything else in a template is a validation error, as with FIS.
 */

/** What running an action does to the sandbox, independent of the targets. */
export type ActionEffect = 'partition' | 'stop-compute' | 'cpu-stress' | 'wait' | 'assert-alarm';

/** One action of the catalog. */
export interface CatalogAction {
  id: string;
  description: string;
  /** The key under the action's `targets` (e.g. `Instances`) and the resource type it must point at. */
  target?: { key: string; resourceType: string };
  /** Parameter that holds an ISO-8601 duration; absent → the action is near-instantaneous. */
  durationParameter?: string;
  parameters: Record<string, { description: string; required: boolean }>;
  effect: ActionEffect;
}

/** Longest action FIS allows (SQ-FIS L-A7622DAA): 12 hours. */
export const MAX_ACTION_DURATION_MS = 12 * 3600 * 1000;

/** The supported actions, keyed by action id. */
export const ACTION_CATALOG: ReadonlyMap<string, CatalogAction> = new Map(
  (
    [
      {
        id: 'aws:fis:wait',
        description: 'Waits for the specified duration.',
        durationParameter: 'duration',
        parameters: {
          duration: { description: 'The duration, from one minute to 12 hours.', required: true },
        },
        effect: 'wait',
      },
      {
        id: 'aws:network:disrupt-connectivity',
        description: 'Denies traffic to or from the target subnets.',
        target: { key: 'Subnets', resourceType: 'aws:ec2:subnet' },
        durationParameter: 'duration',
        parameters: {
          duration: { description: 'The duration, from one minute to 12 hours.', required: true },
          scope: {
            description: 'all | availability-zone | dynamodb | prefix-list | s3 | s3express | vpc',
            required: false,
          },
          prefixListIdentifier: {
            description: 'The prefix list, when scope is prefix-list.',
            required: false,
          },
        },
        effect: 'partition',
      },
      {
        id: 'aws:ec2:stop-instances',
        description: 'Stops the target instances and starts them again after the duration.',
        target: { key: 'Instances', resourceType: 'aws:ec2:instance' },
        durationParameter: 'startInstancesAfterDuration',
        parameters: {
          startInstancesAfterDuration: { description: 'Time to wait before restarting.', required: false },
          completeIfInstancesTerminated: {
            description: 'Complete if the instances were terminated.',
            required: false,
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
        target: { key: 'Pods', resourceType: 'aws:eks:pod' },
        parameters: {
          kubernetesServiceAccount: { description: 'The Kubernetes service account.', required: true },
          gracePeriodSeconds: { description: 'Seconds to wait for the pod to terminate.', required: false },
          fisPodContainerImage: { description: 'The FIS pod image.', required: false },
          maxErrorsPercent: { description: 'Failure tolerance.', required: false },
        },
        effect: 'stop-compute',
      },
      {
        id: 'aws:ssm:send-command',
        description: 'Runs an SSM document (e.g. AWSFIS-Run-CPU-Stress) on the target instances.',
        target: { key: 'Instances', resourceType: 'aws:ec2:instance' },
        durationParameter: 'duration',
        parameters: {
          documentArn: { description: 'The SSM document ARN.', required: true },
          documentVersion: { description: 'The document version.', required: false },
          documentParameters: { description: 'Minified JSON parameters of the document.', required: false },
          duration: { description: 'The duration, from one minute to 12 hours.', required: true },
        },
        effect: 'cpu-stress',
      },
      {
        id: 'aws:cloudwatch:assert-alarm-state',
        description: 'Verifies that the alarms are in one of the given states.',
        parameters: {
          alarmArns: { description: 'Comma-separated alarm ARNs (at most 5).', required: true },
          alarmStates: {
            description: 'Comma-separated states: OK, ALARM, INSUFFICIENT_DATA.',
            required: true,
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
