/**
 * Static refusals (docs/design/gates.md#static-refusals): everything about a valid plan that can be judged without the
 * network. A refusal names the field, the value and the limit, so the author knows what to change.
 *
 * This file holds the rule list, the refusal's shape and the SLI/abort-rule checks, and runs every family:
 * refusals-timing.ts (interval, durations, run length), refusals-fis.ts (targets, actions, FIS's limits),
 * refusals-queries.ts (PromQL syntax, CloudWatch periods).
 */
import { checkBudgetDamage } from './budget-damage.js';
import { formatPath, type LoadedPlan, type PathSegment } from './load.js';
import { isPlaceholder, placeholderFields, PLACEHOLDER_PREFIX } from './placeholders.js';
import type { Plan } from './schema.js';
import type { Add, RefusalRule } from './refusal-rule.js';
import { checkActions, checkStopConditions, checkTargets } from './refusals-fis.js';
import { checkCloudWatchPeriods, checkPromql } from './refusals-queries.js';
import { checkDurations, checkFaultMeasurements, checkInterval } from './refusals-timing.js';

export { FIS_MAX_ACTIONS, FIS_MAX_STOP_CONDITIONS, GATE_STOP_CONDITIONS } from './refusals-fis.js';
export {
  AWS_STANDARD_RESOLUTION_MS,
  AWS_SUB_MINUTE_NAMESPACES,
  cloudwatchFields,
  knownResolutionMs,
  promqlFields,
  promqlSyntaxErrors,
} from './refusals-queries.js';
export {
  actionChainMs,
  faultMeasurements,
  maxActionDurationMs,
  MIN_INTERVAL_MS,
  parseIsoDuration,
  planRunDurationMs,
} from './refusals-timing.js';

export type { Add, RefusalRule } from './refusal-rule.js';

/** One reason the plan will not run, before anything is touched. */
export interface Refusal {
  rule: RefusalRule;
  /** Field path, e.g. `fis.actions.partition.parameters.duration`. */
  field: string;
  /** The offending value as written (or computed, for the run duration). */
  value: string | number;
  /** The limit it broke, in the plan's own notation. */
  limit: string | number;
  /** One sentence naming the field, the value and the limit. */
  message: string;
  /** Where the field is written in the plan, when the plan's text is known. */
  line?: number | undefined;
  column?: number | undefined;
}

/** Checks a validated plan against the static rules; `loaded` adds line and column to each refusal. */
export function staticRefusals(plan: Plan, loaded?: Pick<LoadedPlan, 'locate'>): Refusal[] {
  const out: Refusal[] = [];
  const add = (
    rule: RefusalRule,
    path: PathSegment[],
    value: string | number,
    limit: string | number,
    why: string,
  ) => {
    // A placeholder is refused once, as a placeholder, not again by every rule its value breaks.
    if (rule !== 'placeholder' && isPlaceholder(value)) return;
    const field = formatPath(path);
    const position = loaded?.locate(path) ?? nearest(loaded, path);
    out.push({
      rule,
      field,
      value,
      limit,
      message: `${field}: ${why}`,
      ...(position ? { line: position.line, column: position.column } : {}),
    });
  };

  for (const p of placeholderFields(plan))
    add(
      'placeholder',
      p.path,
      PLACEHOLDER_PREFIX + p.text + '>',
      'a value',
      `placeholder left to fill in: ${p.text}`,
    );
  checkInterval(plan, add);
  checkSlisAndAbort(plan, add);
  checkFaultMeasurements(plan, add);
  checkDurations(plan, add);
  checkTargets(plan, add);
  checkActions(plan, add);
  checkPromql(plan, add);
  checkBudgetDamage(plan, add);
  checkCloudWatchPeriods(plan, add);
  checkStopConditions(plan, add);
  return out;
}

function nearest(loaded: Pick<LoadedPlan, 'locate'> | undefined, path: PathSegment[]) {
  if (!loaded) return undefined;
  for (let depth = path.length - 1; depth > 0; depth -= 1) {
    const p = loaded.locate(path.slice(0, depth));
    if (p) return p;
  }
  return undefined;
}

function checkSlisAndAbort(plan: Plan, add: Add): void {
  const slis = plan.hypothesis.slis;
  const seen = new Set<string>();
  slis.forEach((sli, i) => {
    if (seen.has(sli.name)) {
      add(
        'duplicate-sli',
        ['hypothesis', 'slis', i, 'name'],
        sli.name,
        'unique SLI names',
        `SLI name '${sli.name}' is used twice; abort rules and reports need unique names`,
      );
    }
    seen.add(sli.name);
  });
  if (slis.length > 0 && slis.every((s) => !s.during)) {
    add(
      'no-sli-during-fault',
      ['hypothesis', 'slis'],
      slis.length,
      'at least 1 SLI with during: true',
      `all ${slis.length} SLIs have during: false, so nothing is measured while the fault is on; at least one must be observed during the fault`,
    );
  }

  const rules = plan.abort.rules;
  // The alerts and alarms the team already runs are tripwires too: any one of the three will do.
  if (rules.length === 0 && !plan.abort.alerts && !plan.abort.alarms) {
    add(
      'no-abort-rules',
      ['abort', 'rules'],
      0,
      'at least 1 abort rule',
      'no abort rules: a run without a tripwire cannot stop itself; add at least 1 rule such as {sli, above, for}',
    );
  }
  rules.forEach((rule, i) => {
    const sli = slis.find((s) => s.name === rule.sli);
    if (!sli) {
      add(
        'abort-unknown-sli',
        ['abort', 'rules', i, 'sli'],
        rule.sli,
        slis.map((s) => s.name).join(', '),
        `abort rule names SLI '${rule.sli}', which is not defined; expected one of ${slis.map((s) => s.name).join(', ')}`,
      );
    } else if (!sli.during) {
      add(
        'abort-sli-not-observed',
        ['abort', 'rules', i, 'sli'],
        rule.sli,
        'an SLI with during: true',
        `abort rule watches SLI '${rule.sli}', which has during: false and is never measured while the fault is on`,
      );
    }
  });
}
