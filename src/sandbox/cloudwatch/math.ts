/**
 * The subset of CloudWatch metric math the product uses (GetMetricData `Expression`, metric-math
 * alarms): `+ - * /` between query ids, constants and parentheses, unary minus, `SUM/AVG/MIN/MAX`
 * over one time series (a scalar) or an array `[a, b]` / `METRICS()` (a time series), and
 * `FILL(series, constant)`.
 *
 * Arithmetic between two time series keeps the timestamps both have; array functions combine, per
 * timestamp, the series that have a value there. Non-finite results (division by zero) are dropped.
 */

/** A time series: period start (ms) → value. */
export type TimeSeries = Map<number, number>;

/** A value during evaluation. */
export type MathValue =
  | { kind: 'scalar'; value: number }
  | { kind: 'series'; points: TimeSeries }
  | { kind: 'array'; items: TimeSeries[] };

/** An expression that could not be parsed or evaluated; the message names the problem. */
export class MathError extends Error {
  override name = 'MathError';
}

type Node =
  | { t: 'num'; v: number }
  | { t: 'id'; id: string }
  | { t: 'neg'; e: Node }
  | { t: 'bin'; op: '+' | '-' | '*' | '/'; l: Node; r: Node }
  | { t: 'call'; fn: string; args: Node[] }
  | { t: 'arr'; items: Node[] };

interface Token {
  k: 'num' | 'id' | 'fn' | 'op' | 'end';
  v: string;
  at: number;
}

function tokenize(src: string): Token[] {
  const out: Token[] = [];
  let i = 0;
  while (i < src.length) {
    const c = src[i] as string;
    if (/\s/.test(c)) {
      i++;
      continue;
    }
    const num = /^(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?/.exec(src.slice(i));
    if (num) {
      out.push({ k: 'num', v: num[0], at: i });
      i += num[0].length;
      continue;
    }
    const word = /^[A-Za-z_][A-Za-z0-9_]*/.exec(src.slice(i));
    if (word) {
      const w = word[0];
      out.push({ k: /^[A-Z][A-Z0-9_]*$/.test(w) ? 'fn' : 'id', v: w, at: i });
      i += w.length;
      continue;
    }
    if ('+-*/()[],'.includes(c)) {
      out.push({ k: 'op', v: c, at: i });
      i++;
      continue;
    }
    throw new MathError(`unexpected character ${JSON.stringify(c)} at position ${i + 1}`);
  }
  out.push({ k: 'end', v: '', at: src.length });
  return out;
}

/** Parses an expression; throws {@link MathError} with the position of the problem. */
export function parseExpression(src: string): Node {
  const toks = tokenize(src);
  let p = 0;
  const peek = () => toks[p] as Token;
  const next = () => toks[p++] as Token;
  const expect = (v: string) => {
    const t = next();
    if (t.v !== v) throw new MathError(`expected '${v}' at position ${t.at + 1}`);
  };
  const expr = (): Node => {
    let l = term();
    while (peek().k === 'op' && (peek().v === '+' || peek().v === '-')) {
      const op = next().v as '+' | '-';
      l = { t: 'bin', op, l, r: term() };
    }
    return l;
  };
  const term = (): Node => {
    let l = unary();
    while (peek().k === 'op' && (peek().v === '*' || peek().v === '/')) {
      const op = next().v as '*' | '/';
      l = { t: 'bin', op, l, r: unary() };
    }
    return l;
  };
  const unary = (): Node => {
    if (peek().k === 'op' && peek().v === '-') {
      next();
      return { t: 'neg', e: unary() };
    }
    if (peek().k === 'op' && peek().v === '+') {
      next();
      return unary();
    }
    return primary();
  };
  const list = (close: string): Node[] => {
    const items: Node[] = [];
    if (peek().v === close) {
      next();
      return items;
    }
    for (;;) {
      items.push(expr());
      const t = next();
      if (t.v === close) return items;
      if (t.v !== ',') throw new MathError(`expected ',' or '${close}' at position ${t.at + 1}`);
    }
  };
  const primary = (): Node => {
    const t = next();
    if (t.k === 'num') return { t: 'num', v: Number(t.v) };
    if (t.k === 'id') return { t: 'id', id: t.v };
    if (t.k === 'fn') {
      expect('(');
      return { t: 'call', fn: t.v, args: list(')') };
    }
    if (t.v === '(') {
      const e = expr();
      expect(')');
      return e;
    }
    if (t.v === '[') return { t: 'arr', items: list(']') };
    throw new MathError(
      t.k === 'end' ? 'unexpected end of expression' : `unexpected '${t.v}' at position ${t.at + 1}`,
    );
  };
  const root = expr();
  if (peek().k !== 'end') throw new MathError(`unexpected '${peek().v}' at position ${peek().at + 1}`);
  return root;
}

/** The ids an expression refers to (for dependency ordering and cycle detection). */
export function referencedIds(node: Node): string[] {
  switch (node.t) {
    case 'id':
      return [node.id];
    case 'num':
      return [];
    case 'neg':
      return referencedIds(node.e);
    case 'bin':
      return [...referencedIds(node.l), ...referencedIds(node.r)];
    case 'call':
    case 'arr':
      return (node.t === 'call' ? node.args : node.items).flatMap(referencedIds);
  }
}

/** What the evaluator needs from its caller. */
export interface MathContext {
  /** The value of another query by id; throws MathError when the id is unknown. */
  resolve(id: string): MathValue;
  /** Every MetricStat query's series, for `METRICS()`. */
  metrics(): TimeSeries[];
  /** The period starts of the query range, for FILL and for scalar results. */
  grid: readonly number[];
}

const FUNCTIONS = ['SUM', 'AVG', 'MIN', 'MAX', 'FILL', 'METRICS'];

function arith(op: '+' | '-' | '*' | '/', a: number, b: number): number {
  switch (op) {
    case '+':
      return a + b;
    case '-':
      return a - b;
    case '*':
      return a * b;
    case '/':
      return a / b;
  }
}

function keepFinite(points: TimeSeries): TimeSeries {
  for (const [t, v] of points) if (!Number.isFinite(v)) points.delete(t);
  return points;
}

function reduce(fn: string, values: number[]): number | undefined {
  if (values.length === 0) return undefined;
  switch (fn) {
    case 'SUM':
      return values.reduce((a, b) => a + b, 0);
    case 'AVG':
      return values.reduce((a, b) => a + b, 0) / values.length;
    case 'MIN':
      return Math.min(...values);
    default:
      return Math.max(...values);
  }
}

/** Evaluates a parsed expression. */
export function evaluateExpression(node: Node, ctx: MathContext): MathValue {
  switch (node.t) {
    case 'num':
      return { kind: 'scalar', value: node.v };
    case 'id':
      return ctx.resolve(node.id);
    case 'neg': {
      const v = evaluateExpression(node.e, ctx);
      return binary('*', { kind: 'scalar', value: -1 }, v);
    }
    case 'bin':
      return binary(node.op, evaluateExpression(node.l, ctx), evaluateExpression(node.r, ctx));
    case 'arr': {
      const items: TimeSeries[] = [];
      for (const item of node.items) {
        const v = evaluateExpression(item, ctx);
        if (v.kind === 'series') items.push(v.points);
        else if (v.kind === 'array') items.push(...v.items);
        else throw new MathError('an array [...] may hold only time series');
      }
      return { kind: 'array', items };
    }
    case 'call': {
      if (!FUNCTIONS.includes(node.fn)) throw new MathError(`unsupported function ${node.fn}`);
      if (node.fn === 'METRICS') {
        if (node.args.length) throw new MathError('METRICS() takes no arguments here');
        return { kind: 'array', items: ctx.metrics() };
      }
      if (node.fn === 'FILL') {
        if (node.args.length !== 2) throw new MathError('FILL takes two arguments: FILL(series, value)');
        const series = evaluateExpression(node.args[0] as Node, ctx);
        const fill = evaluateExpression(node.args[1] as Node, ctx);
        if (fill.kind !== 'scalar') throw new MathError('the second argument of FILL must be a constant');
        const fillOne = (s: TimeSeries) => {
          const out = new Map(s);
          for (const t of ctx.grid) if (!out.has(t)) out.set(t, fill.value);
          return out;
        };
        if (series.kind === 'series') return { kind: 'series', points: fillOne(series.points) };
        if (series.kind === 'array') return { kind: 'array', items: series.items.map(fillOne) };
        throw new MathError('the first argument of FILL must be a time series');
      }
      if (node.args.length !== 1) throw new MathError(`${node.fn} takes one argument`);
      const arg = evaluateExpression(node.args[0] as Node, ctx);
      if (arg.kind === 'scalar') return arg;
      if (arg.kind === 'series') {
        const v = reduce(node.fn, [...arg.points.values()]);
        return v === undefined ? { kind: 'series', points: new Map() } : { kind: 'scalar', value: v };
      }
      const stamps = new Set<number>();
      for (const s of arg.items) for (const t of s.keys()) stamps.add(t);
      const out: TimeSeries = new Map();
      for (const t of stamps) {
        const vals: number[] = [];
        for (const s of arg.items) {
          const v = s.get(t);
          if (v !== undefined) vals.push(v);
        }
        const r = reduce(node.fn, vals);
        if (r !== undefined) out.set(t, r);
      }
      return { kind: 'series', points: keepFinite(out) };
    }
  }
}

function binary(op: '+' | '-' | '*' | '/', a: MathValue, b: MathValue): MathValue {
  if (a.kind === 'array' || b.kind === 'array') {
    const items = a.kind === 'array' ? a.items : (b as { items: TimeSeries[] }).items;
    const other = a.kind === 'array' ? b : a;
    if (other.kind === 'array') throw new MathError('arithmetic between two arrays is not supported');
    return {
      kind: 'array',
      items: items.map((s) => {
        const r =
          a.kind === 'array'
            ? binary(op, { kind: 'series', points: s }, other)
            : binary(op, other, { kind: 'series', points: s });
        return (r as { points: TimeSeries }).points;
      }),
    };
  }
  if (a.kind === 'scalar' && b.kind === 'scalar')
    return { kind: 'scalar', value: arith(op, a.value, b.value) };
  const out: TimeSeries = new Map();
  if (a.kind === 'series' && b.kind === 'series') {
    for (const [t, v] of a.points) {
      const w = b.points.get(t);
      if (w !== undefined) out.set(t, arith(op, v, w));
    }
  } else if (a.kind === 'series' && b.kind === 'scalar') {
    for (const [t, v] of a.points) out.set(t, arith(op, v, b.value));
  } else if (a.kind === 'scalar' && b.kind === 'series') {
    for (const [t, v] of b.points) out.set(t, arith(op, a.value, v));
  }
  return { kind: 'series', points: keepFinite(out) };
}

/** Turns a final value into the series a query returns (a scalar repeats over the grid). */
export function toSeries(v: MathValue, grid: readonly number[]): TimeSeries {
  if (v.kind === 'series') return v.points;
  if (v.kind === 'scalar')
    return Number.isFinite(v.value) ? new Map(grid.map((t) => [t, v.value])) : new Map();
  throw new MathError('the expression returns several time series; wrap it in SUM, AVG, MIN or MAX');
}
