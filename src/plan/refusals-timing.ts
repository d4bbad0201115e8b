/**
 * Timing refusals (docs/design/gates.md#static-refusals): how often the plan measures and how long it holds its fault and runs — the
 * interval floor, action durations FIS can read and the blast radius allows, the planned run against its
 * ceiling, and abort rules or blindness that the fault is too short to ever reach. Also the run-length
 * figures other layers plan with (`planRunDurationMs`, `maxActionDurationMs`).
 */
import { formatDuration, parseIsoDuration } from './duration.js';
import type { PathSegment } from './load.js';
import type { Add } from './refusal-rule.js';
import type { FisAction, Plan } from './schema.js';

/**
 * The shortest `hypothesis.interval` a run accepts. Every tick reads every SLI and must be back by the
 * end of the tick; 1 s is the finest resolution CloudWatch stores (high-resolution metrics) and a tick
 * that still leaves room for a network round trip to Prometheus, CloudWatch and FIS. `0s` would make a
 * run measure every millisecond.
 */
export const MIN_INTERVAL_MS = 1000;

/** `hypothesis.interval` no shorter than {@link MIN_INTERVAL_MS}. */
export function checkInterval(plan: Plan, add: Add): void {
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
export function checkFaultMeasurements(plan: Plan, add: Add): void {
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
  // A settle as long as the fault leaves no reading held to the fault bound: the SLI could not fail, so
  // its `held` would prove nothing. Said once for the hypothesis, once per SLI that sets its own.
  const tooLong = (settle: number | undefined): settle is number => settle !== undefined && settle >= chain;
  const settleText = (settle: number, whose: string): string =>
    `settle ${formatDuration(settle)}${whose} is as long as the fault (${formatDuration(chain)}): no reading would be held to the bound, so the SLI could never fail; expected less than ${formatDuration(chain)}`;
  const shared = plan.hypothesis.settle;
  const sharedUsed = plan.hypothesis.slis.some((s) => s.during !== false && s.settle === undefined);
  if (tooLong(shared) && sharedUsed)
    add(
      'settle-exceeds-fault',
      ['hypothesis', 'settle'],
      formatDuration(shared),
      `less than ${formatDuration(chain)}`,
      settleText(shared, ''),
    );
  plan.hypothesis.slis.forEach((sli, i) => {
    if (sli.during === false || !tooLong(sli.settle)) return;
    add(
      'settle-exceeds-fault',
      ['hypothesis', 'slis', i, 'settle'],
      formatDuration(sli.settle),
      `less than ${formatDuration(chain)}`,
      settleText(sli.settle, ` of SLI ${sli.name}`),
    );
  });
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

export { parseIsoDuration } from './duration.js';

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

/** Each action duration readable by FIS and within `maxActionDuration`; the planned run within `maxRunDuration`. */
export function checkDurations(plan: Plan, add: Add): void {
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
