import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { planJsonSchema, SCHEMA_ID, SCHEMA_PATH } from '../../scripts/gen-schema.js';

const ROOT = join(import.meta.dirname, '../..');
const VALID = [
  'redis-partition.yaml',
  'eks-pod-delete.yaml',
  'ecs-stop-task.yaml',
  'ec2-cpu-stress-ssm.yaml',
];

describe('schema/plan.schema.json', () => {
  const committed = readFileSync(join(ROOT, SCHEMA_PATH), 'utf8');

  it('is up to date with the zod schema (run `npm run schema` when this fails)', () => {
    expect(committed).toBe(planJsonSchema());
  });

  const schema = JSON.parse(committed) as Record<string, unknown>;
  const validate = new Ajv2020({ strict: false, allErrors: true }).compile(schema);

  it('carries an $id and a title for editors', () => {
    expect(schema['$id']).toBe(SCHEMA_ID);
    expect(schema['title']).toBe('chaos-gate plan');
  });

  it.each(VALID)('accepts the valid fixture %s, as an editor would', (file) => {
    const data = parseYaml(readFileSync(join(ROOT, 'fixtures/plans', file), 'utf8'));
    expect(validate(data), JSON.stringify(validate.errors)).toBe(true);
  });

  it('rejects an unknown key and a malformed duration, as the loader does', () => {
    const data = parseYaml(readFileSync(join(ROOT, 'fixtures/plans/invalid/unknown-key.yaml'), 'utf8'));
    expect(validate(data)).toBe(false);
    expect(validate.errors?.some((e) => e.keyword === 'additionalProperties')).toBe(true);
    const bad = parseYaml(readFileSync(join(ROOT, 'fixtures/plans/invalid/bad-duration.yaml'), 'utf8'));
    expect(validate(bad)).toBe(false);
    expect(validate.errors?.some((e) => e.instancePath === '/hypothesis/interval')).toBe(true);
  });
});

describe('npm run schema -- --check', () => {
  const run = (args: string[]) =>
    spawnSync(process.execPath, ['--import', 'tsx', join(ROOT, 'scripts/gen-schema.ts'), ...args], {
      cwd: ROOT,
      encoding: 'utf8',
      timeout: 30_000,
    });

  it('exits 0 for the committed schema', () => {
    const result = run(['--check']);
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
  });

  it('exits 1 and says how to fix it when the file is stale', () => {
    const dir = mkdtempSync(join(tmpdir(), 'cg-schema-'));
    try {
      const stale = join(dir, 'plan.schema.json');
      writeFileSync(stale, planJsonSchema().replace('"chaos-gate plan"', '"an older plan"'));
      const result = run(['--check', '--file', stale]);
      expect(result.status).toBe(1);
      expect(result.stderr).toContain('is stale: run `npm run schema`');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
