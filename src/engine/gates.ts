/**
 * Preflight gates and mid-run checks, as the engine sees them. The engine knows only these
 * interfaces; `preflight/` implements them and the front doors choose which to pass in.
 */
import type { Plan } from '../plan/schema.js';
import type { ResolvedTarget } from '../injector/injector.js';
import type { BudgetFigures, JournalEvent } from '../journal/types.js';

export interface GateContext {
  plan: Plan;
  /** Current time (ms) from the run's clock. */
  now: number;
  /** Targets resolved by the dry run, once known (the blast-radius gate runs after resolution). */
  targets?: ResolvedTarget[];
  /**
   * True when `targets` is FIS's whole answer (the dry run completed and its list answered): only then
   * is an empty `targets` proven empty. A gate that depends on targets never passes an empty set without it.
   */
  targetsComplete?: boolean;
  signal?: AbortSignal;
  /** Lets a gate record what it decided (e.g. budget figures, queue progress). */
  record(event: Omit<JournalEvent, 'at'>): void;
}

export type GateOutcome =
  | { pass: true; note?: string; budget?: BudgetFigures }
  | {
      pass: false;
      /** `refused`: the plan or policy is wrong; `not-run`: the time is wrong. */
      verdict: 'refused' | 'not-run';
      /** Names the rule, the values and the limit. */
      reason: string;
      /** Plan field path for annotations, e.g. `blastRadius.maxTargets`. */
      field?: string;
    };

/** One reason a plan is refused before anything is touched, naming the field, the value and the limit. */
export interface GateRefusal {
  /** The rule broken, e.g. `select-all`, `ceiling-widened`, `schedule-invalid`. */
  rule: string;
  /** Plan field path, e.g. `fis.targets.cartNodes.selectionMode`. */
  field: string;
  value?: string | number | undefined;
  limit?: string | number | undefined;
  /** One sentence: what is wrong, the value, what is expected. */
  message: string;
  line?: number | undefined;
  column?: number | undefined;
}

export interface Gate {
  name: string;
  /** `before-targets` runs before the dry run; `after-targets` once targets are resolved. */
  stage: 'static' | 'before-targets' | 'after-targets';
  check(ctx: GateContext): Promise<GateOutcome>;
  /**
   * `static` gates only (no network): every reason the plan is refused, empty when it passes. `check`
   * decides with the same findings; `chaos-gate validate` lists all of them, one per line.
   */
  refusals?(ctx: GateContext): Promise<GateRefusal[]>;
}

/** Checked while the fault may be on (e.g. an incident opened, the abort file appeared): non-null aborts the run. */
export interface MidRunCheck {
  name: string;
  check(now: number, signal?: AbortSignal): Promise<string | null>;
  /**
   * `poll` (default): asked on its own cadence beside the ticks, so a slow answer (a network query) delays
   * none; the abort reads `<name>: <answer>`. `tick`: asked and awaited on every tick before the
   * measurement — for instant local questions such as a human's stop button; its answer is the whole
   * reason and its name the journaled abort cause.
   */
  cadence?: 'poll' | 'tick' | undefined;
  /**
   * Asked once right before the start, after the steady state: the check takes its baseline (what was
   * already so at injection, such as the alerts already firing). A baseline that cannot be taken refuses
   * the start (`not-run`): the check could not tell new from old.
   */
  arm?(now: number, signal?: AbortSignal): Promise<void>;
  /**
   * true: the check is one of the run's eyes (an Alertmanager the plan's tripwires read), so `blindAfter`
   * failed answers in a row end the run `inconclusive` as blind, like measurements without data. Otherwise
   * they end it `failed`.
   */
  blind?: boolean | undefined;
  /**
   * For a `poll` check: ask at most this often (default: the state poll's cadence, the interval clamped
   * to 1–5 s). For questions whose answer FIS acts on by itself, so the engine's own read only names
   * the cause sooner (docs/fis.md, "AWS demand per tick").
   */
  everyMs?: number | undefined;
}
