/**
 * Issue 12.6: a `budget:` section never silently debits nothing. `budget.damage` is derived from the SLIs
 * when exactly one reading is possible, and otherwise `validate` refuses naming the field and what to write.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { validate } from '../../src/cli/commands/validate.js';
import {
  budgetDamageSli,
  isMathDivision,
  isPromqlDivision,
  resolveBudgetDamage,
} from '../../src/plan/budget-damage.js';
import { loadPlan, parsePlan } from '../../src/plan/load.js';
import { staticRefusals } from '../../src/plan/refusals.js';

const ROOT = join(import.meta.dirname, '../..');
const tmp = mkdtempSync(join(tmpdir(), 'cg-budget-damage-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const ERROR_RATIO = `    - name: error_ratio
      prometheus: sum(rate(http_requests_total{status=~"5.."}[1m])) / sum(rate(http_requests_total[1m]))
      max: 0.002`;
const SUCCESS_RATIO = `    - name: success_ratio
      prometheus: (sum(rate(http_requests_total{status!~"5.."}[1m])) / sum(rate(http_requests_total[1m])))
      min: 0.998`;
// Its bound (max 0.18) looks like an error ratio's; its source (a quantile, not a division) says it is not.
const LATENCY = `    - name: p95_latency_s
      prometheus: histogram_quantile(0.95, sum by (le) (rate(http_request_duration_seconds_bucket[1m])))
      max: 0.18`;

/** A plan with the given SLI entries, an abort rule on the first one and a budget (optionally `damage`). */
function planText(slis: string[], damage?: string): string {
  const first = /name: (\w+)/.exec(slis[0] ?? '')?.[1] ?? 'error_ratio';
  return `version: 1
id: budget-damage
title: Budget damage
service: checkout
environment: staging
owner: sre
hypothesis:
  slis:
${slis.join('\n')}
  steadyState: { duration: 10s }
  recovery: { within: 10s }
abort:
  rules:
    - { sli: ${first}, above: 0.5, for: 3s }
budget:
  objective: 0.999
  errors: { prometheus: 'sum(increase(http_requests_total{status=~"5.."}[30d]))' }
  total: { prometheus: 'sum(increase(http_requests_total[30d]))' }
${damage === undefined ? '' : `  damage: ${damage}\n`}fis:
  roleArn: arn:aws:iam::123456789012:role/fis
  targets:
    t: { resourceType: aws:ec2:instance, resourceTags: { chaos: 'yes' }, selectionMode: COUNT(1) }
  actions:
    a: { actionId: aws:ec2:stop-instances, targets: { Instances: t } }
`;
}

function refusalsOf(text: string) {
  const loaded = parsePlan(text, 'plan.yaml');
  return staticRefusals(loaded.plan, loaded).filter((r) => r.rule === 'budget-damage');
}

/** Runs `chaos-gate validate` on the text written to a file; returns the exit code and the output lines. */
async function validateText(name: string, text: string): Promise<{ code: number; out: string[] }> {
  const file = join(tmp, name);
  writeFileSync(file, text);
  const out: string[] = [];
  const code = await validate.run([file], {
    out: (t) => out.push(t),
    err: (t) => out.push(t),
    tty: false,
    env: {},
    cwd: ROOT,
  });
  return { code, out };
}

describe('budget.damage derived from the SLIs', () => {
  it('the fixture plans (error, success and latency SLIs) debit their error ratio', async () => {
    for (const file of ['redis-partition.yaml', 'ecs-stop-task.yaml']) {
      const { plan } = await loadPlan(join(ROOT, 'fixtures/plans', file));
      expect(plan.budget?.damage, file).toBeUndefined();
      expect(resolveBudgetDamage(plan), file).toEqual({
        ok: true,
        damage: { sli: 'error_ratio', kind: 'error-ratio' },
        derived: true,
      });
    }
  });

  it('a lone success ratio is the damage SLI, read as its complement', () => {
    const plan = parsePlan(planText([SUCCESS_RATIO, LATENCY]), 'plan.yaml').plan;
    expect(resolveBudgetDamage(plan)).toEqual({
      ok: true,
      damage: { sli: 'success_ratio', kind: 'success-ratio' },
      derived: true,
    });
  });

  it('an error ratio wins over a success ratio: the ledger counts bad events', () => {
    const plan = parsePlan(planText([SUCCESS_RATIO, ERROR_RATIO, LATENCY]), 'plan.yaml').plan;
    expect(resolveBudgetDamage(plan)).toMatchObject({ ok: true, damage: { sli: 'error_ratio' } });
  });

  it('a scrape ratio and a CloudWatch metric-math division count as ratios', () => {
    const scrape = `    - name: errors
      scrape: { url: 'http://canary/metrics', ratio: { numerator: 'x{status="503"}', denominator: x } }
      max: 0.02`;
    const math = `    - name: ok_share
      cloudwatch:
        expression: (requests - errors) / requests
        metrics:
          errors: { namespace: App, metricName: Errors, stat: Sum }
          requests: { namespace: App, metricName: Requests, stat: Sum }
        period: 60s
      min: 0.99`;
    expect(resolveBudgetDamage(parsePlan(planText([scrape]), 'p.yaml').plan)).toMatchObject({
      ok: true,
      damage: { sli: 'errors', kind: 'error-ratio' },
    });
    expect(resolveBudgetDamage(parsePlan(planText([math]), 'p.yaml').plan)).toMatchObject({
      ok: true,
      damage: { sli: 'ok_share', kind: 'success-ratio' },
    });
  });

  it('a plan without a budget needs no damage SLI', () => {
    const text = planText([LATENCY]).replace(/^budget:\n(?: {2}.*\n)+/m, '');
    const plan = parsePlan(text, 'plan.yaml').plan;
    expect(plan.budget).toBeUndefined();
    expect(resolveBudgetDamage(plan)).toBeUndefined();
    expect(refusalsOf(text)).toEqual([]);
  });
});

describe('validate refuses a budget whose damage SLI is missing or ambiguous', () => {
  it('no ratio SLI: names budget.damage at the budget line and what to write, exit 2', async () => {
    const text = planText([LATENCY]);
    const { code, out } = await validateText('no-ratio.yaml', text);
    expect(code).toBe(2);
    // The field is not written, so the position is the budget section's body, where it goes.
    const budgetBody = text.split('\n').indexOf('budget:') + 2;
    expect(out[0]?.startsWith(`${join(tmp, 'no-ratio.yaml')}:${budgetBody}:3: budget.damage: `)).toBe(true);
    expect(out[0]).toContain('budget.damage: not written, and no SLI measured during the fault');
    expect(out[0]).toContain('write budget.damage: { sli: <SLI name>, kind: error-ratio | success-ratio }');
    expect(out[0]).toMatch(/\[refused: budget-damage\]$/);
  });

  it('two error ratios: names both and the line to write', () => {
    const other = ERROR_RATIO.replace('error_ratio', 'timeout_ratio');
    const [refusal, ...rest] = refusalsOf(planText([ERROR_RATIO, other, LATENCY]));
    expect(rest).toEqual([]);
    expect(refusal).toMatchObject({ field: 'budget.damage', value: 'error_ratio, timeout_ratio' });
    expect(refusal?.message).toContain('2 SLIs are error-ratios (error_ratio, timeout_ratio)');
    expect(refusal?.message).toContain('write budget.damage: { sli: error_ratio, kind: error-ratio }');
  });

  it('a steady-state-only ratio does not count: its damage would always be 0', () => {
    const steadyOnly = `${ERROR_RATIO}\n      during: false`;
    const abortable = LATENCY;
    const text = planText([abortable, steadyOnly]);
    expect(refusalsOf(text).map((r) => r.field)).toEqual(['budget.damage']);
  });

  it('writing budget.damage settles the ambiguity', async () => {
    const other = ERROR_RATIO.replace('error_ratio', 'timeout_ratio');
    const text = planText([ERROR_RATIO, other], '{ sli: timeout_ratio, kind: error-ratio }');
    expect(refusalsOf(text)).toEqual([]);
    expect(resolveBudgetDamage(parsePlan(text, 'p.yaml').plan)).toEqual({
      ok: true,
      damage: { sli: 'timeout_ratio', kind: 'error-ratio' },
      derived: false,
    });
    expect((await validateText('written.yaml', text)).code).toBe(0);
  });
});

describe('validate checks a written budget.damage against the SLIs', () => {
  it('an unknown SLI is refused at budget.damage.sli with its line and the SLIs to choose from', () => {
    const text = planText([ERROR_RATIO, LATENCY], '{ sli: eror_ratio, kind: error-ratio }');
    const [refusal] = refusalsOf(text);
    expect(refusal).toMatchObject({ field: 'budget.damage.sli', value: 'eror_ratio' });
    expect(refusal?.line).toBe(text.split('\n').findIndex((l) => l.includes('damage:')) + 1);
    expect(refusal?.message).toBe(
      'budget.damage.sli: "eror_ratio" is not an SLI of this plan; expected one measured during the fault (error_ratio, p95_latency_s)',
    );
  });

  it('an SLI with during: false is refused', () => {
    const text = planText(
      [LATENCY, `${ERROR_RATIO}\n      during: false`],
      '{ sli: error_ratio, kind: error-ratio }',
    );
    expect(refusalsOf(text)[0]?.message).toContain('"error_ratio" has during: false');
  });

  it('a kind that contradicts the bound is refused at budget.damage.kind', () => {
    const text = planText([SUCCESS_RATIO], '{ sli: success_ratio, kind: error-ratio }');
    expect(refusalsOf(text)[0]).toMatchObject({
      field: 'budget.damage.kind',
      value: 'error-ratio',
      limit: 'success-ratio',
    });
  });
});

describe('what counts as a division', () => {
  it('PromQL: the outermost operation, inside parentheses, is /', () => {
    expect(isPromqlDivision('sum(rate(a[1m])) / sum(rate(b[1m]))')).toBe(true);
    expect(isPromqlDivision('((a / b))')).toBe(true);
    expect(isPromqlDivision('sum(a) / on(x) sum(b)')).toBe(true);
    expect(isPromqlDivision('sum(rate(a[$window])) / sum(rate(b[$window]))')).toBe(true);
    expect(isPromqlDivision('(sum(a) - sum(b)) / sum(a)')).toBe(true);
    expect(isPromqlDivision('a / b * 100')).toBe(false);
    expect(isPromqlDivision('100 * a / b')).toBe(false);
    expect(isPromqlDivision('(a * 100) / b')).toBe(false);
    expect(isPromqlDivision('1 - a / b')).toBe(false);
    expect(isPromqlDivision('histogram_quantile(0.95, sum by (le) (rate(x[1m])))')).toBe(false);
    expect(isPromqlDivision('vector(0)')).toBe(false);
  });

  it('CloudWatch metric math: a / outermost, nothing added or subtracted outside parentheses', () => {
    expect(isMathDivision('errors / requests')).toBe(true);
    expect(isMathDivision('m1 / m2')).toBe(true);
    expect(isMathDivision('100 * errors / requests')).toBe(false);
    expect(isMathDivision('(requests - errors) / requests')).toBe(true);
    expect(isMathDivision('errors / requests * 100')).toBe(false);
    expect(isMathDivision('1 - errors / requests')).toBe(false);
    expect(isMathDivision('SUM(METRICS())')).toBe(false);
  });
});

/**
 * Each numeric limit of the derivation, at, just under and just over it: an error ratio's `max` lies in
 * [0, 1), a success ratio's `min` in (0, 1], and exactly one ratio of a kind may be derived. Checked both
 * through `resolveBudgetDamage` and through `staticRefusals`, which is what `validate` reports.
 */
describe('budget.damage derivation at its numeric limits', () => {
  /** A division SLI measured during the fault, with the given bound (YAML flow text). */
  const division = (name: string, bound: string): string => `    - name: ${name}
      prometheus: sum(rate(bad_total[1m])) / sum(rate(all_total[1m]))
      ${bound}`;

  /** What a plan with this one division (next to a latency SLI) resolves to: the derived kind, or refused. */
  function derivedKind(bound: string): string {
    const text = planText([division('share', bound), LATENCY]);
    const resolved = resolveBudgetDamage(parsePlan(text, 'p.yaml').plan);
    const refused = refusalsOf(text);
    if (resolved?.ok) {
      expect(resolved.damage.sli, bound).toBe('share');
      expect(resolved.derived, bound).toBe(true);
      expect(refused, bound).toEqual([]);
      return resolved.damage.kind;
    }
    expect(
      refused.map((r) => [r.field, r.value]),
      bound,
    ).toEqual([['budget.damage', 'not written']]);
    return 'refused';
  }

  it.each([
    ['max: -0.000001', 'refused'], // just under 0: not a share
    ['max: 0', 'error-ratio'], // 0 itself: no error tolerated, still an error ratio
    ['max: 0.000001', 'error-ratio'],
    ['max: 0.999999', 'error-ratio'], // just under 1
    ['max: 1', 'refused'], // 1 bounds nothing a share can exceed
    ['max: 1.000001', 'refused'],
  ])('an error ratio needs max in [0, 1): %s → %s', (bound, kind) => {
    expect(derivedKind(bound)).toBe(kind);
  });

  it.each([
    ['min: -0.000001', 'refused'],
    ['min: 0', 'refused'], // min 0 holds for any share: it says nothing about which way is bad
    ['min: 0.000001', 'success-ratio'], // just over 0
    ['min: 0.999999', 'success-ratio'],
    ['min: 1', 'success-ratio'], // 1 itself: every request must succeed
    ['min: 1.000001', 'refused'], // just over 1: not a share
  ])('a success ratio needs min in (0, 1]: %s → %s', (bound, kind) => {
    expect(derivedKind(bound)).toBe(kind);
  });

  it('a between bound is neither kind, even inside [0, 1]', () => {
    expect(derivedKind('between: [0, 0.5]')).toBe('refused');
  });

  it('derives from exactly one ratio of a kind: one error ratio, or no error ratio and one success ratio', () => {
    const err = (name: string) => division(name, 'max: 0.01');
    const ok = (name: string) => division(name, 'min: 0.99');
    const outcome = (slis: string[]) => {
      const text = planText([...slis, LATENCY]);
      const resolved = resolveBudgetDamage(parsePlan(text, 'p.yaml').plan);
      const refused = refusalsOf(text).map((r) => r.value);
      return resolved?.ok ? { derived: resolved.damage.sli, refused } : { derived: undefined, refused };
    };
    // Error ratios: 1 is derived, 2 are ambiguous.
    expect(outcome([err('e1')])).toEqual({ derived: 'e1', refused: [] });
    expect(outcome([err('e1'), err('e2')])).toEqual({ derived: undefined, refused: ['e1, e2'] });
    // Success ratios, with no error ratio: 1 is derived, 2 are ambiguous.
    expect(outcome([ok('s1')])).toEqual({ derived: 's1', refused: [] });
    expect(outcome([ok('s1'), ok('s2')])).toEqual({ derived: undefined, refused: ['s1, s2'] });
    // One error ratio settles it however many success ratios there are.
    expect(outcome([ok('s1'), ok('s2'), err('e1')])).toEqual({ derived: 'e1', refused: [] });
    // Two error ratios stay ambiguous even beside a lone success ratio: the refusal names the error ratios.
    expect(outcome([ok('s1'), err('e1'), err('e2')])).toEqual({ derived: undefined, refused: ['e1, e2'] });
  });

  it('a written kind is checked against the bound: error-ratio with max, success-ratio with min', () => {
    const kindRefusal = (bound: string, kind: string) =>
      refusalsOf(planText([division('share', bound), LATENCY], `{ sli: share, kind: ${kind} }`)).map((r) => [
        r.field,
        r.value,
        r.limit,
      ]);
    expect(kindRefusal('max: 0.01', 'error-ratio')).toEqual([]);
    expect(kindRefusal('min: 0.99', 'success-ratio')).toEqual([]);
    expect(kindRefusal('max: 0.01', 'success-ratio')).toEqual([
      ['budget.damage.kind', 'success-ratio', 'error-ratio'],
    ]);
    expect(kindRefusal('min: 0.99', 'error-ratio')).toEqual([
      ['budget.damage.kind', 'error-ratio', 'success-ratio'],
    ]);
    // A between bound contradicts neither kind.
    expect(kindRefusal('between: [0, 0.5]', 'error-ratio')).toEqual([]);
    expect(kindRefusal('between: [0.5, 1]', 'success-ratio')).toEqual([]);
  });
});

/**
 * The derivation's branches with plans reduced to what it reads (a budget and the SLIs): which sources
 * count as a division, what a refusal lists, and `budgetDamageSli`, which the run debits from.
 */
describe('budget.damage decisions on the SLIs alone', () => {
  type SliShape = { name: string; during?: boolean; max?: number; min?: number } & Record<string, unknown>;
  const planOf = (slis: SliShape[], damage?: { sli: string; kind: string }) =>
    ({
      budget: { ...(damage ? { damage } : {}) },
      hypothesis: { slis: slis.map((s) => ({ during: true, ...s })) },
    }) as unknown as Parameters<typeof resolveBudgetDamage>[0];

  it('a scrape SLI is a ratio only when it scrapes a ratio, not a gauge under 1', () => {
    const gauge = planOf([{ name: 'queue_share', scrape: { gauge: 'queue_fill' }, max: 0.5 }]);
    expect(resolveBudgetDamage(gauge)).toMatchObject({ ok: false, problem: { value: 'not written' } });
    const ratio = planOf([
      { name: 'errors', scrape: { ratio: { numerator: 'e', denominator: 't' } }, max: 0.5 },
    ]);
    expect(resolveBudgetDamage(ratio)).toEqual({
      ok: true,
      damage: { sli: 'errors', kind: 'error-ratio' },
      derived: true,
    });
  });

  it('an unknown written SLI lists only the SLIs measured during the fault', () => {
    const plan = planOf(
      [
        { name: 'errors', prometheus: 'sum(a) / sum(b)', max: 0.01 },
        { name: 'warmup', prometheus: 'sum(a) / sum(b)', max: 0.01, during: false },
        { name: 'latency', prometheus: 'max(x)', max: 0.2 },
      ],
      { sli: 'nope', kind: 'error-ratio' },
    );
    expect(resolveBudgetDamage(plan)).toMatchObject({
      ok: false,
      problem: { value: 'nope', limit: 'errors, latency' },
    });
  });

  it('budgetDamageSli is the resolved damage SLI, and undefined without a budget or when refused', () => {
    const errors = { name: 'errors', prometheus: 'sum(a) / sum(b)', max: 0.01 };
    expect(budgetDamageSli(planOf([errors]))).toEqual({ sli: 'errors', kind: 'error-ratio' });
    expect(budgetDamageSli({ ...planOf([errors]), budget: undefined })).toBeUndefined();
    expect(budgetDamageSli(planOf([{ name: 'latency', prometheus: 'max(x)', max: 0.2 }]))).toBeUndefined();
  });
});

describe('what counts as a division: the operators around the /', () => {
  it('PromQL: a * or a number outside calls spoils it; a number inside a call does not', () => {
    expect(isPromqlDivision('sum(a) * sum(b)')).toBe(false);
    expect(isPromqlDivision('sum(rate(errors[1m])) / clamp_min(sum(rate(requests[1m])), 1)')).toBe(true);
    expect(isPromqlDivision('')).toBe(false);
  });

  it('metric math: +, - and ^ outside parentheses spoil it, and so does a trailing *', () => {
    expect(isMathDivision('requests - errors / requests')).toBe(false);
    expect(isMathDivision('errors + throttles / requests')).toBe(false);
    expect(isMathDivision('errors ^ m2 / requests')).toBe(false);
    expect(isMathDivision('errors / requests * m3')).toBe(false);
    expect(isMathDivision('errors * m3 / requests')).toBe(true);
  });

  it('metric math: square brackets group like parentheses', () => {
    expect(isMathDivision('[requests - errors] / requests')).toBe(true);
    expect(isMathDivision('SUM([m1, m2]) / requests')).toBe(true);
  });
});
