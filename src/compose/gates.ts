/**
 * The gates of a run, in order: the one list `run`, `plan` and `validate` build. The static stage — the
 * plan's own rules, the failover model, the policy, the dependency-closure veto and the schedule's
 * windows — needs no network, so `validate` applies exactly it; `plan` and `run` go on with preflight's
 * network gates (incidents, kill switch, budget, blast radius, concurrency).
 */
import type { Gate, GateContext, GateRefusal } from '../engine/gates.js';
import { staticRefusalGate } from '../engine/static-gate.js';
import type { LoadedPlan } from '../plan/load.js';
import { buildGates, type Preflight, type PreflightOptions } from '../preflight/index.js';
import { failoverGate } from './failover-gate.js';

/** What the gates need besides the plan: the probes a front door wires (none for `validate`). */
export type GateOptions = Omit<PreflightOptions, 'plan' | 'written'>;

/** Every gate of a run of `loaded`, in the order of docs/design/gates.md, and the checks repeated while the fault is on. */
export function runGates(loaded: LoadedPlan, options: GateOptions = {}): Preflight {
  const preflight = buildGates({
    ...options,
    plan: loaded.plan,
    written: (field) => loaded.locate(field) !== undefined,
  });
  return { gates: [staticRefusalGate(loaded), failoverGate, ...preflight.gates], midRun: preflight.midRun };
}

/** A finding of the static stage, located in the plan's text. */
export type LocatedRefusal = GateRefusal & { gate: string };

/**
 * Every reason the static stage refuses the plan, each located at its field in the plan's text: what
 * `validate` prints, and what `run` and `plan` refuse with (their gates decide on the same findings).
 */
export async function staticStageRefusals(
  loaded: LoadedPlan,
  options: Pick<GateOptions, 'policy' | 'catalog'>,
  now: number,
): Promise<LocatedRefusal[]> {
  const ctx: GateContext = { plan: loaded.plan, now, record: () => undefined };
  const out: LocatedRefusal[] = [];
  for (const gate of runGates(loaded, options).gates.filter((g: Gate) => g.stage === 'static')) {
    let found: GateRefusal[];
    if (gate.refusals) {
      found = await gate.refusals(ctx);
    } else {
      const outcome = await gate.check(ctx);
      found = outcome.pass ? [] : [{ rule: gate.name, field: outcome.field ?? '', message: outcome.reason }];
    }
    for (const r of found) {
      const at = r.line === undefined ? nearestPosition(loaded, r.field) : undefined;
      out.push({ ...r, gate: gate.name, ...(at ? { line: at.line, column: at.column } : {}) });
    }
  }
  return out;
}

/** Where a field (or, when it is not written, its nearest written parent) is in the plan's text. */
function nearestPosition(loaded: LoadedPlan, field: string): { line: number; column: number } | undefined {
  let f = field;
  while (f !== '') {
    const at = loaded.locate(f);
    if (at) return at;
    const cut = Math.max(f.lastIndexOf('.'), f.lastIndexOf('['));
    f = cut > 0 ? f.slice(0, cut) : '';
  }
  return undefined;
}
