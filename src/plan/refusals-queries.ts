/**
 * Query refusals (docs/design/gates.md#static-refusals): every PromQL string in the plan must parse (placeholders such as `$window`
 * allowed), and a CloudWatch period may not be finer than the namespace publishes. Also the walks over
 * the plan that find those queries (`promqlFields`, `cloudwatchFields`), which other checks reuse.
 */
import { parser as promqlParser } from '@prometheus-io/lezer-promql';
import { formatDuration } from './duration.js';
import type { PathSegment } from './load.js';
import type { Add } from './refusal-rule.js';
import type { CloudWatchSource, Plan } from './schema.js';

/** Longest PromQL excerpt quoted in a refusal message; the full query stays in `value`. */
const MAX_QUOTED_QUERY = 120;

/** Every PromQL string in a plan with its field path (SLIs, expectations, requests, schedule, budget, scrape selectors). */
export function promqlFields(plan: Plan): { path: PathSegment[]; query: string }[] {
  const out: { path: PathSegment[]; query: string }[] = [];
  const h = plan.hypothesis;
  if (h.requests?.prometheus !== undefined)
    out.push({ path: ['hypothesis', 'requests', 'prometheus'], query: h.requests.prometheus });
  const sourced = (
    base: PathSegment[],
    s: { prometheus?: string | undefined; scrape?: Plan['hypothesis']['slis'][number]['scrape'] },
  ) => {
    if (s.prometheus !== undefined) out.push({ path: [...base, 'prometheus'], query: s.prometheus });
    const scrape = s.scrape;
    if (scrape) {
      const sel = (p: PathSegment[], q: string | undefined) => {
        if (q !== undefined) out.push({ path: [...base, 'scrape', ...p], query: q });
      };
      sel(['ratio', 'numerator'], scrape.ratio?.numerator);
      sel(['ratio', 'denominator'], scrape.ratio?.denominator);
      sel(['increase'], scrape.increase);
      sel(['rate'], scrape.rate);
      sel(['quantile', 'histogram'], scrape.quantile?.histogram);
      sel(['gauge'], scrape.gauge);
    }
  };
  if (h.requests) sourced(['hypothesis', 'requests'], { scrape: h.requests.scrape });
  h.slis.forEach((s, i) => sourced(['hypothesis', 'slis', i], s));
  h.expect.forEach((e, i) => sourced(['hypothesis', 'expect', i], e));
  if (plan.schedule.incidents?.prometheus !== undefined) {
    out.push({ path: ['schedule', 'incidents', 'prometheus'], query: plan.schedule.incidents.prometheus });
  }
  if (plan.budget) {
    for (const part of ['errors', 'total'] as const) {
      const q = plan.budget[part]?.prometheus;
      if (q !== undefined) out.push({ path: ['budget', part, 'prometheus'], query: q });
    }
  }
  return out;
}

/** Offsets of PromQL syntax errors in a query (empty when it parses). */
export function promqlSyntaxErrors(query: string): number[] {
  const offsets: number[] = [];
  // `$window` is chaos-gate's placeholder for the tick's window (metrics/prometheus substitutes it);
  // parse with a same-length duration so error offsets still point into the query as written.
  const parsable = query.replace(/\$window\b/g, '99999ms');
  promqlParser.parse(parsable).iterate({
    enter: (node) => {
      if (node.type.isError) offsets.push(node.from);
    },
  });
  return offsets;
}

/** Every PromQL string parses; the refusal points at the first error (line and column, or character). */
export function checkPromql(plan: Plan, add: Add): void {
  for (const { path, query } of promqlFields(plan)) {
    const errors = promqlSyntaxErrors(query);
    const first = errors[0];
    if (first === undefined) continue;
    const before = query.slice(0, first);
    const line = before.split('\n').length;
    const column = first - before.lastIndexOf('\n');
    const near = query.slice(first, first + 20).split('\n')[0] ?? '';
    const quoted = query.length > MAX_QUOTED_QUERY ? `${query.slice(0, MAX_QUOTED_QUERY - 1)}…` : query;
    const where = query.includes('\n')
      ? `line ${line}, column ${column} of the query`
      : `character ${first + 1}`;
    add(
      'promql-syntax',
      path,
      query,
      'valid PromQL',
      `PromQL does not parse at ${where}${near ? ` (near '${near}')` : ' (unexpected end)'}: ${JSON.stringify(quoted.trim())}`,
    );
  }
}

/** The resolution AWS service metrics are published at unless listed in {@link AWS_SUB_MINUTE_NAMESPACES}. */
export const AWS_STANDARD_RESOLUTION_MS = 60_000;

/**
 * The AWS namespaces that AWS documents as publishing below a minute, with the finest period they
 * reach. Everything else under `AWS/` is standard resolution (one datapoint a minute, some services
 * coarser still, e.g. EC2 without detailed monitoring at 5 minutes — which no plan can know).
 */
export const AWS_SUB_MINUTE_NAMESPACES: Readonly<Record<string, number>> = {
  // SageMaker endpoints: ConcurrentRequestsPerModel/PerCopy are high-resolution metrics, and
  // MetricsConfig.MetricPublishFrequencyInSeconds can publish invocation metrics every 10 or 30 s.
  'AWS/SageMaker': 10_000,
  // CloudWatch Network Monitor: a monitor's aggregationPeriod is 30 or 60 s.
  'AWS/NetworkMonitor': 30_000,
};

/**
 * The finest period a namespace can be read at, where that is knowable from the name alone: AWS
 * namespaces publish at a documented resolution; custom namespaces may be high-resolution (1 s), so
 * nothing is known about them.
 */
export function knownResolutionMs(namespace: string): number | undefined {
  if (!namespace.startsWith('AWS/')) return undefined;
  return AWS_SUB_MINUTE_NAMESPACES[namespace] ?? AWS_STANDARD_RESOLUTION_MS;
}

/** Every CloudWatch source in a plan with its field path (SLIs, expectations, requests, budget). */
export function cloudwatchFields(plan: Plan): { path: PathSegment[]; spec: CloudWatchSource }[] {
  const out: { path: PathSegment[]; spec: CloudWatchSource }[] = [];
  const h = plan.hypothesis;
  const take = (base: PathSegment[], spec: CloudWatchSource | undefined) => {
    if (spec) out.push({ path: [...base, 'cloudwatch'], spec });
  };
  take(['hypothesis', 'requests'], h.requests?.cloudwatch);
  h.slis.forEach((s, i) => take(['hypothesis', 'slis', i], s.cloudwatch));
  h.expect.forEach((e, i) => take(['hypothesis', 'expect', i], e.cloudwatch));
  if (plan.budget) {
    for (const part of ['errors', 'total'] as const) take(['budget', part], plan.budget[part]?.cloudwatch);
  }
  return out;
}

/**
 * A period shorter than the metric's resolution never holds a whole measurement: CloudWatch has one
 * datapoint per resolution step, so most such periods are empty (no-data) and the rest carry a whole
 * step's figure as if it were the period's. Refused where the resolution is known (AWS namespaces).
 */
export function checkCloudWatchPeriods(plan: Plan, add: Add): void {
  for (const { path, spec } of cloudwatchFields(plan)) {
    const namespaces =
      'expression' in spec ? Object.values(spec.metrics).map((m) => m.namespace) : [spec.namespace];
    let coarsest: { namespace: string; ms: number } | undefined;
    for (const namespace of namespaces) {
      const ms = knownResolutionMs(namespace);
      if (ms !== undefined && (!coarsest || ms > coarsest.ms)) coarsest = { namespace, ms };
    }
    if (!coarsest || spec.period >= coarsest.ms) continue;
    const period = formatDuration(spec.period);
    const resolution = formatDuration(coarsest.ms);
    const standard = coarsest.ms === AWS_STANDARD_RESOLUTION_MS ? 'standard resolution, ' : '';
    add(
      'cloudwatch-period-below-resolution',
      [...path, 'period'],
      period,
      resolution,
      `period ${period} is finer than ${coarsest.namespace} publishes: ${standard}at most one datapoint per ${resolution}, so a ${period} period never holds a whole measurement; expected ${resolution} or longer`,
    );
  }
}
