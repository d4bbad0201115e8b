/**
 * Writes docs/fis-actions.md from the FIS actions reference data (src/fis-reference/actions.ts) and the
 * sandbox's effect of each action (src/sandbox/fis/catalog.ts): `npm run -s fis-actions-doc` rewrites
 * it, `-- --check` fails when the page and the data differ (test/plan/fis-actions-doc.test.ts does too).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  FIS_REFERENCE,
  isoOf,
  type ParameterRule,
  type ReferenceAction,
  type ReferenceParameter,
} from '../src/fis-reference/actions.js';
import { ACTION_CATALOG, type ActionEffect } from '../src/sandbox/fis/catalog.js';

export const FIS_ACTIONS_DOC = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '../docs/fis-actions.md',
);

/** What the sandbox does to its canary service for each effect (src/sandbox/faults.ts). */
const SIMULATES: Record<ActionEffect, string> = {
  partition:
    'Traffic cut: on the canary’s dependency the dependency is unreachable (calls time out; with the fallback on, the breaker opens); on the canary’s own resources that share of requests fail as unreachable.',
  'stop-compute':
    'An error burst on the share of the canary’s capacity hit (times the action’s own percentage) while replacements come up.',
  failover: 'An error burst on the canary’s calls while its database or cache fails over.',
  'cpu-stress': 'Slower answers: added latency on the share of the canary hit.',
  latency:
    'The action’s own added latency (`delayMilliseconds`, `startupDelayMilliseconds` or `readIOLatencyMilliseconds`, else the documented default) on the share hit (`flowsPercent`, `invocationPercentage` or `readIOPercentage`).',
  'packet-loss':
    'A 200 ms retransmission (Linux’s minimum TCP retransmission timeout) on the lost share (`lossPercent`, default 7, times `flowsPercent`).',
  errors:
    'A share of requests fail outright (`percentage` or `invocationPercentage`); an HTTP integration response below 500 is an answer, not an error.',
  'io-pause': 'I/O hangs: requests that touch the volume fail after the timeout.',
  'custom-resource':
    'What the Chaos Mesh or Litmus kind does to the pods its selector and mode pick (PodChaos: errors while pods are replaced; NetworkChaos: latency or outage; StressChaos: slower answers).',
  'control-plane':
    'Runs for its duration and completes; it changes what the control plane or replication does, which the canary’s request path does not see.',
  wait: 'Waits for its duration.',
  'assert-alarm': 'Completes at once (the stand-in does not fail it on alarm state).',
};

function rule(r: ParameterRule): string {
  switch (r.kind) {
    case 'duration':
      return `ISO 8601 duration, ${isoOf(r.minMs)}–${isoOf(r.maxMs)}`;
    case 'integer':
      return r.max === undefined ? `whole number ≥ ${r.min}` : `whole number ${r.min}–${r.max}`;
    case 'number':
      return `number ${r.min}–${r.max}`;
    case 'enum':
      return `${r.list ? 'comma-separated list of ' : ''}${r.values.map((v) => `\`${v}\``).join(' | ')}`;
    case 'boolean':
      return r.ignoreCase ? '`true` | `false` (any case)' : '`true` | `false`';
    case 'json':
      return 'minified JSON';
    case 'text':
      return 'text';
  }
}

function parameter(name: string, p: ReferenceParameter): string {
  const flag = p.required ? '**required**' : 'optional';
  const byDefault = p.default === undefined ? '' : `, default \`${p.default}\``;
  return `\`${name}\` (${flag}; ${rule(p.rule)}${byDefault})`;
}

function checks(a: ReferenceAction): string {
  const parts = [
    a.target ? `target key \`${a.target.key}\` of type \`${a.target.resourceType}\`` : 'no target',
    Object.keys(a.parameters).length === 0
      ? 'no parameters'
      : 'required parameters, known names, each value against its rule',
    ...(a.targeting === 'tags' ? ['the target by resource tags only'] : []),
    ...(a.targeting === 'arns' ? ['the target by ARN only (no tags, filters or parameters)'] : []),
  ];
  return parts.join('; ');
}

const cell = (text: string) => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');

/** The page, as the data says it. */
export function fisActionsDoc(): string {
  const lines = [
    '<!-- Generated from src/fis-reference/actions.ts by `npm run -s fis-actions-doc`; edit the data, not this page. -->',
    '',
    '# FIS actions: what the gate checks, what the sandbox rehearses',
    '',
    `Every action of the AWS FIS actions reference (${FIS_REFERENCE.length} actions) is one row of one table,`,
    '`src/fis-reference/actions.ts`, read by both sides:',
    '',
    '- **The gate** (`validate`, `plan`, `run`) refuses a plan whose FIS action breaks what the reference says',
    '  before anything is touched: a missing required parameter, an unknown parameter name, a value outside',
    '  its documented range or list, a target key the action does not take or a target it needs. An action id',
    '  the reference does not list is passed to FIS, which answers for it (`plan --resolve` then exits 2 with',
    '  FIS’s message).',
    '- **The sandbox** (`chaos-gate sandbox`, `demo`) accepts the same templates FIS accepts, resolves the',
    '  target in a dry run, runs the action for its (scaled) duration and switches on the canary fault below.',
    '  Its account holds one resource of every type these actions target; the canary feels an action when the',
    '  target is its own (instances, tasks, pods, its Lambda function, its IAM role, volumes, node group) or its',
    '  dependency (the Redis node and replication group, its RDS cluster and instance). `test/sandbox/fis-catalogue.test.ts`',
    '  runs every row.',
    '',
    'Where the reference is silent the data says what was chosen: a duration with no documented range runs',
    'from one second up to FIS’s 12-hour action limit; a parameter marked optional or given a default is',
    'optional; target keys are the ones `aws fis get-action` returns. S3 replication targets are taken only by',
    'tags, `inject-kubernetes-custom-resource` and `api-insufficient-instance-capacity-error` targets only by',
    'ARN: the gate refuses other forms (`action-targeting`) and so does the sandbox, as FIS does.',
    '',
    '| Action | Target | Parameters | The gate checks | The sandbox simulates |',
    '| --- | --- | --- | --- | --- |',
  ];
  for (const a of FIS_REFERENCE) {
    const effect = ACTION_CATALOG.get(a.id)!.effect;
    const params = Object.entries(a.parameters).map(([n, p]) => parameter(n, p));
    lines.push(
      `| [\`${a.id}\`](${a.doc}) — ${cell(a.description)} | ${
        a.target ? `\`${a.target.key}\`: \`${a.target.resourceType}\`` : '—'
      } | ${params.length ? cell(params.join('; ')) : 'none'} | ${cell(checks(a))} | ${cell(SIMULATES[effect])} |`,
    );
  }
  return lines.join('\n') + '\n';
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const text = fisActionsDoc();
  if (process.argv.includes('--check')) {
    if (readFileSync(FIS_ACTIONS_DOC, 'utf8') !== text) {
      console.error('docs/fis-actions.md differs from the data: run npm run -s fis-actions-doc');
      process.exit(1);
    }
  } else writeFileSync(FIS_ACTIONS_DOC, text);
}
