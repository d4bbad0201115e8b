/**
 * Static refusals (SPEC §5.1): everything about a valid plan that can be judged without the
 * network. A refusal names the field, the value and the limit, so the author knows what to change.
 */
import { parser as promqlParser } from '@prometheus-io/lezer-promql';
import { checkBudgetDamage } from './budget-damage.js';
import { formatDuration } from './duration.js';
import { formatPath, type LoadedPlan, type PathSegment } from './load.js';
import { isPlaceholder, placeholderFields, PLACEHOLDER_PREFIX } from './placeholders.js';
import type { CloudWatchSource, FisAction, Plan } from './schema.js';

/** Stop conditions FIS accepts per experiment template (quota L-872EC72B, SEMANTICS §3.3 and §6). */
export const FIS_MAX_STOP_CONDITIONS = 5;

/** Stop conditions chaos-gate adds itself: the lease alarm and the kill-switch alarm (SPEC §6.1). */
export const GATE_STOP_CONDITIONS = 2;

/** Actions FIS accepts per experiment template (SEMANTICS §3.8). */
export const FIS_MAX_ACTIONS = 20;

/**
 * The shortest `hypothesis.interval` a run accepts. Every tick reads every SLI and must be back by the
 * end of the tick; 1 s is the finest resolution CloudWatch stores (high-resolution metrics) and a tick
 * that still leaves room for a network round trip to Prometheus, CloudWatch and FIS. `0s` would make a
 * run measure every millisecond.
 */
export const MIN_INTERVAL_MS = 1000;

/** Longest PromQL excerpt quoted in a refusal message; the full query stays in `value`. */
const MAX_QUOTED_QUERY = 120;

/** The static rules, named so tests, reports and annotations can refer to them. */
export type RefusalRule =
  | 'no-abort-rules'
  | 'abort-unknown-sli'
  | 'abort-sli-not-observed'
  | 'duplicate-sli'
  | 'no-sli-during-fault'
  | 'action-duration'
  | 'action-duration-format'
  | 'run-duration'
  | 'require-tags'
  | 'forbid-tags'
  | 'select-all'
  | 'count-over-max-targets'
  | 'percent-over-max-percent'
  | 'arns-over-max-targets'
  | 'promql-syntax'
  | 'unknown-target'
  | 'unknown-start-after'
  | 'start-after-cycle'
  | 'too-many-stop-conditions'
  | 'too-many-actions'
  | 'budget-damage'
  | 'cloudwatch-period-below-resolution'
  | 'interval-too-short'
  | 'selection-out-of-range'
  | 'blind-after-exceeds-fault'
  | 'abort-for-exceeds-fault'
  /** A `<fill in: …>` value a generated plan (`chaos-gate import`) left for its author. */
  | 'placeholder'
  /** Raised by the front doors from the failover model (analysis/), which plan/ cannot import. */
  | 'failover-predicted-to-fail';

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

  const stopConditions = plan.fis.stopConditions.length;
  const allowed = FIS_MAX_STOP_CONDITIONS - GATE_STOP_CONDITIONS;
  if (stopConditions > allowed) {
    add(
      'too-many-stop-conditions',
      ['fis', 'stopConditions'],
      stopConditions,
      allowed,
      `${stopConditions} stop conditions plus the gate's lease and kill-switch alarms exceed FIS's limit of ${FIS_MAX_STOP_CONDITIONS} per template; list at most ${allowed}`,
    );
  }
  return out;
}

type Add = (
  rule: RefusalRule,
  path: PathSegment[],
  value: string | number,
  limit: string | number,
  why: string,
) => void;

function checkInterval(plan: Plan, add: Add): void {
  const interval = plan.hypothesis.interval;
  if (interval >= MIN_INTERVAL_MS) return;
  add(
    'interval-too-short',
    ['hypothesis', 'interval'],
    formatDuration(interval),
    formatDuration(MIN_INTERVAL_MS),
    `interval ${formatDuration(interval)} is shorter than the minimum of ${formatDuration(MIN_INTERVAL_MS)}: every tick reads every SLI and must be back before the next; expected ${formatDuration(MIN_INTERVAL_MS)} or longer`,
  );
}

/** Measurements a run takes while the fault is on: the longest action chain in whole intervals. */
export function faultMeasurements(plan: Plan): number {
  return Math.floor(actionChainMs(plan) / plan.hypothesis.interval);
}

/**
 * Blindness and abort rules count measurements taken while the fault is on; a count the fault can never
 * reach means the rule can never fire. Checked where the actions declare how long they hold the fault
 * (an instantaneous action such as a pod delete declares none).
 */
function checkFaultMeasurements(plan: Plan, add: Add): void {
  const interval = plan.hypothesis.interval;
  const chain = actionChainMs(plan);
  if (chain <= 0 || !(interval >= MIN_INTERVAL_MS)) return;
  const n = faultMeasurements(plan);
  const during = `the fault lasts ${formatDuration(chain)}, ${n} ${n === 1 ? 'measurement' : 'measurements'} at ${formatDuration(interval)}`;
  const blindAfter = plan.abort.blindAfter;
  if (blindAfter > n) {
    add(
      'blind-after-exceeds-fault',
      ['abort', 'blindAfter'],
      blindAfter,
      n,
      `blindAfter ${blindAfter} failed measurements in a row can never happen: ${during}, so lost telemetry could never stop the run; expected at most ${n}`,
    );
  }
  plan.abort.rules.forEach((rule, i) => {
    const needed = Math.ceil(rule.for / interval);
    if (needed <= n) return;
    add(
      'abort-for-exceeds-fault',
      ['abort', 'rules', i, 'for'],
      formatDuration(rule.for),
      formatDuration(n * interval),
      `for ${formatDuration(rule.for)} needs ${needed} breaching measurements in a row, but ${during}, so this rule can never trip; expected at most ${formatDuration(n * interval)}`,
    );
  });
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
  if (rules.length === 0) {
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

/** Parses an ISO-8601 duration as FIS uses it (`PT60S`, `PT1M`, `PT1H30M`, `P1D`) into ms. */
export function parseIsoDuration(text: string): number | undefined {
  const m =
    /^P(?:(\d+(?:\.\d+)?)D)?(?:T(?:(\d+(?:\.\d+)?)H)?(?:(\d+(?:\.\d+)?)M)?(?:(\d+(?:\.\d+)?)S)?)?$/.exec(
      text,
    );
  if (!m || text === 'P' || text.endsWith('T')) return undefined;
  const [, d, h, min, s] = m;
  return Math.round(
    Number(d ?? 0) * 86_400_000 +
      Number(h ?? 0) * 3_600_000 +
      Number(min ?? 0) * 60_000 +
      Number(s ?? 0) * 1000,
  );
}

interface ActionDuration {
  /** Parameter path below the action, e.g. `['parameters', 'duration']`. */
  path: PathSegment[];
  raw: string;
  ms: number | undefined;
}

/**
 * The durations an action declares: any parameter whose name mentions a duration (`duration`,
 * `startInstancesAfterDuration`, …) plus `DurationSeconds` inside SSM `documentParameters`.
 */
function actionDurations(action: FisAction): ActionDuration[] {
  const out: ActionDuration[] = [];
  for (const [key, raw] of Object.entries(action.parameters ?? {})) {
    if (key === 'documentParameters') {
      const seconds = documentDurationSeconds(raw);
      if (seconds !== undefined) {
        out.push({ path: ['parameters', key], raw: `DurationSeconds ${seconds}`, ms: seconds * 1000 });
      }
    } else if (/duration/i.test(key)) {
      out.push({ path: ['parameters', key], raw, ms: parseIsoDuration(raw) });
    }
  }
  return out;
}

function documentDurationSeconds(raw: string): number | undefined {
  try {
    const doc: unknown = JSON.parse(raw);
    if (doc === null || typeof doc !== 'object') return undefined;
    const value = (doc as Record<string, unknown>)['DurationSeconds'];
    const n = typeof value === 'string' || typeof value === 'number' ? Number(value) : NaN;
    return Number.isFinite(n) ? n : undefined;
  } catch {
    return undefined;
  }
}

/** How long an action keeps its fault on (0 for instantaneous ones such as pod-delete). */
function actionMs(action: FisAction): number {
  return Math.max(0, ...actionDurations(action).map((d) => d.ms ?? 0));
}

/** The longest fault any single action holds, in ms. */
export function maxActionDurationMs(plan: Plan): number {
  return Math.max(0, ...Object.values(plan.fis.actions).map(actionMs));
}

/**
 * The longest chain of actions, honouring `startAfter` (an action starts when all it waits for
 * have ended). Unknown names and cycles contribute nothing here; they are refused separately.
 */
export function actionChainMs(plan: Plan): number {
  const actions = plan.fis.actions;
  const ends = new Map<string, number>();
  const visiting = new Set<string>();
  const endOf = (name: string): number => {
    const known = ends.get(name);
    if (known !== undefined) return known;
    const action = actions[name];
    if (!action || visiting.has(name)) return 0;
    visiting.add(name);
    const start = Math.max(0, ...(action.startAfter ?? []).map(endOf));
    visiting.delete(name);
    const end = start + actionMs(action);
    ends.set(name, end);
    return end;
  };
  return Math.max(0, ...Object.keys(actions).map(endOf));
}

/** Planned wall time of a run: steady state + the longest action chain + the recovery window, in ms. */
export function planRunDurationMs(plan: Plan): number {
  return plan.hypothesis.steadyState.duration + actionChainMs(plan) + plan.hypothesis.recovery.within;
}

function checkDurations(plan: Plan, add: Add): void {
  const ceiling = plan.blastRadius.maxActionDuration;
  for (const [name, action] of Object.entries(plan.fis.actions)) {
    for (const d of actionDurations(action)) {
      const path = ['fis', 'actions', name, ...d.path];
      if (d.ms === undefined) {
        add(
          'action-duration-format',
          path,
          d.raw,
          'an ISO-8601 duration such as PT60S or PT1M',
          `'${d.raw}' is not an ISO-8601 duration as FIS expects; write e.g. PT60S or PT1M`,
        );
      } else if (d.ms > ceiling) {
        add(
          'action-duration',
          path,
          d.raw,
          formatDuration(ceiling),
          `action '${name}' holds its fault for ${formatDuration(d.ms)} (${d.raw}), over blastRadius.maxActionDuration ${formatDuration(ceiling)}`,
        );
      }
    }
  }
  const run = planRunDurationMs(plan);
  const maxRun = plan.blastRadius.maxRunDuration;
  if (run > maxRun) {
    const h = plan.hypothesis;
    add(
      'run-duration',
      ['blastRadius', 'maxRunDuration'],
      formatDuration(run),
      formatDuration(maxRun),
      `the planned run takes ${formatDuration(run)} (steady state ${formatDuration(h.steadyState.duration)} + actions ${formatDuration(actionChainMs(plan))} + recovery ${formatDuration(h.recovery.within)}), over maxRunDuration ${formatDuration(maxRun)}`,
    );
  }
}

function checkTargets(plan: Plan, add: Add): void {
  const radius = plan.blastRadius;
  for (const [name, target] of Object.entries(plan.fis.targets)) {
    const base = ['fis', 'targets', name];
    const tags = target.resourceTags;
    for (const [key, want] of Object.entries(radius.requireTags)) {
      const have = tags?.[key];
      if (have === want) continue;
      const shown = have === undefined ? `no ${key} tag` : `${key}=${have}`;
      const path =
        have === undefined ? [...base, ...(tags ? ['resourceTags'] : [])] : [...base, 'resourceTags', key];
      add(
        'require-tags',
        path,
        have ?? '(absent)',
        `${key}=${want}`,
        `target '${name}' must select by the tag ${key}=${want} (blastRadius.requireTags); its resourceTags have ${shown}`,
      );
    }
    for (const [key, forbidden] of Object.entries(radius.forbidTags)) {
      const have = tags?.[key];
      if (have !== undefined && forbidden.includes(have)) {
        add(
          'forbid-tags',
          [...base, 'resourceTags', key],
          have,
          `${key} not in ${forbidden.join('|')}`,
          `target '${name}' selects ${key}=${have}, a forbidden value (blastRadius.forbidTags ${key}: ${forbidden.join(', ')})`,
        );
      }
    }

    const mode = target.selectionMode;
    const count = /^COUNT\((\d+)\)$/.exec(mode);
    const percent = /^PERCENT\((\d+)\)$/.exec(mode);
    if (count && Number(count[1]) < 1) {
      add(
        'selection-out-of-range',
        [...base, 'selectionMode'],
        mode,
        'COUNT(n) with n ≥ 1',
        `${mode} selects no resource, so the experiment would inject nothing; expected COUNT(n) with n ≥ 1`,
      );
    }
    if (percent && !(Number(percent[1]) >= 1 && Number(percent[1]) <= 100)) {
      add(
        'selection-out-of-range',
        [...base, 'selectionMode'],
        mode,
        'PERCENT(n) with n from 1 to 100',
        `${mode} is not a share of the matching resources FIS accepts; expected PERCENT(n) with n from 1 to 100`,
      );
    }
    if (mode === 'ALL' && radius.maxPercent < 100) {
      add(
        'select-all',
        [...base, 'selectionMode'],
        mode,
        `PERCENT(${Math.floor(radius.maxPercent)}) or COUNT(n)`,
        `selectionMode ALL selects 100 % of the matching resources, over blastRadius.maxPercent ${radius.maxPercent} %`,
      );
    }
    if (count && Number(count[1]) > radius.maxTargets) {
      add(
        'count-over-max-targets',
        [...base, 'selectionMode'],
        mode,
        radius.maxTargets,
        `${mode} selects ${count[1]} resources, over blastRadius.maxTargets ${radius.maxTargets}`,
      );
    }
    if (percent && Number(percent[1]) > radius.maxPercent) {
      add(
        'percent-over-max-percent',
        [...base, 'selectionMode'],
        mode,
        radius.maxPercent,
        `${mode} selects ${percent[1]} % of the matching resources, over blastRadius.maxPercent ${radius.maxPercent} %`,
      );
    }
    const arns = target.resourceArns?.length ?? 0;
    if (mode === 'ALL' && arns > radius.maxTargets) {
      add(
        'arns-over-max-targets',
        [...base, 'resourceArns'],
        arns,
        radius.maxTargets,
        `selectionMode ALL over ${arns} listed ARNs selects ${arns} resources, over blastRadius.maxTargets ${radius.maxTargets}`,
      );
    }
  }
}

function checkActions(plan: Plan, add: Add): void {
  const actions = plan.fis.actions;
  const names = Object.keys(actions);
  if (names.length > FIS_MAX_ACTIONS) {
    add(
      'too-many-actions',
      ['fis', 'actions'],
      names.length,
      FIS_MAX_ACTIONS,
      `${names.length} actions exceed FIS's limit of ${FIS_MAX_ACTIONS} per template`,
    );
  }
  const targets = Object.keys(plan.fis.targets);
  for (const [name, action] of Object.entries(actions)) {
    for (const [resourceKey, targetName] of Object.entries(action.targets ?? {})) {
      if (!targets.includes(targetName)) {
        add(
          'unknown-target',
          ['fis', 'actions', name, 'targets', resourceKey],
          targetName,
          targets.join(', ') || '(no targets defined)',
          `action '${name}' uses target '${targetName}', which fis.targets does not define${targets.length ? `; defined: ${targets.join(', ')}` : ''}`,
        );
      }
    }
    (action.startAfter ?? []).forEach((after, i) => {
      if (!names.includes(after)) {
        add(
          'unknown-start-after',
          ['fis', 'actions', name, 'startAfter', i],
          after,
          names.join(', '),
          `action '${name}' starts after '${after}', which fis.actions does not define; defined: ${names.join(', ')}`,
        );
      }
    });
  }
  const cycle = findCycle(plan);
  if (cycle) {
    add(
      'start-after-cycle',
      ['fis', 'actions', cycle[0] ?? '', 'startAfter'],
      cycle.join(' → '),
      'no cycles',
      `actions wait for each other in a cycle (${cycle.join(' → ')}), so none of them can start`,
    );
  }
}

function findCycle(plan: Plan): string[] | undefined {
  const actions = plan.fis.actions;
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const visit = (name: string): string[] | undefined => {
    const s = state.get(name);
    if (s === 'done') return undefined;
    if (s === 'open') return [...stack.slice(stack.indexOf(name)), name];
    const action = actions[name];
    if (!action) return undefined;
    state.set(name, 'open');
    stack.push(name);
    for (const after of action.startAfter ?? []) {
      const found = visit(after);
      if (found) return found;
    }
    stack.pop();
    state.set(name, 'done');
    return undefined;
  };
  for (const name of Object.keys(actions)) {
    const found = visit(name);
    if (found) return found;
  }
  return undefined;
}

/** Every PromQL string in a plan with its field path (SLIs, expectations, requests, schedule, budget, scrape selectors). */
export function promqlFields(plan: Plan): { path: PathSegment[]; query: string }[] {
  const out: { path: PathSegment[]; query: string }[] = [];
  const h = plan.hypothesis;
  if (h.requests?.prometheus !== undefined)
    out.push({ path: ['hypothesis', 'requests', 'prometheus'], query: h.requests.prometheus });
  const sourced = (
    base: PathSegment[],
    s: { prometheus?: string | undefined; scrape?: Plan['hypothesis']['slis'][number]['scrape'] },
  ) => {
    if (s.prometheus !== undefined) out.push({ path: [...base, 'prometheus'], query: s.prometheus });
    const scrape = s.scrape;
    if (scrape) {
      const sel = (p: PathSegment[], q: string | undefined) => {
        if (q !== undefined) out.push({ path: [...base, 'scrape', ...p], query: q });
      };
      sel(['ratio', 'numerator'], scrape.ratio?.numerator);
      sel(['ratio', 'denominator'], scrape.ratio?.denominator);
      sel(['increase'], scrape.increase);
      sel(['rate'], scrape.rate);
      sel(['quantile', 'histogram'], scrape.quantile?.histogram);
      sel(['gauge'], scrape.gauge);
    }
  };
  if (h.requests) sourced(['hypothesis', 'requests'], { scrape: h.requests.scrape });
  h.slis.forEach((s, i) => sourced(['hypothesis', 'slis', i], s));
  h.expect.forEach((e, i) => sourced(['hypothesis', 'expect', i], e));
  if (plan.schedule.incidents?.prometheus !== undefined) {
    out.push({ path: ['schedule', 'incidents', 'prometheus'], query: plan.schedule.incidents.prometheus });
  }
  if (plan.budget) {
    for (const part of ['errors', 'total'] as const) {
      const q = plan.budget[part].prometheus;
      if (q !== undefined) out.push({ path: ['budget', part, 'prometheus'], query: q });
    }
  }
  return out;
}

/** Offsets of PromQL syntax errors in a query (empty when it parses). */
export function promqlSyntaxErrors(query: string): number[] {
  const offsets: number[] = [];
  // `$window` is chaos-gate's placeholder for the tick's window (metrics/prometheus substitutes it);
  // parse with a same-length duration so error offsets still point into the query as written.
  const parsable = query.replace(/\$window\b/g, '99999ms');
  promqlParser.parse(parsable).iterate({
    enter: (node) => {
      if (node.type.isError) offsets.push(node.from);
    },
  });
  return offsets;
}

function checkPromql(plan: Plan, add: Add): void {
  for (const { path, query } of promqlFields(plan)) {
    const errors = promqlSyntaxErrors(query);
    const first = errors[0];
    if (first === undefined) continue;
    const before = query.slice(0, first);
    const line = before.split('\n').length;
    const column = first - before.lastIndexOf('\n');
    const near = query.slice(first, first + 20).split('\n')[0] ?? '';
    const quoted = query.length > MAX_QUOTED_QUERY ? `${query.slice(0, MAX_QUOTED_QUERY - 1)}…` : query;
    const where = query.includes('\n')
      ? `line ${line}, column ${column} of the query`
      : `character ${first + 1}`;
    add(
      'promql-syntax',
      path,
      query,
      'valid PromQL',
      `PromQL does not parse at ${where}${near ? ` (near '${near}')` : ' (unexpected end)'}: ${JSON.stringify(quoted.trim())}`,
    );
  }
}

/** The resolution AWS service metrics are published at unless listed in {@link AWS_SUB_MINUTE_NAMESPACES}. */
export const AWS_STANDARD_RESOLUTION_MS = 60_000;

/**
 * The AWS namespaces that AWS documents as publishing below a minute, with the finest period they
 * reach. Everything else under `AWS/` is standard resolution (one datapoint a minute, some services
 * coarser still, e.g. EC2 without detailed monitoring at 5 minutes — which no plan can know).
 */
export const AWS_SUB_MINUTE_NAMESPACES: Readonly<Record<string, number>> = {
  // SageMaker endpoints: ConcurrentRequestsPerModel/PerCopy are high-resolution metrics, and
  // MetricsConfig.MetricPublishFrequencyInSeconds can publish invocation metrics every 10 or 30 s.
  'AWS/SageMaker': 10_000,
  // CloudWatch Network Monitor: a monitor's aggregationPeriod is 30 or 60 s.
  'AWS/NetworkMonitor': 30_000,
};

/**
 * The finest period a namespace can be read at, where that is knowable from the name alone: AWS
 * namespaces publish at a documented resolution; custom namespaces may be high-resolution (1 s), so
 * nothing is known about them.
 */
export function knownResolutionMs(namespace: string): number | undefined {
  if (!namespace.startsWith('AWS/')) return undefined;
  return AWS_SUB_MINUTE_NAMESPACES[namespace] ?? AWS_STANDARD_RESOLUTION_MS;
}

/** Every CloudWatch source in a plan with its field path (SLIs, expectations, requests, budget). */
export function cloudwatchFields(plan: Plan): { path: PathSegment[]; spec: CloudWatchSource }[] {
  const out: { path: PathSegment[]; spec: CloudWatchSource }[] = [];
  const h = plan.hypothesis;
  const take = (base: PathSegment[], spec: CloudWatchSource | undefined) => {
    if (spec) out.push({ path: [...base, 'cloudwatch'], spec });
  };
  take(['hypothesis', 'requests'], h.requests?.cloudwatch);
  h.slis.forEach((s, i) => take(['hypothesis', 'slis', i], s.cloudwatch));
  h.expect.forEach((e, i) => take(['hypothesis', 'expect', i], e.cloudwatch));
  if (plan.budget) {
    for (const part of ['errors', 'total'] as const) take(['budget', part], plan.budget[part].cloudwatch);
  }
  return out;
}

/**
 * A period shorter than the metric's resolution never holds a whole measurement: CloudWatch has one
 * datapoint per resolution step, so most such periods are empty (no-data) and the rest carry a whole
 * step's figure as if it were the period's. Refused where the resolution is known (AWS namespaces).
 */
function checkCloudWatchPeriods(plan: Plan, add: Add): void {
  for (const { path, spec } of cloudwatchFields(plan)) {
    const namespaces =
      'expression' in spec ? Object.values(spec.metrics).map((m) => m.namespace) : [spec.namespace];
    let coarsest: { namespace: string; ms: number } | undefined;
    for (const namespace of namespaces) {
      const ms = knownResolutionMs(namespace);
      if (ms !== undefined && (!coarsest || ms > coarsest.ms)) coarsest = { namespace, ms };
    }
    if (!coarsest || spec.period >= coarsest.ms) continue;
    const period = formatDuration(spec.period);
    const resolution = formatDuration(coarsest.ms);
    const standard = coarsest.ms === AWS_STANDARD_RESOLUTION_MS ? 'standard resolution, ' : '';
    add(
      'cloudwatch-period-below-resolution',
      [...path, 'period'],
      period,
      resolution,
      `period ${period} is finer than ${coarsest.namespace} publishes: ${standard}at most one datapoint per ${resolution}, so a ${period} period never holds a whole measurement; expected ${resolution} or longer`,
    );
  }
}
