/**
 * Preflight: the gates a run passes before anything is injected (docs/design/gates.md), and the checks repeated every
 * tick while the fault may be on. Front doors build them here from the plan and the probes they wire
 * (concrete FIS, Prometheus or CloudWatch code stays on their side of these interfaces).
 */
import type { RunQueue } from '../engine/queue.js';
import type { Clock } from '../clock/clock.js';
import type { Gate, MidRunCheck } from '../engine/gates.js';
import type { Plan } from '../plan/schema.js';
import { alarmsGate, alarmsMidRunCheck, type AlarmWatchProbe } from './alarms.js';
import { alertsGate, alertsMidRunCheck, type AlertProbe } from './alerts.js';
import { blastRadiusGate, type CandidateCounter } from './blast-radius.js';
import { budgetGate, type CountReader, type LedgerReader } from './budget.js';
import type { BudgetStore } from './budget-store.js';
import { catalogGate, type CatalogInput } from './catalog.js';
import { concurrencyGate, type ExperimentLister } from './concurrency.js';
import { incidentGate, incidentMidRunCheck, type IncidentProbe } from './incidents.js';
import { killSwitchGate, killSwitchMidRunCheck, type KillSwitchProbe } from './kill-switch.js';
import { effectiveLimits, policyGate, type LoadedPolicy } from './policy.js';
import { scheduleGate, scheduleValidityGate } from './schedule.js';
import { requiresGate, type VerdictHistory } from './requires.js';

export type { VerdictHistory } from './requires.js';

export interface PreflightOptions {
  plan: Plan;
  /**
   * The service catalog the plan names (`blastRadius.catalog.path`), read by the front door: relative to
   * the plan file and confined to the workspace (compose/inputs.ts). Without it a plan naming one is refused.
   */
  catalog?: CatalogInput | undefined;
  policy?: LoadedPolicy | undefined;
  /** The verdict history a policy's `requires` is checked against (read by the front door). */
  history?: VerdictHistory | undefined;
  /** True when the plan's text writes a field (`LoadedPlan.locate(f) !== undefined`); see policy.ts. */
  written?: ((field: string) => boolean) | undefined;
  incidents?: IncidentProbe | undefined;
  killSwitch?: KillSwitchProbe | undefined;
  /** Reads Alertmanager for `abort.alerts`. */
  alerts?: AlertProbe | undefined;
  /** Reads CloudWatch alarm states for `abort.alarms`. */
  alarms?: AlarmWatchProbe | undefined;
  budget?: { counts: CountReader; ledger: LedgerReader; store?: BudgetStore | undefined } | undefined;
  concurrency?:
    | {
        lister: ExperimentLister;
        clock: Clock;
        queueTimeoutMs: number;
        pollMs?: number | undefined;
        ownIds?: (() => readonly string[]) | undefined;
        queue?: RunQueue | undefined;
      }
    | undefined;
  candidates?: CandidateCounter | undefined;
  /** How resolved targets without tag information are treated (default `refuse`). */
  unknownTags?: 'refuse' | 'allow' | undefined;
  /** Overrides the planned run length used by the schedule (default: `planRunDurationMs(plan)`). */
  plannedRunMs?: number | undefined;
}

export interface Preflight {
  /** In docs/design/gates.md order within each stage: static, before-targets, after-targets. */
  gates: Gate[];
  midRun: MidRunCheck[];
}

/** A gate standing in for a probe the plan needs but the front door did not wire: fail closed. */
function missing(name: string, field: string, what: string): Gate {
  return {
    name,
    stage: 'before-targets',
    async check() {
      return {
        pass: false,
        verdict: 'not-run',
        reason: `the plan sets ${field} but no ${what} is configured, so it cannot be checked`,
        field,
      };
    },
  };
}

/**
 * The gates and mid-run checks for one run. A plan feature without its probe (an incident query with no
 * incident probe, a budget with no readers) becomes a gate that does not pass, never a silent skip.
 * The kill switch and concurrency gates are present when their probes are given.
 */
export function buildGates(options: PreflightOptions): Preflight {
  const { plan } = options;
  const gates: Gate[] = [];
  const midRun: MidRunCheck[] = [];

  if (options.policy) gates.push(policyGate(options.policy, { written: options.written }));
  gates.push(catalogGate({ catalog: options.catalog }));

  // The schedule's validity is static (time zone, cron fields, windows that can hold the run); whether
  // now is a good time is decided before the targets are resolved.
  gates.push(scheduleValidityGate({ plannedRunMs: options.plannedRunMs }));
  gates.push(scheduleGate({ plannedRunMs: options.plannedRunMs }));
  if (options.policy?.policy.requires?.length) gates.push(requiresGate(options.policy, options.history));
  if (options.incidents) {
    gates.push(incidentGate(options.incidents));
    midRun.push(incidentMidRunCheck(options.incidents, { errorsBeforeAbort: plan.abort.blindAfter }));
  } else if (plan.schedule.incidents) {
    gates.push(missing('incidents', 'schedule.incidents', 'incident probe'));
  }
  if (options.killSwitch) {
    gates.push(killSwitchGate(options.killSwitch));
    midRun.push(killSwitchMidRunCheck(options.killSwitch));
  }
  const alerts = plan.abort.alerts;
  if (alerts && options.alerts) {
    gates.push(alertsGate(options.alerts, alerts.matchers));
    midRun.push(alertsMidRunCheck(options.alerts, alerts.matchers));
  } else if (alerts) gates.push(missing('alerts', 'abort.alerts', 'Alertmanager'));
  const alarms = plan.abort.alarms;
  if (alarms && options.alarms) {
    gates.push(alarmsGate(options.alarms, alarms.names));
    midRun.push(alarmsMidRunCheck(options.alarms, alarms.names));
  } else if (alarms) gates.push(missing('alarms', 'abort.alarms', 'CloudWatch alarm reader'));
  if (options.budget) gates.push(budgetGate(options.budget));
  else if (plan.budget)
    gates.push(missing('budget', 'budget', 'budget reader (metric source and chaos ledger)'));

  const policy = options.policy?.policy;
  gates.push(
    blastRadiusGate({
      limits: (p) => effectiveLimits(p, policy),
      candidates: options.candidates,
      unknownTags: options.unknownTags,
    }),
  );
  if (options.concurrency) gates.push(concurrencyGate(options.concurrency));

  const order = { static: 0, 'before-targets': 1, 'after-targets': 2 } as const;
  gates.sort((a, b) => order[a.stage] - order[b.stage]);
  return { gates, midRun };
}

export { blastRadiusDecision, selectionCount, allowedByPercent, parseSelectionMode } from './blast-radius.js';
export type { BlastLimits, CandidateCounter, TargetSelection } from './blast-radius.js';
export { budgetDecision, measuredDamage, withDebit, countReaderFromSources } from './budget.js';
export type { CountReader, LedgerReader, Damage } from './budget.js';
export { parseCatalog, downstreamClosure } from './catalog.js';
export type { Catalog, CatalogInput } from './catalog.js';
export { conflicts } from './concurrency.js';
export type { ExperimentLister, RunningExperiment } from './concurrency.js';
export type { IncidentProbe } from './incidents.js';
export type { AlertProbe, ProbedAlert } from './alerts.js';
export type { AlarmWatchProbe } from './alarms.js';
export type { BudgetStore, StoreBudget } from './budget-store.js';
export { readStoreBudget } from './budget-store.js';
export type { KillSwitchProbe } from './kill-switch.js';
export { parsePolicy, policyFromDocument, policyRefusals, effectiveLimits, PolicyError } from './policy.js';
export type { LoadedPolicy, Policy, PolicyRefusal } from './policy.js';
export {
  scheduleDecision,
  compileSchedule,
  scheduleIssues,
  scheduleRefusals,
  ScheduleError,
} from './schedule.js';
export type { ScheduleDecision } from './schedule.js';
