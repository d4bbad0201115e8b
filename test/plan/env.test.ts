/**
 * Environment expansion is opt-in (issue 14.1, docs/design/principles.md#security): a plan expands only the variables it declares
 * in `env:`, an undeclared `${X}` is a validate error naming it, declared values are secrets unless
 * public, and a declared variable a URL needs but the run lacks is bad input (exit 2).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { isBadInput } from '../../src/errors/bad-input.js';
import { expandEnv, resolvePlanEnv } from '../../src/plan/env.js';
import { PlanError, formatIssue, parsePlan } from '../../src/plan/load.js';
import { envReferences } from '../../src/plan/schema.js';
import { registerPlanSecrets } from '../../src/compose/run.js';
import { secrets } from '../../src/security/redact.js';

afterEach(() => secrets.clear());

const plan = (env: string, url: string): string => `version: 1
id: env-test
title: env test
service: canary
environment: staging
owner: team
${env}hypothesis:
  interval: 1s
  slis:
    - name: up
      scrape:
        url: "${url}"
        gauge: up
      min: 1
  steadyState: { duration: 10s }
  recovery: { within: 10s }
abort:
  rules: [{ sli: up, below: 1, for: 2s }]
fis:
  roleArn: arn:aws:iam::123456789012:role/chaos
  targets:
    nodes: { resourceType: "aws:ec2:instance", resourceTags: { Chaos: "yes" }, selectionMode: "COUNT(1)" }
  actions:
    stop: { actionId: "aws:ec2:stop-instances", targets: { Instances: nodes } }
`;

function issuesOf(text: string): string[] {
  try {
    parsePlan(text, 'chaos/plan.yaml');
  } catch (error) {
    if (error instanceof PlanError) return error.issues.map(formatIssue);
    throw error;
  }
  return [];
}

describe('a plan expands only the variables it declares', () => {
  it('refuses an undeclared ${X} in a scrape URL, naming the variable, the file, line, column and field', () => {
    expect(issuesOf(plan('', '${CANARY}/metrics?token=${AWS_SECRET_ACCESS_KEY}'))).toEqual([
      'chaos/plan.yaml:12:14: hypothesis.slis[0].scrape.url: "${CANARY}/metrics?token=${AWS_SECRET_ACCESS_KEY}" is not valid; expected ${CANARY} declared in the top-level env: list (env: [CANARY]); a plan expands only the variables it declares',
      'chaos/plan.yaml:12:14: hypothesis.slis[0].scrape.url: "${CANARY}/metrics?token=${AWS_SECRET_ACCESS_KEY}" is not valid; expected ${AWS_SECRET_ACCESS_KEY} declared in the top-level env: list (env: [AWS_SECRET_ACCESS_KEY]); a plan expands only the variables it declares',
    ]);
  });

  it('refuses a malformed reference', () => {
    const issues = issuesOf(plan('env: [CANARY]\n', '${CANARY}/metrics?x=${1BAD}'));
    expect(issues).toHaveLength(1);
    expect(issues[0]).toContain('expected ${NAME} references with a variable name (found ${1BAD})');
  });

  it('accepts declared variables, secret by default or public', () => {
    const loaded = parsePlan(
      plan('env:\n  - SCRAPE_TOKEN\n  - { name: CANARY, public: true }\n', '${CANARY}/m?t=${SCRAPE_TOKEN}'),
      'p.yaml',
    );
    expect(loaded.plan.env).toEqual(['SCRAPE_TOKEN', { name: 'CANARY', public: true }]);
  });

  it('resolves the declared values only, registers the secret ones, and never the public ones', () => {
    const { plan: p } = parsePlan(
      plan('env:\n  - SCRAPE_TOKEN\n  - { name: CANARY, public: true }\n', '${CANARY}/m?t=${SCRAPE_TOKEN}'),
      'p.yaml',
    );
    const env = { CANARY: 'http://canary:8080', SCRAPE_TOKEN: 'tok-5e5e5e', AWS_SECRET_ACCESS_KEY: 'nope' };
    const resolved = resolvePlanEnv(p, env);
    expect(resolved).toEqual({
      values: { CANARY: 'http://canary:8080', SCRAPE_TOKEN: 'tok-5e5e5e' },
      secrets: ['tok-5e5e5e'],
    });
    registerPlanSecrets(p, resolved);
    expect(secrets.redact('http://canary:8080/m?t=tok-5e5e5e')).toBe('http://canary:8080/m?t=***');
    expect(expandEnv('${CANARY}/m?t=${SCRAPE_TOKEN}', resolved.values)).toBe(
      'http://canary:8080/m?t=tok-5e5e5e',
    );
    expect(() => expandEnv('${AWS_SECRET_ACCESS_KEY}', resolved.values)).toThrow(
      '${AWS_SECRET_ACCESS_KEY} is not a variable the plan declares',
    );
  });

  it('is bad input when a declared variable a URL uses is not set, naming it and the field, not a value', () => {
    const { plan: p } = parsePlan(plan('env: [SCRAPE_TOKEN]\n', 'http://x/m?t=${SCRAPE_TOKEN}'), 'p.yaml');
    let thrown: unknown;
    try {
      resolvePlanEnv(p, {});
    } catch (error) {
      thrown = error;
    }
    expect(isBadInput(thrown)).toBe(true);
    expect((thrown as Error).message).toBe(
      "hypothesis.slis[0].scrape.url: the plan's env: declares SCRAPE_TOKEN, but it is not set in the environment; expected SCRAPE_TOKEN to be set for this run",
    );
  });

  it('finds references as written', () => {
    expect(envReferences('${A}/${b_2}/${}/${9x}/${open')).toEqual([
      { name: 'A', valid: true },
      { name: 'b_2', valid: true },
      { name: '', valid: false },
      { name: '9x', valid: false },
      { name: 'open', valid: false },
    ]);
  });
});
