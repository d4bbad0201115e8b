/**
 * `chaos-gate init --action <FIS action id> --service <name> [--out <file>]`: a first plan, commented,
 * that validates as written (src/plan/init.ts).
 */
import { existsSync } from 'node:fs';
import { InitError, initActions, initPlan } from '../../plan/init.js';
import { confinedOutputPath, parseFlags, UsageError, writeCliOutput, type CliCommand } from '../command.js';
import { exitCodesHelp } from '../exit-codes.js';

const usage = `Usage: chaos-gate init --action <FIS action id> --service <name> [--environment <name>]
       [--out <plan.yaml>] [--force]

Writes a first plan for one FIS action against one service: its target, the action's required
parameters within FIS's documented limits, a latency and an error SLI (Prometheus), abort rules, a
blast radius and an error budget, each with a comment. It validates as written; the comments marked
"change" are the values that name your own resources.

Options:
  --action <id>          the FIS action, e.g. aws:ecs:stop-task
  --service <name>       the service under test (a slug; it labels the queries and names the plan)
  --environment <name>   the plan's environment (default staging)
  --out <file>           write the plan there (default: print it)
  --force                overwrite --out when it exists
  -h, --help             show this help

Actions: ${initActions().join(', ')}.

${exitCodesHelp('init')}`;

export const init: CliCommand = {
  name: 'init',
  usage,
  async run(argv, io) {
    const { values, positionals } = parseFlags(argv, {
      action: { type: 'string' },
      service: { type: 'string' },
      environment: { type: 'string' },
      out: { type: 'string' },
      force: { type: 'boolean', default: false },
    });
    if (positionals.length > 0)
      throw new UsageError(`unexpected argument '${positionals[0]}': init takes options only`);
    if (values.action === undefined) throw new UsageError('missing --action <FIS action id>');
    if (values.service === undefined) throw new UsageError('missing --service <name>');
    const out = values.out === undefined ? undefined : confinedOutputPath(io, '--out', values.out);
    if (out && existsSync(out) && !values.force)
      throw new UsageError(`--out ${values.out} exists; pass --force to overwrite it`);
    let text: string;
    try {
      text = initPlan({ actionId: values.action, service: values.service, environment: values.environment });
    } catch (error) {
      if (error instanceof InitError) throw new UsageError(error.message);
      throw error;
    }
    if (values.out === undefined) {
      io.out(text.trimEnd());
      return 0;
    }
    writeCliOutput(io, '--out', values.out, text);
    io.err(`wrote ${values.out}: check it with npx chaos-gate validate ${values.out}`);
    return 0;
  },
};
