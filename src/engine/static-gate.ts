/** Static refusals (SPEC §5.1) as the engine's first gate: no network, nothing touched. */
import type { Gate } from './gates.js';
import { staticRefusals } from '../plan/refusals.js';
import type { LoadedPlan } from '../plan/load.js';

/** A `static` gate that refuses when the plan breaks any static rule; every refusal is journaled. */
export function staticRefusalGate(loaded?: Pick<LoadedPlan, 'locate'>): Gate {
  return {
    name: 'static-refusals',
    stage: 'static',
    async check(ctx) {
      const refusals = staticRefusals(ctx.plan, loaded);
      if (refusals.length === 0) return { pass: true };
      for (const r of refusals) {
        ctx.record({
          type: 'preflight',
          message: r.message,
          data: { rule: r.rule, field: r.field, value: r.value, limit: r.limit },
        });
      }
      const first = refusals[0];
      const more = refusals.length > 1 ? ` (and ${refusals.length - 1} more)` : '';
      return {
        pass: false,
        verdict: 'refused',
        reason: `${first?.message ?? 'refused'}${more}`,
        field: first?.field ?? '',
      };
    },
  };
}
