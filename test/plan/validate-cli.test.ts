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
    expect(out[0]).toMatch(/^fixtures\/plans\/nope\.yaml:1:1: cannot read the plan file: it does not exist/);
  });

  it('rejects unknown flags and a missing argument with exit 2 and the usage', async () => {
    const flag = captured();
    expect(await main(['validate', '--yaml', 'fixtures/plans/redis-partition.yaml'], flag.io)).toBe(2);
    expect(flag.err[0]?.split('\n')[0]).toBe(
      "chaos-gate validate: unknown option '--yaml'; expected one of --json, --policy <value>, --help",
    );
    expect(flag.err.join('\n')).toContain('Usage: chaos-gate validate <plan> [--policy <file>] [--json]');

    const none = captured();
    expect(await main(['validate'], none.io)).toBe(2);
    expect(none.err.join('\n')).toContain('missing the plan file argument');
  });

  it('prints its usage with --help and is listed in the top-level help', async () => {
    const help = captured();
    expect(await main(['validate', '--help'], help.io)).toBe(0);
    expect(help.out.join('\n')).toContain(
      'Exit codes: 0 valid and nothing refused; 2 refused, or an invalid or unreadable plan or policy, or\nbad usage.',
    );
    const top = captured();
    await main(['--help'], top.io);
    expect(top.out.join('\n')).toMatch(/validate\s+check a plan offline/);
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

/**
 * Every plan issue 17 found `validate` calling valid although a run refuses it without touching AWS: each
 * is a fixture, and `validate` exits 2 naming the field and the problem, through the same gates as `run`.
 */
describe('chaos-gate validate applies every check a run makes before touching anything', () => {
  it.each([
    [
      'unknown-time-zone.yaml',
      'schedule.timezone: "Mars/Olympus_Mons" is not an IANA time zone',
      'schedule-invalid',
    ],
    [
      'cron-out-of-range.yaml',
      'schedule.allow[0].cron: "61 9 * * 1-5": minute 61 is outside 0-59',
      'schedule-invalid',
    ],
    [
      'allow-window-too-short.yaml',
      'schedule.allow: every allow window is shorter than the planned run of 3m',
      'schedule-never-fits',
    ],
    [
      'catalog-veto.yaml',
      'blastRadius.catalog.components: the downstream closure reaches a shared single point of failure: redis ← payment-api ← checkout',
      'dependency-closure',
    ],
    [
      'interval-zero.yaml',
      'hypothesis.interval: interval 0ms is shorter than the minimum of 1s',
      'interval-too-short',
    ],
    [
      'count-zero.yaml',
      'fis.targets.cartNodes.selectionMode: COUNT(0) selects no resource',
      'selection-out-of-range',
    ],
    [
      'percent-zero.yaml',
      'PERCENT(0) is not a share of the matching resources FIS accepts',
      'selection-out-of-range',
    ],
    [
      'blind-after-exceeds-fault.yaml',
      'abort.blindAfter: blindAfter 15 failed measurements in a row can never happen: the fault lasts 1m, 12 measurements at 5s',
      'blind-after-exceeds-fault',
    ],
    [
      'abort-for-exceeds-fault.yaml',
      'abort.rules[0].for: for 90s needs 90 breaching measurements in a row, but the fault lasts 1m, 60 measurements at 1s',
      'abort-for-exceeds-fault',
    ],
  ])('%s: exit 2, %s', async (file, fragment, rule) => {
    const { io, out } = captured();
    expect(await main(['validate', `fixtures/plans/refused/${file}`], io)).toBe(2);
    expect(out).toHaveLength(2);
    expect(out[0]).toMatch(new RegExp(`^fixtures/plans/refused/${file.replace('.', '\\.')}:\\d+:\\d+: `));
    expect(out[0]).toContain(fragment);
    expect(out[0]?.endsWith(`[refused: ${rule}]`)).toBe(true);
    expect(out[1]).toBe(`fixtures/plans/refused/${file}: refused (1 problem)`);
  });

  it('refuses what the policy forbids with --policy, one reason per line', async () => {
    const { io, out } = captured();
    const code = await main(
      ['validate', 'fixtures/plans/redis-partition.yaml', '--policy', 'fixtures/policy/org-policy.yaml'],
      io,
    );
    expect(code).toBe(2);
    expect(out[0]).toMatch(
      /^fixtures\/plans\/redis-partition\.yaml:\d+:\d+: blastRadius\.maxPercent 100 exceeds the policy ceiling 25 .*\[refused: ceiling-widened\]$/,
    );
    expect(out.at(-1)).toBe('fixtures/plans/redis-partition.yaml: refused (5 problems)');
    // The plan alone is fine: the refusals are the policy's.
    const alone = captured();
    expect(await main(['validate', 'fixtures/plans/redis-partition.yaml'], alone.io)).toBe(0);
  });

  it('reports an unreadable policy as invalid input, naming the file', async () => {
    const { io, out } = captured();
    expect(
      await main(
        ['validate', 'fixtures/plans/redis-partition.yaml', '--policy', 'fixtures/policy/nope.yaml'],
        io,
      ),
    ).toBe(2);
    expect(out[0]).toMatch(
      /^fixtures\/policy\/nope\.yaml:1:1: cannot read the policy file: it does not exist/,
    );
  });

  it('is what `plan` refuses too: the same gates, one reason per line', async () => {
    const { io, out } = captured();
    expect(await main(['plan', 'fixtures/plans/refused/cron-out-of-range.yaml'], io)).toBe(2);
    const text = out.join('\n');
    expect(text).toContain(
      'refused (1):\n  fixtures/plans/refused/cron-out-of-range.yaml:29: schedule.allow[0].cron: "61 9 * * 1-5": minute 61 is outside 0-59',
    );
  });
});
