/**
 * A long simulated run (issue 29): `chaos-gate simulate` on its virtual clock with many SLIs and a long
 * fault, journal to a file, then `chaos-gate report` over that journal (Markdown and the HTML replay).
 * Prints the journal's bytes, the replay's bytes, each process's peak RSS and wall time.
 *
 *   npx tsx bench/long-run.ts                    # 12 h × 60 SLIs (the issue's figure)
 *   npx tsx bench/long-run.ts --hours 0.5 --slis 60
 *   npx tsx bench/long-run.ts --breach 3,41      # those SLIs dip below their bound: deviated
 *
 * Each command runs in its own `node` process under `/usr/bin/time -f %M` (peak RSS, KiB).
 */
import { spawnSync } from 'node:child_process';
import {
  closeSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { longPlan, longScenario } from '../test/helpers/long-run.js';

const ROOT = path.resolve(import.meta.dirname, '..');
/** tsx by its file URL: the commands run in a temporary directory, outside the repository's node_modules. */
const TSX = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;

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

/** The journal's last line (its final record, when the run finished), read from the file's end. */
function lastLine(file: string, size: number): string {
  const length = Math.min(size, 16 * 1024 * 1024);
  const buffer = Buffer.alloc(length);
  const fd = openSync(file, 'r');
  try {
    readSync(fd, buffer, 0, length, size - length);
  } finally {
    closeSync(fd);
  }
  const text = buffer.toString('utf8').replace(/\n+$/, '');
  return text.slice(text.lastIndexOf('\n') + 1);
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
      /** SLIs (by index, comma-separated) whose fault readings dip around their bound: a deviated run. */
      breach: { type: 'string', default: '' },
    },
  });
  const hours = Number(values.hours);
  const slis = Number(values.slis);
  const faultMs = Math.round(hours * 3_600_000);
  const dir = mkdtempSync(path.join(tmpdir(), 'cg-long-'));
  mkdirSync(path.join(dir, 'out'));
  writeFileSync(path.join(dir, 'plan.yaml'), longPlan(slis, faultMs));
  const breach = values.breach === '' ? [] : values.breach.split(',').map(Number);
  writeFileSync(path.join(dir, 'scenario.yaml'), longScenario(slis, faultMs, { breach }));
  console.log(
    `long run: ${hours} h fault × ${slis} SLIs at 1 s${breach.length ? `, SLIs ${breach.join(', ')} dipping below their bound` : ''} (${dir})`,
  );
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
  const journalFile = path.join(dir, 'out/journal.json');
  const final = journalBytes > 0 ? lastLine(journalFile, journalBytes) : '';
  const finalForm = final.startsWith('{"record":"final"')
    ? `final record ${Buffer.byteLength(final)} B`
    : 'one JSON document';
  console.log(
    `simulate: exit ${sim.status}, verdict ${verdict}, journal ${journalBytes} B (${mib(journalBytes)}; ${finalForm}), peak RSS ${mib(sim.peakRssBytes)}, wall ${(sim.wallMs / 1000).toFixed(1)} s`,
  );
  const md = timed(['report', 'out/journal.json', '--markdown'], dir);
  const mdBytes = Buffer.byteLength(md.stdout);
  const headline = md.stdout.split('\n').find((l) => l.trim() !== '') ?? '';
  console.log(
    `report markdown: exit ${md.status}, ${mdBytes} B ("${headline.slice(0, 60)}"), peak RSS ${mib(md.peakRssBytes)}, wall ${(md.wallMs / 1000).toFixed(1)} s${md.status === 0 ? '' : ` — ${md.stderr.trim().split('\n').slice(-2).join(' | ')}`}`,
  );
  const html = timed(['report', 'out/journal.json', '--html', 'out/replay.html'], dir);
  const htmlBytes = statSync(path.join(dir, 'out/replay.html'), { throwIfNoEntry: false })?.size ?? 0;
  console.log(
    `report html: exit ${html.status}, replay ${htmlBytes} B (${mib(htmlBytes)}), peak RSS ${mib(html.peakRssBytes)}, wall ${(html.wallMs / 1000).toFixed(1)} s${html.status === 0 ? '' : ` — ${html.stderr.trim().split('\n').slice(-2).join(' | ')}`}`,
  );
  if (!values.keep) rmSync(dir, { recursive: true, force: true });
}

await main();
