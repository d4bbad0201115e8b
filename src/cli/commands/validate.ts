/**
 * `chaos-gate validate <plan> [--json]`: loads a plan, runs the static refusals, touches nothing.
 * Exit 0 when the plan is valid and nothing is refused, 2 otherwise (SPEC §4: unreadable input and
 * refusals both exit 2).
 */
import { resolve } from 'node:path';
import { formatIssue, loadPlan, PlanError, type PlanIssue } from '../../plan/load.js';
import { staticRefusals, type Refusal } from '../../plan/refusals.js';
import { failoverRefusal } from '../../analysis/failover.js';
import { parseFlags, UsageError, type CliCommand } from '../command.js';

/** Exit code for an invalid or refused plan (SPEC §4). */
const EXIT_INVALID = 2;

/** The `--json` output: stable keys, in this order. */
export interface ValidateResult {
  valid: boolean;
  file: string;
  digest?: string;
  issues: PlanIssue[];
  refusals: Refusal[];
}

const usage = `Usage: chaos-gate validate <plan> [--json]

Checks a plan file (YAML or JSON) against the plan schema and the static refusals (SPEC §5.1)
without touching AWS, Prometheus or GitHub.

Options:
  --json     print one JSON object {valid, file, digest, issues, refusals}
  -h, --help show this help

Exit codes: 0 valid and nothing refused; 2 invalid, unreadable or refused.`;

/** Validates one plan file and reports every issue or refusal with its file:line:col. */
export async function validatePlanFile(file: string, cwd: string): Promise<ValidateResult> {
  try {
    const loaded = await loadPlan(resolve(cwd, file), file);
    const refusals = staticRefusals(loaded.plan, loaded);
    // SPEC §9.2: the plan's failover section runs the model offline; a predicted failure is a refusal.
    const failover = failoverRefusal(loaded.plan);
    if (failover) {
      const at = loaded.locate('failover');
      refusals.push({
        rule: 'failover-predicted-to-fail',
        field: 'failover',
        value: 'model',
        limit: 'the failover gate',
        message: failover,
        ...(at ? { line: at.line, column: at.column } : {}),
      });
    }
    return { valid: refusals.length === 0, file, digest: loaded.digest, issues: [], refusals };
  } catch (error) {
    if (error instanceof PlanError) return { valid: false, file, issues: error.issues, refusals: [] };
    throw error;
  }
}

function formatRefusal(file: string, r: Refusal): string {
  return `${file}:${r.line ?? 1}:${r.column ?? 1}: ${r.message} [refused: ${r.rule}]`;
}

export const validate: CliCommand = {
  name: 'validate',
  summary: 'check a plan file: schema, line:column errors and static refusals',
  usage,
  async run(argv, io) {
    const parsed = parseFlags(argv, { json: { type: 'boolean', default: false } });
    const [file, ...extra] = parsed.positionals;
    if (file === undefined) throw new UsageError('missing the plan file argument');
    if (extra.length > 0) throw new UsageError(`expected one plan file, got also: ${extra.join(' ')}`);

    const result = await validatePlanFile(file, io.cwd);
    if (parsed.values.json) {
      io.out(JSON.stringify(result, null, 2));
    } else if (result.valid) {
      io.out(`${file}: valid (digest ${result.digest ?? ''})`);
    } else {
      for (const issue of result.issues) io.out(formatIssue(issue));
      for (const refusal of result.refusals) io.out(formatRefusal(file, refusal));
      const count = result.issues.length + result.refusals.length;
      const kind = result.issues.length > 0 ? 'invalid' : 'refused';
      io.out(`${file}: ${kind} (${count} ${count === 1 ? 'problem' : 'problems'})`);
    }
    return result.valid ? 0 : EXIT_INVALID;
  },
};
