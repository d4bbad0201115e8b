/**
 * One run's claim, taken immediately before StartExperiment (the engine's `RunDeps.claim`):
 *
 * 1. one SSM claim per resolved target ARN (`/chaos-gate/claims/<sha-256 of the ARN>`), all or nothing:
 *    if any target is held by another run, the ones just created are deleted again and the run queues
 *    (polls with jitter up to the queue timeout, then `not-run` naming the holder);
 * 2. with every target claimed, the running experiments are listed again (ListExperiments also sees
 *    experiments chaos-gate did not start): one on a shared target sends the run back to the queue;
 * 3. the run's estimated damage is reserved against the error budget (ssm-budget.ts);
 * 4. the run's own lease alarm is bound into the template (the experiment copies it at its start), and
 *    after the start `started` checks that the experiment's stop conditions name it.
 *
 * Every claim expires by itself after the run's longest possible life (its `ttlMs`), so a SIGKILLed
 * runner blocks its targets no longer than that. At the end `release` deletes this run's claims, its
 * reservation (when it never injected) and its lease alarm — but only once its fault is known to have
 * ended; otherwise all of them are left to expire (fail closed).
 */
import type { Clock } from '../../clock/clock.js';
import type { ClaimOutcome, RunClaim } from '../ports.js';
import type { ResolvedTarget } from '../injector.js';
import { CLAIM_PREFIX, holderText, keyOf, type ClaimValue, type SsmClaims } from './ssm-claims.js';
import type { BudgetReservations, ReserveInput, RunIdentity } from './ssm-budget.js';

/** Default wait between claim attempts while queued (plus up to half of it again, at random). */
export const CLAIM_POLL_MS = 5_000;

export function claimName(arn: string): string {
  return `${CLAIM_PREFIX}${keyOf(arn)}`;
}

export interface SsmRunClaimOptions {
  claims: SsmClaims;
  who: RunIdentity;
  clock: Clock;
  /** How long every claim lives if the runner dies: the run's longest life from its start on. */
  ttlMs: number;
  /** How long to queue behind other runs' claims (the `queue-timeout` input); 0 = do not wait. */
  queueTimeoutMs: number;
  /**
   * The run's one queue (engine/queue.ts), when the front door has one: `begin()` marks the run's first
   * wait, whichever queue it was in, and `deadline()` is the end of the whole queue timeout, so the
   * claim's wait and the waits for other experiments and for FIS's quota share one budget.
   */
  queue?: { begin(): number; deadline(): number } | undefined;
  pollMs?: number | undefined;
  /** The running experiments on these ARNs, described; undefined when none (ListExperiments again). */
  recheck?: ((arns: readonly string[], signal?: AbortSignal) => Promise<string | undefined>) | undefined;
  /** The budget to reserve, when the plan has one; a string says why it cannot be estimated. */
  budget?: { reservations: BudgetReservations; input: () => ReserveInput | string } | undefined;
  /** Binds this run's lease into the template, right before the start. */
  bindLease: (signal?: AbortSignal) => Promise<void>;
  /** Checks the started experiment's stop conditions name this run's lease. */
  verifyLease: (experimentId: string, signal?: AbortSignal) => Promise<void>;
  /** Deletes this run's lease alarm. */
  endLease: () => Promise<void>;
  /** Progress while queued (journaled by the caller). */
  note?: ((message: string, data?: Record<string, unknown>) => void) | undefined;
}

export class SsmRunClaim implements RunClaim {
  private held: string[] = [];

  constructor(private readonly o: SsmRunClaimOptions) {}

  private value(arn: string): ClaimValue {
    return { ...this.o.who, subject: arn, expiresAt: this.o.clock.now() + this.o.ttlMs };
  }

  /** Claims every ARN or none; the blocking holder when one is in the way. */
  private async claimAll(
    arns: readonly string[],
  ): Promise<{ arn: string; holder: ClaimValue | undefined } | undefined> {
    const taken: string[] = [];
    try {
      for (const arn of arns) {
        const got = await this.o.claims.tryClaim(claimName(arn), this.value(arn));
        if (!got.ok) {
          await this.releaseNames(taken);
          return { arn, holder: got.holder };
        }
        taken.push(claimName(arn));
      }
    } catch (error) {
      await this.releaseNames(taken).catch(() => undefined);
      throw error;
    }
    this.held = taken;
    return undefined;
  }

  private async releaseNames(names: readonly string[]): Promise<void> {
    for (const name of names) await this.o.claims.release(name, this.o.who.owner);
  }

  async acquire(targets: readonly ResolvedTarget[], signal?: AbortSignal): Promise<ClaimOutcome> {
    // Sorted, so two runs claiming overlapping sets meet at the same first shared target.
    const arns = [...new Set(targets.map((t) => t.arn))].sort();
    if (arns.length === 0 || arns.some((a) => !a))
      return {
        ok: false,
        verdict: 'not-run',
        reason: 'no resolved target ARN to claim: a run claims every target it touches before it starts',
      };
    const clock = this.o.clock;
    const started = clock.now();
    let deadline = started + this.o.queueTimeoutMs;
    const poll = this.o.pollMs ?? CLAIM_POLL_MS;
    let last = '';
    for (let attempt = 1; ; attempt++) {
      if (signal?.aborted)
        return {
          ok: false,
          verdict: 'not-run',
          reason: `cancelled while queued: ${last || 'before the claim'}`,
        };
      let blocker = await this.claimAll(arns).then((b) =>
        b ? `target ${b.arn} is claimed by ${holderText(b.holder)}` : undefined,
      );
      if (!blocker && this.o.recheck) {
        const running = await this.o.recheck(arns, signal);
        if (running) {
          blocker = running;
          await this.releaseNames(this.held);
          this.held = [];
        }
      }
      if (!blocker) break;
      last = blocker;
      if (this.o.queue) {
        this.o.queue.begin();
        deadline = this.o.queue.deadline();
      }
      const waited = clock.now() - started;
      if (signal?.aborted)
        return { ok: false, verdict: 'not-run', reason: `cancelled while queued: ${blocker}` };
      if (clock.now() >= deadline)
        return {
          ok: false,
          verdict: 'not-run',
          reason: `${blocker}; still so after waiting ${Math.round(waited / 1000)} s (queue timeout ${Math.round(this.o.queueTimeoutMs / 1000)} s)`,
        };
      this.o.note?.(`queued for the targets' claims: ${blocker}; waited ${Math.round(waited / 1000)} s`, {
        gate: 'claim',
        attempt,
        waitedMs: waited,
      });
      await clock.sleep(Math.min(poll * (1 + Math.random() / 2), deadline - clock.now()), signal);
    }
    const waitedMs = clock.now() - started;
    let budgetNote = '';
    if (this.o.budget) {
      const input = this.o.budget.input();
      const outcome =
        typeof input === 'string'
          ? ({ ok: false, verdict: 'not-run', reason: input } as const)
          : await this.o.budget.reservations.reserve(input, signal);
      if (!outcome.ok) {
        await this.releaseHeld();
        return { ok: false, verdict: outcome.verdict, reason: outcome.reason, field: 'budget' };
      }
      budgetNote = `; ${outcome.note}`;
    }
    try {
      await this.o.bindLease(signal);
    } catch (error) {
      await this.releaseHeld();
      await this.o.budget?.reservations.cancel().catch(() => undefined);
      throw error;
    }
    return {
      ok: true,
      waitedMs,
      note: `claimed ${arns.length} target(s)${waitedMs > 0 ? ` after queueing ${Math.round(waitedMs / 1000)} s` : ''}${budgetNote}`,
    };
  }

  async started(experimentId: string, signal?: AbortSignal): Promise<void> {
    await this.o.verifyLease(experimentId, signal);
  }

  private async releaseHeld(): Promise<void> {
    const held = this.held;
    this.held = [];
    await this.releaseNames(held);
  }

  async release(faultEnded: boolean): Promise<string | undefined> {
    if (!faultEnded) {
      const count = this.held.length;
      return count > 0
        ? `the fault was not seen to end: ${count} target claim(s), the budget reservation and the lease alarm are left to expire`
        : undefined;
    }
    const count = this.held.length;
    await this.releaseHeld();
    await this.o.endLease();
    return count > 0 ? `released ${count} target claim(s) and deleted this run's lease alarm` : undefined;
  }
}
