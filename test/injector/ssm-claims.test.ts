/**
 * Claims and budget reservations on the sandbox's Parameter Store, through the real SSM client:
 * contenders that start in the same millisecond never hold one target at once; a claim is all or
 * nothing; an expired claim is taken over by exactly one contender; release deletes only one's own; and
 * concurrent budget reservations that together exceed the allowance cannot all pass.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GetParameterCommand } from '@aws-sdk/client-ssm';
import { SsmClaims, keyOf, parseClaim, type ClaimValue } from '../../src/injector/aws/ssm-claims.js';
import { BudgetReservations, reservationPath } from '../../src/injector/aws/ssm-budget.js';
import { SsmRunClaim, claimName } from '../../src/injector/aws/ssm-run.js';
import { systemClock } from '../../src/clock/clock.js';
import { startSsm, type SsmHarness } from '../sandbox/ssm-harness.js';

let h: SsmHarness;
beforeAll(async () => {
  h = await startSsm();
});
afterAll(async () => {
  await h?.close();
});

const who = (owner: string, planId = 'plan-a') => ({ owner, runId: '42', attempt: 1, planId });
const value = (owner: string, expiresAt = Date.now() + 600_000): ClaimValue => ({
  ...who(owner),
  subject: 'x',
  expiresAt,
});

function runClaim(owner: string, overrides: Partial<ConstructorParameters<typeof SsmRunClaim>[0]> = {}) {
  const bound: string[] = [];
  const claim = new SsmRunClaim({
    claims: new SsmClaims(h.client, () => Date.now()),
    who: who(owner),
    clock: systemClock,
    ttlMs: 600_000,
    queueTimeoutMs: 0,
    bindLease: () => {
      bound.push(owner);
      return Promise.resolve();
    },
    verifyLease: () => Promise.resolve(),
    endLease: () => Promise.resolve(),
    ...overrides,
  });
  return { claim, bound };
}

const targets = (...arns: string[]) => arns.map((arn) => ({ target: 't', arn }));

describe('target claims', () => {
  it('of eight runs claiming the same targets in the same millisecond exactly one holds them', async () => {
    const arns = [
      'arn:aws:ec2:us-east-1:123456789012:subnet/subnet-shared',
      'arn:aws:ec2:us-east-1:123456789012:subnet/subnet-two',
    ];
    const runs = Array.from({ length: 8 }, (_, i) => runClaim(`same-ms-${i}`));
    const outcomes = await Promise.all(runs.map((r) => r.claim.acquire(targets(...arns))));
    const winners = outcomes.filter((o) => o.ok);
    expect(winners).toHaveLength(1);
    for (const o of outcomes.filter((x) => !x.ok))
      expect(o.ok === false && o.reason).toMatch(/is claimed by run 42 attempt 1 of plan plan-a/);
    // Only the winner bound its lease into the template.
    expect(runs.flatMap((r) => r.bound)).toHaveLength(1);
    const owners = await Promise.all(
      arns.map(
        async (arn) =>
          parseClaim(
            (await h.client.send(new GetParameterCommand({ Name: claimName(arn) }))).Parameter?.Value,
          )?.owner,
      ),
    );
    const winner = runs.find((r) => r.bound.length === 1)!;
    expect(new Set(owners)).toEqual(new Set([winner.bound[0]]));
    await winner.claim.release(true);
    for (const arn of arns)
      expect(h.standIn.history.filter((e) => e.name === claimName(arn)).at(-1)?.kind).toBe('deleted');
  });

  it('is all or nothing: a run blocked on one target deletes the claims it had just made', async () => {
    const a = 'arn:aws:ec2:us-east-1:123456789012:subnet/subnet-a';
    const b = 'arn:aws:ec2:us-east-1:123456789012:subnet/subnet-b';
    const first = runClaim('holder-b');
    expect((await first.claim.acquire(targets(b))).ok).toBe(true);
    const second = runClaim('wants-a-and-b');
    const outcome = await second.claim.acquire(targets(a, b));
    expect(outcome).toMatchObject({ ok: false, verdict: 'not-run' });
    expect(h.standIn.history.filter((e) => e.name === claimName(a)).map((e) => e.kind)).toEqual([
      'created',
      'deleted',
    ]);
    await first.claim.release(true);
  });

  it('queues behind a holder and gets the targets once it releases', async () => {
    const arn = 'arn:aws:ec2:us-east-1:123456789012:subnet/subnet-queue';
    const first = runClaim('first-in-line');
    expect((await first.claim.acquire(targets(arn))).ok).toBe(true);
    const notes: string[] = [];
    const second = runClaim('second-in-line', {
      queueTimeoutMs: 20_000,
      pollMs: 100,
      note: (m) => notes.push(m),
    });
    const pending = second.claim.acquire(targets(arn));
    await new Promise((r) => setTimeout(r, 400));
    await first.claim.release(true);
    const outcome = await pending;
    expect(outcome.ok).toBe(true);
    expect(outcome.ok && outcome.waitedMs).toBeGreaterThan(0);
    expect(notes.some((n) => n.includes('queued'))).toBe(true);
    await second.claim.release(true);
  });

  it("keeps its claims when the fault was not seen to end, and never deletes another run's", async () => {
    const arn = 'arn:aws:ec2:us-east-1:123456789012:subnet/subnet-keep';
    const run = runClaim('fault-in-doubt');
    expect((await run.claim.acquire(targets(arn))).ok).toBe(true);
    expect(await run.claim.release(false)).toMatch(/left to expire/);
    const other = new SsmClaims(h.client, () => Date.now());
    await other.release(claimName(arn), 'someone-else');
    const held = parseClaim(
      (await h.client.send(new GetParameterCommand({ Name: claimName(arn) }))).Parameter?.Value,
    );
    expect(held?.owner).toBe('fault-in-doubt');
  });

  it('takes over an expired claim still present: of four contenders exactly one', async () => {
    const name = `/chaos-gate/claims/${keyOf('stale')}`;
    const claims = new SsmClaims(h.client, () => Date.now());
    // A dead runner's claim whose own expiry passed (Parameter Store has not deleted it yet).
    expect((await claims.tryClaim(name, value('dead-runner', Date.now() + 3_600_000))).ok).toBe(true);
    const stale = new SsmClaims(h.client, () => Date.now() + 3_700_000);
    const results = await Promise.all(
      Array.from({ length: 4 }, (_, i) =>
        stale.tryClaim(name, value(`contender-${i}`, Date.now() + 7_200_000)),
      ),
    );
    expect(results.filter((r) => r.ok)).toHaveLength(1);
    const holder = parseClaim(
      (await h.client.send(new GetParameterCommand({ Name: name }))).Parameter?.Value,
    );
    expect(holder?.owner).toMatch(/^contender-/);
  });

  it('does not take over a claim that has not expired', async () => {
    const name = `/chaos-gate/claims/${keyOf('fresh')}`;
    const claims = new SsmClaims(h.client, () => Date.now());
    expect((await claims.tryClaim(name, value('alive'))).ok).toBe(true);
    const got = await claims.tryClaim(name, value('impatient'));
    expect(got).toMatchObject({ ok: false, holder: { owner: 'alive' } });
  });
});

describe('budget reservations', () => {
  it('of six runs reserving 40 of a 100 allowance at once at most two pass, and the rest are told why', async () => {
    const service = 'payments';
    const reservers = Array.from(
      { length: 6 },
      (_, i) =>
        new BudgetReservations(
          new SsmClaims(h.client, () => Date.now()),
          who(`budget-${i}`, `plan-${i}`),
          systemClock,
        ),
    );
    const outcomes = await Promise.all(
      reservers.map((r) =>
        r.reserve({
          service,
          amount: 40,
          allowance: 100,
          ledgerSpent: () => Promise.resolve(10),
          ttlMs: 600_000,
        }),
      ),
    );
    const passed = outcomes.filter((o) => o.ok);
    expect(passed).toHaveLength(2);
    for (const o of outcomes.filter((x) => !x.ok))
      expect(o.ok === false && o.reason).toMatch(
        /ledger spent 10, reserved by 2 other run\(s\) 80, this run's estimate 40/,
      );
    // A budget check by a run that holds nothing sees what the others reserved (which two win is
    // the race's to decide, so the onlooker is whichever lost).
    const onlooker = reservers.find((r) => !r.holds())!;
    const seen = await onlooker.reservedByOthers(service);
    expect(seen.total).toBe(80);
    // Settling rewrites the reservation to the measured damage; cancelling gives it back.
    const holders = reservers.filter((r) => r.holds());
    await holders[0]!.settle(3);
    await holders[1]!.cancel();
    expect((await onlooker.reservedByOthers(service)).total).toBe(3);
    expect(reservationPath(service)).toMatch(/^\/chaos-gate\/reservations\/[0-9a-f]{40}\/$/);
  });
});
