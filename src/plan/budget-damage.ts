/**
 * `budget.damage`: the SLI a run's damage is measured from — bad events above the steady-state rate
 * while the fault was on — and debited to the chaos ledger (docs/design/run.md#the-chaos-ledger). Without it a plan with a
 * `budget:` section used to debit nothing at all, so the next run's budget check saw a ledger that
 * never grew. Now the damage SLI is either written, or derived from the SLIs when exactly one reading
 * is possible, or the plan is refused at validate with what to write. Nothing is silently off.
 *
 * Derivation. An SLI is *clearly* a ratio of requests when both its source and its bound say so:
 * - the source is a division — a scrape `ratio:`, a PromQL query whose outermost operation is `/`, or a
 *   CloudWatch metric-math expression whose outermost operation is `/`. The bound alone cannot tell: a
 *   p95 latency in seconds (`max: 0.18`) has the same bound as an error ratio (`max: 0.002`);
 * - an error ratio has `max` in [0, 1); a success ratio has `min` in (0, 1]. A `between` bound says
 *   neither which way is bad nor that the value is a share;
 * - it is measured during the fault (`during: true`): damage is counted over the fault measurements.
 *
 * Exactly one error ratio is the damage SLI, even next to a success ratio: the ledger counts bad events,
 * as the budget's own `errors` query does, and an error ratio measures those directly while a success
 * ratio's complement may also count outcomes the SLO does not call errors. With no error ratio, exactly
 * one success ratio is the damage SLI (bad = 1 − value). Anything else — none, or two of a kind — is
 * ambiguous and refused, naming `budget.damage` and what to write.
 */
import { parser as promqlParser } from '@prometheus-io/lezer-promql';
import type { PathSegment } from './load.js';
import type { Plan, Sli } from './schema.js';

/** A node of the PromQL syntax tree (lezer's SyntaxNode, named through the parser we depend on). */
type SyntaxNode = ReturnType<typeof promqlParser.parse>['topNode'];

export type DamageKind = 'error-ratio' | 'success-ratio';

/** What `budget.damage` holds, written or derived. */
export interface DamageSli {
  sli: string;
  kind: DamageKind;
}

/** Why a plan's `budget.damage` cannot be used: the parts of a static refusal. */
export interface DamageProblem {
  path: PathSegment[];
  value: string;
  limit: string;
  why: string;
}

export type DamageResolution =
  { ok: true; damage: DamageSli; derived: boolean } | { ok: false; problem: DamageProblem };

/** The shape to write, quoted in every refusal. */
const WRITE = 'budget.damage: { sli: <SLI name>, kind: error-ratio | success-ratio }';

/**
 * The damage SLI of a plan with a budget: `budget.damage` as written (checked against the SLIs), or the
 * one derived from the SLIs (see the module comment). `undefined` when the plan has no budget.
 */
export function resolveBudgetDamage(plan: Plan): DamageResolution | undefined {
  const budget = plan.budget;
  if (!budget) return undefined;
  const slis = plan.hypothesis.slis;
  const written = budget.damage;
  if (written) {
    const problem = checkWritten(written, slis);
    return problem ? { ok: false, problem } : { ok: true, damage: written, derived: false };
  }
  const candidates = slis.flatMap((s) => {
    const kind = ratioKind(s);
    return kind ? [{ sli: s.name, kind }] : [];
  });
  const errors = candidates.filter((c) => c.kind === 'error-ratio');
  const successes = candidates.filter((c) => c.kind === 'success-ratio');
  if (errors.length === 1) return { ok: true, damage: errors[0]!, derived: true };
  if (errors.length === 0 && successes.length === 1)
    return { ok: true, damage: successes[0]!, derived: true };

  const path: PathSegment[] = ['budget', 'damage'];
  if (candidates.length === 0) {
    return {
      ok: false,
      problem: {
        path,
        value: 'not written',
        limit: WRITE,
        why:
          'not written, and no SLI measured during the fault is clearly an error ratio (a division with ' +
          'max in [0, 1)) or a success ratio (a division with min in (0, 1]), so the run would debit ' +
          `nothing to the chaos ledger; write ${WRITE} naming the SLI whose bad events the fault causes`,
      },
    };
  }
  const [kind, tied]: [DamageKind, DamageSli[]] =
    errors.length > 1 ? ['error-ratio', errors] : ['success-ratio', successes];
  const names = tied.map((c) => c.sli);
  return {
    ok: false,
    problem: {
      path,
      value: names.join(', '),
      limit: WRITE,
      why:
        `not written, and ${names.length} SLIs are ${kind}s (${names.join(', ')}), so which one the ` +
        `chaos ledger is debited from is ambiguous; write budget.damage: { sli: ${names[0]}, kind: ${kind} } ` +
        `or name another`,
    },
  };
}

/** The damage SLI to debit the ledger from, or undefined without a budget or when it is refused. */
export function budgetDamageSli(plan: Plan): DamageSli | undefined {
  const resolved = resolveBudgetDamage(plan);
  return resolved?.ok ? resolved.damage : undefined;
}

/**
 * The static refusal for `budget.damage` (rule `budget-damage`), in the shape of `staticRefusals`'s
 * own `add`, so refusals.ts calls it with one line.
 */
export function checkBudgetDamage(
  plan: Plan,
  add: (rule: 'budget-damage', path: PathSegment[], value: string, limit: string, why: string) => void,
): void {
  const resolved = resolveBudgetDamage(plan);
  if (resolved && !resolved.ok) {
    const p = resolved.problem;
    add('budget-damage', p.path, p.value, p.limit, p.why);
  }
}

function checkWritten(damage: DamageSli, slis: readonly Sli[]): DamageProblem | undefined {
  const during = slis.filter((s) => s.during).map((s) => s.name);
  const sli = slis.find((s) => s.name === damage.sli);
  const path: PathSegment[] = ['budget', 'damage', 'sli'];
  if (!sli) {
    return {
      path,
      value: damage.sli,
      limit: during.join(', '),
      why: `"${damage.sli}" is not an SLI of this plan; expected one measured during the fault (${during.join(', ')})`,
    };
  }
  if (!sli.during) {
    return {
      path,
      value: damage.sli,
      limit: 'an SLI with during: true',
      why:
        `"${damage.sli}" has during: false, so it is not measured while the fault is on and the damage ` +
        `would always be 0; expected an SLI measured during the fault (${during.join(', ')})`,
    };
  }
  // A bound that points the other way means the kind was mistyped: an error ratio read as a success
  // ratio charges (1 − value) × requests, i.e. nearly every request, and exhausts the allowance.
  const contradiction =
    damage.kind === 'error-ratio' && sli.min !== undefined
      ? { bound: 'min', other: 'success-ratio' }
      : damage.kind === 'success-ratio' && sli.max !== undefined
        ? { bound: 'max', other: 'error-ratio' }
        : undefined;
  if (contradiction) {
    return {
      path: ['budget', 'damage', 'kind'],
      value: damage.kind,
      limit: contradiction.other,
      why:
        `${damage.kind}, but SLI "${damage.sli}" has a ${contradiction.bound} bound, so it is a ` +
        `${contradiction.other}; expected kind: ${contradiction.other}`,
    };
  }
  return undefined;
}

/** Whether an SLI is clearly an error ratio or a success ratio, by its source and its bound. */
function ratioKind(sli: Sli): DamageKind | undefined {
  if (!sli.during || !isDivision(sli)) return undefined;
  if (sli.max !== undefined && sli.max >= 0 && sli.max < 1) return 'error-ratio';
  if (sli.min !== undefined && sli.min > 0 && sli.min <= 1) return 'success-ratio';
  return undefined;
}

function isDivision(sli: Sli): boolean {
  if (sli.scrape) return sli.scrape.ratio !== undefined;
  if (sli.prometheus !== undefined) return isPromqlDivision(sli.prometheus);
  if (sli.cloudwatch && 'expression' in sli.cloudwatch) return isMathDivision(sli.cloudwatch.expression);
  return false;
}

/**
 * Whether a PromQL query's outermost operation, inside any parentheses, is a `/` of two counts: no number
 * literal takes part in the arithmetic around it (`100 * a / b` is a percentage, not a share).
 */
export function isPromqlDivision(query: string): boolean {
  // `$window` is chaos-gate's placeholder for the tick's window; parse it as a duration.
  const top = unwrap(promqlParser.parse(query.replace(/\$window\b/g, '1m')).topNode.firstChild);
  if (top?.name !== 'BinaryExpr' || top.getChild('Div') === null) return false;
  // The operands reached through arithmetic and parentheses only (not inside calls or aggregations).
  const pending: SyntaxNode[] = [top];
  for (let node = pending.pop(); node; node = pending.pop()) {
    for (let child = node.firstChild; child; child = child.nextSibling) {
      if (child.name === 'NumberDurationLiteral' || child.name === 'NumberLiteral') return false;
      if (child.name === 'BinaryExpr' || child.name === 'ParenExpr') pending.push(child);
    }
  }
  return true;
}

function unwrap(node: SyntaxNode | null): SyntaxNode | null {
  let n = node;
  while (n?.name === 'ParenExpr') n = n.firstChild;
  return n;
}

/**
 * Whether a CloudWatch metric-math expression's outermost operation is a `/` of two counts: outside
 * parentheses there is no `+`, `-` or `^`, no number (`100 * a / b` is a percentage), and the last `*`
 * or `/` (they associate to the left) is a `/`. Conservative: whatever this misses is refused with what
 * to write, never guessed.
 */
export function isMathDivision(expression: string): boolean {
  let depth = 0;
  let last: string | undefined;
  let outside = '';
  for (const c of expression) {
    if (c === '(' || c === '[') depth += 1;
    else if (c === ')' || c === ']') depth -= 1;
    else if (depth === 0) {
      if (c === '+' || c === '-' || c === '^') return false;
      if (c === '*' || c === '/') last = c;
      outside += c;
      continue;
    }
    outside += ' ';
  }
  // A number is a digit that does not continue an identifier such as m1.
  if (/(?:^|[^A-Za-z0-9_.])\d/.test(outside)) return false;
  return last === '/';
}
