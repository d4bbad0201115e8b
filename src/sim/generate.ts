/**
 * A scenario derived from a plan, for the demo: every SLI sits comfortably inside its steady-state bound,
 * moves toward (but stays within) its hypothesis bound while the fault is on, and the expectations are
 * seen a second after injection; a plan's error budget is a fifth spent. `breach` pushes the first abort rule's SLI past its threshold.
 */
import { budgetWindowMs, type Plan, type Sli } from '../plan/schema.js';
import { maxActionDurationMs } from '../plan/refusals.js';
import { Scenario, type SeriesSpec } from './scenario.js';

/** Where inside a bound the generated values sit, as a share of the room the bound leaves. */
const STEADY_SHARE = 0.5;
const FAULT_SHARE = 0.7;
/** Noise as a share of the room left between the value and its bound. */
const NOISE_SHARE = 0.1;
/** The share of its error budget the generated service has spent over the budget window. */
const BUDGET_SPENT_SHARE = 0.2;

function series(sli: Sli): SeriesSpec {
  const steady = sli.steady ?? sli;
  const base = (b: {
    max?: number | undefined;
    min?: number | undefined;
    between?: [number, number] | undefined;
  }): number => {
    if (b.between) return (b.between[0] + b.between[1]) / 2;
    if (b.max !== undefined) return b.max * STEADY_SHARE;
    if (b.min !== undefined)
      return b.min < 1 && b.min > 0 ? b.min + (1 - b.min) * STEADY_SHARE : b.min * (1 + STEADY_SHARE);
    return 0;
  };
  const baseline = base(steady);
  let to = baseline;
  if (sli.max !== undefined) to = baseline + (sli.max - baseline) * FAULT_SHARE;
  if (sli.min !== undefined) to = baseline - (baseline - sli.min) * FAULT_SHARE;
  const room = Math.abs(to - baseline) || Math.abs(baseline) * 0.05;
  const spec: SeriesSpec = { baseline, noise: room * NOISE_SHARE, gaps: [] };
  if (to !== baseline) {
    spec.effect = { to, shape: 'ramp', delay: 1000, rampOver: 3000, recoveryLag: 3000 };
  }
  if (sli.min !== undefined && sli.min > 0 && sli.min < 1) spec.max = 1;
  if (baseline >= 0) spec.min = 0;
  return spec;
}

/**
 * What the simulated dry run resolves: for each of the plan's targets, the resources its selection mode
 * picks (`COUNT(n)` n of them, otherwise one), tagged with its tag filter and the tags the blast radius
 * requires, so the blast-radius gate judges them as it would the real ones.
 */
function targetsFor(plan: Plan): { target: string; arn: string; tags: Record<string, string> }[] {
  return Object.entries(plan.fis.targets).flatMap(([name, t]) => {
    const count = Number(/^COUNT\((\d+)\)$/.exec(t.selectionMode)?.[1] ?? 1);
    const tags = { ...(t.resourceTags ?? {}), ...(plan.blastRadius.requireTags ?? {}) };
    return Array.from({ length: Math.max(1, count) }, (_, i) => ({
      target: name,
      arn: `arn:aws:sim:eu-west-1:111122223333:${t.resourceType.replace(/^aws:/, '').replace(/:/g, '-')}/${name}-${i + 1}`,
      tags,
    }));
  });
}

/** Builds the demo world for a plan. */
export function scenarioForPlan(plan: Plan, options: { breach?: boolean; seed?: number } = {}): Scenario {
  const h = plan.hypothesis;
  const metrics: Record<string, SeriesSpec> = {};
  for (const sli of h.slis) metrics[sli.name] = series(sli);
  for (const e of h.expect) {
    const seen = e.atLeast ?? e.atMost ?? 1;
    const unseen = e.atLeast !== undefined ? seen - 1 : seen + 1;
    metrics[e.name] = {
      baseline: unseen,
      noise: 0,
      gaps: [],
      effect: { to: seen, shape: 'step', delay: 1000, rampOver: 0, recoveryLag: 0 },
    };
  }
  const rule = plan.abort.rules[0];
  const target = rule ? metrics[rule.sli] : undefined;
  if (options.breach && rule && target?.effect) {
    const threshold = rule.above ?? rule.below ?? 0;
    target.effect.to = rule.above !== undefined ? threshold * 1.3 + 0.001 : threshold * 0.7;
    target.effect.delay = 4000;
  }
  const perSecond = Math.max(100, Math.ceil(((h.minRequests * 1000) / h.interval) * 1.1));
  // A service well inside its error budget: the window's traffic at this rate, a fifth of the allowed errors.
  if (plan.budget && plan.budget.objective !== undefined) {
    const total = Math.round((perSecond * budgetWindowMs(plan.budget)) / 1000);
    metrics['budget.total'] = { baseline: total, noise: 0, gaps: [] };
    metrics['budget.errors'] = {
      baseline: Math.floor(total * (1 - plan.budget.objective) * BUDGET_SPENT_SHARE),
      noise: 0,
      gaps: [],
    };
  }
  return Scenario.parse({
    seed: options.seed ?? 1,
    description: `generated from plan ${plan.id}`,
    metrics: Object.fromEntries(
      Object.entries(metrics).map(([k, v]) => [
        k,
        {
          ...v,
          effect: v.effect && {
            ...v.effect,
            delay: `${v.effect.delay}ms`,
            rampOver: `${v.effect.rampOver}ms`,
            recoveryLag: `${v.effect.recoveryLag}ms`,
          },
        },
      ]),
    ),
    requests: { baseline: perSecond, noise: perSecond * 0.02 },
    injector: {
      targets: targetsFor(plan),
      actionDuration: `${maxActionDurationMs(plan) || 60_000}ms`,
      initiating: '500ms',
      stopLatency: '1500ms',
    },
  });
}
