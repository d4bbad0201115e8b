/**
 * CloudWatch Metrics Insights queries in GetMetricData (`Expression: SELECT …`), as the CloudWatch User
 * Guide's "Metrics Insights query components and syntax" describes them:
 *
 *   SELECT FUNCTION(metricName)
 *   FROM namespace | SCHEMA(namespace[, labelKey [, …]])
 *   [ WHERE labelKey OPERATOR labelValue [AND | OR …] ]
 *   [ GROUP BY labelKey [, …] ]
 *   [ ORDER BY FUNCTION() [ DESC | ASC ] ]
 *   [ LIMIT number ]
 *
 * FUNCTION is AVG, COUNT, MAX, MIN or SUM, computed per period over every sample of every matching metric
 * (a group's metrics together with GROUP BY). `SCHEMA(ns, a, b)` takes only metrics whose dimension keys
 * are exactly `a` and `b`; a bare namespace takes every metric of that name. WHERE compares dimension
 * values with `=`, `!=` and `LIKE` (`%` a wildcard), combined with AND, OR and parentheses. GROUP BY
 * returns one series per combination of values (metrics lacking a key are left out); ORDER BY sorts the
 * series by the function over the whole range, LIMIT keeps the first n (at most 500).
 */
import type { Dimension, MetricStore, Series } from './store.js';

/** Most series one query returns (Metrics Insights quotas: 500 time series per query). */
export const MAX_INSIGHTS_SERIES = 500;
/** Metrics Insights reads only the most recent three hours (docs/design/cloudwatch.md#getmetricdata). */
export const INSIGHTS_WINDOW_MS = 3 * 3600 * 1000;

/** A query that does not parse, with the position of the problem. */
export class InsightsError extends Error {
  override name = 'InsightsError';
}

type Fn = 'AVG' | 'COUNT' | 'MAX' | 'MIN' | 'SUM';
type Condition =
  | { op: '=' | '!=' | 'LIKE'; key: string; value: string }
  | { op: 'AND' | 'OR'; left: Condition; right: Condition }
  | { op: 'NOT'; inner: Condition };

/** A parsed query. */
export interface InsightsQuery {
  fn: Fn;
  metricName: string;
  namespace: string;
  /** Exactly these dimension keys (`SCHEMA(...)`), or any (`undefined`). */
  schema: string[] | undefined;
  where: Condition | undefined;
  groupBy: string[];
  orderBy: { fn: Fn; desc: boolean } | undefined;
  limit: number | undefined;
}

/** True when an expression is a Metrics Insights query rather than metric math. */
export function isInsightsQuery(expression: string): boolean {
  return /^\s*SELECT\b/i.test(expression);
}

interface Tok {
  k: 'word' | 'str' | 'num' | 'op' | 'end';
  v: string;
  at: number;
}

function tokenize(src: string): Tok[] {
  const out: Tok[] = [];
  let i = 0;
  while (i < src.length) {
    const c = src[i]!;
    if (/\s/.test(c)) {
      i++;
      continue;
    }
    if (c === '"' || c === "'") {
      const end = src.indexOf(c, i + 1);
      if (end < 0)
        throw new InsightsError(
          `unterminated ${c === '"' ? 'name' : 'string'} starting at position ${i + 1}`,
        );
      out.push({ k: c === '"' ? 'word' : 'str', v: src.slice(i + 1, end), at: i });
      i = end + 1;
      continue;
    }
    const num = /^\d+/.exec(src.slice(i));
    if (num) {
      out.push({ k: 'num', v: num[0], at: i });
      i += num[0].length;
      continue;
    }
    const word = /^[A-Za-z_][\w.\-/:]*/.exec(src.slice(i));
    if (word) {
      out.push({ k: 'word', v: word[0], at: i });
      i += word[0].length;
      continue;
    }
    const op = /^(!=|<>|=|\(|\)|,)/.exec(src.slice(i));
    if (op) {
      out.push({ k: 'op', v: op[0] === '<>' ? '!=' : op[0], at: i });
      i += op[0].length;
      continue;
    }
    throw new InsightsError(`unexpected character ${JSON.stringify(c)} at position ${i + 1}`);
  }
  out.push({ k: 'end', v: '', at: src.length });
  return out;
}

const FUNCTIONS: readonly Fn[] = ['AVG', 'COUNT', 'MAX', 'MIN', 'SUM'];

/** Parses a query; throws {@link InsightsError} naming what was expected and where. */
export function parseInsights(src: string): InsightsQuery {
  const toks = tokenize(src);
  let p = 0;
  const peek = () => toks[p]!;
  const next = () => toks[p++]!;
  const keyword = (w: string) => peek().k === 'word' && peek().v.toUpperCase() === w;
  const expect = (what: string, test: (t: Tok) => boolean): Tok => {
    const t = next();
    if (!test(t))
      throw new InsightsError(
        `expected ${what} at position ${t.at + 1}, found ${t.k === 'end' ? 'the end of the query' : JSON.stringify(t.v)}`,
      );
    return t;
  };
  const fnName = (): Fn => {
    const t = expect(
      `a function (${FUNCTIONS.join(', ')})`,
      (x) => x.k === 'word' && FUNCTIONS.includes(x.v.toUpperCase() as Fn),
    );
    return t.v.toUpperCase() as Fn;
  };
  const name = (what: string) => expect(what, (t) => t.k === 'word').v;

  expect('SELECT', (t) => t.k === 'word' && t.v.toUpperCase() === 'SELECT');
  const fn = fnName();
  expect("'('", (t) => t.v === '(');
  const metricName = name('a metric name');
  expect("')'", (t) => t.v === ')');
  expect('FROM', (t) => t.k === 'word' && t.v.toUpperCase() === 'FROM');
  let namespace: string;
  let schema: string[] | undefined;
  if (keyword('SCHEMA')) {
    next();
    expect("'('", (t) => t.v === '(');
    namespace = name('a namespace');
    schema = [];
    while (peek().v === ',') {
      next();
      schema.push(name('a dimension key'));
    }
    expect("')'", (t) => t.v === ')');
  } else {
    namespace = name('a namespace or SCHEMA(...)');
  }
  let where: Condition | undefined;
  if (keyword('WHERE')) {
    next();
    const or = (): Condition => {
      let left = and();
      while (keyword('OR')) {
        next();
        left = { op: 'OR', left, right: and() };
      }
      return left;
    };
    const and = (): Condition => {
      let left = unary();
      while (keyword('AND')) {
        next();
        left = { op: 'AND', left, right: unary() };
      }
      return left;
    };
    const unary = (): Condition => {
      if (keyword('NOT')) {
        next();
        return { op: 'NOT', inner: unary() };
      }
      if (peek().v === '(') {
        next();
        const inner = or();
        expect("')'", (t) => t.v === ')');
        return inner;
      }
      const key = name('a dimension key');
      const opTok = next();
      const op = opTok.k === 'word' && opTok.v.toUpperCase() === 'LIKE' ? 'LIKE' : opTok.v;
      if (op !== '=' && op !== '!=' && op !== 'LIKE')
        throw new InsightsError(
          `expected =, != or LIKE at position ${opTok.at + 1}, found ${JSON.stringify(opTok.v)}`,
        );
      const value = expect('a quoted value', (t) => t.k === 'str' || t.k === 'num').v;
      return { op, key, value };
    };
    where = or();
  }
  const groupBy: string[] = [];
  if (keyword('GROUP')) {
    next();
    expect('BY', (t) => t.k === 'word' && t.v.toUpperCase() === 'BY');
    groupBy.push(name('a dimension key'));
    while (peek().v === ',') {
      next();
      groupBy.push(name('a dimension key'));
    }
  }
  let orderBy: InsightsQuery['orderBy'];
  if (keyword('ORDER')) {
    next();
    expect('BY', (t) => t.k === 'word' && t.v.toUpperCase() === 'BY');
    const f = fnName();
    expect("'('", (t) => t.v === '(');
    expect("')'", (t) => t.v === ')');
    let desc = false;
    if (keyword('DESC') || keyword('ASC')) desc = next().v.toUpperCase() === 'DESC';
    orderBy = { fn: f, desc };
  }
  let limit: number | undefined;
  if (keyword('LIMIT')) {
    next();
    limit = Number(expect('a number', (t) => t.k === 'num').v);
    if (limit < 1 || limit > MAX_INSIGHTS_SERIES)
      throw new InsightsError(`LIMIT must be between 1 and ${MAX_INSIGHTS_SERIES}`);
  }
  if (peek().k !== 'end')
    throw new InsightsError(`unexpected ${JSON.stringify(peek().v)} at position ${peek().at + 1}`);
  return { fn, metricName, namespace, schema, where, groupBy, orderBy, limit };
}

function valueOf(dims: readonly Dimension[], key: string): string | undefined {
  return dims.find((d) => d.Name === key)?.Value;
}

function matches(c: Condition | undefined, dims: readonly Dimension[]): boolean {
  if (!c) return true;
  switch (c.op) {
    case 'AND':
      return matches(c.left, dims) && matches(c.right, dims);
    case 'OR':
      return matches(c.left, dims) || matches(c.right, dims);
    case 'NOT':
      return !matches(c.inner, dims);
    case '=':
      return valueOf(dims, c.key) === c.value;
    case '!=':
      return valueOf(dims, c.key) !== c.value;
    case 'LIKE': {
      const v = valueOf(dims, c.key);
      const re = new RegExp(
        `^${c.value
          .split('%')
          .map((s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
          .join('.*')}$`,
      );
      return v !== undefined && re.test(v);
    }
  }
}

interface Acc {
  sum: number;
  count: number;
  min: number;
  max: number;
}

function finish(fn: Fn, a: Acc): number | undefined {
  if (a.count === 0) return undefined;
  switch (fn) {
    case 'AVG':
      return a.sum / a.count;
    case 'COUNT':
      return a.count;
    case 'MAX':
      return a.max;
    case 'MIN':
      return a.min;
    case 'SUM':
      return a.sum;
  }
}

/** One series a query returned: the group's label and its points (period start → value). */
export interface InsightsSeries {
  label: string;
  points: Map<number, number>;
}

/** Runs a parsed query over `[start, end)` in periods of `periodMs`; `start` is already aligned. */
export function runInsights(
  store: MetricStore,
  q: InsightsQuery,
  start: number,
  end: number,
  periodMs: number,
): InsightsSeries[] {
  const selected = store.all().filter((s: Series) => {
    if (s.namespace !== q.namespace || s.metricName !== q.metricName) return false;
    if (q.schema) {
      const keys = s.dimensions.map((d) => d.Name).sort();
      const want = [...q.schema].sort();
      if (keys.length !== want.length || keys.some((k, i) => k !== want[i])) return false;
    }
    if (!q.groupBy.every((k) => valueOf(s.dimensions, k) !== undefined)) return false;
    return matches(q.where, s.dimensions);
  });
  const groups = new Map<string, Series[]>();
  for (const s of selected) {
    const label = q.groupBy.map((k) => valueOf(s.dimensions, k)).join(' ');
    groups.set(label, [...(groups.get(label) ?? []), s]);
  }
  const stats = (series: Series[], from: number, to: number, step: number) => {
    const acc = new Map<number, Acc>();
    for (const s of series)
      for (const o of s.obs) {
        if (o.t < from || o.t >= to) continue;
        const b = from + Math.floor((o.t - from) / step) * step;
        const a = acc.get(b) ?? { sum: 0, count: 0, min: Infinity, max: -Infinity };
        a.sum += o.sum;
        a.count += o.count;
        a.min = Math.min(a.min, o.min);
        a.max = Math.max(a.max, o.max);
        acc.set(b, a);
      }
    return acc;
  };
  let out = [...groups].map(([label, series]) => {
    const points = new Map<number, number>();
    for (const [t, a] of [...stats(series, start, end, periodMs)].sort((x, y) => x[0] - y[0])) {
      const v = finish(q.fn, a);
      if (v !== undefined) points.set(t, v);
    }
    const order = q.orderBy
      ? finish(
          q.orderBy.fn,
          [...stats(series, start, end, end - start).values()][0] ?? { sum: 0, count: 0, min: 0, max: 0 },
        )
      : undefined;
    return { label: label || q.metricName, points, order: order ?? 0 };
  });
  if (q.orderBy) out.sort((a, b) => (q.orderBy!.desc ? b.order - a.order : a.order - b.order));
  else out.sort((a, b) => a.label.localeCompare(b.label));
  out = out.slice(0, q.limit ?? MAX_INSIGHTS_SERIES);
  return out.map(({ label, points }) => ({ label, points }));
}
