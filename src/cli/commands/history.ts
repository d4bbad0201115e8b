/**
 * `chaos-gate history [journals or directories…] [--artifacts <dir>]`: a verdict history per plan and
 * environment — the last verdicts, time to stop, budget spent, flakiness — and the plans and services
 * not exercised within a period (the untested set), as job-summary Markdown and/or a self-contained HTML
 * page. Journals come from the paths named and, with `--artifacts`, from past workflow runs' artifacts.
 */
import { readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { collectRuns, type UnreadJournal } from '../../journal/collect.js';
import { planHistories, untested } from '../../journal/history.js';
import { renderHistoryHtml, renderHistoryMarkdown, type HistoryView } from '../../report/history.js';
import { formatDuration, parseDuration } from '../../plan/duration.js';
import { loadPlan, MAX_PLAN_BYTES, PlanError } from '../../plan/load.js';
import { readFileBoundedSync } from '../../files/read.js';
import { parse as parseYaml } from 'yaml';
import { forLog, logLines } from '../../security/log-text.js';
import { parseFlags, UsageError, writeCliOutput, type CliCommand, type CliIo } from '../command.js';
import { exitCodesHelp } from '../exit-codes.js';

const EXIT_BAD_INPUT = 2;
const DEFAULT_LAST = 10;
const DEFAULT_PERIOD = '7d';
const DEFAULT_MAX_ARTIFACTS = 200;

const usage = `Usage: chaos-gate history [<journal or directory>...] [--artifacts <dir>] [--plans <dir or file>]...
                          [--last <n>] [--period <duration>] [--markdown [<out>]] [--html <out>]

A verdict history per plan and environment: the last verdicts (oldest to newest), time to stop (first
breach to FIS ended), budget spent, flakiness (verdict changes between consecutive runs whose plan
digest is the same: a changed plan is not a flake) and how often the plan changed; then the plans and
services with no run whose fault ran within the period (the untested set). Every figure is each run's
own judgement. A directory is searched for *.json, *.ndjson and *.jsonl journals.

Options:
  --artifacts <dir>      also read past workflow runs' journal artifacts (named chaos-gate-*), downloaded
                         into <dir> through GitHub's artifacts API with @actions/artifact; needs
                         GITHUB_TOKEN (actions: read) and GITHUB_REPOSITORY, and GITHUB_API_URL off github.com
  --branch <name>        with --artifacts: only artifacts of workflow runs on this branch (e.g. main)
  --max-artifacts <n>    download at most the newest <n> artifacts (default ${DEFAULT_MAX_ARTIFACTS})
  --plans <path>         plan files (or directories of them) that should be exercised: a plan with no run
                         at all is untested too (repeatable)
  --last <n>             verdicts shown per plan (default ${DEFAULT_LAST})
  --period <duration>    the untested set's window, e.g. 7d, 36h (default ${DEFAULT_PERIOD})
  --markdown [<out>]     write the Markdown to <out> (e.g. "$GITHUB_STEP_SUMMARY"); printed when no
                         --html is given
  --html <out>           write the self-contained HTML page to <out>
  -h, --help             show this help

A journal that cannot be read, or an artifact that cannot be downloaded, is listed in the report and
makes the exit code 2.

${exitCodesHelp('history')}`;

function positiveInt(flag: string, value: string | undefined, dflt: number): number {
  if (value === undefined) return dflt;
  if (!/^\d+$/.test(value) || Number(value) < 1)
    throw new UsageError(`${flag} ${value}: expected a whole number of at least 1`);
  return Number(value);
}

/**
 * Plan ids, services and environments of the plan files named. A file named is a plan (a bad one is bad
 * input); in a directory, a YAML file without a plan's `id`, `hypothesis` and `fis` (a policy, a
 * scenario) is passed over and said so.
 */
async function knownPlans(
  paths: readonly string[],
  note: (line: string) => void,
): Promise<{ planId: string; service: string; environment: string }[]> {
  const files: string[] = [];
  for (const p of paths) {
    const s = statSync(p, { throwIfNoEntry: false });
    if (!s)
      throw new UsageError(
        `--plans ${p}: no such file or directory; expected a plan file or a directory of them`,
      );
    if (!s.isDirectory()) {
      files.push(p);
      continue;
    }
    for (const name of readdirSync(p).sort()) {
      const file = join(p, name);
      if (!/\.ya?ml$/i.test(name) || !statSync(file).isFile()) continue;
      if (looksLikePlan(file)) files.push(file);
      else note(`--plans: passed over ${file}: not a plan (no id, hypothesis and fis)`);
    }
  }
  const out: { planId: string; service: string; environment: string }[] = [];
  for (const file of [...new Set(files)]) {
    const { plan } = await loadPlan(file);
    out.push({ planId: plan.id, service: plan.service, environment: plan.environment });
  }
  return out;
}

/** A YAML mapping with the keys every plan has; anything unparseable is left to the plan loader. */
function looksLikePlan(file: string): boolean {
  let doc: unknown;
  try {
    doc = parseYaml(readFileBoundedSync(file, { what: 'plan file', maxBytes: MAX_PLAN_BYTES }).text);
  } catch {
    return true;
  }
  if (typeof doc !== 'object' || doc === null) return true;
  return ['id', 'hypothesis', 'fis'].every((k) => k in doc);
}

export const history: CliCommand = {
  name: 'history',
  usage,
  async run(argv, io) {
    // `--markdown` with or without a file: parseArgs has no optional values, so it is read by hand.
    let markdownOut: string | undefined;
    let markdown = false;
    const args: string[] = [];
    for (let i = 0; i < argv.length; i++) {
      if (argv[i] === '--markdown') {
        markdown = true;
        const next = argv[i + 1];
        if (next !== undefined && !next.startsWith('-')) {
          markdownOut = next;
          i++;
        }
      } else args.push(argv[i]!);
    }
    const parsed = parseFlags(args, {
      artifacts: { type: 'string' },
      'max-artifacts': { type: 'string' },
      branch: { type: 'string' },
      plans: { type: 'string', multiple: true },
      last: { type: 'string' },
      period: { type: 'string' },
      html: { type: 'string' },
    });
    const v = parsed.values;
    const last = positiveInt('--last', v.last, DEFAULT_LAST);
    const maxArtifacts = positiveInt('--max-artifacts', v['max-artifacts'], DEFAULT_MAX_ARTIFACTS);
    const periodText = v.period ?? DEFAULT_PERIOD;
    const periodMs = parseDuration(periodText);
    if (periodMs === undefined || periodMs <= 0)
      throw new UsageError(`--period ${periodText}: expected a duration such as 7d, 36h or 90m`);
    const paths = parsed.positionals.map((p) => resolve(io.cwd, p));
    if (v.branch !== undefined && v.artifacts === undefined)
      throw new UsageError('--branch goes with --artifacts');
    if (paths.length === 0 && v.artifacts === undefined)
      throw new UsageError('name at least one journal or directory, or --artifacts <dir>');

    const problems: UnreadJournal[] = [];
    if (v.artifacts !== undefined) {
      const fetched = await fromArtifacts(io, resolve(io.cwd, v.artifacts), maxArtifacts, v.branch);
      problems.push(...fetched.problems);
      paths.push(fetched.dir);
    }
    let known: Awaited<ReturnType<typeof knownPlans>> = [];
    try {
      known = await knownPlans(
        (v.plans ?? []).map((p) => resolve(io.cwd, p)),
        (line) => io.err(forLog(line)),
      );
    } catch (error) {
      if (!(error instanceof PlanError)) throw error;
      io.err(logLines(error.message));
      return EXIT_BAD_INPUT;
    }
    const { entries, unread } = collectRuns(paths);
    problems.push(...unread);
    const now = Date.now();
    const histories = planHistories(entries);
    const view: HistoryView = {
      histories,
      untested: untested(histories, now - periodMs, known),
      unread: problems,
      last,
      periodMs,
      now,
    };
    if (v.html !== undefined) {
      writeCliOutput(io, '--html', v.html, renderHistoryHtml(view));
      io.err(`wrote ${v.html}`);
    }
    if (markdownOut !== undefined) {
      writeCliOutput(io, '--markdown', markdownOut, renderHistoryMarkdown(view));
      io.err(`wrote ${markdownOut}`);
    } else if (markdown || v.html === undefined) io.out(renderHistoryMarkdown(view));
    io.err(
      `history: ${entries.length} runs of ${histories.length} plans; ${view.untested.plans.length} not exercised within ${formatDuration(periodMs)}`,
    );
    for (const p of problems) io.err(forLog(p.error));
    return problems.length > 0 ? EXIT_BAD_INPUT : 0;
  },
};

async function fromArtifacts(
  io: CliIo,
  dir: string,
  max: number,
  branch: string | undefined,
): Promise<{ dir: string; problems: UnreadJournal[] }> {
  const env = io.env;
  const token = env.GITHUB_TOKEN;
  const [owner, repo, ...rest] = (env.GITHUB_REPOSITORY ?? '').split('/');
  if (!token)
    throw new UsageError('--artifacts needs GITHUB_TOKEN (a token that may read Actions artifacts)');
  if (!owner || !repo || rest.length > 0)
    throw new UsageError(
      `--artifacts needs GITHUB_REPOSITORY as owner/name; got ${JSON.stringify(env.GITHUB_REPOSITORY ?? '')}`,
    );
  const target = dir;
  const { downloadJournalArtifacts } = await import('../../compose/history-artifacts.js');
  const result = await downloadJournalArtifacts({
    apiUrl: env.GITHUB_API_URL ?? 'https://api.github.com',
    token,
    owner,
    repo,
    dir: target,
    max,
    branch,
    log: (line) => io.err(forLog(line)),
  });
  io.err(`downloaded ${result.downloaded} journal artifact(s) into ${target}`);
  return { dir: target, problems: result.problems };
}
