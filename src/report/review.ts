/**
 * Builds the plan review shown on pull requests from a loaded plan and its static refusals: what the
 * plan would do (targets, actions, limits), what it promises (SLIs, abort rules), when it may run and
 * what it may spend. Figures that need the network (the dry-run target count, the failover model)
 * arrive as extra sections from the caller.
 */
import { toleranceText, type Tolerance } from '../journal/judgement.js';
import { budgetWindowMs, type Plan } from '../plan/schema.js';
import { maxActionDurationMs, planRunDurationMs, type Refusal } from '../plan/refusals.js';
import { formatDuration, formatValue } from '../journal/format.js';
import type { PlanReview } from './comment.js';

export interface ReviewInput {
  plan: Plan;
  digest: string;
  planPath?: string | undefined;
  refusals: Refusal[];
  /** Computed sections (e.g. resolved targets, predicted failover) appended after the static ones. */
  extraSections?: PlanReview['sections'] | undefined;
}

function bound(b: {
  max?: number | undefined;
  min?: number | undefined;
  between?: [number, number] | undefined;
}): string {
  if (b.max !== undefined) return `<= ${formatValue(b.max)}`;
  if (b.min !== undefined) return `>= ${formatValue(b.min)}`;
  if (b.between) return `in [${formatValue(b.between[0])}, ${formatValue(b.between[1])}]`;
  return 'unbounded';
}

function tags(t: Record<string, string> | Record<string, string[]>): string {
  const entries = Object.entries(t);
  if (!entries.length) return 'none';
  return entries.map(([k, v]) => `${k}=${Array.isArray(v) ? v.join('|') : v}`).join(', ');
}

/** The review of one plan, ready for `prComment`. */
export function buildPlanReview(input: ReviewInput): PlanReview {
  const { plan } = input;
  const br = plan.blastRadius;
  const targets: [string, string][] = Object.entries(plan.fis.targets).map(([name, t]) => [
    `target ${name}`,
    `${t.resourceType}, ${t.selectionMode}${t.resourceTags ? `, tags ${tags(t.resourceTags)}` : ''}${t.resourceArns ? `, ${t.resourceArns.length} ARN(s)` : ''}`,
  ]);
  const actions: [string, string][] = Object.entries(plan.fis.actions).map(([name, a]) => [
    `action ${name}`,
    `${a.actionId}${a.parameters?.duration ? ` for ${a.parameters.duration}` : ''}${a.targets ? ` on ${Object.values(a.targets).join(', ')}` : ''}`,
  ]);
  const sections: PlanReview['sections'] = [
    {
      heading: 'Blast radius',
      rows: [
        ...targets,
        ...actions,
        ['max targets', `${br.maxTargets} (${formatValue(br.maxPercent)} % of matches at most)`],
        [
          'longest action',
          `${formatDuration(maxActionDurationMs(plan))} (ceiling ${formatDuration(br.maxActionDuration)})`,
        ],
        [
          'planned run',
          `${formatDuration(planRunDurationMs(plan))} (ceiling ${formatDuration(br.maxRunDuration)})`,
        ],
        ['required tags', tags(br.requireTags)],
        ['forbidden tags', tags(br.forbidTags)],
      ],
    },
    {
      heading: 'Hypothesis',
      rows: [
        ...plan.hypothesis.slis.map((s): [string, string] => [
          `SLI ${s.name}`,
          `${bound(s)}${s.steady ? ` (steady ${bound(s.steady)})` : ''}${s.during ? '' : ', steady state only'}`,
        ]),
        ...plan.hypothesis.expect.map((e): [string, string] => [
          `expect ${e.name}`,
          `${e.atLeast !== undefined ? `>= ${formatValue(e.atLeast)}` : `<= ${formatValue(e.atMost ?? 0)}`} within ${formatDuration(e.within)}`,
        ]),
        ...plan.abort.rules.map((r): [string, string] => [
          `abort on ${r.sli}`,
          `${r.above !== undefined ? `above ${formatValue(r.above)}` : `below ${formatValue(r.below ?? 0)}`} for ${formatDuration(r.for)}`,
        ]),
        ['interval', formatDuration(plan.hypothesis.interval)],
        ...judgingRows(plan),
        ['steady state', formatDuration(plan.hypothesis.steadyState.duration)],
        ['recovery within', formatDuration(plan.hypothesis.recovery.within)],
        ['blind after', `${plan.abort.blindAfter} failed measurements`],
      ],
    },
    {
      heading: 'Schedule',
      rows: [
        ['timezone', plan.schedule.timezone],
        ...plan.schedule.allow.map((w): [string, string] => ['allow', windowText(w)]),
        ...plan.schedule.deny.map((w): [string, string] => ['deny', windowText(w)]),
        [
          'incidents',
          plan.schedule.incidents
            ? (plan.schedule.incidents.prometheus ?? plan.schedule.incidents.cloudwatchAlarm ?? '')
            : 'not checked',
        ],
      ],
    },
  ];
  if (plan.budget) {
    sections.push({
      heading: 'Error budget',
      rows: [
        plan.budget.from
          ? [
              'objective',
              'sloth' in plan.budget.from
                ? `from Sloth: sloth_service ${plan.budget.from.sloth.service}, sloth_slo ${plan.budget.from.sloth.slo}`
                : `from Pyrra: slo ${plan.budget.from.pyrra.slo}`,
            ]
          : [
              'objective',
              `${formatValue((plan.budget.objective ?? NaN) * 100)} % over ${formatDuration(budgetWindowMs(plan.budget))}`,
            ],
        ['chaos share', `${formatValue(plan.budget.chaosShare * 100)} % of the window's error budget`],
      ],
    });
  }
  sections.push(...(input.extraSections ?? []));
  return {
    kind: 'plan-review',
    planId: plan.id,
    planPath: input.planPath,
    title: plan.title,
    service: plan.service,
    environment: plan.environment,
    digest: input.digest,
    refusals: input.refusals.map((r) => ({ field: r.field, message: r.message, line: r.line })),
    sections,
  };
}

/** A schedule window as plain text (the comment renders every row through `mdText`). */
function windowText(
  w: { cron: string; duration: number; reason: string } | { from: string; to: string; reason: string },
): string {
  return 'cron' in w
    ? `cron ${w.cron} for ${formatDuration(w.duration)}: ${w.reason}`
    : `${w.from} → ${w.to}: ${w.reason}`;
}

/** How the fault is judged per SLI (settle, tolerance); one row when every SLI is judged alike. */
function judgingRows(plan: Plan): [string, string][] {
  const rows = plan.hypothesis.slis
    .filter((s) => s.during)
    .map((s): [string, string] => {
      const settle = s.settle ?? plan.hypothesis.settle ?? 0;
      const t = s.tolerance ?? plan.hypothesis.tolerance ?? {};
      const declared: Tolerance = {};
      if (t.outside !== undefined) declared.outside = t.outside;
      if (t.share !== undefined) declared.share = t.share;
      if (t.consecutive !== undefined) declared.consecutive = t.consecutive;
      return [
        s.name,
        `${settle === 0 ? 'fault bound from the injection on' : `fault bound from ${formatDuration(settle)} after injection (abort rules from the start)`}, tolerance ${toleranceText(declared)}`,
      ];
    });
  const texts = new Set(rows.map(([, v]) => v));
  if (texts.size === 1) return [['judging', [...texts][0] ?? '']];
  return rows.map(([n, v]) => [`judging ${n}`, v]);
}

/**
 * The review as plain lines: the plan, then each section's rows aligned under its heading, then the
 * refusals located in the plan (or that none stands in the way). The CLI's `plan` prints these, and the
 * action's `command: plan` writes them to the step log (each line through `forLog` there).
 */
export function reviewLines(r: PlanReview, file: string): string[] {
  const out = [`plan ${r.planId} (${file}, digest ${r.digest.slice(0, 12)})`];
  for (const section of r.sections) {
    out.push('', section.heading);
    const width = Math.max(...section.rows.map(([k]) => k.length), 4);
    for (const [k, v] of section.rows) out.push(`  ${k.padEnd(width)}  ${v}`);
    if (section.note) out.push(`  (${section.note})`);
  }
  return out;
}

/** The refusals of a review, one per line, located in the plan as `validate` prints them. */
export function refusalLines(r: PlanReview, file: string): string[] {
  if (r.refusals.length === 0) return [];
  return [
    `refused (${r.refusals.length}):`,
    ...r.refusals.map((x) => `  ${file}:${x.line ?? 1}: ${x.message}`),
  ];
}
