/**
 * `chaos-gate report <journal> [--markdown] [--html <out>]`: renders a journal (final or a crashed prefix) as
 * the job summary, and/or as the self-contained HTML replay report.
 */
import { resolve } from 'node:path';
import { JournalError, readJournal } from '../../journal/read.js';
import { renderSummary } from '../../report/markdown.js';
import { renderReplayHtml } from '../../report/html.js';
import { parseFlags, UsageError, writeCliOutput, type CliCommand } from '../command.js';
import { exitCodesHelp } from '../exit-codes.js';

/** Unreadable input (SPEC §4). */
const EXIT_BAD_INPUT = 2;

const usage = `Usage: chaos-gate report <journal> [--markdown] [--html <out>]

Renders a run journal as the job-summary markdown (verdict, reason, SLI charts, timings, FIS link),
or as one self-contained HTML file that replays the run (Play, Next event, Restart, Speed, scrubber).
Reads both the final journal and the NDJSON prefix a crashed or killed run leaves behind.

Options:
  --markdown    print the markdown (the default when --html is not given)
  --html <out>  write the HTML replay report to <out>
  -h, --help    show this help

${exitCodesHelp('report')}`;

export const report: CliCommand = {
  name: 'report',
  usage,
  async run(argv, io) {
    const parsed = parseFlags(argv, { markdown: { type: 'boolean' }, html: { type: 'string' } });
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
