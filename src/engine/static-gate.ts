/** Static refusals (docs/design/gates.md#static-refusals) as the engine's first gate: no network, nothing touched. */
import type { Gate, GateRefusal } from './gates.js';
import { staticRefusals } from '../plan/refusals.js';
import type { LoadedPlan } from '../plan/load.js';

/** A `static` gate that refuses when the plan breaks any static rule; every refusal is journaled. */
export function staticRefusalGate(loaded?: Pick<LoadedPlan, 'locate'>): Gate {
  return {
    name: 'static-refusals',
    stage: 'static',
    async refusals(ctx): Promise<GateRefusal[]> {
      return staticRefusals(ctx.plan, loaded);
    },
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

/**
 * A static gate's `refusals` from its `check`, for a gate that decides one thing (a catalog veto): its
 * refusal as the one finding, with `rule`, or none when it passes. Events it records are dropped.
 */
export async function refusalsOfCheck(
  gate: Pick<Gate, 'check'>,
  rule: string,
  ctx: Parameters<Gate['check']>[0],
): Promise<GateRefusal[]> {
  const outcome = await gate.check({ ...ctx, record: () => undefined });
  if (outcome.pass) return [];
  const field = outcome.field ?? '';
  const message =
    field === '' || outcome.reason.startsWith(`${field}:`) ? outcome.reason : `${field}: ${outcome.reason}`;
  return [{ rule, field, message }];
}
