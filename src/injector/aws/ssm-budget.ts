/**
 * Error-budget reservations on SSM Parameter Store. The chaos ledger (CloudWatch) only learns a run's
 * damage after the run; two runs that check the budget at the same moment would both read the same
 * "spent" and together overspend it. So before injecting, a run *reserves* its estimated damage:
 *
 * 1. it takes the service's budget lock (`/chaos-gate/budget-locks/<service key>`, a claim that expires
 *    after a minute), so check and reserve are one step for every runner of the service;
 * 2. under the lock it reads the ledger and every live reservation of the service
 *    (`/chaos-gate/reservations/<service key>/<run key>`), and refuses when ledger + reservations + its own
 *    estimate exceed the chaos allowance; otherwise it writes its reservation;
 * 3. it releases the lock.
 *
 * After the run it settles: the measured damage goes to the ledger (by the caller) and the reservation is
 * rewritten to that amount with a short expiry, so a budget check made before CloudWatch shows the new
 * datapoint still counts it (counted twice for a few minutes: fail closed). A run that never injected
 * deletes its reservation. A dead runner's reservation keeps counting until it expires.
 */
import type { Clock } from '../../clock/clock.js';
import {
  BUDGET_LOCK_PREFIX,
  RESERVATION_PREFIX,
  holderText,
  keyOf,
  type ClaimValue,
  type SsmClaims,
} from './ssm-claims.js';

/** How long a budget lock lives if its runner dies holding it: check-and-reserve takes a second. */
export const BUDGET_LOCK_TTL_MS = 60_000;
/** How long a run waits for another's budget lock before it gives up (`not-run`). */
export const BUDGET_LOCK_WAIT_MS = 30_000;
/**
 * How long a settled reservation keeps counting: CloudWatch shows a new datapoint to GetMetricData
 * within a few minutes at most; until then the reservation stands in for it.
 */
export const SETTLED_RESERVATION_MS = 5 * 60_000;

export interface RunIdentity {
  owner: string;
  runId: string;
  attempt: number;
  planId: string;
}

export interface ReserveInput {
  service: string;
  /** The run's estimated damage, in bad events. */
  amount: number;
  /** The chaos allowance of the budget, in bad events. */
  allowance: number;
  /** The chaos ledger's spent, read under the lock. */
  ledgerSpent: () => Promise<number>;
  /** How long the reservation lives if the run dies. */
  ttlMs: number;
}

export type ReserveOutcome =
  { ok: true; note: string } | { ok: false; verdict: 'not-run' | 'refused'; reason: string };

const RELATIVE_TOLERANCE = 1e-9;
const fmt = (n: number): string => (Number.isInteger(n) ? String(n) : n.toFixed(2));

export function reservationPath(service: string): string {
  return `${RESERVATION_PREFIX}${keyOf(service)}/`;
}

export class BudgetReservations {
  private held: { name: string; service: string } | undefined;

  constructor(
    private readonly claims: SsmClaims,
    private readonly who: RunIdentity,
    private readonly clock: Clock,
  ) {}

  /** The live reservations of `service` other than this run's, summed; throws on an unreadable one. */
  async reservedByOthers(service: string): Promise<{ total: number; count: number }> {
    const now = this.clock.now();
    let total = 0;
    let count = 0;
    for (const r of await this.claims.list(reservationPath(service))) {
      if (r.value?.owner === this.who.owner) continue;
      if (r.value?.amount === undefined)
        throw new Error(`the budget reservation ${r.name} is unreadable; it counts until it expires`);
      if (r.value.expiresAt <= now) continue;
      total += Math.max(0, r.value.amount);
      count += 1;
    }
    return { total, count };
  }

  async reserve(input: ReserveInput, signal?: AbortSignal): Promise<ReserveOutcome> {
    const lock = `${BUDGET_LOCK_PREFIX}${keyOf(input.service)}`;
    const value = (subject: string, expiresAt: number, amount?: number): ClaimValue => ({
      ...this.who,
      subject,
      expiresAt,
      ...(amount !== undefined ? { amount } : {}),
    });
    const until = this.clock.now() + BUDGET_LOCK_WAIT_MS;
    let holder: ClaimValue | undefined;
    while (true) {
      const got = await this.claims.tryClaim(
        lock,
        value(`budget lock of ${input.service}`, this.clock.now() + BUDGET_LOCK_TTL_MS),
      );
      if (got.ok) break;
      holder = got.holder;
      if (signal?.aborted || this.clock.now() >= until)
        return {
          ok: false,
          verdict: 'not-run',
          reason: `the error budget of ${input.service} is being reserved by ${holderText(holder)}; gave up after ${BUDGET_LOCK_WAIT_MS / 1000} s`,
        };
      await this.clock.sleep(100 + Math.random() * 400, signal);
    }
    try {
      const spent = await input.ledgerSpent();
      const others = await this.reservedByOthers(input.service);
      const total = spent + others.total + input.amount;
      const figures =
        `ledger spent ${fmt(spent)}, reserved by ${others.count} other run(s) ${fmt(others.total)}, ` +
        `this run's estimate ${fmt(input.amount)}, chaos allowance ${fmt(input.allowance)}`;
      if (total > input.allowance + RELATIVE_TOLERANCE * Math.max(1, Math.abs(input.allowance))) {
        const alone = spent + input.amount <= input.allowance;
        return {
          ok: false,
          // Room once the other runs settle: not-run (try again); no room even alone: refused.
          verdict: alone && others.count > 0 ? 'not-run' : 'refused',
          reason: `the error budget cannot hold this run: ${figures} (together ${fmt(total)} > ${fmt(input.allowance)})`,
        };
      }
      const name = `${reservationPath(input.service)}${keyOf(this.who.owner)}`;
      const created = await this.claims.tryClaim(
        name,
        value(`budget of ${input.service}`, this.clock.now() + input.ttlMs, input.amount),
      );
      if (!created.ok) throw new Error(`could not write the budget reservation ${name}`);
      this.held = { name, service: input.service };
      return { ok: true, note: `reserved ${fmt(input.amount)} bad events of the error budget (${figures})` };
    } finally {
      await this.claims.release(lock, this.who.owner).catch(() => undefined);
    }
  }

  /** After the ledger debit: the reservation becomes the measured damage, for a few minutes. */
  async settle(measured: number): Promise<void> {
    const held = this.held;
    if (!held) return;
    await this.claims.overwriteOwn(held.name, {
      ...this.who,
      subject: `settled budget of ${held.service}`,
      amount: Math.max(0, measured),
      expiresAt: this.clock.now() + SETTLED_RESERVATION_MS,
    });
    this.held = undefined;
  }

  /** A run that never injected gives its reservation back. */
  async cancel(): Promise<boolean> {
    const held = this.held;
    if (!held) return false;
    await this.claims.release(held.name, this.who.owner);
    this.held = undefined;
    return true;
  }

  holds(): boolean {
    return this.held !== undefined;
  }
}
