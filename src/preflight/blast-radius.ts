/**
 * The computed blast radius (docs/design/gates.md#blast-radius): what FIS will really select, not what the author typed. FIS's
 * own rounding is applied (`PERCENT(n)` rounds down, docs/design/fis.md#target-selection), the limits round down too, and
 * the resolved targets' tags are checked against the forbidden and required tags.
 */
import type { Gate, GateContext } from '../engine/gates.js';
import type { ResolvedTarget } from '../injector/injector.js';
import type { CandidateCounter } from '../injector/ports.js';
import type { Plan } from '../plan/schema.js';
import type { BlastLimits, BlastRefusal } from './blast-limits.js';
import { rethrowSetupError } from './setup-error.js';
import { customResourceRefusals } from './kubernetes-chaos.js';
import { errorMessage } from '../errors/message.js';

export type { BlastLimits, BlastRefusal } from './blast-limits.js';

/** The plan's own limits (used when no policy applies). */
export function planLimits(plan: Plan): BlastLimits {
  return {
    maxTargets: plan.blastRadius.maxTargets,
    maxPercent: plan.blastRadius.maxPercent,
    forbidTags: plan.blastRadius.forbidTags,
    requireTags: plan.blastRadius.requireTags,
  };
}

const SELECTION = /^(ALL|COUNT\((\d+)\)|PERCENT\((\d+)\))$/;

/** A parsed FIS selection mode. */
export type SelectionMode = { kind: 'ALL' } | { kind: 'COUNT'; n: number } | { kind: 'PERCENT'; n: number };

/** Parses `ALL`, `COUNT(n)` or `PERCENT(n)`; undefined for anything else. */
export function parseSelectionMode(text: string): SelectionMode | undefined {
  const m = SELECTION.exec(text.trim());
  if (!m) return undefined;
  if (m[2] !== undefined) return { kind: 'COUNT', n: Number(m[2]) };
  if (m[3] !== undefined) return { kind: 'PERCENT', n: Number(m[3]) };
  return { kind: 'ALL' };
}

/**
 * How many of `available` resources FIS selects: ALL → all; COUNT(n) → min(n, available);
 * PERCENT(n) → floor(n% × available) (FIS: "five instances … 50% … rounds down to two").
 */
export function selectionCount(mode: SelectionMode, available: number): number {
  switch (mode.kind) {
    case 'ALL':
      return available;
    case 'COUNT':
      return Math.min(mode.n, available);
    case 'PERCENT':
      return Math.floor((mode.n * available) / 100);
  }
}

/**
 * How many of `available` resources a `maxPercent` limit allows, rounded down like FIS's own selection.
 * The small epsilon keeps `33.3% of 1000` at 333 despite binary fractions.
 */
export function allowedByPercent(maxPercent: number, available: number): number {
  return Math.floor((maxPercent * available) / 100 + 1e-9);
}

export type { CandidateCounter } from '../injector/ports.js';

/** One target's computed selection. */
export interface TargetSelection {
  target: string;
  selectionMode: string;
  /** Candidates before selection, when known. */
  available: number | undefined;
  /** What FIS will select: the rounding applied to the candidates, or the resolved count when larger. */
  selected: number;
  resolved: ResolvedTarget[];
}

export interface BlastInputs {
  plan: Plan;
  /** The dry run's resolution (FIS's selection). */
  resolved: readonly ResolvedTarget[];
  /** Candidate counts per target name, when known; ARN-listed targets count their ARNs otherwise. */
  available?: Readonly<Record<string, number>> | undefined;
  limits: BlastLimits;
  /**
   * A resolved target without tag information cannot be shown free of forbidden tags. `refuse` (the
   * default) fails closed; `allow` trusts the static tag checks on the plan.
   */
  unknownTags?: 'refuse' | 'allow' | undefined;
}

export interface BlastDecision {
  ok: boolean;
  selections: TargetSelection[];
  /** Distinct resources the experiment may touch (an upper bound when some targets were not resolved). */
  totalSelected: number;
  refusals: BlastRefusal[];
}

function pct(count: number, of: number): string {
  return of === 0 ? '0%' : `${Number(((100 * count) / of).toFixed(1))}%`;
}

function matchesForbidden(
  tags: Record<string, string>,
  forbid: Record<string, string[]>,
): string | undefined {
  for (const [key, values] of Object.entries(forbid)) {
    const v = tags[key];
    if (v !== undefined && values.some((f) => f.toLowerCase() === v.toLowerCase())) return `${key}=${v}`;
  }
  return undefined;
}

/** The account of an ARN (`arn:aws:ec2:us-east-1:123456789012:…` → `123456789012`). */
function accountOf(arn: string): string {
  return arn.split(':')[4] ?? '';
}

/**
 * Compares the selection FIS will make with the limits. Pure: every rounding boundary is table-tested.
 *
 * A multi-account experiment resolves and selects in every target account separately ("Action quotas
 * apply per account", FIS UG "Work with multi-account experiments"), so every limit applies to every
 * account: each account's selection is checked as a single-account experiment would be, the forbidden and
 * required tags hold for every resolved target, and each target's account must be one the limits allow.
 * Candidate counts come from the runner's own account and are used only for a single-account plan.
 */
export function blastRadiusDecision(input: BlastInputs): BlastDecision {
  const single = singleOrMulti(input);
  // The pods a Chaos Mesh or Litmus resource picks are bounded by the same limits as FIS's own targets.
  const pods = customResourceRefusals(input.plan, input.resolved, input.limits);
  return pods.length ? { ...single, ok: false, refusals: [...single.refusals, ...pods] } : single;
}

function singleOrMulti(input: BlastInputs): BlastDecision {
  const multi = input.plan.fis.experimentOptions?.accountTargeting === 'multi-account';
  if (!multi) return accountDecision(input, '');
  const accounts = [
    ...new Set([
      ...(input.plan.fis.targetAccountConfigurations ?? []).map((a) => a.accountId),
      ...input.resolved.map((r) => accountOf(r.arn)),
    ]),
  ].sort();
  const decisions = accounts.map((account) =>
    accountDecision(
      {
        ...input,
        available: undefined,
        resolved: input.resolved.filter((r) => accountOf(r.arn) === account),
      },
      account,
    ),
  );
  const refusals = decisions.flatMap((d) => d.refusals);
  return {
    ok: refusals.length === 0,
    selections: decisions.flatMap((d) => d.selections),
    totalSelected: decisions.reduce((sum, d) => sum + d.totalSelected, 0),
    refusals,
  };
}

/** One account's decision (`account` empty for a single-account experiment). */
function accountDecision(input: BlastInputs, account: string): BlastDecision {
  const { plan, limits } = input;
  const refusals: BlastRefusal[] = [];
  const selections: TargetSelection[] = [];
  const field = (name: string): string => `fis.targets.${name}.selectionMode`;
  const where = account ? ` in account ${account}` : '';
  for (const [name, target] of Object.entries(plan.fis.targets)) {
    const resolved = input.resolved.filter((r) => r.target === name);
    // Listed ARNs name their accounts: in an account none of them is in, the target selects nothing.
    const arnsHere = target.resourceArns?.filter((a) => !account || accountOf(a) === account);
    if (account && target.resourceArns && arnsHere?.length === 0) continue;
    const mode = parseSelectionMode(target.selectionMode);
    if (!mode) {
      refusals.push({
        field: field(name),
        reason: `target ${name}: selectionMode "${target.selectionMode}" is not ALL, COUNT(n) or PERCENT(n)`,
      });
      continue;
    }
    const available = input.available?.[name] ?? arnsHere?.length;
    const predicted = available === undefined ? undefined : selectionCount(mode, available);
    const selected = Math.max(predicted ?? 0, resolved.length);
    selections.push({ target: name, selectionMode: target.selectionMode, available, selected, resolved });

    if (selected === 0) {
      const why =
        available === undefined
          ? 'the dry run resolved no resource'
          : `${target.selectionMode} of ${available} candidate${available === 1 ? '' : 's'} rounds down to 0`;
      refusals.push({ field: field(name), reason: `target ${name} selects no resource${where}: ${why}` });
      continue;
    }
    if (limits.maxPercent < 100) {
      if (available !== undefined) {
        const allowed = allowedByPercent(limits.maxPercent, available);
        if (selected > allowed) {
          refusals.push({
            field: 'blastRadius.maxPercent',
            reason:
              `target ${name} selects ${selected} of ${available} (${pct(selected, available)}) with ${target.selectionMode}${where}; ` +
              `blastRadius.maxPercent ${limits.maxPercent}% allows at most ${allowed} of ${available} (rounded down)`,
          });
        }
      } else if (mode.kind === 'ALL' || (mode.kind === 'PERCENT' && mode.n > limits.maxPercent)) {
        refusals.push({
          field: field(name),
          reason: `target ${name} selects ${target.selectionMode}, wider than blastRadius.maxPercent ${limits.maxPercent}%`,
        });
      } else if (mode.kind === 'COUNT') {
        refusals.push({
          field: field(name),
          reason:
            `target ${name} selects ${target.selectionMode} but its candidate count is unknown, so the share ` +
            `cannot be checked against blastRadius.maxPercent ${limits.maxPercent}%; list resourceArns or provide a candidate count`,
        });
      }
    }
  }

  const distinct = new Set(input.resolved.map((r) => r.arn));
  const unresolvedExtra = selections.reduce((sum, s) => sum + Math.max(0, s.selected - s.resolved.length), 0);
  const totalSelected = distinct.size + unresolvedExtra;
  if (totalSelected > limits.maxTargets) {
    refusals.push({
      field: 'blastRadius.maxTargets',
      reason:
        `the experiment selects ${totalSelected} target${totalSelected === 1 ? '' : 's'}${where} ` +
        `(${selections.map((s) => `${s.target}: ${s.selected}`).join(', ')}) > blastRadius.maxTargets ${limits.maxTargets}`,
    });
  }

  const guarded = Object.keys(limits.forbidTags).length > 0 || Object.keys(limits.requireTags).length > 0;
  for (const r of input.resolved) {
    if (r.tags === undefined) {
      if (guarded && (input.unknownTags ?? 'refuse') === 'refuse') {
        refusals.push({
          field: 'blastRadius.forbidTags',
          reason:
            `resolved target ${r.arn} (${r.target}) carries no tag information, so it cannot be shown free of forbidden tags` +
            (account
              ? `; it is in target account ${account}, whose tags chaos-gate reads through the role CHAOS_GATE_TARGET_ACCOUNT_ROLE names (docs/fis.md)`
              : ''),
        });
      }
      continue;
    }
    const forbidden = matchesForbidden(r.tags, limits.forbidTags);
    if (forbidden) {
      refusals.push({
        field: 'blastRadius.forbidTags',
        reason: `resolved target ${r.arn} (${r.target}) is tagged ${forbidden}, a forbidden tag`,
      });
    }
    const missing = Object.entries(limits.requireTags).filter(([k, v]) => r.tags?.[k] !== v);
    if (missing.length > 0) {
      refusals.push({
        field: 'blastRadius.requireTags',
        reason: `resolved target ${r.arn} (${r.target}) lacks the required tag${missing.length > 1 ? 's' : ''} ${missing.map(([k, v]) => `${k}=${v}`).join(', ')}`,
      });
    }
  }
  if (limits.accounts) {
    for (const r of input.resolved) {
      const a = accountOf(r.arn);
      if (!a || limits.accounts.includes(a)) continue;
      refusals.push({
        field: account ? 'fis.targetAccountConfigurations' : `fis.targets.${r.target}`,
        reason: `resolved target ${r.arn} (${r.target}) is in account ${a}, which the policy does not allow (allowed: ${limits.accounts.join(', ') || 'none'})`,
      });
    }
  }
  return { ok: refusals.length === 0, selections, totalSelected, refusals };
}

export interface BlastRadiusGateOptions {
  /** The effective limits (plan ∧ policy); defaults to the plan's own. */
  limits?: ((plan: Plan) => BlastLimits) | undefined;
  candidates?: CandidateCounter | undefined;
  unknownTags?: 'refuse' | 'allow' | undefined;
}

/** The computed blast radius as a gate of stage `after-targets`: any violation is `refused`. */
export function blastRadiusGate(options: BlastRadiusGateOptions = {}): Gate {
  return {
    name: 'blast-radius',
    stage: 'after-targets',
    async check(ctx: GateContext) {
      if (ctx.targets === undefined) {
        return {
          pass: false,
          verdict: 'refused',
          reason: 'the targets were not resolved (no dry run), so the blast radius cannot be computed',
          field: 'fis.targets',
        };
      }
      if (ctx.targets.length === 0 && ctx.targetsComplete !== true) {
        return {
          pass: false,
          verdict: 'refused',
          reason:
            'no resolved targets, and the dry run did not prove the set empty, so the blast radius cannot be computed',
          field: 'fis.targets',
        };
      }
      let available: Record<string, number> | undefined;
      if (options.candidates) {
        available = {};
        for (const [name, target] of Object.entries(ctx.plan.fis.targets)) {
          try {
            const count = await options.candidates.candidates(name, target, ctx.signal);
            if (count !== undefined) available[name] = count;
          } catch (error) {
            // A counter that reports a broken set-up (`SetupError`) ends the run `failed`, not `not-run`.
            rethrowSetupError(error, `cannot count the candidates of target ${name}`);
            return {
              pass: false,
              verdict: 'not-run',
              reason: `cannot count the candidates of target ${name}: ${errorMessage(error)}`,
              field: `fis.targets.${name}`,
            };
          }
        }
      }
      const decision = blastRadiusDecision({
        plan: ctx.plan,
        resolved: ctx.targets,
        available,
        limits: (options.limits ?? planLimits)(ctx.plan),
        unknownTags: options.unknownTags,
      });
      const summary = decision.selections
        .map(
          (s) =>
            `${s.target} ${s.selectionMode}${s.available === undefined ? '' : ` of ${s.available}`} → ${s.selected}`,
        )
        .join(', ');
      ctx.record({
        type: 'preflight',
        message: `blast radius: ${summary}; ${decision.totalSelected} target(s) in total`,
        data: {
          gate: 'blast-radius',
          totalSelected: decision.totalSelected,
          selections: decision.selections.map((s) => ({
            target: s.target,
            selectionMode: s.selectionMode,
            available: s.available ?? null,
            selected: s.selected,
            arns: s.resolved.map((r) => r.arn),
          })),
        },
      });
      const first = decision.refusals[0];
      if (!first) return { pass: true, note: `blast radius ${decision.totalSelected} target(s): ${summary}` };
      return {
        pass: false,
        verdict: 'refused',
        reason: decision.refusals.map((r) => r.reason).join('; '),
        field: first.field,
      };
    },
  };
}
