/**
 * The plan's optional `failover` section as a static gate: the regional failover model (SPEC §9.2) runs
 * offline before anything is touched, and a predicted failure refuses the plan. Lives with the
 * composition because preflight/ must not import analysis/.
 */
import type { Gate } from '../engine/gates.js';
import { failoverRefusal } from '../analysis/failover.js';

export const failoverGate: Gate = {
  name: 'failover-model',
  stage: 'static',
  async check(ctx) {
    const reason = failoverRefusal(ctx.plan);
    return reason ? { pass: false, verdict: 'refused', reason, field: 'failover' } : { pass: true };
  },
};
