/**
 * The journal header: what the run set out to test — plan identity, SLI bounds, abort rules with their
 * measurement counts, expectations, interval and phase lengths — written from the plan as written, before
 * the first event, so every report reads the same promises the run was judged against.
 */
import type { JournalHeader } from '../journal/types.js';
import { boundText, expectationBound, ruleCount, sliBound } from './bounds.js';
import type { RunDeps } from './run.js';

/** Builds the journal header from the plan as written. */
export function journalHeader(deps: RunDeps, startedAt: number): JournalHeader {
  const { plan } = deps;
  const h = plan.hypothesis;
  const header: JournalHeader = {
    kind: 'chaos-gate-journal',
    version: 1,
    runId: deps.runId,
    planId: plan.id,
    planDigest: deps.planDigest,
    title: plan.title,
    service: plan.service,
    environment: plan.environment,
    slis: h.slis.map((s) => {
      const sli: JournalHeader['slis'][number] = {
        name: s.name,
        bound: boundText(sliBound(s)),
        steadyBound: boundText(s.steady ?? sliBound(s)),
        during: s.during,
      };
      // The hypothesis as applied: an SLI's own settle and tolerance win over the hypothesis'.
      const settleMs = s.settle ?? h.settle;
      const tolerance = s.tolerance ?? h.tolerance;
      if (settleMs !== undefined) sli.settleMs = settleMs;
      if (tolerance !== undefined) {
        const t: NonNullable<typeof sli.tolerance> = {};
        if (tolerance.outside !== undefined) t.outside = tolerance.outside;
        if (tolerance.share !== undefined) t.share = tolerance.share;
        if (tolerance.consecutive !== undefined) t.consecutive = tolerance.consecutive;
        sli.tolerance = t;
      }
      return sli;
    }),
    abortRules: plan.abort.rules.map((r) => ({
      sli: r.sli,
      op: r.above !== undefined ? ('above' as const) : ('below' as const),
      threshold: r.above ?? r.below ?? 0,
      forMs: r.for,
      count: ruleCount(r.for, h.interval),
    })),
    intervalMs: h.interval,
    startedAt,
    attempt: deps.attempt,
    expectations: h.expect.map((e) => ({
      name: e.name,
      bound: boundText(expectationBound(e)),
      withinMs: e.within,
    })),
    minRequests: h.minRequests,
    blindAfter: plan.abort.blindAfter,
    steadyMs: h.steadyState.duration,
    recoveryMs: h.recovery.within,
  };
  if (deps.planPath !== undefined) header.planPath = deps.planPath;
  if (deps.region !== undefined) header.region = deps.region;
  return header;
}
