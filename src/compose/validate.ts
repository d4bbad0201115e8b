/**
 * `chaos-gate validate` and the action's `command: validate`: the plan file read and checked by every
 * check a run applies before it touches anything (`staticStageRefusals`, the same gates `run` and `plan`
 * build), with no network: the schema, the plan's rules, the failover model, the policy, the
 * dependency-closure veto when the catalog is in the workspace, and the schedule's windows.
 */
import { dirname, resolve } from 'node:path';
import { planFileReader } from '../files/read.js';
import { formatIssue, loadPlan, type PlanIssue } from '../plan/load.js';
import { exitOf } from '../errors/exit.js';
import { DocumentError } from '../files/issue.js';
import { loadPolicy, readCatalog } from './inputs.js';
import { staticStageRefusals, type LocatedRefusal } from './gates.js';

/** What `validate` found; `--json` prints it as is (stable keys, in this order). */
export interface ValidateResult {
  valid: boolean;
  file: string;
  digest?: string;
  /** Problems reading the plan (or the policy) at all: schema, YAML, a missing file. */
  issues: PlanIssue[];
  /** Reasons a run would refuse the plan before touching anything. */
  refusals: LocatedRefusal[];
}

export interface ValidateOptions {
  /** Resolves relative paths (the plan, the policy). */
  cwd: string;
  /** The policy file whose ceilings the plan may only narrow, as given (relative to `cwd`). */
  policy?: string | undefined;
  /** Every file a plan names must resolve inside it (docs/design/principles.md#security); default `cwd`. */
  workspace?: string | undefined;
  /** When the checks run (the schedule's windows); default now. */
  now?: number | undefined;
}

/** Validates one plan file; every issue or refusal carries its file:line:col. */
export async function validatePlanFile(file: string, o: ValidateOptions): Promise<ValidateResult> {
  const path = resolve(o.cwd, file);
  try {
    const loaded = await loadPlan(path, file);
    const policy = o.policy === undefined ? undefined : await loadPolicy(resolve(o.cwd, o.policy), o.policy);
    const catalog = await readCatalog(loaded.plan, planFileReader(dirname(path), o.workspace ?? o.cwd));
    const refusals = await staticStageRefusals(loaded, { policy, catalog }, o.now ?? Date.now());
    return { valid: refusals.length === 0, file, digest: loaded.digest, issues: [], refusals };
  } catch (error) {
    // An unusable plan or policy is refused with its issues (errors/exit.ts); anything else is unexpected.
    if (exitOf(error)?.verdict === 'refused' && error instanceof DocumentError)
      return { valid: false, file, issues: error.issues, refusals: [] };
    throw error;
  }
}

/** One refusal as `file:line:col: message [refused: rule]`. */
export function formatRefusal(file: string, r: LocatedRefusal): string {
  return `${file}:${r.line ?? 1}:${r.column ?? 1}: ${r.message} [refused: ${r.rule}]`;
}

/** The result as text: one line per problem, then a summary line. */
export function formatValidate(result: ValidateResult): string[] {
  if (result.valid) return [`${result.file}: valid (digest ${result.digest ?? ''})`];
  const count = result.issues.length + result.refusals.length;
  const kind = result.issues.length > 0 ? 'invalid' : 'refused';
  return [
    ...result.issues.map(formatIssue),
    ...result.refusals.map((r) => formatRefusal(result.file, r)),
    `${result.file}: ${kind} (${count} ${count === 1 ? 'problem' : 'problems'})`,
  ];
}
