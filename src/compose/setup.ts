/**
 * A set-up that cannot run the plan is the user's to fix, not the world's state. A plan whose SLI, or
 * expectation, request count, incident probe or budget reads Prometheus while no Prometheus URL is set
 * would otherwise run on: its gates answer `not-run` ("cannot read the incident probe / the budget"),
 * which a nightly maps to `skipped`, and nobody is told. Every front door checks here, before it sends
 * anything, and a missing setting is a {@link SettingError}: `failed`, exit 2, with a message naming
 * the field that needs it, where it is in the plan, and the action input, CLI flag and variable that set it.
 */
import { BadInputError } from '../errors/bad-input.js';
import type { LoadedPlan } from '../plan/load.js';
import type { Plan } from '../plan/schema.js';

/** A source kind a plan can name; which of them a front door has an endpoint for. */
export type SourceKindName = 'prometheus' | 'cloudwatch' | 'scrape';

/** Which parts of a plan a front door reads: `run` all of them, `plan --resolve` the budget only. */
export type PlanPart = 'hypothesis' | 'incidents' | 'budget';

/** One place a plan reads a source: `hypothesis.slis[0]` (`success_ratio`) reads `prometheus`. */
export interface SourceUse {
  field: string;
  /** The SLI's or expectation's name, when it has one. */
  name?: string | undefined;
  kind: SourceKindName;
}

/** How each source kind is configured, for the message: the action input, the CLI flag, the variable. */
export const SOURCE_SETTINGS: Record<SourceKindName, { label: string; what: string; setting: string }> = {
  prometheus: {
    label: 'Prometheus',
    what: 'no Prometheus URL is set',
    setting:
      'the action input prometheus-url, the CLI flag --prometheus-url or the environment variable CHAOS_GATE_PROMETHEUS_URL',
  },
  cloudwatch: {
    label: 'CloudWatch',
    what: 'no CloudWatch client is configured',
    setting: 'the action input aws-region, the CLI flag --aws-region or AWS_REGION, with AWS credentials',
  },
  scrape: {
    label: 'a /metrics endpoint',
    what: 'no scrape source is configured',
    setting: 'a url in the plan',
  },
};

/** A missing or unusable setting: the run is `failed` and exits 2 (bad input), before anything is sent. */
export class SettingError extends BadInputError {
  constructor(
    message: string,
    /** The setting that is missing, e.g. `prometheus-url`. */
    readonly setting: string,
  ) {
    super(message);
  }
}

type Spec = { prometheus?: unknown; cloudwatch?: unknown; scrape?: unknown };

function kindOf(spec: Spec): SourceKindName {
  if (spec.prometheus !== undefined) return 'prometheus';
  if (spec.cloudwatch !== undefined) return 'cloudwatch';
  return 'scrape';
}

/** Every place `plan` reads a metric source, in the plan's order, limited to `parts`. */
export function sourceUses(
  plan: Plan,
  parts: readonly PlanPart[] = ['hypothesis', 'incidents', 'budget'],
): SourceUse[] {
  const uses: SourceUse[] = [];
  const h = plan.hypothesis;
  if (parts.includes('hypothesis')) {
    h.slis.forEach((s, i) => uses.push({ field: `hypothesis.slis[${i}]`, name: s.name, kind: kindOf(s) }));
    h.expect.forEach((e, i) =>
      uses.push({ field: `hypothesis.expect[${i}]`, name: e.name, kind: kindOf(e) }),
    );
    if (h.requests) uses.push({ field: 'hypothesis.requests', kind: kindOf(h.requests) });
  }
  const incidents = plan.schedule.incidents;
  if (parts.includes('incidents') && incidents?.prometheus !== undefined)
    uses.push({ field: 'schedule.incidents.prometheus', kind: 'prometheus' });
  if (parts.includes('budget') && plan.budget) {
    if (plan.budget.from) uses.push({ field: 'budget.from', kind: 'prometheus' });
    if (plan.budget.errors) uses.push({ field: 'budget.errors', kind: kindOf(plan.budget.errors) });
    uses.push({ field: 'budget.total', kind: kindOf(plan.budget.total) });
  }
  return uses;
}

/**
 * Throws a {@link SettingError} when the plan reads a source kind that `configured` lacks. The message
 * names the first field (at its `file:line:column`), how many others need it, and how to set it.
 */
export function checkSetup(
  loaded: Pick<LoadedPlan, 'plan' | 'file' | 'locate'>,
  configured: Readonly<Record<SourceKindName, boolean>>,
  parts?: readonly PlanPart[],
): void {
  const missing = sourceUses(loaded.plan, parts).filter((u) => !configured[u.kind]);
  const first = missing[0];
  if (!first) return;
  const at = loaded.locate(first.field);
  const where = at ? `${loaded.file}:${at.line}:${at.column}` : loaded.file;
  const others = missing.slice(1).map((u) => u.field);
  const also = others.length > 0 ? ` (also ${others.join(', ')})` : '';
  const { label, what, setting } = SOURCE_SETTINGS[first.kind];
  const named = first.name ? ` (${first.name})` : '';
  throw new SettingError(
    `${where}: ${first.field}${named} reads ${label}${also}, but ${what}; expected ${setting}`,
    first.kind === 'prometheus' ? 'prometheus-url' : first.kind,
  );
}
