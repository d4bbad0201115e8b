/**
 * The assembly of a real run, shared by both front doors (`chaos-gate run` and the action's
 * `command: run`): the plan and policy, the AWS clients, the FIS injector and lease, the metric sources,
 * the preflight gates with their AWS/Prometheus probes, the journal, and the ledger debit afterwards.
 * This is the only module besides `action/` and `cli/` that knows concrete implementations; the engine
 * and preflight see interfaces.
 */
import { dirname } from 'node:path';
import { systemClock, type Clock } from '../clock/clock.js';
import { runGate, type RunResult } from '../engine/run.js';
import { runGates, staticStageRefusals } from './gates.js';
import { checkSetup, SettingError } from './setup.js';
import { AlertmanagerClient } from '../metrics/alertmanager.js';
import type { AlertProbe, BudgetStore } from '../preflight/index.js';
import { withAbortFile } from './abort-file.js';
import type { BudgetFigures, Journal, JournalEvent, Measurement, Verdict } from '../journal/types.js';
import { FileJournalWriter, MemoryJournalWriter, type JournalWriter } from '../journal/writer.js';
import { allMeasurements } from '../journal/columns.js';
import { loadPlan, type LoadedPlan } from '../plan/load.js';
import { budgetDamageSli } from '../plan/budget-damage.js';
import type { AwsClients } from '../injector/aws/clients.js';
import { startEarlyReads, type EarlyReads } from './early.js';
import { CloudWatchLease } from '../injector/fis/alarms.js';
import { recordDamage } from '../injector/fis/ledger.js';
import { createSsmClient, keyOf, SsmClaims } from '../injector/aws/ssm-claims.js';
import { BudgetReservations, type ReserveInput, type RunIdentity } from '../injector/aws/ssm-budget.js';
import { SsmRunClaim } from '../injector/aws/ssm-run.js';
import { conflicts } from '../preflight/concurrency.js';
import { actionChainMs } from '../plan/refusals-timing.js';
import {
  activeExperimentCounter,
  alarmIncidentProbe,
  alarmWatchProbe,
  experimentLister,
  ledgerReader,
} from '../injector/fis/probes.js';
import { RunQueue } from '../engine/queue.js';
import { RunMeter } from '../injector/aws/meter.js';
import { CloudWatchSourceImpl } from '../metrics/cloudwatch/index.js';
import { candidateCounter } from '../injector/aws/tagging.js';
import { fisInjectorOf, taggingClientOf } from './aws.js';
import {
  createMetricSources,
  prometheusBudgetStore,
  prometheusIncidentCheck,
  prometheusOptionsFrom,
  PrometheusSource,
  type MetricSources,
  type PrometheusInputs,
} from '../metrics/index.js';
import { countReaderFromSources, measuredDamage, withDebit } from '../preflight/index.js';
import { loadPolicy, readCatalog, readHistory } from './inputs.js';
import type { IncidentProbe } from '../preflight/incidents.js';
import { scrapeUrlFields, type Plan } from '../plan/schema.js';
import { expandEnv, resolvePlanEnv, type PlanEnv } from '../plan/env.js';
import { planFileReader } from '../files/read.js';
import { secrets } from '../security/redact.js';
import { notifyingJournal, type NotifySettings, type RunLinks } from '../notify/index.js';

/**
 * The stop's budget once a run is cancelled. GitHub cancels a step with SIGINT, sends SIGTERM 7.5 s later
 * and kills the process tree 2.5 s after that (docs.github.com, "Workflow cancellation reference"): 6 s
 * of verifying leaves the journal, the outputs and the exit inside the first 7.5 s. The post step verifies
 * whatever is still unconfirmed (src/action/post-step.ts). `chaos-gate run` on Ctrl-C uses the same.
 */
export const CANCEL_STOP_VERIFY_MS = 6_000;

export interface RunOptions {
  planPath: string;
  /** The plan path as the user wrote it (messages and annotations). */
  displayPath?: string | undefined;
  policyPath?: string | undefined;
  /**
   * Journals (files or directories) of past runs: the verdict history a policy's `requires` is checked
   * against. Read only when the policy has `requires`.
   */
  historyPaths?: readonly string[] | undefined;
  prometheus?: PrometheusInputs | undefined;
  /** Alertmanager's base URL for `abort.alerts` (else `CHAOS_GATE_ALERTMANAGER_URL`). */
  alertmanagerUrl?: string | undefined;
  awsRegion?: string | undefined;
  /** Where the journal goes (NDJSON while running, see docs/journal.md for the end); memory only when absent. */
  journalPath?: string | undefined;
  runId: string;
  attempt: number;
  repo?: string | undefined;
  sha?: string | undefined;
  queueTimeoutMs?: number | undefined;
  abortFile?: string | undefined;
  /**
   * The directory every file a plan names must resolve inside (docs/design/principles.md#security); default `GITHUB_WORKSPACE`,
   * else the current directory.
   */
  workspace?: string | undefined;
  /** Template drift: repair it (default) or refuse. */
  drift?: 'repair' | 'refuse' | undefined;
  signal?: AbortSignal | undefined;
  env: NodeJS.ProcessEnv;
  clock?: Clock | undefined;
  stopVerifyTimeoutMs?: number | undefined;
  /** The stop's budget once `signal` aborted; default {@link CANCEL_STOP_VERIFY_MS}. */
  cancelStopVerifyTimeoutMs?: number | undefined;
  /**
   * Directories the journal must be written inside (files/write.ts: no symlink followed); absent, it is
   * written where it is told.
   */
  outputRoots?: readonly string[] | undefined;
  /**
   * The AWS clients and the kill-switch read (compose/early.ts), for a caller that started them itself;
   * started here when absent, once the plan has loaded and passed the static stage. Their Region is theirs.
   */
  early?: EarlyReads | undefined;
  /** Notification sinks (docs/notifications.md) and the links they carry; the writer below tells them. */
  notify?: NotifySettings | undefined;
  notifyLinks?: (() => RunLinks) | undefined;
  onPlanLoaded?: ((loaded: LoadedPlan) => void | Promise<void>) | undefined;
  onTick?: ((m: Measurement) => void) | undefined;
  onEvent?: ((e: JournalEvent) => void) | undefined;
  onExperimentId?: ((id: string) => void | Promise<void>) | undefined;
  log?: ((line: string) => void) | undefined;
}

export interface Assembled {
  loaded: LoadedPlan;
  clients: AwsClients;
  sources: MetricSources;
  cloudwatch: CloudWatchSourceImpl;
}

/** The SLO store `budget.from` reads: the run's Prometheus, when one is configured. */
export function budgetStoreOf(sources: MetricSources): BudgetStore | undefined {
  const prometheus = sources.prometheus;
  return prometheus instanceof PrometheusSource ? prometheusBudgetStore(prometheus) : undefined;
}

/** The environment variable that names Alertmanager when no flag or input does. */
export const ALERTMANAGER_URL_ENV = 'CHAOS_GATE_ALERTMANAGER_URL';

/**
 * The Alertmanager probe of a plan with `abort.alerts`: a plan that asks for one while no URL is set is
 * a setting error (exit 2) found before anything is sent, never a run that ignores its alerts.
 */
function alertProbe(loaded: LoadedPlan, url: string | undefined): AlertProbe | undefined {
  if (!loaded.plan.abort.alerts) return undefined;
  if (url === undefined || url.trim() === '') {
    const at = loaded.locate('abort.alerts');
    const where = at ? `${loaded.file}:${at.line}:${at.column}` : loaded.file;
    throw new SettingError(
      `${where}: abort.alerts reads Alertmanager, but no Alertmanager URL is set; expected the CLI flag --alertmanager-url or the environment variable ${ALERTMANAGER_URL_ENV}`,
      'alertmanager-url',
    );
  }
  const client = new AlertmanagerClient(url.trim());
  return { where: client.display, firing: (matchers, signal) => client.firing(matchers, signal) };
}

/** The incident probe the plan asks for, over the run's own sources. */
function incidentProbe(plan: Plan, sources: MetricSources, clients: AwsClients): IncidentProbe | undefined {
  const q = plan.schedule.incidents;
  if (!q) return undefined;
  if (q.cloudwatchAlarm) return alarmIncidentProbe(clients.cloudwatch, q.cloudwatchAlarm);
  const prometheus = sources.prometheus;
  if (q.prometheus && prometheus instanceof PrometheusSource) {
    const check = prometheusIncidentCheck(q.prometheus, prometheus);
    return {
      async open(at) {
        const s = await check.check(at);
        return { open: s.open, detail: s.detail, ...(s.error !== undefined ? { error: s.error } : {}) };
      },
    };
  }
  return undefined;
}

/**
 * The SLI that measures bad (or good) requests, which the ledger debit is computed from: `budget.damage`
 * as written, or derived from the SLIs when it is not (src/plan/budget-damage.ts). A plan with a budget
 * for which neither exists is refused by the static gate before anything runs, so a run with a budget
 * always debits the ledger.
 */
function damageSli(plan: Plan): { sli: string; kind: 'error-ratio' | 'success-ratio' } | undefined {
  return budgetDamageSli(plan);
}

/**
 * Registers what a plan's scrape URLs carry with the redactor: the values of its secret variables and
 * any `user:password@` in a URL once expanded.
 */
export function registerPlanSecrets(plan: Plan, planEnv: PlanEnv): void {
  for (const value of planEnv.secrets) secrets.add(value);
  for (const { url } of scrapeUrlFields(plan)) {
    try {
      secrets.addUrl(expandEnv(url, planEnv.values));
    } catch {
      // An unexpandable URL carries no value to register; the scrape reports it as an error reading.
    }
  }
}

/** Loads, assembles and runs one plan for real. Plan errors throw `PlanError` (front doors: exit 2). */
export async function executeRun(o: RunOptions): Promise<RunResult> {
  const clock = o.clock ?? systemClock;
  const log = o.log ?? (() => undefined);
  const loaded = await loadPlan(o.planPath, o.displayPath ?? o.planPath);
  const policy = o.policyPath ? await loadPolicy(o.policyPath) : undefined;
  const plan = loaded.plan;
  // The front door's check run exists from here on, so a set-up found missing below is reported on it.
  await o.onPlanLoaded?.(loaded);

  // Bad settings are input errors (exit 2) found before anything is sent: the plan's declared variables
  // (their secret values registered with the redactor), the Prometheus options, and a source kind the
  // plan reads with no endpoint configured (compose/setup.ts: `failed`, never `not-run`).
  const planEnv = resolvePlanEnv(plan, o.env);
  registerPlanSecrets(plan, planEnv);
  const fromInputs = prometheusOptionsFrom(o.prometheus ?? {}, o.env);
  checkSetup(loaded, { prometheus: fromInputs !== undefined, cloudwatch: true, scrape: true });
  const alerts = alertProbe(loaded, o.alertmanagerUrl ?? o.env[ALERTMANAGER_URL_ENV]);
  const catalog = await readCatalog(
    plan,
    planFileReader(dirname(o.planPath), o.workspace ?? o.env.GITHUB_WORKSPACE ?? process.cwd()),
  );
  // The static stage (plan rules, failover model, policy, catalog veto, schedule validity) needs no
  // network. A plan it refuses sends no request at all: not even the kill-switch read, which otherwise
  // goes out now and runs beside the rest of the assembly (compose/early.ts).
  const refused = (await staticStageRefusals(loaded, { policy, catalog }, clock.now())).length > 0;
  const early = o.early ?? startEarlyReads({ region: o.awsRegion, env: o.env, clock, readAhead: !refused });
  const clients = await early.clients();
  // The run's AWS calls, counted at its clients for the cost estimate (the kill-switch read that went
  // out before this point is not among them).
  const meter = new RunMeter();
  meter.attach(clients.fis, 'fis');
  meter.attach(clients.cloudwatch, 'cloudwatch');
  const cloudwatch = new CloudWatchSourceImpl(clients.cloudwatch);
  // The source's retry backoff sleeps on the run's clock, like every other wait of the run.
  const prometheus = fromInputs && { ...fromInputs, clock };
  const sources = createMetricSources({ prometheus, cloudwatch, scrape: { env: planEnv.values } });
  // This run's key: its lease alarm, heartbeat dimension and the owner of its claims. It is the run's
  // identity (run id, attempt, plan), not the process's: a step retried with the same run id and attempt
  // is the same run — its start returns the experiment the first try started (the FIS client token) —
  // and must keep that run's lease and claims, not queue behind them.
  const runKey = runKeyOf(o.runId, o.attempt, plan.id);
  const lease = new CloudWatchLease(clients.cloudwatch, plan.id, runKey);
  const who: RunIdentity = { owner: runKey, runId: o.runId, attempt: o.attempt, planId: plan.id };
  const ssm = createSsmClient({ region: clients.region });
  meter.attach(ssm, 'ssm');
  // Not the run's signal: a cancelled run must still release its claims (each call has its own deadline).
  const claims = new SsmClaims(ssm, () => clock.now());
  const reservations = new BudgetReservations(claims, who, clock);
  const ledger = ledgerReader(clients.cloudwatch);
  const tagging = taggingClientOf(clients);
  meter.attach(tagging, 'tagging');
  const injector = fisInjectorOf(clients, tagging, {
    env: o.env,
    clock,
    leaseKey: runKey,
    log,
    ...(o.drift ? { drift: o.drift } : {}),
  });
  // One queue for the run: the concurrency gate's wait and the waits for FIS's active-experiment quota
  // share the queue timeout (engine/queue.ts).
  const queue = new RunQueue({
    clock,
    timeoutMs: o.queueTimeoutMs ?? 0,
    active: activeExperimentCounter(clients, { planId: plan.id, runId: o.runId, attempt: o.attempt }).active,
  });
  const preflight = runGates(loaded, {
    catalog,
    policy,
    history: policy?.policy.requires?.length ? readHistory(o.historyPaths) : undefined,
    incidents: incidentProbe(plan, sources, clients),
    killSwitch: early.killSwitch,
    alerts,
    alarms: plan.abort.alarms ? alarmWatchProbe(clients.cloudwatch) : undefined,
    budget: plan.budget
      ? {
          counts: countReaderFromSources(sources),
          store: budgetStoreOf(sources),
          // Spent = the ledger plus what concurrent runs have reserved and not yet settled.
          ledger: {
            spent: async (service, windowMs, now) =>
              (await ledger.spent(service, windowMs, now)) +
              (await reservations.reservedByOthers(service)).total,
          },
        }
      : undefined,
    candidates: candidateCounter(tagging),
    concurrency: {
      lister: experimentLister(clients, { planId: plan.id, runId: o.runId, attempt: o.attempt }),
      clock,
      queueTimeoutMs: o.queueTimeoutMs ?? 0,
      queue,
    },
  });
  const journal: JournalWriter = notifyingJournal(
    o.journalPath
      ? new FileJournalWriter(o.journalPath, {
          confine: o.outputRoots ? { what: 'journal', roots: o.outputRoots } : undefined,
        })
      : new MemoryJournalWriter(),
    o.notify && {
      settings: o.notify,
      wanted: plan.notify,
      now: () => clock.now(),
      links: o.notifyLinks,
      onEvent: o.onEvent,
    },
  );

  const settle = async (j: Journal, _verdict: Verdict): Promise<BudgetFigures | undefined> => {
    const damage = damageSli(plan);
    // A run that never sent a start gives its reservation back; one whose fault is in doubt keeps it.
    if (j.timings.injectedAt === undefined && j.experimentId === undefined) await reservations.cancel();
    if (!plan.budget || !damage || j.timings.injectedAt === undefined) return undefined;
    const measured = measuredDamage(allMeasurements(j), damage);
    await recordDamage(clients.cloudwatch, {
      service: plan.service,
      planId: plan.id,
      badEvents: measured.damage,
      at: clock.now(),
    });
    await reservations.settle(measured.damage);
    return j.budget ? withDebit(j.budget, measured.damage) : undefined;
  };

  const lister = experimentLister(clients, { planId: plan.id, runId: o.runId, attempt: o.attempt });
  const claim = new SsmRunClaim({
    claims,
    who,
    clock,
    ttlMs: claimTtlMs(plan, o.stopVerifyTimeoutMs),
    queueTimeoutMs: o.queueTimeoutMs ?? 0,
    queue,
    recheck: async (arns) => {
      const found = conflicts(arns, await lister.running());
      return found.length
        ? found
            .map(
              (c) =>
                `experiment ${c.experiment.id} (plan ${c.experiment.planId}) is running on ${c.shared.join(', ') || 'unknown targets'}`,
            )
            .join('; ')
        : undefined;
    },
    budget: plan.budget
      ? { reservations, input: () => reserveInput(plan, journal.snapshot(), ledger, clock) }
      : undefined,
    bindLease: (signal) => injector.bindLease(journal.snapshot().templateId ?? '', signal),
    verifyLease: (id, signal) => injector.verifyLease(id, signal),
    endLease: () => injector.endLease(),
    note: log,
  });

  return runGate({
    plan,
    planDigest: loaded.digest,
    planPath: o.displayPath ?? o.planPath,
    runId: o.runId,
    attempt: o.attempt,
    clock,
    sources,
    injector,
    lease,
    gates: preflight.gates,
    midRun: withAbortFile(o.abortFile, preflight.midRun),
    journal,
    signal: o.signal,
    onTick: o.onTick,
    onEvent: o.onEvent,
    onExperimentId: o.onExperimentId,
    stopVerifyTimeoutMs: o.stopVerifyTimeoutMs,
    cancelStopVerifyTimeoutMs: o.cancelStopVerifyTimeoutMs ?? CANCEL_STOP_VERIFY_MS,
    region: clients.region,
    queue,
    meter,
    settle,
    claim,
    ctx: {
      runId: o.runId,
      attempt: o.attempt,
      ...(o.repo ? { repo: o.repo } : {}),
      ...(o.sha ? { sha: o.sha } : {}),
    },
  });
}

/** The key of a run: 12 hex of SHA-256 over its run id, attempt and plan. */
export function runKeyOf(runId: string, attempt: number, planId: string): string {
  return keyOf(`${runId}\n${attempt}\n${planId}`).slice(0, 12);
}

/** Margin of a claim's life beyond the run's planned fault and recovery: stop verification, slow calls. */
const CLAIM_MARGIN_MS = 5 * 60_000;

/**
 * How long the run's claims live if its runner dies: from the claim to the run's end at the latest —
 * a second steady state (after queueing), the longest chain of actions, the recovery, the stop
 * verification, and a margin.
 */
export function claimTtlMs(plan: Plan, stopVerifyTimeoutMs?: number): number {
  return (
    plan.hypothesis.steadyState.duration +
    actionChainMs(plan) +
    plan.hypothesis.recovery.within +
    (stopVerifyTimeoutMs ?? 60_000) +
    CLAIM_MARGIN_MS
  );
}

/**
 * What the run reserves of the error budget: its worst case — every request fails for the whole
 * longest chain of actions, at the service's average rate over the SLO window (total events ÷ window,
 * with the total from the budget gate's own figures: allowed ÷ (1 − objective)).
 */
export function reserveInput(
  plan: Plan,
  journal: Journal,
  ledger: { spent(service: string, windowMs: number, now: number): Promise<number> },
  clock: Clock,
): ReserveInput | string {
  const f = journal.budget;
  if (!plan.budget || !f) return 'the budget gate recorded no figures, so no reservation can be made';
  const total = f.objective < 1 ? f.allowedBadEvents / (1 - f.objective) : NaN;
  const rate = total / f.windowMs;
  const amount = rate * actionChainMs(plan);
  if (!Number.isFinite(amount) || amount < 0)
    return `cannot estimate the run's damage (rate ${rate} events/ms)`;
  return {
    service: plan.service,
    amount,
    allowance: f.chaosAllowance,
    ledgerSpent: () => ledger.spent(plan.service, f.windowMs, clock.now()),
    ttlMs: claimTtlMs(plan),
  };
}
