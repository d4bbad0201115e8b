/**
 * A run as the views across runs see it: one line per journal, taken from its judgement (never
 * recounted), and a plan's history built from those lines — the last verdicts, the figures, how often
 * the verdict changed while the plan did not (flakiness), and what has not been exercised lately.
 * Pure functions; reading the journals is collect.ts's.
 */
import { judgementOf, VERDICT_ORDER } from './judgement.js';
import { VERDICTS, type Journal, type Verdict } from './types.js';
import { JournalError } from './read.js';

/** One run, from its journal. */
export interface RunEntry {
  planId: string;
  planDigest: string;
  title: string;
  service: string;
  environment: string;
  runId: string;
  attempt: number;
  startedAt: number;
  /** null: the journal has no final record (the run was killed or crashed). */
  verdict: Verdict | null;
  reason: string | null;
  /** The fault ran: FIS reported an action running (the judgement's `faultRan`). */
  exercised: boolean;
  /** First fault reading outside its bound → FIS reported the experiment ended (ms). */
  breachToStoppedMs?: number;
  /** StopExperiment sent → FIS reported it ended (ms). */
  stopRequestToStoppedMs?: number;
  /** Bad events this run added, and the chaos allowance they came out of. */
  budget?: { debit?: number; allowance: number };
  region?: string;
  experimentId?: string;
  /** Where the journal came from (a file, or an artifact of a workflow run). */
  source: string;
}

function text(
  journal: Journal,
  field: 'planId' | 'planDigest' | 'title' | 'service' | 'environment' | 'runId',
  source: string,
): string {
  const value: unknown = journal[field];
  if (typeof value !== 'string' || value === '')
    throw new JournalError(
      `${source}: header field '${field}' is ${JSON.stringify(value) ?? 'missing'}; expected a non-empty string`,
    );
  return value;
}

/**
 * The line of a journal: its verdict and figures as the judgement states them. A header the views
 * cannot place (no plan id, no start time) or a verdict chaos-gate never writes is a `JournalError`:
 * the file is listed as unreadable, never counted.
 */
export function runEntry(journal: Journal, source: string): RunEntry {
  if (!Number.isFinite(journal.startedAt))
    throw new JournalError(
      `${source}: header field 'startedAt' is ${JSON.stringify(journal.startedAt) ?? 'missing'}; expected milliseconds since the epoch`,
    );
  for (const f of ['planId', 'planDigest', 'title', 'service', 'environment', 'runId'] as const)
    text(journal, f, source);
  const judgement = judgementOf(journal);
  if (!(VERDICTS as readonly unknown[]).includes(judgement.verdict))
    throw new JournalError(
      `${source}: verdict ${JSON.stringify(judgement.verdict)} is not one chaos-gate writes; expected one of ${VERDICTS.join(', ')}`,
    );
  const complete = journal.complete && journal.verdict !== null;
  const attempt =
    Number.isInteger(journal.attempt) && (journal.attempt ?? 0) > 0 ? (journal.attempt as number) : 1;
  const entry: RunEntry = {
    planId: journal.planId,
    planDigest: journal.planDigest,
    title: journal.title,
    service: journal.service,
    environment: journal.environment,
    runId: journal.runId,
    attempt,
    startedAt: journal.startedAt,
    // A prefix has no verdict of its own; the judgement computed on it is not one the run decided.
    verdict: complete ? judgement.verdict : null,
    reason: complete
      ? String(judgement.reason)
      : 'the journal has no final record: the run was killed or crashed',
    exercised: judgement.faultRan === true,
    source,
  };
  const { breachToStoppedMs, stopRequestToStoppedMs } = judgement.latency ?? {};
  if (Number.isFinite(breachToStoppedMs)) entry.breachToStoppedMs = breachToStoppedMs as number;
  if (Number.isFinite(stopRequestToStoppedMs))
    entry.stopRequestToStoppedMs = stopRequestToStoppedMs as number;
  if (journal.budget)
    entry.budget = {
      allowance: journal.budget.chaosAllowance,
      ...(journal.budget.debit !== undefined ? { debit: journal.budget.debit } : {}),
    };
  if (journal.region !== undefined) entry.region = journal.region;
  if (journal.experimentId !== undefined) entry.experimentId = journal.experimentId;
  return entry;
}

/** Rank of a verdict, worst first; an unfinished run ranks with `failed` (nothing proven). */
export function verdictRank(verdict: Verdict | null): number {
  return verdict === null ? 0 : VERDICT_ORDER.indexOf(verdict);
}

/** The key a plan's history is kept under: the same plan in two environments is two histories. */
export function planKey(e: Pick<RunEntry, 'planId' | 'environment'>): string {
  return `${e.planId}@${e.environment}`;
}

/** One plan (in one environment) across its runs, oldest first. */
export interface PlanHistory {
  planId: string;
  environment: string;
  service: string;
  title: string;
  runs: RunEntry[];
  /** Consecutive pairs of runs of the same plan digest, and how many of them changed verdict. */
  flaky: { pairs: number; changes: number };
  /** How often the plan itself changed between consecutive runs (a new digest). */
  planChanges: number;
}

/**
 * Same run seen twice (a directory and an artifact, or an artifact downloaded twice) counts once: the
 * key is the run id, the attempt and the plan. Later duplicates are dropped.
 */
export function uniqueRuns(entries: readonly RunEntry[]): RunEntry[] {
  const seen = new Set<string>();
  const out: RunEntry[] = [];
  for (const e of entries) {
    const key = `${e.runId}\u0000${e.attempt}\u0000${planKey(e)}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(e);
  }
  return out;
}

/** Per plan and environment: the runs oldest first, flakiness and plan changes. Sorted by plan id. */
export function planHistories(entries: readonly RunEntry[]): PlanHistory[] {
  const byPlan = new Map<string, RunEntry[]>();
  for (const e of uniqueRuns(entries)) {
    const list = byPlan.get(planKey(e)) ?? [];
    list.push(e);
    byPlan.set(planKey(e), list);
  }
  const out: PlanHistory[] = [];
  for (const runs of byPlan.values()) {
    runs.sort((a, b) => a.startedAt - b.startedAt || a.attempt - b.attempt);
    let pairs = 0;
    let changes = 0;
    let planChanges = 0;
    for (let i = 1; i < runs.length; i++) {
      const a = runs[i - 1]!;
      const b = runs[i]!;
      if (a.planDigest !== b.planDigest) {
        planChanges++;
        continue;
      }
      // An unfinished run decided nothing: it neither confirms nor changes a verdict.
      if (a.verdict === null || b.verdict === null) continue;
      pairs++;
      if (a.verdict !== b.verdict) changes++;
    }
    const last = runs[runs.length - 1]!;
    out.push({
      planId: last.planId,
      environment: last.environment,
      service: last.service,
      title: last.title,
      runs,
      flaky: { pairs, changes },
      planChanges,
    });
  }
  return out.sort((a, b) => a.planId.localeCompare(b.planId) || a.environment.localeCompare(b.environment));
}

/** What has not been exercised (its fault run) since `since`, and when it last was. */
export interface Untested {
  plans: { planId: string; environment: string; service: string; lastExercisedAt?: number }[];
  services: { service: string; lastExercisedAt?: number }[];
}

/**
 * Plans (per environment) and services without a run whose fault ran at or after `since`. `known`
 * adds plans that exist (plan files) but may have no run at all: those are untested too.
 */
export function untested(
  histories: readonly PlanHistory[],
  since: number,
  known: readonly { planId: string; service: string; environment: string }[] = [],
): Untested {
  const lastPlan = new Map<string, { planId: string; environment: string; service: string; at?: number }>();
  const lastService = new Map<string, number | undefined>();
  const note = (service: string, at: number | undefined): void => {
    const prev = lastService.get(service);
    lastService.set(service, at === undefined ? prev : Math.max(prev ?? at, at));
  };
  for (const k of known) {
    lastPlan.set(planKey(k), { ...k });
    note(k.service, undefined);
  }
  for (const h of histories) {
    const exercised = h.runs.filter((r) => r.exercised).map((r) => r.startedAt);
    const at = exercised.length ? Math.max(...exercised) : undefined;
    const key = planKey(h);
    const prev = lastPlan.get(key);
    lastPlan.set(key, {
      planId: h.planId,
      environment: h.environment,
      service: h.service,
      ...(at !== undefined ? { at } : prev?.at !== undefined ? { at: prev.at } : {}),
    });
    note(h.service, at);
  }
  const plans = [...lastPlan.values()]
    .filter((p) => p.at === undefined || p.at < since)
    .map((p) => ({
      planId: p.planId,
      environment: p.environment,
      service: p.service,
      ...(p.at !== undefined ? { lastExercisedAt: p.at } : {}),
    }))
    .sort((a, b) => (a.lastExercisedAt ?? 0) - (b.lastExercisedAt ?? 0) || a.planId.localeCompare(b.planId));
  const services = [...lastService.entries()]
    .filter(([, at]) => at === undefined || at < since)
    .map(([service, at]) => ({ service, ...(at !== undefined ? { lastExercisedAt: at } : {}) }))
    .sort(
      (a, b) => (a.lastExercisedAt ?? 0) - (b.lastExercisedAt ?? 0) || a.service.localeCompare(b.service),
    );
  return { plans, services };
}

/** The last finished run of `planId` in `environment`, or undefined when history has none. */
export function lastVerdict(
  entries: readonly RunEntry[],
  planId: string,
  environment: string,
): RunEntry | undefined {
  let last: RunEntry | undefined;
  for (const e of entries) {
    if (e.planId !== planId || e.environment !== environment || e.verdict === null) continue;
    if (!last || e.startedAt > last.startedAt || (e.startedAt === last.startedAt && e.attempt > last.attempt))
      last = e;
  }
  return last;
}
