/** `chaos-gate report <journal> --markdown`: renders a journal (final or a crashed prefix) as the job summary. */
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { JournalError, readJournal } from '../../journal/read.js';
import { renderSummary } from '../../report/markdown.js';
import { UsageError, type CliCommand } from '../command.js';

/** Unreadable input (SPEC §4). */
const EXIT_BAD_INPUT = 2;

const usage = `Usage: chaos-gate report <journal> [--markdown]

Renders a run journal as the job-summary markdown (verdict, reason, SLI charts, timings, FIS link).
Reads both the final journal and the NDJSON prefix a crashed or killed run leaves behind.

Options:
  --markdown  markdown output (the default)
  -h, --help  show this help

Exit codes: 0 rendered; 2 unreadable journal.`;

export const report: CliCommand = {
  name: 'report',
  summary: 'render a run journal (also a crashed prefix) as job-summary markdown',
  usage,
  async run(argv, io) {
    let parsed;
    try {
      parsed = parseArgs({
        args: argv,
        options: { markdown: { type: 'boolean', default: true } },
        allowPositionals: true,
        strict: true,
      });
    } catch (error) {
      throw new UsageError(error instanceof Error ? error.message : String(error));
    }
    const [file, ...extra] = parsed.positionals;
    if (file === undefined) throw new UsageError('missing the journal file argument');
    if (extra.length > 0) throw new UsageError(`expected one journal file, got also: ${extra.join(' ')}`);
    try {
      io.out(renderSummary(readJournal(resolve(io.cwd, file))));
      return 0;
    } catch (error) {
      if (!(error instanceof JournalError)) throw error;
      io.err(error.message);
      return EXIT_BAD_INPUT;
    }
  },
};
