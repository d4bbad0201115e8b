/**
 * The CLI's front door: `--version`, help, and messages in one wording (what, where, the value, what is
 * expected), never Node's or zod's, one reason per line.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { CliIo } from '../../src/cli/command.js';
import { main } from '../../src/cli/main.js';

const ROOT = join(import.meta.dirname, '../..');
const VERSION = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;

async function cli(args: string[], env: NodeJS.ProcessEnv = {}) {
  const out: string[] = [];
  const err: string[] = [];
  const io: CliIo = {
    out: (t) => void out.push(t),
    err: (t) => void err.push(t),
    tty: false,
    env,
    cwd: ROOT,
  };
  const code = await main(args, io);
  return { code, out: out.join('\n'), err: err.join('\n') };
}

describe('chaos-gate', () => {
  it.each([['--version'], ['-v'], ['version']])('%s prints the package version and exits 0', async (flag) => {
    expect(await cli([flag])).toEqual({ code: 0, out: VERSION, err: '' });
  });

  it('prints the usage with --help (exit 0) and without arguments (exit 2, on stderr)', async () => {
    const help = await cli(['--help']);
    expect(help.code).toBe(0);
    expect(help.out).toContain('Usage: chaos-gate <command> [options]');
    expect(help.out).toContain('chaos-gate --version');
    const bare = await cli([]);
    expect(bare.code).toBe(2);
    expect(bare.err).toBe(help.out);
  });

  it("prints one command's usage with `help <command>`", async () => {
    const r = await cli(['help', 'kill']);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^Usage: chaos-gate kill /);
  });

  it('names an unknown command or option in one line with what is expected', async () => {
    expect(await cli(['frobnicate'])).toEqual({
      code: 2,
      out: '',
      err: "chaos-gate: unknown command 'frobnicate'; expected a command (run, plan, validate, init, import, simulate, report, history, demo, measure, scan, model, sandbox, kill), --help or --version",
    });
    expect((await cli(['--verbose'])).err).toMatch(
      /^chaos-gate: unknown option '--verbose'; expected a command/,
    );
  });

  it("rewords Node's flag errors: balanced quotes, the option, what is expected", async () => {
    const unknown = await cli(['report', '--bogus', 'x.json']);
    expect(unknown.code).toBe(2);
    const first = unknown.err.split('\n')[0] ?? '';
    expect(first).toBe(
      "chaos-gate report: unknown option '--bogus'; expected one of --markdown, --html <value>, --matrix, --repo-url <value>, --help",
    );
    expect((first.match(/'/g) ?? []).length % 2).toBe(0);
    expect(unknown.err).not.toContain('To specify a positional argument');

    const missing = await cli(['report', 'x.json', '--html']);
    expect(missing.err.split('\n')[0]).toBe(
      "chaos-gate report: option '--html' needs a value; expected --html <value>",
    );
    const extra = await cli(['validate', 'p.yaml', '--json=yes']);
    expect(extra.err.split('\n')[0]).toBe(
      "chaos-gate validate: option '--json' takes no value (given '--json=yes'); expected --json alone",
    );
  });

  it('prints an unexpected failure as one line without a stack, and the stack on request', async () => {
    // A directory where the journal is expected makes `report` fail in a way it does not anticipate.
    const r = await cli(['report', 'fixtures', '--html', '/dev/null/x.html']);
    expect(r.code).not.toBe(0);
    expect(r.err.split('\n')).toHaveLength(1);
    expect(r.err).not.toMatch(/\n\s+at /);
  });
});

describe('the same defaults in the CLI and the action', () => {
  it("waits as long for an overlapping experiment: run's --queue-timeout and the action's queue-timeout", async () => {
    const { parse } = await import('yaml');
    const action = parse(readFileSync(join(ROOT, 'action.yml'), 'utf8')) as {
      inputs: Record<string, { default?: string }>;
    };
    const { DEFAULT_QUEUE_TIMEOUT } = await import('../../src/preflight/concurrency.js');
    const { INPUT_DEFAULTS } = await import('../../src/action/inputs.js');
    expect(action.inputs['queue-timeout']?.default).toBe(DEFAULT_QUEUE_TIMEOUT);
    expect(INPUT_DEFAULTS['queue-timeout']).toBe(DEFAULT_QUEUE_TIMEOUT);
    const help = await cli(['run', '--help']);
    expect(help.out).toContain(`active-experiment quota (default ${DEFAULT_QUEUE_TIMEOUT})`);
  });
});
