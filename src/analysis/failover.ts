/**
 * `model failover` (docs/design/analysis.md#model-failover): a deterministic model of an agent service failing over from a primary
 * to a secondary region, so a team can see whether a regional experiment can pass before spending it.
 *
 * `modelFailover` is deliberately self-contained (no imports, no helpers, no closures over module
 * state): the HTML replay embeds it with `Function.prototype.toString`, so the page recomputes with the
 * very same code when an input changes.
 */
import type { Plan } from '../plan/schema.js';

/** The model's inputs; the same fields as the plan's `failover` section. */
export interface FailoverInputs {
  /** Health-check period H in seconds. */
  every: number;
  /** Consecutive failed checks F that mark the primary down. */
  failures: number;
  /** `shallow` asks whether the process answers; `deep` also calls the model endpoint. */
  depth: 'shallow' | 'deep';
  /** Seconds clients cache the route. */
  ttl: number;
  capacity: 'full' | 'half' | 'zero';
  replication: 'async' | 'sync';
  /** `region`: the whole primary is down; `model`: only its model calls fail. */
  fault: 'region' | 'model';
  /** Gate: minimum share of outage requests served, percent. */
  minServed: number;
  /** Gate: maximum seconds from outage start to the first request served by the secondary. */
  maxFailover: number;
}

/** Gate defaults of docs/design/analysis.md#model-failover. */
export const FAILOVER_GATE_DEFAULTS = { minServed: 70, maxFailover: 15 } as const;

/** One inspection second `[t, t+1)`. Request counts can be fractional: routing moves clients linearly. */
export interface FailoverSecond {
  t: number;
  offered: number;
  toPrimary: number;
  toSecondary: number;
  servedPrimary: number;
  servedSecondary: number;
  served: number;
  /** Requests that failed: primary down, or rejected/unserved by the secondary. */
  failed: number;
}

export interface FailoverEvent {
  /** Seconds from the start of the inspection window. */
  at: number;
  type: string;
  message: string;
}

/** The model's output (`model failover --json`). */
export interface FailoverResult {
  /** 15 + H·F, or null when the check cannot see the fault. */
  markedDownAt: number | null;
  /** Percent of the outage's requests served, one decimal. */
  servedShare: number;
  /** Seconds from the outage start to the first request served by the secondary; null if none. */
  failoverSeconds: number | null;
  lostConversations: number;
  pass: boolean;
  criteria: { served: boolean; failover: boolean; sessions: boolean };
  series: FailoverSecond[];
  events: FailoverEvent[];
}

/**
 * Runs the failover model. Pure and deterministic; self-contained so it can be serialized into the
 * HTML replay (keep it free of imports, helper functions and TypeScript-only runtime constructs).
 */
export function modelFailover(inputs: FailoverInputs): FailoverResult {
  // The scenario of docs/design/analysis.md#model-failover: 60 inspection seconds at 10 rps, primary down from 15 s to 45 s.
  const SECONDS = 60;
  const RPS = 10;
  const OUTAGE_START = 15;
  const OUTAGE_END = 45;
  // Half capacity serves 5 rps; a scaled-to-zero secondary needs 20 s after traffic first arrives.
  const HALF_RPS = 5;
  const COLD_START_S = 20;
  // 12 of the 40 active conversations had a turn in the 10 s before the outage: the async replication lag.
  const RECENT_CONVERSATIONS = 12;

  const detectable = inputs.depth === 'deep' || inputs.fault === 'region';
  const markedDownAt = detectable ? OUTAGE_START + inputs.every * inputs.failures : null;
  const failsOver = markedDownAt !== null && markedDownAt < OUTAGE_END;
  // The k-th second after the mark-down is the k-th whole inspection second starting at or after it.
  const firstMoved = failsOver ? Math.ceil(markedDownAt) : Infinity;

  const series: FailoverSecond[] = [];
  let arrival: number | null = null;
  let firstServed: number | null = null;
  let firstRejected: number | null = null;
  let allMoved: number | null = null;
  let outageOffered = 0;
  let outageServed = 0;
  for (let t = 0; t < SECONDS; t++) {
    const primaryDown = t >= OUTAGE_START && t < OUTAGE_END;
    const k = t - firstMoved + 1;
    const moved = k >= 1 ? Math.min(1, k / inputs.ttl) : 0;
    if (moved === 1 && allMoved === null) allMoved = t;
    const toSecondary = RPS * moved;
    const toPrimary = RPS - toSecondary;
    if (toSecondary > 0 && arrival === null) arrival = t;
    let servedSecondary = toSecondary;
    if (inputs.capacity === 'half') {
      servedSecondary = Math.min(toSecondary, HALF_RPS);
      if (toSecondary > HALF_RPS && firstRejected === null) firstRejected = t;
    } else if (inputs.capacity === 'zero') {
      servedSecondary = arrival !== null && t >= arrival + COLD_START_S ? toSecondary : 0;
    }
    if (servedSecondary > 0 && firstServed === null) firstServed = t;
    const servedPrimary = primaryDown ? 0 : toPrimary;
    const served = servedPrimary + servedSecondary;
    if (primaryDown) {
      outageOffered += RPS;
      outageServed += served;
    }
    series.push({
      t,
      offered: RPS,
      toPrimary: Math.round(toPrimary * 1000) / 1000,
      toSecondary: Math.round(toSecondary * 1000) / 1000,
      servedPrimary: Math.round(servedPrimary * 1000) / 1000,
      servedSecondary: Math.round(servedSecondary * 1000) / 1000,
      served: Math.round(served * 1000) / 1000,
      failed: Math.round((RPS - served) * 1000) / 1000,
    });
  }

  // The epsilon keeps sums of thirds (e.g. 69.99999) from rounding below an exact one-decimal share.
  const servedShare = Math.round((outageServed / outageOffered) * 1000 + 1e-6) / 10;
  const failoverSeconds = firstServed === null ? null : firstServed - OUTAGE_START;
  const lostConversations = failsOver && inputs.replication === 'async' ? RECENT_CONVERSATIONS : 0;
  const criteria = {
    served: servedShare >= inputs.minServed,
    failover: failoverSeconds !== null && failoverSeconds <= inputs.maxFailover,
    sessions: lostConversations === 0,
  };
  const pass = criteria.served && criteria.failover && criteria.sessions;

  const events: FailoverEvent[] = [];
  events.push({
    at: 0,
    type: 'start',
    message: `${SECONDS} s at ${RPS} rps; every client routes to the primary`,
  });
  events.push({
    at: OUTAGE_START,
    type: 'outage',
    message:
      inputs.fault === 'region'
        ? 'primary region down'
        : 'primary model endpoint failing; its app servers still answer',
  });
  const firstCheck = OUTAGE_START + inputs.every;
  if (firstCheck < SECONDS) {
    events.push(
      detectable
        ? {
            at: firstCheck,
            type: 'check-failed',
            message: `${inputs.depth} health check fails (1 of ${inputs.failures} needed, every ${inputs.every} s)`,
          }
        : {
            at: firstCheck,
            type: 'check-passed',
            message: 'shallow health check passes: the process answers, the model fault stays invisible',
          },
    );
  }
  if (markedDownAt !== null && markedDownAt <= SECONDS) {
    events.push({
      at: markedDownAt,
      type: 'marked-down',
      message: failsOver
        ? `primary marked down after ${inputs.failures} failed checks`
        : `primary marked down after ${inputs.failures} failed checks, at or after the recovery: nothing fails over`,
    });
  }
  if (arrival !== null) {
    events.push({
      at: arrival,
      type: 'traffic-to-secondary',
      message: `route caches expire: clients move to the secondary over ${inputs.ttl} s`,
    });
    events.push(
      lostConversations > 0
        ? {
            at: arrival,
            type: 'sessions-lost',
            message: `${lostConversations} conversations lost: asynchronous replication lags 10 s`,
          }
        : { at: arrival, type: 'sessions-kept', message: 'no conversation lost: synchronous replication' },
    );
    if (inputs.capacity === 'zero') {
      events.push({
        at: arrival,
        type: 'cold-start',
        message: `secondary scaled to zero: serves nothing for ${COLD_START_S} s`,
      });
    }
  }
  if (firstRejected !== null) {
    events.push({
      at: firstRejected,
      type: 'capacity',
      message: `secondary at half capacity (${HALF_RPS} rps): the excess is rejected`,
    });
  }
  if (firstServed !== null) {
    events.push({
      at: firstServed,
      type: 'failover',
      message: `first request served by the secondary, ${failoverSeconds} s after the outage began`,
    });
  }
  if (allMoved !== null)
    events.push({ at: allMoved, type: 'all-moved', message: 'every client routes to the secondary' });
  events.push({ at: OUTAGE_END, type: 'recovered', message: 'primary back up' });
  events.push({
    at: SECONDS,
    type: 'verdict',
    message: `${pass ? 'pass' : 'fail'}: ${servedShare.toFixed(1)} % of outage requests served`,
  });
  events.sort((a, b) => a.at - b.at);

  return { markedDownAt, servedShare, failoverSeconds, lostConversations, pass, criteria, series, events };
}

/** Why each criterion failed, quoting the numbers; empty when the model passes. */
export function failoverReasons(result: FailoverResult, inputs: FailoverInputs): string[] {
  const reasons: string[] = [];
  if (!result.criteria.served) {
    reasons.push(
      `served ${result.servedShare.toFixed(1)} % of outage requests < ${inputs.minServed} % (min-served)`,
    );
  }
  if (!result.criteria.failover) {
    reasons.push(
      result.failoverSeconds === null
        ? result.markedDownAt === null
          ? `no failover: a ${inputs.depth} health check never detects a ${inputs.fault} fault`
          : `no failover: the primary is marked down at ${result.markedDownAt} s, after it recovered at 45 s`
        : `failover ${result.failoverSeconds} s > ${inputs.maxFailover} s (max-failover)`,
    );
  }
  if (!result.criteria.sessions) {
    reasons.push(`${result.lostConversations} conversations lost (${inputs.replication} replication)`);
  }
  return reasons;
}

/**
 * The plan's optional `failover` section, evaluated before any injection: a refusal string when the
 * model predicts the regional experiment fails its gate, null when it passes or the plan has none.
 */
export function failoverRefusal(plan: Pick<Plan, 'failover'>): string | null {
  if (!plan.failover) return null;
  const inputs: FailoverInputs = { ...plan.failover };
  const result = modelFailover(inputs);
  if (result.pass) return null;
  return `failover: the model predicts the regional experiment fails its gate — ${failoverReasons(result, inputs).join('; ')}`;
}

/** The text report of `chaos-gate model failover`. */
export function formatFailoverText(result: FailoverResult, inputs: FailoverInputs): string {
  const mark = (ok: boolean): string => (ok ? 'pass' : 'FAIL');
  const lines = [
    `inputs: checks every ${inputs.every} s, ${inputs.failures} failures, ${inputs.depth}; TTL ${inputs.ttl} s; ` +
      `capacity ${inputs.capacity}; replication ${inputs.replication}; fault ${inputs.fault}`,
    `marked down at:       ${result.markedDownAt === null ? 'never (the check cannot see this fault)' : `${result.markedDownAt} s`}`,
    `served during outage: ${result.servedShare.toFixed(1)} %   (gate ≥ ${inputs.minServed} %)   ${mark(result.criteria.served)}`,
    `failover:             ${result.failoverSeconds === null ? 'none' : `${result.failoverSeconds} s`}   (gate ≤ ${inputs.maxFailover} s)   ${mark(result.criteria.failover)}`,
    `lost conversations:   ${result.lostConversations}   (gate 0)   ${mark(result.criteria.sessions)}`,
    `verdict:              ${result.pass ? 'pass' : 'fail'}`,
    '',
    'events:',
    ...result.events.map((e) => `  ${`${e.at} s`.padStart(7)}  ${e.message}`),
  ];
  const reasons = failoverReasons(result, inputs);
  if (reasons.length > 0) lines.push('', 'why it fails:', ...reasons.map((r) => `  - ${r}`));
  return lines.join('\n');
}
