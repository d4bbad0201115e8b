/**
 * The plan's optional `failover` section as a static gate: the regional failover model (docs/design/analysis.md#model-failover) runs
 * offline before anything is touched, and a predicted failure refuses the plan. Lives with the
 * composition because preflight/ must not import analysis/.
 */
import type { Gate, GateRefusal } from '../engine/gates.js';
import type { Plan } from '../plan/schema.js';
import { failoverRefusal } from '../analysis/failover.js';

function refusalsOf(plan: Plan): GateRefusal[] {
  const message = failoverRefusal(plan);
  return message
    ? [
        {
          rule: 'failover-predicted-to-fail',
          field: 'failover',
          value: 'model',
          limit: 'the failover gate',
          message,
        },
      ]
    : [];
}

export const failoverGate: Gate = {
  name: 'failover-model',
  stage: 'static',
  async refusals(ctx) {
    return refusalsOf(ctx.plan);
  },
  async check(ctx) {
    const [refusal] = refusalsOf(ctx.plan);
    return refusal
      ? { pass: false, verdict: 'refused', reason: refusal.message, field: 'failover' }
      : { pass: true };
  },
};
