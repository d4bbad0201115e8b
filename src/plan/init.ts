/**
 * `chaos-gate init`: a first plan for one FIS action and one service, written as YAML with a comment on
 * every choice. The fault comes from what chaos-gate knows of the action (`FIS_ACTION_LIMITS`: its target
 * key and resource type, its required parameters and their documented limits); the hypothesis is a
 * latency and an error SLI over the usual Prometheus HTTP metrics, with abort rules, a blast radius and
 * an error budget. Every value is an example that validates as written — the comments say which to
 * change — so `chaos-gate validate` passes before the first edit and keeps passing while it is made
 * the user's own.
 */
import { FIS_ACTION_LIMITS, type ActionLimits, type ParameterRule } from './fis-actions.js';
import { FIS_REFERENCE_BY_ID, isoOf } from '../fis-reference/actions.js';
import { parseIsoDuration } from './duration.js';

export interface InitOptions {
  actionId: string;
  service: string;
  /** Default `staging`. */
  environment?: string | undefined;
}

/** Why a plan cannot be written: an action chaos-gate does not know, or a name that is not a slug. */
export class InitError extends Error {}

const SLUG = /^[a-z0-9][a-z0-9-]*$/;
/** Longest plan id (the schema's slug). */
const MAX_ID = 63;

/** Resource types FIS selects by parameters, not tags (pods carry no AWS tags). */
const SELECTED_BY_PARAMETERS: Readonly<Record<string, (service: string) => Record<string, string>>> = {
  'aws:eks:pod': (service) => ({
    clusterIdentifier: 'arn:aws:eks:eu-west-1:123456789012:cluster/staging',
    namespace: service,
    selectorType: 'labelSelector',
    selectorValue: `app=${service}`,
  }),
};

/** Resource types FIS selects by ARN in these plans (a cluster is one resource, named outright). */
const SELECTED_BY_ARN: Readonly<Record<string, string>> = {
  'aws:eks:cluster': 'arn:aws:eks:eu-west-1:123456789012:cluster/staging',
};

/** Example values of required text and JSON parameters, by name; each is a real-looking value to replace. */
const EXAMPLE_VALUES: Readonly<Record<string, string>> = {
  kubernetesServiceAccount: 'fis-experiment',
  documentArn: 'arn:aws:ssm:eu-west-1::document/AWSFIS-Run-CPU-Stress',
  documentParameters: '{"DurationSeconds":"60","InstallDependencies":"True"}',
  alarmArns: 'arn:aws:cloudwatch:eu-west-1:123456789012:alarm:example-5xx',
  kubernetesApiVersion: 'chaos-mesh.org/v1alpha1',
  kubernetesKind: 'PodChaos',
  kubernetesSpec: '{"action":"pod-kill","mode":"one","selector":{"labelSelectors":{"app":"example"}}}',
};

/** A value that meets `rule`: the shortest FIS duration, the first enum value, the smallest integer. */
function exampleValue(name: string, rule: ParameterRule, service: string, actionId: string): string {
  const known = EXAMPLE_VALUES[name];
  switch (rule.kind) {
    case 'duration': {
      // A minute where the action allows it, else the nearest end of its range.
      const ms = Math.min(Math.max(60_000, rule.minMs), rule.maxMs);
      return isoOf(ms);
    }
    case 'number':
      return String(Math.min(rule.max, Math.max(rule.min, 50)));
    case 'enum':
      return rule.values[0] ?? '';
    case 'integer':
      return String(
        rule.max === undefined ? Math.max(rule.min, 1) : Math.min(rule.max, Math.max(rule.min, 50)),
      );
    case 'boolean':
      return 'false';
    case 'json':
      return (known ?? '{}').replace('"example"', JSON.stringify(service));
    case 'text':
      if (name === 'kubernetesNamespace') return service;
      return known ?? `${service}-${name}`.toLowerCase().replace(/[^a-z0-9-]/g, '-');
  }
  throw new InitError(`${actionId}: parameter ${name} has a rule init cannot fill`);
}

/** What an optional parameter takes, for its comment. */
function ruleText(rule: ParameterRule): string {
  switch (rule.kind) {
    case 'duration':
      return `an ISO-8601 duration, ${isoOf(rule.minMs)} to ${isoOf(rule.maxMs)}`;
    case 'number':
      return `a number ${rule.min} to ${rule.max}`;
    case 'enum':
      return `${rule.list ? 'a comma-separated list of ' : 'one of '}${rule.values.join(', ')}`;
    case 'integer':
      return rule.max === undefined ? `an integer ≥ ${rule.min}` : `an integer ${rule.min} to ${rule.max}`;
    case 'boolean':
      return 'true or false';
    case 'json':
      return 'minified JSON';
    case 'text':
      return 'text';
  }
}

const q = (s: string): string => JSON.stringify(s);

/**
 * The ARN a target is listed by: a cluster named outright, or an example ARN of the resource type where
 * the action takes targets by ARN only (its FIS reference entry says so).
 */
function arnSelected(actionId: string, resourceType: string, service: string): string | undefined {
  const named = SELECTED_BY_ARN[resourceType];
  if (named) return named;
  if (FIS_REFERENCE_BY_ID.get(actionId)?.targeting !== 'arns') return undefined;
  const [, awsService = 'ec2', kind = 'resource'] = resourceType.split(':');
  return `arn:aws:${awsService}:eu-west-1:123456789012:${kind}/${service}-example`;
}

/** The last word of an action id as a camelCase name (`aws:ecs:stop-task` → `stopTask`). */
function camel(text: string): string {
  return text.replace(/-([a-z0-9])/g, (_, c: string) => c.toUpperCase());
}

/** The known action ids, for an error message and `--help`. */
export function initActions(): string[] {
  return Object.keys(FIS_ACTION_LIMITS).sort();
}

/** The plan id init gives `service` and `actionId`: `<service>-<action>` cut to a slug's length. */
export function initPlanId(service: string, actionId: string): string {
  const action = actionId.split(':').slice(1).join('-');
  return `${service}-${action}`.slice(0, MAX_ID).replace(/-+$/, '');
}

function fisSection(actionId: string, limits: ActionLimits, service: string): string[] {
  const actionName = camel(actionId.split(':').at(-1) ?? 'fault');
  const out: string[] = [
    'fis:',
    '  # change: the IAM role FIS assumes to act on the targets (docs/fis.md, "IAM").',
    '  roleArn: arn:aws:iam::123456789012:role/chaos-gate-fis-staging',
    `  description: ${q(`${actionId} on ${service}`)}`,
  ];
  const targetName = `${camel(service)}Target`;
  if (limits.target) {
    const { resourceType } = limits.target;
    out.push('  targets:', `    ${targetName}:`, `      resourceType: ${resourceType}`);
    const byParameters = SELECTED_BY_PARAMETERS[resourceType];
    const byArn = arnSelected(actionId, resourceType, service);
    if (byParameters) {
      out.push('      # change: the cluster, namespace and label of your pods.', '      parameters:');
      for (const [k, v] of Object.entries(byParameters(service))) out.push(`        ${k}: ${q(v)}`);
    } else if (byArn) {
      out.push('      # change: the ARN of your resource.', '      resourceArns:', `        - ${byArn}`);
    } else {
      out.push(
        '      # The resources FIS may pick: those with these tags (blastRadius.requireTags checks them again).',
        '      resourceTags:',
        '        Environment: staging-chaos',
        `        chaos-target: ${q(service)}`,
      );
    }
    out.push('      selectionMode: COUNT(1) # one resource at a time: widen it once this plan has held');
  } else out.push(`  targets: {} # ${actionId} acts on no resource`);
  out.push('  actions:', `    ${actionName}:`, `      actionId: ${actionId}`);
  const params = Object.entries(limits.parameters);
  const required = params.filter(([, p]) => p.required);
  const optional = params.filter(([, p]) => !p.required);
  if (required.length > 0) {
    out.push('      parameters:');
    for (const [name, p] of required)
      out.push(
        `        ${name}: ${q(exampleValue(name, p.rule, service, actionId))}${p.rule.kind === 'text' ? '' : ` # ${ruleText(p.rule)}`}`,
      );
  }
  if (optional.length > 0) {
    out.push(`      # Optional parameters of ${actionId}:`);
    for (const [name, p] of optional) out.push(`      #   ${name}: ${ruleText(p.rule)}`);
  }
  if (limits.target) out.push('      targets:', `        ${limits.target.key}: ${targetName}`);
  return out;
}

/** The plan's YAML text. Throws {@link InitError} for an unknown action or a service that is not a slug. */
export function initPlan(options: InitOptions): string {
  const { actionId, service } = options;
  const environment = options.environment ?? 'staging';
  const limits = FIS_ACTION_LIMITS[actionId];
  if (!limits)
    throw new InitError(
      `--action ${actionId}: not an FIS action chaos-gate knows; expected one of ${initActions().join(', ')}`,
    );
  if (!SLUG.test(service))
    throw new InitError(
      `--service ${service}: expected a slug (lowercase letters, digits and dashes), as in metric labels`,
    );
  if (!SLUG.test(environment))
    throw new InitError(
      `--environment ${environment}: expected a slug (lowercase letters, digits and dashes)`,
    );
  const sel = `service=${q(service)}`;
  const tagged =
    limits.target !== undefined &&
    !SELECTED_BY_PARAMETERS[limits.target.resourceType] &&
    !arnSelected(actionId, limits.target.resourceType, service);
  // The ceilings fit the fault as written: at least a minute, or the action's shortest duration.
  const actionMs = Math.max(
    60_000,
    ...Object.entries(limits.parameters)
      .filter(([, p]) => p.required && p.rule.kind === 'duration')
      .map(([name, p]) => parseIsoDuration(exampleValue(name, p.rule, service, actionId)) ?? 60_000),
  );
  const maxRunMs = Math.max(15 * 60_000, actionMs + 10 * 60_000);
  const lines = [
    `# A chaos-gate plan: does ${service} keep its promises while FIS runs ${actionId}?`,
    '# Written by `chaos-gate init`. Every value is an example that validates as written: the lines marked',
    '# "change" name your own resources, the thresholds are a starting point to calibrate',
    '# (`npx chaos-gate measure` reads the SLIs now, `npx chaos-gate scan` calibrates over a recorded run).',
    '# The format: docs/plan-format.md. Check it any time with `npx chaos-gate validate <this file>`.',
    'version: 1',
    `id: ${initPlanId(service, actionId)}`,
    `title: ${q(`${service} rides out ${actionId}`)}`,
    `service: ${service}`,
    `environment: ${environment}`,
    '# change: the team that answers for this experiment.',
    `owner: team-${service}`,
    '',
    'hypothesis:',
    '  interval: 5s # every SLI is measured this often',
    '  # A window with fewer requests than this is no-data, never a pass.',
    '  minRequests: 50',
    '  requests:',
    `    prometheus: sum(increase(http_requests_total{${sel}}[$window]))`,
    '  # change: the queries, if your metrics are not named http_requests_total and',
    '  # http_request_duration_seconds_bucket with a service label.',
    '  slis:',
    '    - name: error_ratio',
    '      description: Share of requests answered with a 5xx.',
    '      prometheus: |',
    `        sum(rate(http_requests_total{${sel}, status=~"5.."}[1m]))`,
    `          / sum(rate(http_requests_total{${sel}}[1m]))`,
    '      max: 0.01 # while the fault is on',
    '      steady: { max: 0.001 } # before it: the steady state must hold first',
    '    - name: p95_latency_s',
    '      description: p95 latency in seconds.',
    '      prometheus: |',
    '        histogram_quantile(0.95,',
    `          sum by (le) (rate(http_request_duration_seconds_bucket{${sel}}[1m])))`,
    '      max: 0.5',
    '      steady: { max: 0.25 }',
    '  steadyState:',
    '    duration: 2m',
    '  recovery:',
    '    within: 2m # after the fault ends, every SLI back within its steady bound',
    '',
    '# Tripwires: FIS is stopped the moment one holds for its whole `for`.',
    'abort:',
    '  rules:',
    '    - { sli: error_ratio, above: 0.05, for: 15s }',
    '    - { sli: p95_latency_s, above: 2, for: 15s }',
    '  blindAfter: 3 # three failed measurements in a row stop the fault: blindness is never a pass',
    '',
    '# The most this plan may touch; a policy file may narrow it further, never widen it.',
    'blastRadius:',
    '  maxTargets: 1',
    `  maxActionDuration: ${Math.round(actionMs / 1000)}s`,
    `  maxRunDuration: ${Math.round(maxRunMs / 60_000)}m`,
    ...(tagged ? ['  requireTags:', '    Environment: staging-chaos'] : []),
    '  forbidTags:',
    '    Environment: [production, prod]',
    '',
    '# The error budget: chaos may spend a share of what the SLO allows over the window, and no more.',
    'budget:',
    '  objective: 0.999',
    '  window: 30d',
    '  errors:',
    `    prometheus: sum(increase(http_requests_total{${sel}, status=~"5.."}[30d]))`,
    '  total:',
    `    prometheus: sum(increase(http_requests_total{${sel}}[30d]))`,
    '  chaosShare: 0.1',
    '  damage: { sli: error_ratio, kind: error-ratio } # what a run is charged for',
    '',
    '# The fault, in FIS\'s own CreateExperimentTemplate shape (docs/plan-format.md, "fis").',
    ...fisSection(actionId, limits, service),
    '',
  ];
  return lines.join('\n');
}
