/**
 * The engine's first gate and its helper (src/engine/static-gate.ts): a plan that breaks no static rule
 * passes; one that breaks several is refused with the first refusal's message and field, a count of the
 * others, and every refusal journaled; a one-decision gate's outcome becomes one finding whose message
 * starts with its field exactly once.
 */
import { describe, expect, it } from 'vitest';
import type { Gate, GateContext } from '../../src/engine/gates.js';
import { refusalsOfCheck, staticRefusalGate } from '../../src/engine/static-gate.js';
import type { JournalEvent } from '../../src/journal/types.js';
import type { Plan, PlanInput } from '../../src/plan/schema.js';
import { planWith } from '../sim/helpers.js';

function context(plan: Plan) {
  const recorded: Omit<JournalEvent, 'at'>[] = [];
  const ctx: GateContext = { plan, now: 0, record: (e) => recorded.push(e) };
  return { ctx, recorded };
}

const clean = planWith(() => undefined);
/** Two static refusals: a COUNT over maxTargets, then a placeholder owner. */
const twice = planWith((p: PlanInput) => {
  (p.fis.targets.primary as { selectionMode: string }).selectionMode = 'COUNT(5)';
  p.owner = '<fill in: the owning team>';
});
const once = planWith((p: PlanInput) => {
  (p.fis.targets.primary as { selectionMode: string }).selectionMode = 'COUNT(5)';
});

describe('staticRefusalGate', () => {
  it('is the static gate named static-refusals', () => {
    const gate = staticRefusalGate();
    expect([gate.name, gate.stage]).toEqual(['static-refusals', 'static']);
  });

  it('passes a plan that breaks no static rule, journaling nothing', async () => {
    const { ctx, recorded } = context(clean);
    expect(await staticRefusalGate().check(ctx)).toEqual({ pass: true });
    expect(recorded).toEqual([]);
  });

  it('refuses with the first refusal, counts the others, and journals every one with its rule and field', async () => {
    const gate = staticRefusalGate();
    const { ctx, recorded } = context(twice);
    const refusals = await gate.refusals!(ctx);
    expect(refusals.length).toBe(2);
    const outcome = await gate.check(ctx);
    expect(outcome).toEqual({
      pass: false,
      verdict: 'refused',
      reason: `${refusals[0]!.message} (and 1 more)`,
      field: refusals[0]!.field,
    });
    expect(recorded).toEqual(
      refusals.map((r) => ({
        type: 'preflight',
        message: r.message,
        data: { rule: r.rule, field: r.field, value: r.value, limit: r.limit },
      })),
    );
  });

  it('adds no count when there is one refusal', async () => {
    const { ctx } = context(once);
    const [only] = await staticRefusalGate().refusals!(ctx);
    const outcome = await staticRefusalGate().check(ctx);
    expect(outcome).toMatchObject({ pass: false, reason: only!.message, field: only!.field });
  });
});

describe('refusalsOfCheck', () => {
  const gate = (outcome: Awaited<ReturnType<Gate['check']>>): Pick<Gate, 'check'> => ({
    check: async (ctx) => {
      ctx.record({ type: 'preflight', message: 'dropped' });
      return outcome;
    },
  });
  const ctx = (): GateContext => ({ plan: clean, now: 0, record: () => undefined });

  it('finds nothing when the gate passes', async () => {
    expect(await refusalsOfCheck(gate({ pass: true }), 'catalog-veto', ctx())).toEqual([]);
  });

  it('prefixes the field to a reason that does not start with it', async () => {
    const found = await refusalsOfCheck(
      gate({ pass: false, verdict: 'refused', reason: 'vetoed by the catalog', field: 'fis.actions.a' }),
      'catalog-veto',
      ctx(),
    );
    expect(found).toEqual([
      { rule: 'catalog-veto', field: 'fis.actions.a', message: 'fis.actions.a: vetoed by the catalog' },
    ]);
  });

  it('keeps a reason that already starts with its field, and one without a field, as they are', async () => {
    const prefixed = await refusalsOfCheck(
      gate({ pass: false, verdict: 'refused', reason: 'fis.actions.a: vetoed', field: 'fis.actions.a' }),
      'catalog-veto',
      ctx(),
    );
    expect(prefixed[0]?.message).toBe('fis.actions.a: vetoed');
    const bare = await refusalsOfCheck(
      gate({ pass: false, verdict: 'refused', reason: 'vetoed' }),
      'veto',
      ctx(),
    );
    expect(bare).toEqual([{ rule: 'veto', field: '', message: 'vetoed' }]);
  });

  it('drops what the gate records', async () => {
    const recorded: unknown[] = [];
    await refusalsOfCheck(gate({ pass: true }), 'veto', {
      plan: clean,
      now: 0,
      record: (e) => recorded.push(e),
    });
    expect(recorded).toEqual([]);
  });
});
