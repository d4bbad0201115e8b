/**
 * `chaos-gate model failover`: the regional failover model of docs/design/analysis.md#model-failover, before spending an
 * experiment. Prints the result (or JSON) and can write the interactive HTML replay.
 */
import { formatFailoverText, modelFailover, type FailoverInputs } from '../../analysis/failover.js';
import { Failover } from '../../plan/schema.js';
import { renderFailoverHtml } from '../../report/html.js';
import { parseFlags, UsageError, writeCliOutput, type CliCommand } from '../command.js';
import { exitCodesHelp } from '../exit-codes.js';

/** Exit code when the model predicts the gate fails: the same as a verdict that blocks promotion. */
const EXIT_GATE_FAILS = 1;

const usage = `Usage: chaos-gate model failover --every <s> --failures <n> --depth shallow|deep --ttl <s>
                                --capacity full|half|zero --replication async|sync [--fault region|model]
                                [--min-served 70] [--max-failover 15] [--json] [--html <out>]

A deterministic model of an agent service failing over from a primary to a secondary region over
60 s at 10 rps, the primary down from 15 s to 45 s (docs/analysis.md). Same inputs as a plan's failover section.

Options:
  --every S          health-check period in seconds
  --failures N       consecutive failed checks that mark the primary down
  --depth D          shallow (the process answers) or deep (calls the model endpoint)
  --ttl S            seconds clients cache the route
  --capacity C       secondary capacity: full (10 rps), half (5 rps), zero (cold for 20 s)
  --replication R    async (10 s lag) or sync
  --fault F          region (default) or model (only the model endpoint fails)
  --min-served P     gate: minimum percent of outage requests served (default 70)
  --max-failover S   gate: maximum seconds to the first request served by the secondary (default 15)
  --json             print {markedDownAt, servedShare, failoverSeconds, lostConversations, pass, criteria, series, events}
  --html OUT         also write the interactive replay to OUT (one self-contained file)
  -h, --help         show this help

${exitCodesHelp('model')}`;

/** Each model input: its flag and what it accepts, in our words (never zod's). */
const FLAGS: Record<string, { flag: string; expected: string }> = {
  every: { flag: '--every', expected: 'a number of seconds above 0' },
  failures: { flag: '--failures', expected: 'a whole number of failed checks, 1 or more' },
  depth: { flag: '--depth', expected: 'shallow or deep' },
  ttl: { flag: '--ttl', expected: 'a number of seconds above 0' },
  capacity: { flag: '--capacity', expected: 'full, half or zero' },
  replication: { flag: '--replication', expected: 'async or sync' },
  fault: { flag: '--fault', expected: 'region or model' },
  minServed: { flag: '--min-served', expected: 'a percentage from 0 to 100' },
  maxFailover: { flag: '--max-failover', expected: 'a number of seconds above 0' },
};

/** Parses the flags into model inputs, validated by the plan's own `failover` schema. */
export function parseFailoverFlags(values: Record<string, string | boolean | undefined>): FailoverInputs {
  const number = (flag: string): number | string | undefined => {
    const raw = values[flag];
    if (typeof raw !== 'string') return undefined;
    const n = Number(raw);
    return raw.trim() === '' || Number.isNaN(n) ? raw : n;
  };
  const candidate = {
    every: number('every'),
    failures: number('failures'),
    depth: values['depth'],
    ttl: number('ttl'),
    capacity: values['capacity'],
    replication: values['replication'],
    fault: values['fault'],
    minServed: number('min-served'),
    maxFailover: number('max-failover'),
  };
  const parsed = Failover.safeParse(candidate);
  if (!parsed.success) {
    const keys = [...new Set(parsed.error.issues.map((issue) => String(issue.path[0] ?? '')))];
    const problems = keys.map((key) => {
      const { flag, expected } = FLAGS[key] ?? { flag: `--${key}`, expected: 'a valid value' };
      const given = (candidate as Record<string, unknown>)[key];
      return given === undefined
        ? `${flag} is missing; expected ${expected}`
        : `${flag} '${String(given)}' is not valid; expected ${expected}`;
    });
    // One reason per line (src/cli/main.ts prefixes each with the command).
    throw new UsageError(problems.join('\n'));
  }
  return parsed.data;
}

export const model: CliCommand = {
  name: 'model',
  usage,
  async run(argv, io) {
    const [sub, ...rest] = argv;
    if (sub !== 'failover') {
      throw new UsageError(
        sub === undefined ? 'missing the model name (failover)' : `unknown model '${sub}'; expected failover`,
      );
    }
    const parsed = parseFlags(rest, {
      every: { type: 'string' },
      failures: { type: 'string' },
      depth: { type: 'string' },
      ttl: { type: 'string' },
      capacity: { type: 'string' },
      replication: { type: 'string' },
      fault: { type: 'string' },
      'min-served': { type: 'string' },
      'max-failover': { type: 'string' },
      json: { type: 'boolean', default: false },
      html: { type: 'string' },
    });
    if (parsed.positionals.length > 0)
      throw new UsageError(`unexpected argument: ${parsed.positionals.join(' ')}`);
    const inputs = parseFailoverFlags(parsed.values);
    const result = modelFailover(inputs);
    io.out(parsed.values.json ? JSON.stringify(result, null, 2) : formatFailoverText(result, inputs));
    if (parsed.values.html !== undefined) {
      writeCliOutput(io, '--html', parsed.values.html, renderFailoverHtml(result, inputs));
      io.err(`wrote the replay to ${parsed.values.html}`);
    }
    return result.pass ? 0 : EXIT_GATE_FAILS;
  },
};
