/**
 * A long simulated run (issue 29): `chaos-gate simulate` on its virtual clock with many SLIs and a long
 * fault, journal to a file, then `chaos-gate report` over that journal (Markdown and the HTML replay).
 * Prints the journal's bytes, the replay's bytes, each process's peak RSS and wall time.
 *
 *   npx tsx bench/long-run.ts                    # 12 h × 60 SLIs (the issue's figure)
 *   npx tsx bench/long-run.ts --hours 0.5 --slis 60
 *
 * Each command runs in its own `node` process under `/usr/bin/time -f %M` (peak RSS, KiB).
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, statSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

const ROOT = path.resolve(import.meta.dirname, '..');
/** tsx by its file URL: the commands run in a temporary directory, outside the repository's node_modules. */
const TSX = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;

/** A plan with `slis` SLIs judged during a fault of `faultMs`. */
export function longPlan(slis: number, faultMs: number): string {
  const seconds = Math.round(faultMs / 1000);
  const lines = [
    'version: 1',
    'id: long-run',
    'title: A long fault with many SLIs',
    'service: checkout',
    'environment: staging',
    'owner: team-payments',
    'hypothesis:',
    '  interval: 1s',
    '  minRequests: 100',
    '  requests:',
    '    prometheus: sum(increase(http_requests_total[1s]))',
    '  slis:',
  ];
  for (let i = 0; i < slis; i++) {
    lines.push(
      `    - name: sli_${i}`,
      `      prometheus: max(sli_${i}_ratio)`,
      '      min: 0.99',
      '      steady: { min: 0.995 }',
    );
  }
  lines.push(
    '  steadyState: { duration: 5s }',
    '  recovery: { within: 10s }',
    'abort:',
    '  rules:',
    '    - { sli: sli_0, below: 0.9, for: 5s }',
    'blastRadius:',
    '  maxTargets: 1',
    `  maxActionDuration: ${seconds}s`,
    `  maxRunDuration: ${seconds + 3600}s`,
    'fis:',
    '  roleArn: arn:aws:iam::111122223333:role/chaos-gate-fis',
    '  targets:',
    '    primary:',
    '      resourceType: aws:ec2:subnet',
    '      resourceTags: { Environment: staging-chaos }',
    '      selectionMode: COUNT(1)',
    '  actions:',
    '    partition:',
    '      actionId: aws:network:disrupt-connectivity',
    `      parameters: { duration: PT${seconds}S, scope: all }`,
    '      targets: { Subnets: primary }',
  );
  return lines.join('\n') + '\n';
}

/** The matching world: every SLI steady near 0.999, a small dip during the fault, recovery in 2 s. */
export function longScenario(slis: number, faultMs: number): string {
  const lines = ['version: 1', 'description: long run', 'seed: 7', 'metrics:'];
  for (let i = 0; i < slis; i++) {
    lines.push(
      `  sli_${i}:`,
      '    baseline: 0.9995',
      '    noise: 0.0003',
      '    max: 1',
      '    effect: {to: 0.997, delay: 1s, recoveryLag: 2s}',
    );
  }
  lines.push(
    'requests: {baseline: 800, noise: 20}',
    `injector: {actionDuration: ${Math.round(faultMs / 1000)}s, stopLatency: 1s}`,
    'outcome: {verdict: held}',
  );
  return lines.join('\n') + '\n';
}

interface Timed {
  status: number | null;
  stdout: string;
  stderr: string;
  peakRssBytes: number;
  wallMs: number;
}

function timed(args: string[], cwd: string): Timed {
  const started = Date.now();
  const r = spawnSync(
    '/usr/bin/time',
    ['-f', 'maxrss_kib=%M', process.execPath, '--import', TSX, path.join(ROOT, 'src/cli/index.ts'), ...args],
    { cwd, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, env: { ...process.env, NODE_OPTIONS: '' } },
  );
  const wallMs = Date.now() - started;
  const m = /maxrss_kib=(\d+)/.exec(r.stderr);
  return {
    status: r.status,
    stdout: r.stdout,
    stderr: r.stderr.replace(/maxrss_kib=\d+\n?/, ''),
    peakRssBytes: m ? Number(m[1]) * 1024 : NaN,
    wallMs,
  };
}

function mib(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      hours: { type: 'string', default: '12' },
      slis: { type: 'string', default: '60' },
      keep: { type: 'boolean', default: false },
    },
  });
  const hours = Number(values.hours);
  const slis = Number(values.slis);
  const faultMs = Math.round(hours * 3_600_000);
  const dir = mkdtempSync(path.join(tmpdir(), 'cg-long-'));
  mkdirSync(path.join(dir, 'out'));
  writeFileSync(path.join(dir, 'plan.yaml'), longPlan(slis, faultMs));
  writeFileSync(path.join(dir, 'scenario.yaml'), longScenario(slis, faultMs));
  console.log(`long run: ${hours} h fault × ${slis} SLIs at 1 s (${dir})`);
  const sim = timed(
    ['simulate', 'plan.yaml', '--scenario', 'scenario.yaml', '--journal', 'out/journal.json', '--json'],
    dir,
  );
  let verdict = 'none';
  try {
    verdict = (JSON.parse(sim.stdout) as { verdict: string }).verdict;
  } catch {
    verdict = `no verdict on stdout (exit ${sim.status}): ${sim.stderr.trim().split('\n').slice(-3).join(' | ')}`;
  }
  const journalBytes = statSync(path.join(dir, 'out/journal.json'), { throwIfNoEntry: false })?.size ?? 0;
  console.log(
    `simulate: exit ${sim.status}, verdict ${verdict}, journal ${journalBytes} B (${mib(journalBytes)}), peak RSS ${mib(sim.peakRssBytes)}, wall ${(sim.wallMs / 1000).toFixed(1)} s`,
  );
  const md = timed(['report', 'out/journal.json', '--markdown'], dir);
  const mdBytes = Buffer.byteLength(md.stdout);
  console.log(
    `report markdown: exit ${md.status}, ${mdBytes} B, peak RSS ${mib(md.peakRssBytes)}, wall ${(md.wallMs / 1000).toFixed(1)} s${md.status === 0 ? '' : ` — ${md.stderr.trim().split('\n').slice(-2).join(' | ')}`}`,
  );
  const html = timed(['report', 'out/journal.json', '--html', 'out/replay.html'], dir);
  const htmlBytes = statSync(path.join(dir, 'out/replay.html'), { throwIfNoEntry: false })?.size ?? 0;
  console.log(
    `report html: exit ${html.status}, replay ${htmlBytes} B (${mib(htmlBytes)}), peak RSS ${mib(html.peakRssBytes)}, wall ${(html.wallMs / 1000).toFixed(1)} s${html.status === 0 ? '' : ` — ${html.stderr.trim().split('\n').slice(-2).join(' | ')}`}`,
  );
  if (!values.keep) rmSync(dir, { recursive: true, force: true });
}

await main();
