/**
 * `chaos-gate report <journal> [--markdown] [--html <out>]`: renders a journal (final or a crashed prefix) as
 * the job summary, and/or as the self-contained HTML replay report. `--matrix <journals…>` renders many
 * runs' journals (files or directories of them) as one job summary, a row per plan, worst first.
 */
import { resolve } from 'node:path';
import { JournalError, readJournal } from '../../journal/read.js';
import { renderSummary } from '../../report/markdown.js';
import { renderReplayHtml } from '../../report/html.js';
import { parseFlags, UsageError, writeCliOutput, type CliCommand, type CliIo } from '../command.js';
import { exitCodesHelp } from '../exit-codes.js';
import { collectRuns } from '../../journal/collect.js';
import { renderMatrix } from '../../report/matrix.js';
import { forLog } from '../../security/log-text.js';

/** Unreadable input (docs/design/verdicts.md). */
const EXIT_BAD_INPUT = 2;

const usage = `Usage: chaos-gate report <journal> [--markdown] [--html <out>]
       chaos-gate report --matrix <journal or directory>... [--repo-url <url>]

Renders a run journal as the job-summary markdown (verdict, reason, SLI charts, timings, FIS link),
or as one self-contained HTML file that replays the run (Play, Next event, Restart, Speed, scrubber).
Reads both the final journal and the NDJSON prefix a crashed or killed run leaves behind.

With --matrix: one job summary over many runs (a nightly matrix's downloaded journal artifacts): a row
per plan with its verdict, reason, first breach → FIS ended, budget spent and link, worst first, within
GitHub's 1 MiB job-summary limit (rows past it are left off, the best verdicts first, and said so). A
directory is searched for *.json, *.ndjson and *.jsonl files; one that is not a readable journal is
listed in the summary, counted as not held, and makes the exit code 2.

Options:
  --markdown        print the markdown (the default when --html is not given)
  --html <out>      write the HTML replay report to <out>
  --matrix          render every journal named (files or directories) as one matrix summary
  --repo-url <url>  with --matrix: link each run to <url>/actions/runs/<run id> (default:
                    $GITHUB_SERVER_URL/$GITHUB_REPOSITORY when both are set)
  -h, --help        show this help

${exitCodesHelp('report')}`;

export const report: CliCommand = {
  name: 'report',
  usage,
  async run(argv, io) {
    const parsed = parseFlags(argv, {
      markdown: { type: 'boolean' },
      html: { type: 'string' },
      matrix: { type: 'boolean' },
      'repo-url': { type: 'string' },
    });
    if (parsed.values.matrix) return matrix(parsed.positionals, parsed.values['repo-url'], io);
    if (parsed.values['repo-url'] !== undefined) throw new UsageError('--repo-url goes with --matrix');
    const [file, ...extra] = parsed.positionals;
    if (file === undefined) throw new UsageError('missing the journal file argument');
    if (extra.length > 0) throw new UsageError(`expected one journal file, got also: ${extra.join(' ')}`);
    try {
      const journal = readJournal(resolve(io.cwd, file));
      const html = parsed.values.html;
      if (html !== undefined) {
        writeCliOutput(io, '--html', html, renderReplayHtml(journal));
        io.err(`wrote ${html}`);
      }
      if (html === undefined || parsed.values.markdown) io.out(renderSummary(journal));
      return 0;
    } catch (error) {
      if (!(error instanceof JournalError)) throw error;
      io.err(error.message);
      return EXIT_BAD_INPUT;
    }
  },
};

/** `report --matrix`: every journal named, one summary; an unreadable one is shown and exits 2. */
async function matrix(paths: string[], repoUrl: string | undefined, io: CliIo): Promise<number> {
  if (paths.length === 0) throw new UsageError('--matrix needs at least one journal file or directory');
  if (repoUrl !== undefined && !/^https?:\/\/[^\s/]+\/[^\s]+[^/\s]$/.test(repoUrl))
    throw new UsageError(
      `--repo-url ${repoUrl}: expected a repository URL such as https://github.com/owner/repo`,
    );
  const { entries, unread } = collectRuns(paths.map((p) => resolve(io.cwd, p)));
  const env = io.env;
  const url =
    repoUrl ??
    (env.GITHUB_SERVER_URL && env.GITHUB_REPOSITORY
      ? `${env.GITHUB_SERVER_URL}/${env.GITHUB_REPOSITORY}`
      : undefined);
  io.out(renderMatrix(entries, unread, { repoUrl: url }));
  for (const u of unread) io.err(forLog(u.error));
  return unread.length > 0 ? EXIT_BAD_INPUT : 0;
}
