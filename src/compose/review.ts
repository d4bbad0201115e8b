/**
 * `chaos-gate plan` and the action's `command: plan`: everything preflight would decide, rendered like a
 * `terraform plan` — static and policy refusals, the failover model's prediction, the schedule and the next
 * allowed start, and with `resolve` the computed blast radius from a FIS dry run plus the budget figures.
 * Nothing is injected: the dry run runs with `actionsMode: skip-all` and is refused unless FIS echoes it.
 */
import { randomUUID } from 'node:crypto';
import { dirname } from 'node:path';
import { systemClock, type Clock } from '../clock/clock.js';
import type { GateContext, GateOutcome } from '../engine/gates.js';
import type { JournalEvent } from '../journal/types.js';
import { loadPlan, type LoadedPlan } from '../plan/load.js';
import { planRunDurationMs } from '../plan/refusals.js';
import { formatDuration } from '../journal/format.js';
import { countReaderFromSources } from '../preflight/index.js';
import { loadPolicy, readCatalog } from './inputs.js';
import { planFileReader } from '../files/read.js';
import { failoverReasons, modelFailover, type FailoverInputs } from '../analysis/failover.js';
import { runGates } from './gates.js';
import { checkSetup } from './setup.js';
import { buildPlanReview } from '../report/review.js';
import type { PlanReview } from '../report/comment.js';
import { createAwsClients } from '../injector/aws/clients.js';
import type { ResolvedTarget } from '../injector/injector.js';
import { FisInjector } from '../injector/fis/injector.js';
import { CloudWatchLease } from '../injector/fis/alarms.js';
import { LeaseKeeper } from '../engine/lease.js';
import { budgetStoreOf, runKeyOf } from './run.js';
import { killSwitchProbe, ledgerReader } from '../injector/fis/probes.js';
import { CloudWatchSourceImpl } from '../metrics/cloudwatch/index.js';
import { createMetricSources, prometheusOptionsFrom, type PrometheusInputs } from '../metrics/index.js';
import { candidateCounter, withTags } from '../injector/aws/tagging.js';
import { fisInjectorOf, taggingClientOf } from './aws.js';

export interface ReviewOptions {
  planPath: string;
  displayPath?: string | undefined;
  policyPath?: string | undefined;
  /** Resolve targets with a FIS dry run and read the budget: needs AWS (or the sandbox). */
  resolve?: boolean | undefined;
  prometheus?: PrometheusInputs | undefined;
  awsRegion?: string | undefined;
  env: NodeJS.ProcessEnv;
  clock?: Clock | undefined;
  runId?: string | undefined;
  /**
   * The directory every file a plan names must resolve inside (docs/design/principles.md#security); default `GITHUB_WORKSPACE`,
   * else the current directory.
   */
  workspace?: string | undefined;
}

export interface ReviewResult {
  loaded: LoadedPlan;
  review: PlanReview;
  /** Each gate's decision, in order. */
  decisions: { gate: string; outcome: GateOutcome | { pass: 'skipped'; why: string } }[];
  /** Resolved targets when `resolve` was asked for. */
  targets?: ResolvedTarget[] | undefined;
  /** 2 when something would be refused, else 0 (a wrong time is shown, not failed). */
  exitCode: number;
}

function failoverSection(loaded: LoadedPlan): PlanReview['sections'][number] | undefined {
  const f = loaded.plan.failover;
  if (!f) return undefined;
  const inputs: FailoverInputs = { ...f } as FailoverInputs;
  const result = modelFailover(inputs);
  const reasons = failoverReasons(result, inputs);
  return {
    heading: 'Predicted failover (regional failover model)',
    rows: [
      ['marked down at', result.markedDownAt === null ? 'never' : `${result.markedDownAt} s`],
      [
        'served during the outage',
        result.servedShare === null ? 'n/a' : `${result.servedShare} % (gate ≥ ${f.minServed} %)`,
      ],
      [
        'failover',
        result.failoverSeconds === null ? 'none' : `${result.failoverSeconds} s (gate ≤ ${f.maxFailover} s)`,
      ],
      ['lost conversations', String(result.lostConversations)],
      ['prediction', result.pass ? 'passes the gate' : `fails: ${reasons.join('; ')}`],
    ],
  };
}

/**
 * The dry run `--resolve` asked for could not be made: FIS refused the template the plan makes (an action
 * or parameter it does not take), or AWS could not be reached. Nothing was injected; `plan` exits 2, the
 * code of an unusable plan or setting, with this message.
 */
export class ReviewResolveError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ReviewResolveError';
  }
}

/** Builds the review; touches AWS only with `resolve` (a dry run: no action runs). */
export async function reviewPlan(o: ReviewOptions): Promise<ReviewResult> {
  const clock = o.clock ?? systemClock;
  const loaded = await loadPlan(o.planPath, o.displayPath ?? o.planPath);
  const policy = o.policyPath ? await loadPolicy(o.policyPath) : undefined;
  const plan = loaded.plan;
  const events: JournalEvent[] = [];
  const ctxFor = (targets?: GateContext['targets'], targetsComplete?: boolean): GateContext => ({
    plan,
    now: clock.now(),
    record: (e) => events.push({ at: clock.now(), ...e }),
    ...(targets ? { targets } : {}),
    ...(targets && targetsComplete !== undefined ? { targetsComplete } : {}),
  });

  // With --resolve the review reads the budget: a source it names without an endpoint is a missing
  // setting (exit 2, compose/setup.ts), as in a run, and is found before anything is sent.
  const prometheus = o.resolve ? prometheusOptionsFrom(o.prometheus ?? {}, o.env) : undefined;
  if (o.resolve)
    checkSetup(loaded, { prometheus: prometheus !== undefined, cloudwatch: true, scrape: true }, ['budget']);
  const clients = o.resolve ? createAwsClients({ region: o.awsRegion, env: o.env }) : undefined;
  const sources = clients
    ? createMetricSources({ prometheus, cloudwatch: new CloudWatchSourceImpl(clients.cloudwatch) })
    : undefined;
  const tagging = clients ? taggingClientOf(clients) : undefined;
  const preflight = runGates(loaded, {
    catalog: await readCatalog(
      plan,
      planFileReader(dirname(o.planPath), o.workspace ?? o.env.GITHUB_WORKSPACE ?? process.cwd()),
    ),
    policy,
    ...(clients ? { killSwitch: killSwitchProbe(clients) } : {}),
    ...(clients && sources && plan.budget
      ? {
          budget: {
            counts: countReaderFromSources(sources),
            ledger: ledgerReader(clients.cloudwatch),
            store: budgetStoreOf(sources),
          },
        }
      : {}),
    ...(tagging ? { candidates: candidateCounter(tagging) } : {}),
  });
  const gates = preflight.gates;
  const decisions: ReviewResult['decisions'] = [];
  let targets: ReviewResult['targets'];
  const networkGates = new Set(['incidents', 'budget', 'kill-switch', 'concurrency']);
  for (const gate of gates.filter((g) => g.stage !== 'after-targets')) {
    if (!o.resolve && networkGates.has(gate.name)) {
      decisions.push({
        gate: gate.name,
        outcome: { pass: 'skipped', why: 'needs --resolve (reads AWS/metrics)' },
      });
      continue;
    }
    // A policy's `requires` reads the verdict history a run is given: the review has none.
    if (gate.name === 'incidents' || gate.name === 'concurrency' || gate.name === 'requires') {
      decisions.push({ gate: gate.name, outcome: { pass: 'skipped', why: 'decided at run time' } });
      continue;
    }
    decisions.push({ gate: gate.name, outcome: await gate.check(ctxFor()) });
  }

  const staticRefused = decisions.some((d) => d.outcome.pass === false && d.outcome.verdict === 'refused');
  if (o.resolve && clients && !staticRefused) {
    const ctx = { runId: o.runId ?? `plan-review-${clock.now()}`, attempt: 1 };
    // The review's own lease key: never a run's, so a review cannot keep a run's lease alive.
    const reviewKey = runKeyOf(`review:${ctx.runId}:${randomUUID()}`, ctx.attempt, plan.id);
    // Tags per account, EKS pods by their cluster's tags: the same assembly, and lookup, as a run's.
    const injector = fisInjectorOf(clients, tagging ?? taggingClientOf(clients), {
      env: o.env,
      clock,
      leaseKey: reviewKey,
    });
    let resolution: Awaited<ReturnType<FisInjector['resolveTargets']>>;
    try {
      resolution = await dryRun(injector, plan, ctx, clients, reviewKey, clock);
    } catch (error) {
      throw new ReviewResolveError(
        `the FIS dry run could not be made: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
    targets = tagging ? await withTags(tagging, resolution.targets) : resolution.targets;
    for (const gate of gates.filter((g) => g.stage === 'after-targets')) {
      decisions.push({ gate: gate.name, outcome: await gate.check(ctxFor(targets, resolution.complete)) });
    }
  } else {
    for (const gate of gates.filter((g) => g.stage === 'after-targets')) {
      decisions.push({
        gate: gate.name,
        outcome: {
          pass: 'skipped',
          why: staticRefused ? 'the plan is refused statically' : 'needs --resolve (FIS dry run)',
        },
      });
    }
  }

  // One refusal per reason: a static gate lists each of its findings (`Gate.refusals`), as `validate` does.
  const refusals: PlanReview['refusals'] = [];
  for (const d of decisions) {
    if (d.outcome.pass !== false || d.outcome.verdict !== 'refused') continue;
    const gate = gates.find((g) => g.name === d.gate);
    const found = gate?.stage === 'static' && gate.refusals ? await gate.refusals(ctxFor()) : [];
    const list = found.length > 0 ? found : [{ field: d.outcome.field ?? d.gate, message: d.outcome.reason }];
    for (const x of list) {
      // The schedule's validity is a static finding; the time gate would only repeat it.
      if (refusals.some((r) => r.field === x.field && r.message === x.message)) continue;
      refusals.push({ field: x.field, message: x.message, line: loaded.locate(x.field)?.line });
    }
  }
  const extra: PlanReview['sections'] = [
    {
      heading: 'Preflight',
      rows: decisions.map(({ gate, outcome }): [string, string] => [
        gate,
        outcome.pass === true
          ? `pass${outcome.note ? ` — ${outcome.note}` : ''}`
          : outcome.pass === 'skipped'
            ? `skipped (${outcome.why})`
            : `${outcome.verdict}: ${outcome.reason}`,
      ]),
      note: `planned run ${formatDuration(planRunDurationMs(plan))}; decisions as of ${new Date(clock.now()).toISOString()}`,
    },
  ];
  if (targets) {
    extra.push({
      heading: `Computed blast radius (FIS dry run: ${targets.length} target${targets.length === 1 ? '' : 's'})`,
      rows: targets.map((t): [string, string] => [
        t.target,
        `${t.arn}${
          t.tags
            ? ` — ${Object.entries(t.tags)
                .map(([k, v]) => `${k}=${v}`)
                .join(', ')}`
            : ''
        }`,
      ]),
    });
  }
  const budget = decisions.find((d) => d.gate === 'budget')?.outcome;
  if (budget && budget.pass === true && budget.budget) {
    const b = budget.budget;
    extra.push({
      heading: 'Error budget',
      rows: [
        ['allowed bad events', b.allowedBadEvents.toFixed(0)],
        ['service consumed', b.serviceBadEvents.toFixed(0)],
        ['chaos allowance', b.chaosAllowance.toFixed(0)],
        ['chaos ledger spent', b.ledgerSpent.toFixed(0)],
      ],
    });
  }
  const failoverRows = failoverSection(loaded);
  if (failoverRows) extra.push(failoverRows);
  const review = buildPlanReview({
    plan,
    digest: loaded.digest,
    planPath: o.displayPath ?? o.planPath,
    refusals: [],
    extraSections: extra,
  });
  review.refusals = refusals;
  // A review is not a run: only a refusal fails it (2). A time that is wrong now (`not-run`) is shown in
  // the review and exits 0, as the action's `command: plan` does, so a plan review never fails on the clock.
  return { loaded, review, decisions, targets, exitCode: refusals.length ? 2 : 0 };
}

/** Provisions the plan's template and resolves its targets by a dry run, under a lease of the review's own. */
async function dryRun(
  injector: FisInjector,
  plan: LoadedPlan['plan'],
  ctx: { runId: string; attempt: number },
  clients: NonNullable<ReturnType<typeof createAwsClients>>,
  reviewKey: string,
  clock: Clock,
): Promise<Awaited<ReturnType<FisInjector['resolveTargets']>>> {
  const { templateId } = await injector.provision(plan, ctx);
  // The dry run runs under the template's stop conditions, the lease among them: like a run, the
  // review beats a lease of its own until the dry run has answered, then deletes its alarm.
  const keeper = new LeaseKeeper({
    lease: new CloudWatchLease(clients.cloudwatch, plan.id, reviewKey),
    clock,
    staleAfterMs: Number.POSITIVE_INFINITY,
    note: () => undefined,
  });
  try {
    await keeper.start();
    return await injector.resolveTargets(plan, templateId, ctx);
  } finally {
    await keeper.end();
    await injector.endLease().catch(() => undefined);
  }
}
