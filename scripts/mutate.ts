/**
 * `npm run mutate [-- --mutate src/engine/assess.ts,…]`: StrykerJS over src/engine, src/plan,
 * src/metrics and src/preflight (stryker.config.json), then the mutation score per folder.
 *
 * StrykerJS 9 runs on Node 20, the oldest Node chaos-gate supports (StrykerJS 10 and its Babel 8 need
 * Node 22, which made `npm ci` on Node 20 warn about 52 packages). On an older Node this installs Node 24
 * from the npm registry into ${TMPDIR}/chaos-gate-node24 (as .ci/run does) and runs Stryker under it.
 * Slow (tens of minutes on 2 cores): not part of `npm test` or CI.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
/** The oldest Node StrykerJS 9 runs on (its package.json `engines`). */
const STRYKER_MIN_NODE = 20;
/** The folders the issue asks a score for; anything else mutated is reported under its own folder. */
const FOLDERS = ['src/engine', 'src/plan', 'src/metrics', 'src/preflight'];
const REPORT = join(ROOT, 'out/mutation/mutation.json');

function nodeBinary(): string {
  if (Number(process.versions.node.split('.')[0]) >= STRYKER_MIN_NODE) return process.execPath;
  const dir = join(process.env.TMPDIR ?? tmpdir(), 'chaos-gate-node24');
  const bin = join(dir, 'node_modules/.bin/node');
  if (!existsSync(bin)) {
    console.error(
      `Node ${process.versions.node} is older than ${STRYKER_MIN_NODE}: installing node@24 into ${dir}`,
    );
    const npm = spawnSync(
      'npm',
      ['install', '--no-save', '--no-audit', '--no-fund', '--prefix', dir, 'node@24'],
      {
        stdio: 'inherit',
      },
    );
    if (npm.status !== 0) process.exit(npm.status ?? 1);
  }
  return realpathSync(bin);
}

interface Counts {
  killed: number;
  survived: number;
  noCoverage: number;
  timeout: number;
  other: number;
}

interface MutationReport {
  files: Record<string, { mutants: { status: string }[] }>;
}

/** Stryker's own score: (killed + timeout) / (killed + timeout + survived + no coverage). */
function scores(report: MutationReport): Map<string, Counts> {
  const byFolder = new Map<string, Counts>();
  for (const [file, { mutants }] of Object.entries(report.files)) {
    const folder = FOLDERS.find((f) => file.startsWith(`${f}/`)) ?? dirname(file);
    const s = byFolder.get(folder) ?? { killed: 0, survived: 0, noCoverage: 0, timeout: 0, other: 0 };
    for (const m of mutants) {
      if (m.status === 'Killed') s.killed++;
      else if (m.status === 'Timeout') s.timeout++;
      else if (m.status === 'Survived') s.survived++;
      else if (m.status === 'NoCoverage') s.noCoverage++;
      else s.other++;
    }
    byFolder.set(folder, s);
  }
  return byFolder;
}

const node = nodeBinary();
const stryker = join(ROOT, 'node_modules/@stryker-mutator/core/bin/stryker.js');
const run = spawnSync(node, [stryker, 'run', ...process.argv.slice(2)], { cwd: ROOT, stdio: 'inherit' });
if (run.status !== 0 || !existsSync(REPORT)) process.exit(run.status ?? 1);

const rows = [...scores(JSON.parse(readFileSync(REPORT, 'utf8')) as MutationReport)].sort(([a], [b]) =>
  a.localeCompare(b),
);
console.log('\nmutation score per folder (killed + timeout of valid mutants):');
console.log('| folder | score | killed | timeout | survived | no coverage | total |');
console.log('|---|---|---|---|---|---|---|');
for (const [folder, s] of rows) {
  const valid = s.killed + s.timeout + s.survived + s.noCoverage;
  const score = valid === 0 ? 'n/a' : `${((100 * (s.killed + s.timeout)) / valid).toFixed(1)} %`;
  console.log(
    `| ${folder} | ${score} | ${s.killed} | ${s.timeout} | ${s.survived} | ${s.noCoverage} | ${valid} |`,
  );
}
