/**
 * The plan loader's documented limits and wording (docs/plan-format.md): a plan file may be 256 KiB and
 * no more, and a duration that does not parse is described in the plan's own words, not zod's.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadPlan, PlanError } from '../../src/plan/load.js';

const dir = mkdtempSync(join(tmpdir(), 'chaos-gate-load-limits-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const BASE = readFileSync('fixtures/plans/redis-partition.yaml', 'utf8');

/** The Redis partition fixture plan padded with a comment to exactly `bytes` bytes, written to a file. */
function planOfSize(bytes: number): string {
  const pad = bytes - Buffer.byteLength(BASE) - 3;
  const file = join(dir, `plan-${bytes}.yaml`);
  writeFileSync(file, `${BASE}# ${'x'.repeat(pad)}\n`);
  return file;
}

describe('the size of a plan file', () => {
  it('may be 256 KiB (262 144 bytes)', async () => {
    const loaded = await loadPlan(planOfSize(262_144));
    expect(Buffer.byteLength(loaded.text)).toBe(262_144);
  });

  it('is refused one byte over, naming the limit', async () => {
    const err = await loadPlan(planOfSize(262_145)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PlanError);
    expect((err as PlanError).issues[0]?.expected).toBe('at most 262144 bytes');
  });
});

describe('a duration that does not parse', () => {
  it.each([
    ['a word', 'soon'],
    ['a bare number', '5'],
    ['a list', '[1s]'],
  ])('is described as the plan format describes durations: %s', async (_, value) => {
    const file = join(dir, `bad-duration-${value.length}.yaml`);
    writeFileSync(file, BASE.replace(/interval: 1s/, `interval: ${value}`));
    const err = await loadPlan(file).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PlanError);
    const issue = (err as PlanError).issues.find((i) => i.field === 'hypothesis.interval');
    expect(issue?.expected).toBe('a duration such as 500ms, 5s, 2m, 1h or 30d');
  });
});
