/**
 * CLI start-up against a bare Node: `chaos-gate --version`, `--help` and `validate <plan>` from the built
 * bundle, each compared with `node -e 0` in the same round (issue 17: within 2.5× of a bare Node). A round
 * alternates the two {@link TRIES_PER_ROUND} times and compares the fastest of each: other work on the
 * machine only ever adds time, so the minimum is the start-up cost and the ratio stays meaningful under load. The CLI imports each command on demand (src/cli/commands/index.ts)
 * and the build splits it into chunks (scripts/build.mjs), so these commands load only what they use.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { measured, notMeasured, type FigureResult } from '../lib/stats.js';
import { ROOT } from '../lib/world.js';

/** Issue 17: `--version`, `--help` and `validate` start within 2.5× of `node -e 0`. */
export const CLI_START_TARGET_RATIO = 2.5;

/** Alternations of bare Node and the command per round; the round's sample is min(command) ÷ min(node). */
const TRIES_PER_ROUND = 3;

/** The plan `validate` checks: the Redis partition fixture plan (fixtures/plans/redis-partition.yaml). */
const VALIDATE_PLAN = 'fixtures/plans/redis-partition.yaml';

/** The commands measured, by figure id. */
const COMMANDS: readonly { id: string; figure: string; args: string[] }[] = [
  { id: 'cli-start-version', figure: 'CLI start: chaos-gate --version ÷ node -e 0', args: ['--version'] },
  { id: 'cli-start-help', figure: 'CLI start: chaos-gate --help ÷ node -e 0', args: ['--help'] },
  {
    id: 'cli-start-validate',
    figure: 'CLI start: chaos-gate validate <plan> ÷ node -e 0',
    args: ['validate', VALIDATE_PLAN],
  },
];

/** Wall time of one process, spawn to exit, in ms; throws when it fails. */
function timed(args: string[]): number {
  const start = process.hrtime.bigint();
  const r = spawnSync(process.execPath, args, { cwd: ROOT, encoding: 'utf8' });
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  if (r.status !== 0)
    throw new Error(`node ${args.join(' ')} exited ${r.status}: ${r.stderr.trim().slice(-300)}`);
  return ms;
}

/** `rounds` interleaved rounds of bare Node and each command of `<distDir>/cli.js`. */
export function benchCliStart(distDir: string, rounds: number, log: (line: string) => void): FigureResult[] {
  const cli = path.join(distDir, 'cli.js');
  const target = { max: CLI_START_TARGET_RATIO, text: `≤ ${CLI_START_TARGET_RATIO}× node -e 0` };
  const base = (c: (typeof COMMANDS)[number]) => ({
    id: c.id,
    figure: c.figure,
    unit: '×',
    method: `node ${path.relative(ROOT, cli)} ${c.args.join(' ')} spawn to exit ÷ node -e 0, fastest of ${TRIES_PER_ROUND} alternations per round`,
  });
  if (!existsSync(cli)) {
    return COMMANDS.map((c) =>
      notMeasured(
        base(c),
        target.text,
        `${path.relative(ROOT, cli)} is missing (the build failed or was skipped)`,
      ),
    );
  }
  const ratios = new Map<string, number[]>(COMMANDS.map((c) => [c.id, []]));
  const times = new Map<string, number[]>(COMMANDS.map((c) => [c.id, []]));
  const bare: number[] = [];
  try {
    timed([cli, '--version']); // warm the file cache once, as a user's second run would find it
    for (let i = 0; i < rounds; i++) {
      for (const c of COMMANDS) {
        let node = Infinity;
        let ms = Infinity;
        for (let t = 0; t < TRIES_PER_ROUND; t++) {
          node = Math.min(node, timed(['-e', '0']));
          ms = Math.min(ms, timed([cli, ...c.args]));
        }
        bare.push(node);
        times.get(c.id)?.push(ms);
        ratios.get(c.id)?.push(ms / node);
      }
    }
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    return COMMANDS.map((c) => notMeasured(base(c), target.text, why));
  }
  const ms = (xs: number[]): string => xs.map((x) => x.toFixed(0)).join(', ');
  log(`  node -e 0: ${ms(bare)} ms`);
  for (const c of COMMANDS) log(`  ${c.args[0]}: ${ms(times.get(c.id) ?? [])} ms`);
  return COMMANDS.map((c) =>
    measured({ ...base(c), details: { ms: times.get(c.id), nodeMs: bare } }, ratios.get(c.id) ?? [], target),
  );
}
