/**
 * `chaos-gate validate <plan> [--policy <file>] [--json]`: every check a run applies before it touches
 * anything, offline (src/compose/validate.ts). Exit 0 when the plan is valid and nothing is refused, 2
 * otherwise (unreadable input and refusals both exit 2).
 */
import { formatValidate, validatePlanFile } from '../../compose/validate.js';
import { parseFlags, UsageError, type CliCommand } from '../command.js';
import { exitCodesHelp } from '../exit-codes.js';

export type { ValidateResult } from '../../compose/validate.js';

/** Exit code for an invalid or refused plan (the README's exit-code table). */
const EXIT_INVALID = 2;

const usage = `Usage: chaos-gate validate <plan> [--policy <file>] [--json]

Checks a plan file (YAML or JSON) without touching AWS, Prometheus or GitHub, with every check a run
applies before it touches anything: the plan schema; the static refusals (abort rules, SLIs, action and
run durations against their ceilings, tags, selection modes, PromQL syntax, the interval and what the
fault's measurements allow blindAfter and each rule's for); the failover model; the schedule's time
zone, cron fields and windows; the dependency-closure veto when the service catalog is in the
workspace; and with --policy, the policy's ceilings.

Options:
  --policy <file>  the policy file whose ceilings the plan may only narrow (as the action's policy input)
  --json           print one JSON object {valid, file, digest, issues, refusals}
  -h, --help       show this help

${exitCodesHelp('validate')}`;

export const validate: CliCommand = {
  name: 'validate',
  usage,
  async run(argv, io) {
    const parsed = parseFlags(argv, {
      json: { type: 'boolean', default: false },
      policy: { type: 'string' },
    });
    const [file, ...extra] = parsed.positionals;
    if (file === undefined)
      throw new UsageError('missing the plan file argument; expected chaos-gate validate <plan>');
    if (extra.length > 0) throw new UsageError(`expected one plan file, got also: ${extra.join(' ')}`);

    const result = await validatePlanFile(file, {
      cwd: io.cwd,
      policy: parsed.values.policy,
      workspace: io.env.GITHUB_WORKSPACE ?? io.cwd,
    });
    if (parsed.values.json) io.out(JSON.stringify(result, null, 2));
    else for (const line of formatValidate(result)) io.out(line);
    return result.valid ? 0 : EXIT_INVALID;
  },
};
