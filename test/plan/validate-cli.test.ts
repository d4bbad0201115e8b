import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { CliIo } from '../../src/cli/command.js';
import { main } from '../../src/cli/main.js';

const ROOT = join(import.meta.dirname, '../..');

function captured(): { io: CliIo; out: string[]; err: string[] } {
  const out: string[] = [];
  const err: string[] = [];
  return {
    io: { out: (t) => out.push(t), err: (t) => err.push(t), tty: false, env: {}, cwd: ROOT },
    out,
    err,
  };
}

describe('chaos-gate validate', () => {
  it('exits 0 and prints the digest for a valid plan', async () => {
    const { io, out } = captured();
    expect(await main(['validate', 'fixtures/plans/redis-partition.yaml'], io)).toBe(0);
    expect(out.join('\n')).toMatch(/^fixtures\/plans\/redis-partition\.yaml: valid \(digest [0-9a-f]{64}\)$/);
  });

  it('exits 2 with one file:line:col: field: line per issue for an invalid plan', async () => {
    const { io, out } = captured();
    expect(await main(['validate', 'fixtures/plans/invalid/bad-duration.yaml'], io)).toBe(2);
    expect(out[0]).toBe(
      'fixtures/plans/invalid/bad-duration.yaml:9:13: hypothesis.interval: "1 second" is not valid; expected a duration such as 500ms, 5s, 2m, 1h or 30d',
    );
    expect(out.at(-1)).toBe('fixtures/plans/invalid/bad-duration.yaml: invalid (1 problem)');
  });

  it('exits 2 and names rule, field, value and limit for a refused plan', async () => {
    const { io, out } = captured();
    expect(await main(['validate', 'fixtures/plans/refused/select-all-under-50.yaml'], io)).toBe(2);
    expect(out[0]).toBe(
      'fixtures/plans/refused/select-all-under-50.yaml:34:22: fis.targets.cartNodes.selectionMode: selectionMode ALL selects 100 % of the matching resources, over blastRadius.maxPercent 50 % [refused: select-all]',
    );
  });

  it('prints a stable JSON object with --json', async () => {
    const valid = captured();
    expect(await main(['validate', '--json', 'fixtures/plans/ecs-stop-task.yaml'], valid.io)).toBe(0);
    const ok = JSON.parse(valid.out.join('\n')) as Record<string, unknown>;
    expect(Object.keys(ok)).toEqual(['valid', 'file', 'digest', 'issues', 'refusals']);
    expect(ok).toMatchObject({
      valid: true,
      file: 'fixtures/plans/ecs-stop-task.yaml',
      issues: [],
      refusals: [],
    });

    const invalid = captured();
    expect(await main(['validate', 'fixtures/plans/invalid/wrong-type.json', '--json'], invalid.io)).toBe(2);
    const bad = JSON.parse(invalid.out.join('\n')) as { valid: boolean; digest?: string; issues: unknown[] };
    expect(bad.valid).toBe(false);
    expect(bad.digest).toBeUndefined();
    expect(bad.issues).toEqual([
      {
        file: 'fixtures/plans/invalid/wrong-type.json',
        line: 7,
        column: 12,
        field: 'owner',
        value: 42,
        expected: 'a string',
        message: '42 is a number; expected a string',
      },
    ]);

    const refused = captured();
    expect(await main(['validate', '--json', 'fixtures/plans/refused/no-abort-rules.yaml'], refused.io)).toBe(
      2,
    );
    const r = JSON.parse(refused.out.join('\n')) as {
      valid: boolean;
      digest: string;
      refusals: { rule: string }[];
    };
    expect(r.valid).toBe(false);
    expect(r.digest).toMatch(/^[0-9a-f]{64}$/);
    expect(r.refusals.map((x) => x.rule)).toEqual(['no-abort-rules']);
  });

  it('exits 2 for a file that does not exist, naming it', async () => {
    const { io, out } = captured();
    expect(await main(['validate', 'fixtures/plans/nope.yaml'], io)).toBe(2);
    expect(out[0]).toMatch(/^fixtures\/plans\/nope\.yaml:1:1: cannot read the plan file: ENOENT/);
  });

  it('rejects unknown flags and a missing argument with exit 2 and the usage', async () => {
    const flag = captured();
    expect(await main(['validate', '--yaml', 'fixtures/plans/redis-partition.yaml'], flag.io)).toBe(2);
    expect(flag.err.join('\n')).toContain("Unknown option '--yaml'");
    expect(flag.err.join('\n')).toContain('Usage: chaos-gate validate <plan> [--json]');

    const none = captured();
    expect(await main(['validate'], none.io)).toBe(2);
    expect(none.err.join('\n')).toContain('missing the plan file argument');
  });

  it('prints its usage with --help and is listed in the top-level help', async () => {
    const help = captured();
    expect(await main(['validate', '--help'], help.io)).toBe(0);
    expect(help.out.join('\n')).toContain(
      'Exit codes: 0 valid and nothing refused; 2 invalid, unreadable or refused.',
    );
    const top = captured();
    await main(['--help'], top.io);
    expect(top.out.join('\n')).toMatch(/validate\s+check a plan file/);
  });
});

describe('chaos-gate validate with a failover section', () => {
  it('refuses a regional plan the failover model predicts will fail, at the failover line', async () => {
    const out: string[] = [];
    const code = await main(['validate', 'fixtures/failover/regional-shallow-check.yaml'], {
      out: (t) => out.push(t),
      err: (t) => out.push(t),
      tty: false,
      env: {},
      cwd: process.cwd(),
    });
    expect(code).toBe(2);
    expect(out.join('\n')).toMatch(
      /regional-shallow-check\.yaml:\d+:3: failover: the model predicts .*a shallow health check never detects a model fault \[refused: failover-predicted-to-fail\]/,
    );
  });
});
