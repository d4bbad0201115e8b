/**
 * The policy (docs/design/principles.md#security): the limits a workflow pins (read from the default branch, say) and hands to the
 * action or CLI beside the plan. A plan may narrow the policy, never widen it: a plan limit wider than the
 * policy's ceiling is a refusal naming both values, and the limits that apply are the stricter of the two.
 */
import * as z from 'zod/mini';
import type { Gate } from '../engine/gates.js';
import { parseYamlDocument, type DocumentOptions, type ParsedDocument } from '../files/document.js';
import { validateDocument } from '../files/validate.js';
import { formatDuration } from '../plan/duration.js';
import { maxActionDurationMs, planRunDurationMs } from '../plan/refusals.js';
import { Duration, DURATION_EXPECTED, stopConditionAlarms, type Plan } from '../plan/schema.js';
import type { BlastLimits } from './blast-radius.js';
import { PolicyError } from './policy-error.js';

export { PolicyError } from './policy-error.js';

/** Largest policy file accepted: a policy is a page of limits; 64 KiB bounds parse memory with room to spare. */
export const MAX_POLICY_BYTES = 64 * 1024;

// zod/mini, one function per classic method call and in the same order (src/files/zod.ts says why).
const AccountId = z
  .string()
  .check(z.regex(/^\d{12}$/, { message: 'a 12-digit AWS account id (quote it in YAML)' }));

/** The policy file, validated by zod. Every field is optional: an absent field does not constrain. */
export const Policy = z.strictObject({
  version: z._default(z.literal(1), 1),
  ceilings: z._default(
    z.strictObject({
      maxTargets: z.optional(z.number().check(z.int()).check(z.gt(0))),
      maxPercent: z.optional(z.number().check(z.gt(0)).check(z.lte(100))),
      maxActionDuration: z.optional(Duration),
      maxRunDuration: z.optional(Duration),
    }),
    {},
  ),
  /** Plan `environment` values allowed to run. */
  environments: z.optional(z.array(z.string().check(z.minLength(1)))),
  /** AWS account ids the plan's role, target and alarm ARNs may belong to. */
  accounts: z.optional(z.array(AccountId)),
  /** Tag key → forbidden values, added to the plan's own. */
  forbidTags: z._default(z.record(z.string(), z.array(z.string())), {}),
  /** Tag key → value every target must carry, added to the plan's own. */
  requireTags: z._default(z.record(z.string(), z.string()), {}),
  /**
   * The promotion ladder: runs under this policy need the last run of `plan` in `environment` to have
   * held within `within` (read from the verdict history the front door is given; preflight/requires.ts).
   */
  requires: z.optional(
    z.array(
      z.strictObject({
        /** The narrower rung's name, for messages (`staging canary`). */
        rung: z.optional(z.string().check(z.minLength(1))),
        plan: z.string().check(z.minLength(1)),
        environment: z.string().check(z.minLength(1)),
        within: Duration,
      }),
    ),
  ),
  /** CloudWatch alarm ARNs that must be among the plan's `fis.stopConditions`. */
  requiredStopConditions: z._default(
    z.array(z.string().check(z.regex(/^arn:aws[a-z-]*:cloudwatch:/, { message: 'a CloudWatch alarm ARN' }))),
    [],
  ),
});
export type Policy = z.output<typeof Policy>;

/** A validated policy with a way back to its lines. */
export interface LoadedPolicy {
  policy: Policy;
  /** The name used in messages (`policy.yaml`). */
  file: string;
  /** 1-based line of a field (`ceilings.maxTargets`), when written in the file. */
  line(field: string): number | undefined;
}

/** How the one loader reads a policy file named `file` (the front door reads it; see compose/). */
export function policyFile(file: string): DocumentOptions {
  return {
    file,
    what: 'policy file',
    maxBytes: MAX_POLICY_BYTES,
    limitName: 'MAX_POLICY_BYTES',
    error: (f, issues) => new PolicyError(f, issues),
  };
}

/** Expectations zod cannot phrase: a duration is "a string" to it, an account id "a string" too. */
const NAMED = new Map<z.core.$ZodType, string>([
  [Duration, DURATION_EXPECTED],
  [AccountId, 'a 12-digit AWS account id as a string (quote it in YAML)'],
]);

/** Validates a parsed policy document. Throws `PolicyError` listing every issue. */
export function policyFromDocument(doc: ParsedDocument): LoadedPolicy {
  const policy = validateDocument(doc, Policy, {
    noun: 'policy',
    named: NAMED,
    // Every field is optional: an empty policy constrains nothing.
    emptyIsMapping: true,
    error: (f, issues) => new PolicyError(f, issues),
  });
  return { policy, file: doc.file, line: (field) => doc.locate(field)?.line };
}

/** Parses and validates policy text. Throws `PolicyError` listing every issue. */
export function parsePolicy(text: string, file: string): LoadedPolicy {
  return policyFromDocument(parseYamlDocument(text, policyFile(file)));
}

/** The policy rules, named for tests and annotations. */
export type PolicyRule =
  | 'ceiling-widened'
  | 'ceiling-action-duration'
  | 'ceiling-run-duration'
  | 'ceiling-selection'
  | 'environment'
  | 'account'
  | 'forbidden-tag'
  | 'required-tag'
  | 'required-stop-condition';

/** A policy violation; shaped like the plan's static `Refusal` plus where the policy says so. */
export interface PolicyRefusal {
  rule: PolicyRule;
  /** Plan field path. */
  field: string;
  value: string | number;
  limit: string | number;
  message: string;
  /** `policy.yaml:3`. */
  policyAt: string;
}

/** The limits that apply: the stricter of the plan's and the policy's. */
export interface EffectiveLimits extends BlastLimits {
  maxActionDuration: number;
  maxRunDuration: number;
}

function mergeForbid(a: Record<string, string[]>, b: Record<string, string[]>): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const [k, v] of [...Object.entries(a), ...Object.entries(b)]) {
    out[k] = [...new Set([...(out[k] ?? []), ...v])];
  }
  return out;
}

/** Plan ∧ policy: the smaller ceiling, the union of forbidden tags, and the union of required tags. */
export function effectiveLimits(plan: Plan, policy?: Policy): EffectiveLimits {
  const b = plan.blastRadius;
  const c = policy?.ceilings ?? {};
  const min = (planValue: number, ceiling: number | undefined): number =>
    ceiling === undefined ? planValue : Math.min(planValue, ceiling);
  return {
    maxTargets: min(b.maxTargets, c.maxTargets),
    maxPercent: min(b.maxPercent, c.maxPercent),
    maxActionDuration: min(b.maxActionDuration, c.maxActionDuration),
    maxRunDuration: min(b.maxRunDuration, c.maxRunDuration),
    forbidTags: mergeForbid(b.forbidTags, policy?.forbidTags ?? {}),
    requireTags: { ...b.requireTags, ...(policy?.requireTags ?? {}) },
    ...(policy?.accounts ? { accounts: policy.accounts } : {}),
  };
}

/**
 * The schema's defaults for the ceilings. A plan that leaves a ceiling at its default did not ask for
 * more than the policy, so it is narrowed silently rather than refused.
 */
const PLAN_DEFAULTS = {
  maxTargets: 1,
  maxPercent: 100,
  maxActionDuration: 60_000,
  maxRunDuration: 900_000,
} as const;

export interface PolicyCheckOptions {
  /** True when the plan's text writes the field (e.g. `LoadedPlan.locate(field) !== undefined`). */
  written?: ((field: string) => boolean) | undefined;
}

function accountOf(arn: string): string | undefined {
  const parts = arn.split(':');
  const account = parts[4];
  return parts[0] === 'arn' && account !== undefined && account !== '' ? account : undefined;
}

/** Every way the plan widens or escapes the policy; empty when the plan stays inside it. */
export function policyRefusals(
  plan: Plan,
  loaded: LoadedPolicy,
  options: PolicyCheckOptions = {},
): PolicyRefusal[] {
  const { policy, file } = loaded;
  const out: PolicyRefusal[] = [];
  const at = (policyField: string): string => {
    const line = loaded.line(policyField);
    return line === undefined ? file : `${file}:${line}`;
  };
  const add = (r: Omit<PolicyRefusal, 'message' | 'policyAt'>, policyField: string, text: string): void => {
    const policyAt = at(policyField);
    out.push({ ...r, policyAt, message: `${text} (${policyAt})` });
  };

  const ceilings = policy.ceilings;
  const limits = effectiveLimits(plan, policy);
  const written = (field: string, value: number, dflt: number): boolean =>
    options.written ? options.written(field) : value !== dflt;
  const counts = (v: number): string => String(v);
  const ceilingRows = [
    { key: 'maxTargets', show: counts },
    { key: 'maxPercent', show: counts },
    { key: 'maxActionDuration', show: formatDuration },
    { key: 'maxRunDuration', show: formatDuration },
  ] as const;
  for (const { key, show } of ceilingRows) {
    const ceiling = ceilings[key];
    const value = plan.blastRadius[key];
    const field = `blastRadius.${key}`;
    if (ceiling === undefined || value <= ceiling || !written(field, value, PLAN_DEFAULTS[key])) continue;
    add(
      { rule: 'ceiling-widened', field, value: show(value), limit: show(ceiling) },
      `ceilings.${key}`,
      `${field} ${show(value)} exceeds the policy ceiling ${show(ceiling)}`,
    );
  }

  // Where the policy is the stricter limit, the plan's own static checks used the looser one: check again.
  if (
    ceilings.maxActionDuration !== undefined &&
    ceilings.maxActionDuration < plan.blastRadius.maxActionDuration
  ) {
    for (const [name, action] of Object.entries(plan.fis.actions)) {
      const ms = maxActionDurationMs({ ...plan, fis: { ...plan.fis, actions: { [name]: action } } });
      if (ms > limits.maxActionDuration) {
        add(
          {
            rule: 'ceiling-action-duration',
            field: `fis.actions.${name}.parameters`,
            value: formatDuration(ms),
            limit: formatDuration(limits.maxActionDuration),
          },
          'ceilings.maxActionDuration',
          `action '${name}' holds its fault for ${formatDuration(ms)}, over the policy ceiling maxActionDuration ${formatDuration(limits.maxActionDuration)}`,
        );
      }
    }
  }
  if (ceilings.maxRunDuration !== undefined && ceilings.maxRunDuration < plan.blastRadius.maxRunDuration) {
    const run = planRunDurationMs(plan);
    if (run > limits.maxRunDuration) {
      add(
        {
          rule: 'ceiling-run-duration',
          field: 'blastRadius.maxRunDuration',
          value: formatDuration(run),
          limit: formatDuration(limits.maxRunDuration),
        },
        'ceilings.maxRunDuration',
        `the planned run takes ${formatDuration(run)}, over the policy ceiling maxRunDuration ${formatDuration(limits.maxRunDuration)}`,
      );
    }
  }
  for (const [name, target] of Object.entries(plan.fis.targets)) {
    const field = `fis.targets.${name}.selectionMode`;
    const mode = target.selectionMode;
    const count = /^COUNT\((\d+)\)$/.exec(mode);
    const percent = /^PERCENT\((\d+)\)$/.exec(mode);
    if (ceilings.maxTargets !== undefined && count && Number(count[1]) > ceilings.maxTargets) {
      add(
        { rule: 'ceiling-selection', field, value: mode, limit: ceilings.maxTargets },
        'ceilings.maxTargets',
        `target '${name}' selects ${mode}, over the policy ceiling maxTargets ${ceilings.maxTargets}`,
      );
    }
    if (
      ceilings.maxTargets !== undefined &&
      (target.resourceArns?.length ?? 0) > ceilings.maxTargets &&
      mode === 'ALL'
    ) {
      add(
        { rule: 'ceiling-selection', field, value: mode, limit: ceilings.maxTargets },
        'ceilings.maxTargets',
        `target '${name}' selects ALL of ${target.resourceArns?.length} listed ARNs, over the policy ceiling maxTargets ${ceilings.maxTargets}`,
      );
    }
    if (ceilings.maxPercent !== undefined && ceilings.maxPercent < 100) {
      if (mode === 'ALL') {
        add(
          { rule: 'ceiling-selection', field, value: mode, limit: `${ceilings.maxPercent}%` },
          'ceilings.maxPercent',
          `target '${name}' selects ALL, over the policy ceiling maxPercent ${ceilings.maxPercent}%`,
        );
      } else if (percent && Number(percent[1]) > ceilings.maxPercent) {
        add(
          { rule: 'ceiling-selection', field, value: mode, limit: `${ceilings.maxPercent}%` },
          'ceilings.maxPercent',
          `target '${name}' selects ${mode}, over the policy ceiling maxPercent ${ceilings.maxPercent}%`,
        );
      }
    }
  }

  if (policy.environments !== undefined && !policy.environments.includes(plan.environment)) {
    add(
      {
        rule: 'environment',
        field: 'environment',
        value: plan.environment,
        limit: policy.environments.join(', '),
      },
      'environments',
      `environment "${plan.environment}" is not allowed by the policy (allowed: ${policy.environments.join(', ') || 'none'})`,
    );
  }

  if (policy.accounts !== undefined) {
    const arns: { field: string; arn: string }[] = [{ field: 'fis.roleArn', arn: plan.fis.roleArn }];
    for (const [name, target] of Object.entries(plan.fis.targets)) {
      (target.resourceArns ?? []).forEach((arn, i) =>
        arns.push({ field: `fis.targets.${name}.resourceArns[${i}]`, arn }),
      );
    }
    plan.fis.stopConditions.forEach((s, i) => {
      if (s.value !== undefined) arns.push({ field: `fis.stopConditions[${i}]`, arn: s.value });
    });
    // A multi-account experiment reaches every target account: each must be allowed too.
    (plan.fis.targetAccountConfigurations ?? []).forEach((a, i) => {
      arns.push({ field: `fis.targetAccountConfigurations[${i}].roleArn`, arn: a.roleArn });
      if (!policy.accounts?.includes(a.accountId))
        add(
          {
            rule: 'account',
            field: `fis.targetAccountConfigurations[${i}].accountId`,
            value: a.accountId,
            limit: policy.accounts?.join(', ') ?? '',
          },
          'accounts',
          `fis.targetAccountConfigurations[${i}] targets account ${a.accountId}, which the policy does not allow (allowed: ${policy.accounts?.join(', ') || 'none'})`,
        );
    });
    for (const { field, arn } of arns) {
      const account = accountOf(arn);
      if (account !== undefined && !policy.accounts.includes(account)) {
        add(
          { rule: 'account', field, value: account, limit: policy.accounts.join(', ') },
          'accounts',
          `${field} ${arn} is in account ${account}, which the policy does not allow (allowed: ${policy.accounts.join(', ') || 'none'})`,
        );
      }
    }
  }

  for (const [name, target] of Object.entries(plan.fis.targets)) {
    const tags = target.resourceTags;
    for (const [key, values] of Object.entries(policy.forbidTags)) {
      const have = tags?.[key];
      if (have !== undefined && values.some((v) => v.toLowerCase() === have.toLowerCase())) {
        add(
          {
            rule: 'forbidden-tag',
            field: `fis.targets.${name}.resourceTags.${key}`,
            value: have,
            limit: `${key} not in ${values.join('|')}`,
          },
          `forbidTags.${key}`,
          `target '${name}' selects ${key}=${have}, forbidden by the policy`,
        );
      }
    }
    // ARN-listed targets carry no tags in the plan; their tags are checked once resolved.
    if (target.resourceArns !== undefined) continue;
    for (const [key, want] of Object.entries(policy.requireTags)) {
      const have = tags?.[key];
      if (have === want) continue;
      add(
        {
          rule: 'required-tag',
          field: `fis.targets.${name}.resourceTags`,
          value: have ?? '(absent)',
          limit: `${key}=${want}`,
        },
        `requireTags.${key}`,
        `target '${name}' must select by the tag ${key}=${want} required by the policy; it has ${key}=${have ?? '(absent)'}`,
      );
    }
  }

  const alarms = stopConditionAlarms(plan.fis);
  policy.requiredStopConditions.forEach((arn, i) => {
    if (alarms.includes(arn)) return;
    add(
      {
        rule: 'required-stop-condition',
        field: 'fis.stopConditions',
        value: alarms.join(', ') || '(none)',
        limit: arn,
      },
      `requiredStopConditions[${i}]`,
      `fis.stopConditions lacks ${arn}, a stop condition the policy requires`,
    );
  });
  return out;
}

/** The policy as a `static` gate: any refusal is `refused`, all of them named in the reason. */
export function policyGate(loaded: LoadedPolicy, options: PolicyCheckOptions = {}): Gate {
  return {
    name: 'policy',
    stage: 'static',
    async refusals(ctx) {
      return policyRefusals(ctx.plan, loaded, options);
    },
    async check(ctx) {
      const refusals = policyRefusals(ctx.plan, loaded, options);
      const first = refusals[0];
      if (!first) return { pass: true, note: `within the policy ${loaded.file}` };
      for (const r of refusals) {
        ctx.record({
          type: 'refused',
          message: `policy: ${r.message}`,
          data: { gate: 'policy', rule: r.rule, field: r.field, value: r.value, limit: r.limit },
        });
      }
      return {
        pass: false,
        verdict: 'refused',
        reason: refusals.map((r) => r.message).join('; '),
        field: first.field,
      };
    },
  };
}
