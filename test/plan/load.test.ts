import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml, stringify as stringifyYaml } from 'yaml';
import {
  MAX_PLAN_BYTES,
  PlanError,
  formatPath,
  loadPlan,
  locateField,
  parsePath,
  parsePlan,
  type PlanIssue,
} from '../../src/plan/load.js';

const FIXTURES = join(import.meta.dirname, '../../fixtures/plans');
const VALID = [
  'redis-partition.yaml',
  'eks-pod-delete.yaml',
  'ecs-stop-task.yaml',
  'ec2-cpu-stress-ssm.yaml',
];

async function issuesOf(path: string): Promise<PlanIssue[]> {
  try {
    await loadPlan(path);
  } catch (error) {
    if (error instanceof PlanError) return error.issues;
    throw error;
  }
  throw new Error(`${path} loaded without issues`);
}

/** Every invalid fixture, with where the mistake is and what the loader must say it expected. */
const INVALID: {
  file: string;
  line: number;
  column: number;
  field: string;
  expected: string;
  says?: string;
}[] = [
  {
    file: 'abort-above-and-below.yaml',
    line: 20,
    column: 7,
    field: 'abort.rules[0]',
    expected: 'exactly one of above, below',
  },
  {
    file: 'alias-bomb.yaml',
    line: 11,
    column: 8,
    field: 'h[0]',
    expected: 'YAML aliases that expand to a bounded document (at most 100 alias expansions)',
    says: 'alias *g',
  },
  {
    file: 'arns-and-tags.yaml',
    line: 30,
    column: 7,
    field: 'fis.targets.cartNodes',
    expected: 'resourceArns or resourceTags, not both (FIS rejects a target with both)',
  },
  {
    file: 'bad-duration.yaml',
    line: 9,
    column: 13,
    field: 'hypothesis.interval',
    expected: 'a duration such as 500ms, 5s, 2m, 1h or 30d',
    says: '"1 second" is not valid',
  },
  {
    file: 'bad-enum.yaml',
    line: 34,
    column: 30,
    field: 'fis.emptyTargetResolutionMode',
    expected: 'one of "fail", "skip"',
    says: '"ignore"',
  },
  {
    file: 'bad-id.yaml',
    line: 3,
    column: 5,
    field: 'id',
    expected: 'a slug: lowercase letters, digits and dashes, at most 63',
    says: '"Cart_Latency"',
  },
  {
    file: 'bad-role-arn.yaml',
    line: 27,
    column: 12,
    field: 'fis.roleArn',
    expected: 'an IAM role ARN',
    says: '"arn:aws:iam::1234:role/chaos-gate-fis"',
  },
  {
    file: 'bad-selection-mode.yaml',
    line: 33,
    column: 22,
    field: 'fis.targets.cartNodes.selectionMode',
    expected: 'ALL, COUNT(n) or PERCENT(n)',
    says: '"RANDOM(1)"',
  },
  { file: 'bad-version.yaml', line: 2, column: 10, field: 'version', expected: '1', says: '2 is not valid' },
  {
    file: 'bad-window-duration.yaml',
    line: 26,
    column: 17,
    field: 'schedule.deny[0].duration',
    expected: 'a duration such as 500ms, 5s, 2m, 1h or 30d',
    says: '"all weekend"',
  },
  {
    file: 'cloudwatch-period.yaml',
    line: 11,
    column: 69,
    field: 'hypothesis.slis[0].cloudwatch.period',
    expected: 'a CloudWatch period: 1s, 5s, 10s, 20s, 30s or a multiple of 60s',
    says: '"3s"',
  },
  {
    file: 'bound-missing.yaml',
    line: 11,
    column: 7,
    field: 'hypothesis.slis[0]',
    expected: 'exactly one bound: max, min or between',
  },
  {
    file: 'duplicate-key.yaml',
    line: 8,
    column: 1,
    field: 'id',
    expected: 'each key at most once per mapping',
    says: "the key 'id' appears twice",
  },
  { file: 'empty.yaml', line: 1, column: 1, field: '', expected: 'a mapping', says: 'the plan is empty' },
  {
    file: 'missing-hypothesis.yaml',
    line: 2,
    column: 1,
    field: 'hypothesis',
    expected: 'a mapping',
    says: 'required field is missing',
  },
  {
    file: 'multiple-documents.yaml',
    line: 41,
    column: 1,
    field: '',
    expected: 'exactly one YAML document per plan file',
  },
  {
    file: 'no-slis.yaml',
    line: 10,
    column: 9,
    field: 'hypothesis.slis',
    expected: 'at least one SLI',
    says: 'the empty list',
  },
  { file: 'oversized.yaml', line: 1, column: 1, field: '', expected: `at most ${MAX_PLAN_BYTES} bytes` },
  {
    file: 'parameter-with-spaces.yaml',
    line: 39,
    column: 15,
    field: 'fis.actions.stopNode.parameters.note',
    expected: 'a value without spaces (FIS rejects whitespace; minify JSON parameters)',
    says: '"stop for one minute"',
  },
  {
    file: 'percent-over-100.yaml',
    line: 24,
    column: 15,
    field: 'blastRadius.maxPercent',
    expected: 'a number ≤ 100',
    says: '150 is not valid',
  },
  { file: 'tab-indent.yaml', line: 15, column: 1, field: '', expected: 'indentation with spaces' },
  {
    file: 'two-sources.yaml',
    line: 11,
    column: 7,
    field: 'hypothesis.slis[0]',
    expected: 'exactly one source: prometheus, cloudwatch or scrape',
    says: '{name, prometheus, cloudwatch, max}',
  },
  {
    file: 'unknown-key.yaml',
    line: 14,
    column: 7,
    field: 'hypothesis.slis[0].desciption',
    expected:
      'one of the known keys: name, description, prometheus, cloudwatch, scrape, max, min, between, steady, during, settle, tolerance',
    says: "unknown key 'desciption'",
  },
  {
    file: 'unresolved-tag.yaml',
    line: 4,
    column: 8,
    field: 'title',
    expected: 'plain YAML values without custom tags',
    says: '!!python/object:os.system',
  },
  {
    file: 'wrong-type.json',
    line: 7,
    column: 12,
    field: 'owner',
    expected: 'a string',
    says: '42 is a number',
  },
  {
    file: 'wrong-type.yaml',
    line: 10,
    column: 16,
    field: 'hypothesis.minRequests',
    expected: 'an integer',
    says: '"lots" is a string',
  },
  {
    file: 'yaml-syntax.yaml',
    line: 31,
    column: 7,
    field: '',
    expected: 'valid YAML or JSON',
    says: 'Flow sequence',
  },
];

describe('invalid plan fixtures', () => {
  it('covers every file in fixtures/plans/invalid/ and at least 15 different mistakes', () => {
    const files = readdirSync(join(FIXTURES, 'invalid')).sort();
    expect(INVALID.map((c) => c.file).sort()).toEqual(files);
    expect(files.length).toBeGreaterThanOrEqual(15);
  });

  it.each(INVALID)('$file: reports $field at $line:$column expecting "$expected"', async (c) => {
    const path = join(FIXTURES, 'invalid', c.file);
    const issues = await issuesOf(path);
    expect(issues).toHaveLength(1);
    const [issue] = issues;
    expect(issue).toMatchObject({
      file: path,
      line: c.line,
      column: c.column,
      field: c.field,
      expected: c.expected,
    });
    expect(issue?.message).toContain(`expected ${c.expected}`);
    if (c.says) expect(issue?.message).toContain(c.says);
  });
});

describe('parsePlan', () => {
  const redisText = readFileSync(join(FIXTURES, 'redis-partition.yaml'), 'utf8');

  it.each(VALID)('loads the valid fixture %s', async (file) => {
    const loaded = await loadPlan(join(FIXTURES, file));
    expect(loaded.plan.version).toBe(1);
    expect(loaded.digest).toMatch(/^[0-9a-f]{64}$/);
  });

  it('turns durations into milliseconds and applies defaults', () => {
    const { plan } = parsePlan(redisText, 'redis.yaml');
    expect(plan.hypothesis.interval).toBe(1000);
    expect(plan.hypothesis.steadyState.duration).toBe(300_000);
    expect(plan.abort.rules.map((r) => [r.sli, r.above, r.for])).toEqual([
      ['error_ratio', 0.01, 5000],
      ['p95_latency_s', 0.5, 3000],
    ]);
    expect(plan.hypothesis.expect[0]).toMatchObject({ name: 'breaker_opened', atLeast: 1, within: 3000 });
  });

  it('gives the same digest whatever the key order, quoting or comments', () => {
    const a = parsePlan(redisText, 'a.yaml');
    const data = parseYaml(redisText) as Record<string, unknown>;
    const reversed = Object.fromEntries(Object.entries(data).reverse());
    const b = parsePlan(stringifyYaml(reversed), 'b.yaml');
    const c = parsePlan(JSON.stringify(reversed, null, 1), 'c.json');
    expect(b.digest).toBe(a.digest);
    expect(c.digest).toBe(a.digest);
  });

  it('gives a different digest when a threshold changes', () => {
    const a = parsePlan(redisText, 'a.yaml');
    const b = parsePlan(redisText.replace('above: 0.5', 'above: 0.6'), 'a.yaml');
    expect(b.digest).not.toBe(a.digest);
  });

  it('locates fields in the text, including inside lists and FIS parameters', () => {
    const loaded = parsePlan(redisText, 'redis.yaml');
    const lines = redisText.split('\n');
    const at = (field: string): string => {
      const pos = loaded.locate(field);
      if (!pos) throw new Error(`${field} not located`);
      return (lines[pos.line - 1] ?? '').slice(pos.column - 1);
    };
    expect(at('fis.actions.partitionRedisPrimary.parameters.duration')).toBe('PT60S');
    expect(at('hypothesis.slis[1].max')).toBe('0.18');
    expect(at('abort.rules[1].for')).toBe('3s');
    expect(loaded.locate('hypothesis.slis[9].max')).toBeUndefined();
    expect(locateField(redisText, ['blastRadius', 'requireTags', 'Environment'])).toEqual(
      loaded.locate('blastRadius.requireTags.Environment'),
    );
  });

  it('reports every issue of a plan with several mistakes, in file order', () => {
    const text = redisText
      .replace('interval: 1s', 'interval: soon')
      .replace('  blindAfter: 3', '  blindAfter: 0')
      .replace('selectionMode: COUNT(1)', 'selectionMode: SOME');
    let issues: PlanIssue[] = [];
    try {
      parsePlan(text, 'multi.yaml');
    } catch (error) {
      if (error instanceof PlanError) issues = error.issues;
    }
    expect(issues.map((i) => i.field)).toEqual([
      'hypothesis.interval',
      'abort.blindAfter',
      'fis.targets.redisPrimarySubnet.selectionMode',
    ]);
    expect(issues[1]).toMatchObject({ value: 0, expected: 'a number > 0' });
  });

  it('refuses text over MAX_PLAN_BYTES before parsing it', () => {
    const text = `version: 1\n# ${'x'.repeat(MAX_PLAN_BYTES)}\n`;
    expect(() => parsePlan(text, 'big.yaml')).toThrow(/expected at most 262144 bytes/);
  });

  it('reports an unreadable file as an issue naming the file', async () => {
    const issues = await issuesOf(join(FIXTURES, 'does-not-exist.yaml'));
    expect(issues[0]).toMatchObject({
      line: 1,
      column: 1,
      expected: 'a regular file of at most 262144 bytes',
    });
    expect(issues[0]?.message).toContain('it does not exist');
  });

  it('accepts a few aliases that share a tag map', () => {
    const text = redisText
      .replace(
        '  requireTags:\n    Environment: staging-chaos',
        '  requireTags: &env\n    Environment: staging-chaos',
      )
      .replace(
        '      resourceTags:\n        Environment: staging-chaos\n        chaos-target: redis-pay-primary-01',
        '      resourceTags: *env',
      );
    expect(text).toContain('*env');
    const loaded = parsePlan(text, 'alias.yaml');
    expect(loaded.plan.fis.targets['redisPrimarySubnet']?.resourceTags).toEqual({
      Environment: 'staging-chaos',
    });
  });
});

describe('field paths', () => {
  it('formats and parses paths with indexes and non-identifier keys', () => {
    const path = ['fis', 'targets', 'pods', 'resourceTags', 'kubernetes.io/role', 0];
    const text = formatPath(path);
    expect(text).toBe('fis.targets.pods.resourceTags["kubernetes.io/role"][0]');
    expect(parsePath(text)).toEqual(path);
    expect(parsePath('hypothesis.slis[1].max')).toEqual(['hypothesis', 'slis', 1, 'max']);
    expect(parsePath('not a path')).toBeUndefined();
  });
});
